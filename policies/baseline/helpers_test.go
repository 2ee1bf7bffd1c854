package baseline_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// vec is a (cpu, mem) demand or capacity in whole units.
func vec(cpu, mem float64) traces.Vec { return traces.VecOf(cpu, mem) }

// slots is a capacity or demand of n cpu and n mem.
func slots(n float64) traces.Vec { return traces.VecOf(n, n) }

// stage is a stage of tasks with the given per-task demand, duration and estimate 10µs.
func stage(tasks int32, d traces.Vec, parents ...int32) traces.Stage {
	return traces.Stage{Tasks: tasks, Demand: d, Duration: 10, Estimate: 10, Parents: parents}
}

// start abbreviates a policies.Start.
func start(j policies.JobID, s, m, n int32) policies.Start {
	return policies.Start{Job: j, Stage: s, Machine: m, Count: n}
}

// preempt abbreviates a policies.TaskRef.
func preempt(j policies.JobID, s, task int32) policies.TaskRef {
	return policies.TaskRef{Job: j, Stage: s, Task: task}
}

// build returns a fake with one machine per capacity and the jobs added and admitted.
func build(t testing.TB, caps []traces.Vec, jobs ...traces.Job) *policytest.Fake {
	t.Helper()
	f := policytest.New(caps...)
	var last traces.Time
	for _, j := range jobs {
		if _, err := f.AddJob(j); err != nil {
			t.Fatal(err)
		}
		last = max(last, j.Submit)
	}
	if err := f.Advance(last); err != nil {
		t.Fatal(err)
	}
	return f
}

// newPolicy builds a policy or fails the test.
func newPolicy(t testing.TB, factory policies.Factory, o policies.Options) policies.Policy {
	t.Helper()
	p, err := factory(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// step schedules and applies one plan, failing the test if the policy errs or the fake rejects
// the plan.
func step(t testing.TB, f *policytest.Fake, pol policies.Policy) policies.Plan {
	t.Helper()
	p, err := f.Step(pol)
	if err != nil {
		t.Fatalf("%s: %v\nplan: %s", pol.Name(), err, fmtPlan(p))
	}
	return p
}

func fmtPlan(p policies.Plan) string {
	var b strings.Builder
	for _, s := range p.Starts {
		fmt.Fprintf(&b, "start(j%d s%d m%d ×%d) ", s.Job, s.Stage, s.Machine, s.Count)
	}
	for _, r := range p.Preempts {
		fmt.Fprintf(&b, "preempt(j%d s%d t%d) ", r.Job, r.Stage, r.Task)
	}
	if b.Len() == 0 {
		return "(empty)"
	}
	return b.String()
}

// wantPlan fails unless p has exactly the given starts and preemptions.
func wantPlan(t testing.TB, p policies.Plan, starts []policies.Start, preempts []policies.TaskRef) {
	t.Helper()
	if !slices.Equal(p.Starts, starts) || !slices.Equal(p.Preempts, preempts) {
		t.Errorf("plan:\n got %s\nwant %s", fmtPlan(p), fmtPlan(policies.Plan{Starts: starts, Preempts: preempts}))
	}
}

// add adds a job to the fake or fails the test.
func add(t testing.TB, f *policytest.Fake, j traces.Job) policies.JobID {
	t.Helper()
	id, err := f.AddJob(j)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
