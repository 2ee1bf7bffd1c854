package canonical

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// fuzzSeedWorkload is a small workload using every column: two jobs, a DAG, task durations, a
// placement constraint and a utility.
func fuzzSeedWorkload() *traces.Workload {
	return &traces.Workload{Name: "fuzz", Dims: []string{"cpu"}, Cluster: traces.Uniform(2, traces.VecOf(1), 0), Jobs: []traces.Job{
		{ID: 1, Submit: 1, Features: traces.Features{User: "u"}, Stages: []traces.Stage{{Name: "a", Tasks: 2, Demand: traces.VecOf(0.5), Duration: 3, TaskDurations: []traces.Time{3, 4}}, {Name: "b", Tasks: 1, Demand: traces.VecOf(1), Duration: 2, Parents: []int32{0}}}},
		{ID: 2, Submit: 5, Placement: traces.Placement{Kind: traces.PlacementRack, Slowdown: 1.5}, Utility: &traces.Utility{Kind: traces.UtilityLinear, Priority: 1, Slope: -1, Target: 9}, Stages: []traces.Stage{{Name: "c", Tasks: 1, Demand: traces.VecOf(0.25), Duration: 1}}},
	}}
}

// FuzzRead feeds arbitrary bytes to Read as a canonical file: it must return a workload or an
// error naming the file, never panic.
func FuzzRead(f *testing.F) {
	w := fuzzSeedWorkload()
	dir := f.TempDir()
	for _, ext := range []string{".arrow", ".parquet"} {
		p := filepath.Join(dir, "seed"+ext)
		if err := Write(p, w); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in.bin")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err != nil && (!strings.HasPrefix(err.Error(), "canonical: ") || !strings.Contains(err.Error(), p)) {
			t.Fatalf("error without package prefix or file name: %v", err)
		}
	})
}
