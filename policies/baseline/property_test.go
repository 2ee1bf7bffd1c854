package baseline_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// runPreemptive replays a random workload under preemptive sp and returns every plan. It fails
// the test if a plan is rejected, if a task is preempted while no job of a strictly higher
// class has pending tasks, or if the jobs do not all finish.
func runPreemptive(t *testing.T, seed uint64, backfill bool) []policies.Plan {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	caps, jobs := randomWorkload(rng)
	f := policytest.New(caps...)
	f.PreemptDelay = traces.Time(rng.IntN(12))
	f.HideMachineChanges = seed%2 == 1
	for _, j := range jobs {
		add(t, f, j)
	}
	order := []string{"slo", "be", "batch"}
	rank := func(j policies.JobID) int {
		if i := slices.Index(order, f.Job(j).Class); i >= 0 {
			return i
		}
		return len(order)
	}
	pol := newPolicy(t, baseline.NewSP, preemptible(backfill, order...))
	var plans []policies.Plan
	for now := traces.Time(0); now < 20000 && (now < 50 || len(f.Active()) > 0); now += 5 {
		if err := f.Advance(now); err != nil {
			t.Fatal(err)
		}
		best := len(order) + 1
		for _, j := range f.Active() {
			if f.JobState(j).Pending > 0 {
				best = min(best, rank(j))
			}
		}
		p, err := f.Step(pol)
		if err != nil {
			t.Fatalf("seed %d, t=%d: %v\n%s", seed, now, err, fmtPlan(p))
		}
		for _, r := range p.Preempts {
			if rank(r.Job) <= best {
				t.Fatalf("seed %d, t=%d: preempted job %d of class rank %d while the best waiting rank was %d",
					seed, now, r.Job, rank(r.Job), best)
			}
		}
		plans = append(plans, p)
		finishSome(t, f, rng)
	}
	if n := len(f.Active()); n != 0 {
		t.Fatalf("seed %d: %d jobs never finished", seed, n)
	}
	return plans
}

func TestPreemptiveStrictPriorityOnRandomWorkloads(t *testing.T) {
	for _, backfill := range []bool{false, true} {
		t.Run(fmt.Sprintf("sp with preemption and backfill=%t keeps plans valid, spares higher classes and finishes every job", backfill), func(t *testing.T) {
			preempted := 0
			for seed := range uint64(150) {
				for _, p := range runPreemptive(t, seed, backfill) {
					preempted += len(p.Preempts)
				}
			}
			t.Logf("%d preemptions", preempted)
			if preempted == 0 {
				t.Fatalf("no seed exercised preemption")
			}
		})
	}
}

func TestReplaysAreDeterministic(t *testing.T) {
	for _, seed := range []uint64{3, 17, 42} {
		t.Run(fmt.Sprintf("replaying seed %d twice gives identical plans", seed), func(t *testing.T) {
			a := runPreemptive(t, seed, true)
			b := runPreemptive(t, seed, true)
			if len(a) != len(b) {
				t.Fatalf("%d plans vs %d", len(a), len(b))
			}
			for i := range a {
				if !slices.Equal(a[i].Starts, b[i].Starts) || !slices.Equal(a[i].Preempts, b[i].Preempts) {
					t.Fatalf("plan %d differs:\n%s\n%s", i, fmtPlan(a[i]), fmtPlan(b[i]))
				}
			}
		})
	}
}
