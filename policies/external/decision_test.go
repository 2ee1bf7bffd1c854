package external_test

import (
	"testing"
)

// TestMeasuredDecisionTimeUsesTheCallWallTime: in engine.decision_time: measured mode an external
// scheduler's calls are charged their wall time as the external policy measured it (scaled), and
// the run says it is not deterministic.
func TestMeasuredDecisionTimeUsesTheCallWallTime(t *testing.T) {
	py := python(t)
	_, o, err := run(t, tiny(), "policy.name=external", "policy.params.command="+py+" "+script(t, "baseline.py")+" fifo",
		"engine.decision_time=measured", "engine.decision_time_scale=10")
	if err != nil {
		t.Fatal(err)
	}
	dt := o.Engine.DecisionTime
	if o.Engine.SchedulingCalls == 0 || dt == nil || dt.Mode != "measured" {
		t.Fatalf("%d calls, decision record %+v", o.Engine.SchedulingCalls, dt)
	}
	// Every call takes at least its transport's wall time, tens of microseconds: × 10 per call.
	if min := 10e-6 * float64(o.Engine.SchedulingCalls); dt.ChargedS < min {
		t.Errorf("charged %g s over %d calls, want at least %g", dt.ChargedS, o.Engine.SchedulingCalls, min)
	}
	if p := o.Provenance(); p.Deterministic || p.NondeterministicWhy == "" {
		t.Errorf("provenance %+v, want deterministic false with a reason", p)
	}
}
