package experiments

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCORARunIsDeterministic: the utility-driven policies on the CORA workload give
// byte-identical jobs.parquet and identical metrics (the policy's own included) at GOMAXPROCS 1
// and 2; only the per-event tables' wall times may differ.
func TestCORARunIsDeterministic(t *testing.T) {
	for _, sets := range [][]string{
		{"policy.name=cora", "policy.params.shadow=true"},
		{"policy.name=rrh"},
	} {
		t.Run(sets[0], func(t *testing.T) {
			var parquet [][]byte
			var metrics []string
			for i, procs := range []int{1, 2} {
				old := runtime.GOMAXPROCS(procs)
				c := resolve(t, append([]string{"workload.generator=cora", "workload.cora.jobs=30", "seed=4"}, sets...)...)
				o, err := Run(c)
				runtime.GOMAXPROCS(old)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(t.TempDir(), string(rune('a'+i)))
				if err := o.WriteOutputs(dir); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, JobsFile))
				if err != nil {
					t.Fatal(err)
				}
				parquet = append(parquet, b)
				var doc SummaryDoc
				raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatal(err)
				}
				m, _ := json.Marshal(doc.Metrics)
				metrics = append(metrics, string(m))
				if doc.Metrics.TimedUtility.Jobs == 0 {
					t.Fatalf("no time-sensitive utilities in %s", raw)
				}
			}
			if !bytes.Equal(parquet[0], parquet[1]) {
				t.Error("jobs.parquet differs between GOMAXPROCS=1 and 2")
			}
			if metrics[0] != metrics[1] {
				t.Errorf("metrics differ:\n%s\n%s", metrics[0], metrics[1])
			}
		})
	}
}
