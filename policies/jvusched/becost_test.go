package jvusched

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ (and milp/testdata/becost-*.problem)")

// TestBECostVariants is the kill decision under each best-effort cost model, checked against
// the cost computed here by hand: a best-effort gang of 3 tasks starts at 0 for 100 s; an SLO
// gang of 2 (20 s, deadline 35 s, worth slo_value) arrives at 10 s and fits only if the gang is
// killed. The MILP kills iff slo_value > c(10 s) + ε, where c = 1 (be_value=job) or 3 (node),
// plus be_kill_growth × 3 tasks × 10 s in node-hours. Each variant's kill cycle's problem is a
// golden file of the milp package, whose brute-force test solves it independently.
func TestBECostVariants(t *testing.T) {
	solvertest.Need(t)
	for _, tt := range []struct {
		name   string
		params map[string]any
		base   float64
		growth float64
	}{
		{"job", map[string]any{}, 1, 0},
		{"node", map[string]any{"be_value": "node"}, 3, 0},
		{"growth100", map[string]any{"be_kill_growth": 100}, 1, 100},
		{"growth200", map[string]any{"be_kill_growth": 200}, 1, 200},
		{"node-growth", map[string]any{"be_value": "node", "be_kill_growth": 10}, 3, 10},
	} {
		for _, sloValue := range []float64{2, 2.5, 4} {
			name := fmt.Sprintf("%s/slo=%g", tt.name, sloValue)
			t.Run(name, func(t *testing.T) {
				w := &traces.Workload{Cluster: cluster4(), Dims: []string{"cpu", "mem"}, Jobs: []traces.Job{
					gang(0, 3, 100*sec, 100*sec),
					slo(gang(10*sec, 2, 20*sec, 20*sec), 35*sec),
				}}
				for i := range w.Jobs {
					w.Jobs[i].ID = int64(i)
				}
				params := map[string]any{"slo_value": sloValue}
				for k, v := range tt.params {
					params[k] = v
				}
				dir := t.TempDir()
				pol, err := New(policies.Options{Params: params, DumpModels: dir})
				if err != nil {
					t.Fatal(err)
				}
				e, err := replay.New(w, pol, replay.Config{Cycle: 5 * sec})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run()
				if err != nil {
					t.Fatal(err)
				}
				cost := tt.base + tt.growth*3*10.0/3600 + 0.01
				wantKill := sloValue > cost
				killed := res.Jobs[0].Preemptions > 0
				if killed != wantKill {
					t.Fatalf("c(10 s) + ε = %g, slo_value %g: killed %v, want %v", cost, sloValue, killed, wantKill)
				}
				if killed != (res.Jobs[1].Finish <= 35*sec) {
					t.Errorf("killed %v but SLO job finished at %d", killed, res.Jobs[1].Finish)
				}
				// The first problem with a kill term (the cycle at 10 s) carries the cost.
				files, _ := filepath.Glob(filepath.Join(dir, "*.problem"))
				var b []byte
				for _, f := range files {
					if b, err = os.ReadFile(f); err != nil {
						t.Fatal(err)
					}
					if strings.Contains(string(b), "killnck") {
						break
					}
					b = nil
				}
				if b == nil {
					t.Fatalf("no problem with a kill term among %d", len(files))
				}
				if sloValue == 2.5 {
					golden := filepath.Join("milp", "testdata", "becost-"+tt.name+".problem")
					testutil.Golden(t, golden, b, *update)
				}
			})
		}
	}
}
