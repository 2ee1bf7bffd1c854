package baseline_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// planCase is one scheduling point: a cluster, admitted jobs, a policy and the exact plan.
type planCase struct {
	name     string
	factory  policies.Factory
	opts     policies.Options
	caps     []traces.Vec
	jobs     []traces.Job
	starts   []policies.Start
	preempts []policies.TaskRef
}

func runPlanCases(t *testing.T, tests []planCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, tt.caps, tt.jobs...)
			p := step(t, f, newPolicy(t, tt.factory, tt.opts))
			wantPlan(t, p, tt.starts, tt.preempts)
		})
	}
}

func one(submit traces.Time, stages ...traces.Stage) traces.Job {
	return traces.Job{Submit: submit, Stages: stages}
}

func withDeadline(j traces.Job, d traces.Time) traces.Job { j.Deadline = d; return j }

func TestStaticOrders(t *testing.T) {
	pool4 := []traces.Vec{slots(4)}
	runPlanCases(t, []planCase{
		{
			name:    "fifo gives the earliest job every task that fits before the next",
			factory: baseline.NewFIFO, caps: pool4,
			jobs:   []traces.Job{one(0, stage(3, slots(1))), one(1, stage(3, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 3), start(1, 0, 0, 1)},
		},
		{
			name:    "fifo breaks a tie in submit time by JobID",
			factory: baseline.NewFIFO, caps: pool4,
			jobs:   []traces.Job{one(5, stage(3, slots(1))), one(5, stage(3, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 3), start(1, 0, 0, 1)},
		},
		{
			name:    "fifo lets a head job whose task fits nowhere block the jobs behind it",
			factory: baseline.NewFIFO, caps: pool4,
			jobs:   []traces.Job{one(0, stage(2, slots(3))), one(1, stage(2, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1)},
		},
		{
			name:    "fifo with backfill sets the blocked head aside and fills the gap behind it",
			factory: baseline.NewFIFO, caps: pool4, opts: policies.Options{Backfill: true},
			jobs:   []traces.Job{one(0, stage(2, slots(3))), one(1, stage(2, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 1)},
		},
		{
			name:    "fifo passes over a stage that does not fit for the job's next runnable stage",
			factory: baseline.NewFIFO, caps: pool4,
			jobs:   []traces.Job{one(0, stage(2, slots(3)), stage(2, slots(1))), one(1, stage(1, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(0, 1, 0, 1)},
		},
		{
			name:    "fifo leaves a stage locked until its parents finish",
			factory: baseline.NewFIFO, caps: pool4,
			jobs:   []traces.Job{one(0, stage(1, slots(1)), stage(2, slots(1), 0)), one(1, stage(5, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 0, 3)},
		},
		{
			name:    "fifo places tasks on the lowest-numbered machine with room",
			factory: baseline.NewFIFO, caps: []traces.Vec{slots(2), slots(1), slots(2)},
			jobs:   []traces.Job{one(0, stage(2, slots(2))), one(1, stage(3, slots(1)))},
			starts: []policies.Start{start(0, 0, 0, 1), start(0, 0, 2, 1), start(1, 0, 1, 1)},
		},
		{
			name:    "fifo counts how many tasks fit by every resource dimension",
			factory: baseline.NewFIFO, caps: []traces.Vec{vec(10, 4)},
			jobs:   []traces.Job{one(0, stage(4, vec(1, 1))), one(1, stage(7, vec(1, 0)))},
			starts: []policies.Start{start(0, 0, 0, 4), start(1, 0, 0, 6)},
		},
		{
			name:    "fifo blocks on memory even when cpu is left",
			factory: baseline.NewFIFO, caps: []traces.Vec{vec(10, 4)},
			jobs:   []traces.Job{one(0, stage(5, vec(1, 1))), one(1, stage(5, vec(1, 0)))},
			starts: []policies.Start{start(0, 0, 0, 4)},
		},
		{
			name:    "fifo with backfill uses the cpu a memory-blocked head leaves",
			factory: baseline.NewFIFO, caps: []traces.Vec{vec(10, 4)}, opts: policies.Options{Backfill: true},
			jobs:   []traces.Job{one(0, stage(5, vec(1, 1))), one(1, stage(5, vec(1, 0)))},
			starts: []policies.Start{start(0, 0, 0, 4), start(1, 0, 0, 5)},
		},
		{
			name:    "edf runs the earliest deadline first",
			factory: baseline.NewEDF, caps: pool4,
			jobs: []traces.Job{
				withDeadline(one(0, stage(2, slots(1))), 300),
				withDeadline(one(1, stage(3, slots(1))), 100),
			},
			starts: []policies.Start{start(1, 0, 0, 3), start(0, 0, 0, 1)},
		},
		{
			name:    "edf runs jobs without a deadline after every job that has one, in submit order",
			factory: baseline.NewEDF, caps: []traces.Vec{slots(5)},
			jobs: []traces.Job{
				one(0, stage(1, slots(1))),
				one(1, stage(1, slots(1))),
				withDeadline(one(2, stage(2, slots(1))), 1_000_000),
				withDeadline(one(3, stage(1, slots(1))), 50),
			},
			starts: []policies.Start{start(3, 0, 0, 1), start(2, 0, 0, 2), start(0, 0, 0, 1), start(1, 0, 0, 1)},
		},
		{
			name:    "srpt runs the job with the least remaining estimated work first",
			factory: baseline.NewSRPT, caps: pool4,
			jobs: []traces.Job{
				one(0, stage(3, slots(1))),                        // 30µs of work
				one(1, stage(2, slots(1))),                        // 20µs
				one(2, stage(1, slots(1)), stage(2, slots(1), 0)), // 30µs, including a locked stage
			},
			starts: []policies.Start{start(1, 0, 0, 2), start(0, 0, 0, 2)},
		},
	})
}

func TestSRPTReordersAfterTasksFinish(t *testing.T) {
	// Two slots. Job 0 (4 tasks of 10µs estimated) starts alone and takes both; then job 1
	// (3 tasks, 36µs) arrives and a task of job 0 finishes, leaving it 30µs: job 0 gets the slot.
	f := policytest.New(slots(2))
	a := add(t, f, one(0, stage(4, slots(1))))
	b := add(t, f, traces.Job{Submit: 1, Stages: []traces.Stage{{Tasks: 3, Demand: slots(1), Duration: 12, Estimate: 12}}})
	pol := newPolicy(t, baseline.NewSRPT, policies.Options{})
	if err := f.Advance(0); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 2)}, nil)
	if err := f.Advance(1); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(a, 0, 1); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 1)}, nil)
	// Now job 0 has 30µs left (one pending, two running), job 1 36µs. Two more of job 0's
	// tasks finish: 10µs left, still first, and it takes one slot; job 1 the other.
	if err := f.Finish(a, 0, 2); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 1), start(b, 0, 0, 1)}, nil)
}

func TestFIFOAcrossSchedulingPoints(t *testing.T) {
	// One slot per machine, two machines. Job 0 has three tasks; job 1, submitted later, two.
	f := policytest.New(slots(1), slots(1))
	a := add(t, f, one(0, stage(3, slots(1))))
	b := add(t, f, one(10, stage(2, slots(1))))
	pol := newPolicy(t, baseline.NewFIFO, policies.Options{})
	if err := f.Advance(10); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 0, 1), start(a, 0, 1, 1)}, nil)
	wantPlan(t, step(t, f, pol), nil, nil)
	// A task on machine 1 finishes: job 0's last task goes there.
	if err := f.FinishTask(policies.TaskRef{Job: a, Task: 1}); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(a, 0, 1, 1)}, nil)
	// Both remaining tasks of job 0 finish: job 1 gets both machines.
	if err := f.Finish(a, 0, 2); err != nil {
		t.Fatal(err)
	}
	wantPlan(t, step(t, f, pol), []policies.Start{start(b, 0, 0, 1), start(b, 0, 1, 1)}, nil)
	if !f.JobState(a).Done {
		t.Errorf("job 0 is not done")
	}
}
