package builtin
import "testing"
func TestLoadAll(t *testing.T) {
	for _, n := range Names() {
		w, err := Load(n)
		if err != nil { t.Fatal(err) }
		t.Logf("%s: %d jobs %d tasks machines=%d dims=%v", n, len(w.Jobs), w.Tasks(), len(w.Cluster.Machines), w.Dims)
	}
}
