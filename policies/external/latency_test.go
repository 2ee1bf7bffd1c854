package external_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies/external"
)

// TestSummaryRecordsCallLatency: an external run's summary.json engine section carries the
// calls' wall-time summary (median, p99, max); a built-in policy's has none.
func TestSummaryRecordsCallLatency(t *testing.T) {
	_, o, err := run(t, nil, "policy.name=external", "policy.params.command="+childArgv("fifo"), "workload.pooled=true", "engine.horizon_s=2000")
	if err != nil {
		t.Fatal(err)
	}
	l, ok := o.Engine.PolicyCalls.(external.Latency)
	if !ok {
		t.Fatalf("engine.policy_calls = %#v, want an external.Latency", o.Engine.PolicyCalls)
	}
	if l.Calls == 0 || int64(l.Calls) != o.Engine.SchedulingCalls || !(l.MedianUS > 0 && l.MedianUS <= l.P99US && l.P99US <= l.MaxUS) {
		t.Errorf("latency %+v over %d scheduling calls", l, o.Engine.SchedulingCalls)
	}
	_, o, err = run(t, nil, "policy.name=fifo", "workload.pooled=true", "engine.horizon_s=2000")
	if err != nil {
		t.Fatal(err)
	}
	if o.Engine.PolicyCalls != nil {
		t.Errorf("fifo's engine.policy_calls = %#v, want none", o.Engine.PolicyCalls)
	}
}
