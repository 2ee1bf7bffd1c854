package jobwork_test

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// TestRemaining: waiting tasks count their whole estimate (runnable or behind a locked stage),
// running ones the estimate less the time they have run (never below 0), finished ones nothing;
// each dimension weighs by the stage's demand.
func TestRemaining(t *testing.T) {
	f := policytest.New(traces.VecOf(4, 8))
	u := &traces.Utility{Kind: traces.UtilitySigmoid, Priority: 2, Decay: 1, Target: 100 * traces.Second}
	_, err := f.AddJob(traces.Job{ID: 1, Name: "j", Queue: "q", Submit: 0, Utility: u, Stages: []traces.Stage{
		{Name: "map", Tasks: 3, Demand: traces.VecOf(1, 2), Duration: 10 * traces.Second, Estimate: 10 * traces.Second},
		{Name: "reduce", Tasks: 2, Demand: traces.VecOf(0.5, 0), Duration: 4 * traces.Second, Estimate: 4 * traces.Second, Parents: []int32{0}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	f.Advance(0)
	check := func(when string, cpu, mem float64) {
		t.Helper()
		jw := jobwork.Remaining(f, 0)
		if math.Abs(jw.Work[0]-cpu) > 1e-9 || math.Abs(jw.Work[1]-mem) > 1e-9 || jw.Utility != u {
			t.Errorf("%s: work %v, want cpu %v mem %v", when, jw.Work[:2], cpu, mem)
		}
	}
	check("nothing started", 3*10*1+2*4*0.5, 3*10*2)
	p := policies.Plan{Starts: []policies.Start{{Job: 0, Stage: 0, Count: 2}}}
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	f.Advance(3 * traces.Second)
	// Two maps have 7 s left each, one waits (10 s), the reduces wait (2 × 4 s × 0.5).
	check("two maps running 3 s", 2*7+10+4, (2*7+10)*2)
	f.Advance(12 * traces.Second)
	check("running past their estimate", 10+4, 10*2)
	if s := (&jobwork.Job{Work: [traces.MaxDims]float64{20, 40}}).Seconds(traces.VecOf(4, 8)); s != 5 {
		t.Errorf("Seconds = %v, want 5 (20 cpu-s on 4 cpus, 40 mem-s on 8)", s)
	}
}
