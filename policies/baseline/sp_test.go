package baseline_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

func classed(j traces.Job, class string) traces.Job { j.Class = class; return j }

func prioritized(j traces.Job, p int) traces.Job { j.Priority = p; return j }

var sloFirst = policies.Options{ClassOrder: []string{"slo", "be"}}

func TestStrictPriorityOrder(t *testing.T) {
	pool4 := []traces.Vec{slots(4)}
	runPlanCases(t, []planCase{
		{
			name:    "sp runs a higher class before a lower one submitted earlier",
			factory: baseline.NewSP, caps: pool4, opts: sloFirst,
			jobs:   []traces.Job{classed(one(0, stage(3, slots(1))), "be"), classed(one(1, stage(3, slots(1))), "slo")},
			starts: []policies.Start{start(1, 0, 0, 3), start(0, 0, 0, 1)},
		},
		{
			name:    "sp shares a class by drf",
			factory: baseline.NewSP, caps: ghodsiCap, opts: sloFirst,
			jobs: []traces.Job{
				classed(one(0, stage(9, vec(0.1, 0.1))), "be"),
				classed(one(1, ghodsiA), "slo"),
				classed(one(1, ghodsiB), "slo"),
			},
			starts: []policies.Start{start(1, 0, 0, 1), start(2, 0, 0, 1), start(1, 0, 0, 1), start(2, 0, 0, 1), start(1, 0, 0, 1)},
		},
		{
			name:    "sp ranks classes missing from the class order after every listed class",
			factory: baseline.NewSP, caps: pool4, opts: policies.Options{ClassOrder: []string{"slo"}},
			jobs: []traces.Job{
				classed(one(0, stage(2, slots(1))), "batch"),
				classed(one(1, stage(2, slots(1))), ""),
				classed(one(2, stage(1, slots(1))), "slo"),
			},
			// The unlisted classes form one class shared by drf: batch, then "" (tie → JobID).
			starts: []policies.Start{start(2, 0, 0, 1), start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "sp without a class order runs higher priorities first",
			factory: baseline.NewSP, caps: pool4,
			jobs: []traces.Job{
				prioritized(one(0, stage(3, slots(1))), 1),
				prioritized(one(1, stage(3, slots(1))), 5),
			},
			starts: []policies.Start{start(1, 0, 0, 3), start(0, 0, 0, 1)},
		},
		{
			name:    "sp lets a blocked higher class block the lower classes",
			factory: baseline.NewSP, caps: pool4, opts: sloFirst,
			jobs:   []traces.Job{classed(one(0, stage(3, slots(1))), "be"), classed(one(1, stage(2, slots(3))), "slo")},
			starts: []policies.Start{start(1, 0, 0, 1)},
		},
		{
			name:    "sp with backfill lets lower classes use what a blocked class cannot",
			factory: baseline.NewSP, caps: pool4, opts: policies.Options{ClassOrder: sloFirst.ClassOrder, Backfill: true},
			jobs:   []traces.Job{classed(one(0, stage(3, slots(1))), "be"), classed(one(1, stage(2, slots(3))), "slo")},
			starts: []policies.Start{start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "sp shares between queues of one class at queue level",
			factory: baseline.NewSP, caps: pool4,
			opts: policies.Options{ClassOrder: sloFirst.ClassOrder, Level: baseline.LevelQueue},
			jobs: []traces.Job{
				queued(classed(one(0, stage(4, slots(1))), "slo"), "a"),
				queued(classed(one(1, stage(4, slots(1))), "slo"), "a"),
				queued(classed(one(2, stage(4, slots(1))), "slo"), "b"),
				queued(classed(one(3, stage(4, slots(1))), "be"), "c"),
			},
			starts: []policies.Start{start(0, 0, 0, 1), start(2, 0, 0, 1), start(0, 0, 0, 1), start(2, 0, 0, 1)},
		},
	})
}

// preemptible returns sp options with preemption on.
func preemptible(backfill bool, order ...string) policies.Options {
	return policies.Options{ClassOrder: order, Backfill: backfill, Params: map[string]any{"preempt": true}}
}

// arriveAndStep admits jobs submitted up to t and takes one scheduling step.
func arriveAndStep(t *testing.T, f *policytest.Fake, pol policies.Policy, at traces.Time) policies.Plan {
	t.Helper()
	if err := f.Advance(at); err != nil {
		t.Fatal(err)
	}
	return step(t, f, pol)
}

func TestStrictPriorityPreemption(t *testing.T) {
	t.Run("sp preempts the most recently started lower-class tasks, just enough, and waits for the release", func(t *testing.T) {
		f := policytest.New(slots(4))
		f.PreemptDelay = 5
		be1 := add(t, f, classed(one(0, stage(2, slots(1))), "be"))
		be2 := add(t, f, classed(one(10, stage(2, slots(1))), "be"))
		slo := add(t, f, classed(one(20, stage(1, slots(2))), "slo"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(be1, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 10), []policies.Start{start(be2, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 20), nil, []policies.TaskRef{preempt(be2, 0, 1), preempt(be2, 0, 0)})
		// Before the release nothing changes: no second round of preemption, and the
		// preempted tasks (pending again) do not start.
		wantPlan(t, arriveAndStep(t, f, pol, 22), nil, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 25), []policies.Start{start(slo, 0, 0, 1)}, nil)
		// When the high-priority task finishes, the preempted tasks run again.
		if err := f.Finish(slo, 0, 1); err != nil {
			t.Fatal(err)
		}
		wantPlan(t, step(t, f, pol), []policies.Start{start(be2, 0, 0, 2)}, nil)
	})

	t.Run("sp preempts the lowest class first even when a middle class started later", func(t *testing.T) {
		f := policytest.New(slots(4))
		lo := add(t, f, classed(one(0, stage(2, slots(1))), "lo"))
		add(t, f, classed(one(10, stage(2, slots(1))), "mid"))
		hi := add(t, f, classed(one(20, stage(1, slots(1))), "hi"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "hi", "mid", "lo"))
		arriveAndStep(t, f, pol, 0)
		arriveAndStep(t, f, pol, 10)
		wantPlan(t, arriveAndStep(t, f, pol, 20), nil, []policies.TaskRef{preempt(lo, 0, 1)})
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(hi, 0, 0, 1)}, nil)
	})

	t.Run("sp counts a machine's free capacity and preempts only on the machine it clears", func(t *testing.T) {
		f := policytest.New(slots(2), slots(2))
		be1 := add(t, f, classed(one(0, stage(2, slots(1))), "be"))
		be2 := add(t, f, classed(one(5, stage(1, slots(1))), "be"))
		slo := add(t, f, classed(one(10, stage(1, slots(2))), "slo"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(be1, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 5), []policies.Start{start(be2, 0, 1, 1)}, nil)
		// be2's task on machine 1 is the most recent; with machine 1's free slot it clears room.
		wantPlan(t, arriveAndStep(t, f, pol, 10), nil, []policies.TaskRef{preempt(be2, 0, 0)})
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(slo, 0, 1, 1)}, nil)
	})

	t.Run("sp tallies victims per machine and skips machines that cannot be cleared", func(t *testing.T) {
		f := policytest.New(slots(2), slots(3))
		be1 := add(t, f, classed(one(0, stage(2, slots(1))), "be"))
		be2 := add(t, f, classed(one(5, stage(3, slots(1))), "be"))
		slo := add(t, f, classed(one(10, stage(1, slots(3))), "slo"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(be1, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 5), []policies.Start{start(be2, 0, 1, 3)}, nil)
		// Machine 0 (capacity 2) can never fit the task; machine 1 needs all three of be2's.
		wantPlan(t, arriveAndStep(t, f, pol, 10), nil,
			[]policies.TaskRef{preempt(be2, 0, 2), preempt(be2, 0, 1), preempt(be2, 0, 0)})
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(slo, 0, 1, 1)}, nil)
	})

	t.Run("sp never preempts a task of an equal class", func(t *testing.T) {
		f := policytest.New(slots(2))
		f1 := add(t, f, classed(one(0, stage(2, slots(1))), "slo"))
		add(t, f, classed(one(5, stage(1, slots(1))), "slo"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(f1, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 5), nil, nil)
	})

	t.Run("sp never preempts a task of a higher class", func(t *testing.T) {
		f := policytest.New(slots(2))
		hi := add(t, f, classed(one(0, stage(2, slots(1))), "slo"))
		add(t, f, classed(one(5, stage(1, slots(1))), "be"))
		pol := newPolicy(t, baseline.NewSP, preemptible(false, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(hi, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 5), nil, nil)
	})

	t.Run("sp without a class order preempts lower priorities", func(t *testing.T) {
		f := policytest.New(slots(2))
		low := add(t, f, prioritized(one(0, stage(2, slots(1))), 1))
		high := add(t, f, prioritized(one(5, stage(1, slots(1))), 9))
		pol := newPolicy(t, baseline.NewSP, preemptible(false))
		arriveAndStep(t, f, pol, 0)
		wantPlan(t, arriveAndStep(t, f, pol, 5), nil, []policies.TaskRef{preempt(low, 0, 1)})
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(high, 0, 0, 1)}, nil)
	})

	t.Run("sp does not preempt unless the preempt parameter is set", func(t *testing.T) {
		f := policytest.New(slots(2))
		be := add(t, f, classed(one(0, stage(2, slots(1))), "be"))
		add(t, f, classed(one(5, stage(1, slots(1))), "slo"))
		pol := newPolicy(t, baseline.NewSP, sloFirst)
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(be, 0, 0, 2)}, nil)
		wantPlan(t, arriveAndStep(t, f, pol, 5), nil, nil)
	})

	t.Run("sp with backfill keeps lower classes off the capacity held for a waiting job", func(t *testing.T) {
		f := policytest.New(slots(4))
		be1 := add(t, f, classed(one(0, stage(3, slots(1))), "be"))
		slo := add(t, f, classed(one(10, stage(1, slots(2))), "slo"))
		be3 := add(t, f, classed(one(10, stage(5, slots(1))), "be"))
		pol := newPolicy(t, baseline.NewSP, preemptible(true, "slo", "be"))
		wantPlan(t, arriveAndStep(t, f, pol, 0), []policies.Start{start(be1, 0, 0, 3)}, nil)
		// One slot is free: one preempted task makes two, and be3 may not take the free one.
		wantPlan(t, arriveAndStep(t, f, pol, 10), nil, []policies.TaskRef{preempt(be1, 0, 2)})
		wantPlan(t, step(t, f, pol), nil, nil)
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(slo, 0, 0, 1)}, nil)
		// Once the waiting job has run, its hold is gone: a finish frees a slot for be work,
		// which drf inside the class gives to be3 (nothing running) over be1.
		if err := f.Finish(be1, 0, 1); err != nil {
			t.Fatal(err)
		}
		wantPlan(t, step(t, f, pol), []policies.Start{start(be3, 0, 0, 1)}, nil)
	})

	t.Run("sp with backfill lets an equal class use capacity another job of its class waits for", func(t *testing.T) {
		f := policytest.New(slots(4))
		be := add(t, f, classed(one(0, stage(3, slots(1))), "be"))
		big := add(t, f, classed(one(10, stage(1, slots(2))), "slo"))
		small := add(t, f, classed(one(10, stage(1, slots(1))), "slo"))
		pol := newPolicy(t, baseline.NewSP, preemptible(true, "slo", "be"))
		arriveAndStep(t, f, pol, 0)
		// big is blocked and preempts one be task; small (same class) takes the free slot.
		wantPlan(t, arriveAndStep(t, f, pol, 10), []policies.Start{start(small, 0, 0, 1)},
			[]policies.TaskRef{preempt(be, 0, 2)})
		// After the release one slot is free, not the two big needs: its hold has run its
		// course, so it preempts again rather than wait forever.
		f.Release()
		wantPlan(t, step(t, f, pol), nil, []policies.TaskRef{preempt(be, 0, 1)})
		f.Release()
		wantPlan(t, step(t, f, pol), []policies.Start{start(big, 0, 0, 1)}, nil)
	})
}
