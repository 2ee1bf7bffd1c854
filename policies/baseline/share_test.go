package baseline_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

func weighted(j traces.Job, w float64) traces.Job { j.Weight = w; return j }

func queued(j traces.Job, q string) traces.Job { j.Queue = q; return j }

// ghodsi is the DRF paper's example: 9 CPUs and 18 GB; job A's tasks need <1 CPU, 4 GB>, job B's
// <3 CPUs, 1 GB>.
var (
	ghodsiCap = []traces.Vec{vec(9, 18)}
	ghodsiA   = stage(10, vec(1, 4))
	ghodsiB   = stage(10, vec(3, 1))
)

func TestSharingOrders(t *testing.T) {
	six := []traces.Vec{slots(6)}
	runPlanCases(t, []planCase{
		{
			name:    "drf gives job A three tasks and job B two in Ghodsi's example",
			factory: baseline.NewDRF, caps: ghodsiCap,
			jobs: []traces.Job{one(0, ghodsiA), one(0, ghodsiB)},
			// Dominant shares after each start: A 2/9, B 1/3, A 4/9, B 2/3, A 2/3; then A is
			// next (tie, lower JobID) and its task needs a CPU that is not left.
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "drf with backfill ends Ghodsi's example the same way",
			factory: baseline.NewDRF, caps: ghodsiCap, opts: policies.Options{Backfill: true},
			jobs:   []traces.Job{one(0, ghodsiA), one(0, ghodsiB)},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "drf divides dominant shares by job weight",
			factory: baseline.NewDRF, caps: []traces.Vec{vec(3, 3)},
			// Weight 2 for B: A 1/3, B (1/3)/2, B (2/3)/2 = 1/3 tie → A (lower JobID) is blocked.
			jobs:   []traces.Job{one(0, stage(3, vec(1, 0))), weighted(one(0, stage(3, vec(0, 1))), 2)},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 2), start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "drf shares between queues with jobs inside a queue in FIFO order",
			factory: baseline.NewDRF, caps: ghodsiCap, opts: policies.Options{Level: baseline.LevelQueue},
			jobs: []traces.Job{
				queued(one(0, stage(2, vec(1, 4))), "x"),
				queued(one(1, ghodsiA), "x"),
				queued(one(2, ghodsiB), "y"),
			},
			// Queue x's first job takes x's first two tasks, then its second job continues.
			starts: []policies.Start{start(0, 0, 0, 1), start(2, 0, 0, 1), start(0, 0, 0, 1), start(2, 0, 0, 1), start(1, 0, 0, 1)},
		},
		{
			name:    "fair splits slots 2:1 between jobs weighted 2 and 1",
			factory: baseline.NewFair, caps: six,
			jobs:   []traces.Job{weighted(one(0, stage(9, slots(1))), 2), one(1, stage(9, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 2), start(1, 0, 0, 1), start(0, 0, 0, 1)},
		},
		{
			name:    "fair counts running tasks, not their size",
			factory: baseline.NewFair, caps: []traces.Vec{slots(9)},
			jobs: []traces.Job{one(0, stage(9, slots(3))), one(1, stage(9, slots(1)))},
			// A 1, B 1, A 2 (7 used), B 2 (8 used); A is next and blocked.
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1), start(1, 0, 0, 1)},
		},
		{
			name:    "fair with backfill lets small tasks use what a blocked job cannot",
			factory: baseline.NewFair, caps: []traces.Vec{slots(9)}, opts: policies.Options{Backfill: true},
			jobs:   []traces.Job{one(0, stage(9, slots(3))), one(1, stage(9, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 1), start(1, 0, 0, 2)},
		},
		{
			name:    "fair shares between queues by the weights parameter",
			factory: baseline.NewFair, caps: []traces.Vec{slots(8)},
			opts: policies.Options{Level: baseline.LevelQueue, Params: map[string]any{"weights": map[string]any{"x": 3}}},
			jobs: []traces.Job{
				queued(one(0, stage(9, slots(1))), "x"),
				queued(one(1, stage(9, slots(1))), "y"),
				queued(one(2, stage(9, slots(1))), "y"),
			},
			// x (weight 3) and y alternate by running/weight: x 1/3, y 1, x 2/3, x 1, x 4/3
			// (tie at 1 → queue x), y 2, x 5/3, x 2. Queue y runs its first job only.
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1), start(0, 0, 0, 3), start(1, 0, 0, 1), start(0, 0, 0, 2)},
		},
		{
			name:    "fair spreads one task at a time over machines by first fit",
			factory: baseline.NewFair, caps: []traces.Vec{slots(1), slots(2)},
			jobs:   []traces.Job{one(0, stage(9, slots(1))), one(1, stage(9, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 1, 1), start(0, 0, 1, 1)},
		},
	})
}

func TestFairRebalancesAsJobsArriveAndFinish(t *testing.T) {
	f := policytest.New(slots(4))
	a := add(t, f, one(0, stage(8, slots(1))))
	b := add(t, f, one(10, stage(8, slots(1))))
	pol := newPolicy(t, baseline.NewFair, policies.Options{})
	if err := f.Advance(0); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 4)}, nil)
	// Job B arrives; nothing is free, so nothing starts.
	if err := f.Advance(10); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), nil, nil)
	// Two of A's tasks finish: A runs 2, B 0, so both slots go to B.
	if err := f.Finish(a, 0, 2); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(b, 0, 0, 2)}, nil)
	// One more of A's and one of B's finish: A 1, B 1 → A (tie, lower JobID), then B.
	if err := f.Finish(a, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(b, 0, 1); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 1), start(b, 0, 0, 1)}, nil)
}

func TestDRFCountsExistingAllocations(t *testing.T) {
	f := policytest.New(vec(9, 18))
	a := add(t, f, one(0, ghodsiA))
	b := add(t, f, one(5, ghodsiB))
	pol := newPolicy(t, baseline.NewDRF, policies.Options{})
	if err := f.Advance(0); err != nil {
		t.Fatal(err)
	}
	// Alone, job A takes what memory allows: 4 tasks, 16 of 18 GB.
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 4)}, nil)
	// Job B arrives with share 0 < 16/18: it takes one task (3 of the 5 free CPUs) and then,
	// still the lowest share, is blocked for lack of CPUs.
	if err := f.Advance(5); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(b, 0, 0, 1)}, nil)
	// Two of A's tasks finish: A 8/18 > B 1/3, so B goes first (to 2/3), then A (to 12/18);
	// A and B tie at 2/3, A comes first and is blocked.
	if err := f.Finish(a, 0, 2); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(b, 0, 0, 1), start(a, 0, 0, 1)}, nil)
}
