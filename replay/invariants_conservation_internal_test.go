//go:build invariants

package replay

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// TestConservationDetectsLeaks: a hold the engine did not decide (here one second of one core
// committed behind the engine's back) is reported when the run ends.
func TestConservationDetectsLeaks(t *testing.T) {
	w := &traces.Workload{Name: "w", Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 0),
		Jobs: []traces.Job{{Stages: []traces.Stage{{Name: "a", Tasks: 1, Duration: traces.Second, Estimate: traces.Second, Demand: traces.VecOf(1)}}}}}
	e, err := New(w, &scripted{at: map[traces.Time]*policies.Plan{0: {Starts: []policies.Start{{Count: 1}}}}, out: &strings.Builder{}}, Config{Holding: Holding{Release: traces.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatalf("a sound run: %v", err)
	}
	e.acct.commit(traces.VecOf(1), traces.Second)
	if err := e.checkConservation(); err == nil || !strings.Contains(err.Error(), "invariant: dimension 0: held") {
		t.Errorf("leak not reported: %v", err)
	}
}
