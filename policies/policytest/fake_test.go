package policytest

import (
	"errors"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

func cpu(x float64) traces.Vec { return traces.VecOf(x, x) }

func st(tasks int32, demand float64, parents ...int32) traces.Stage {
	return traces.Stage{Tasks: tasks, Demand: cpu(demand), Duration: 10, Estimate: 7, Parents: parents}
}

// twoJobs returns a fake with two machines of capacity 2 and two arrived jobs: job 0 has a
// two-task stage and a one-task child stage; job 1 has one three-task stage.
func twoJobs(t *testing.T) *Fake {
	t.Helper()
	f := New(cpu(2), cpu(2))
	for _, j := range []traces.Job{
		{ID: 10, Queue: "a", Stages: []traces.Stage{st(2, 1), st(1, 1, 0)}},
		{ID: 11, Submit: 5, Queue: "b", Stages: []traces.Stage{st(3, 1)}},
	} {
		if _, err := f.AddJob(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Advance(5); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestApplyRejectsInvalidPlans(t *testing.T) {
	tests := []struct {
		name string
		plan policies.Plan
		want error
	}{
		{"a start that over-commits a machine is rejected", policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 0, Count: 3}}}, ErrOvercommit},
		{"starts that together over-commit a machine are rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 1, Count: 1}, {Job: 1, Machine: 1, Count: 2}}}, ErrOvercommit},
		{"starting more tasks than a stage has pending is rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 0, Count: 1}, {Job: 0, Machine: 1, Count: 2}}}, ErrTooMany},
		{"starting a locked stage is rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Stage: 1, Machine: 0, Count: 1}}}, ErrLockedStage},
		{"a start naming an unknown job is rejected", policies.Plan{Starts: []policies.Start{{Job: 7, Machine: 0, Count: 1}}}, ErrUnknownJob},
		{"a start naming a negative job is rejected", policies.Plan{Starts: []policies.Start{{Job: -1, Machine: 0, Count: 1}}}, ErrUnknownJob},
		{"a start naming an unknown stage is rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Stage: 2, Machine: 0, Count: 1}}}, ErrUnknownStage},
		{"a start naming an unknown machine is rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 2, Count: 1}}}, ErrUnknownMachine},
		{"a start of zero tasks is rejected", policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 0, Count: 0}}}, ErrBadCount},
		{"preempting a task that is not running is rejected", policies.Plan{Preempts: []policies.TaskRef{{Job: 1, Task: 0}}}, ErrNotRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := twoJobs(t)
			before := f.FreeTotal()
			err := f.Apply(&tt.plan)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Apply = %v, want %v", err, tt.want)
			}
			if f.FreeTotal() != before || f.JobState(0).Running != 0 || f.JobState(1).Running != 0 {
				t.Errorf("a rejected plan changed the state")
			}
		})
	}
}

func TestApplyAcceptsAPlanThatFitsExactly(t *testing.T) {
	f := twoJobs(t)
	p := policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 0, Count: 2}, {Job: 1, Machine: 1, Count: 2}}}
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if got := f.FreeTotal(); !got.IsZero() {
		t.Errorf("FreeTotal = %v, want zero", got)
	}
	if got := f.JobState(1); got.Running != 2 || got.Pending != 1 || got.Alloc != cpu(2) || got.FirstStart != 5 {
		t.Errorf("JobState(1) = %+v", got)
	}
	if got, want := f.Changed(), []policies.JobID{0, 1}; !slices.Equal(got, want) {
		t.Errorf("Changed = %v, want %v", got, want)
	}
}

func TestFinishUnlocksChildrenAndCompletesJobs(t *testing.T) {
	f := twoJobs(t)
	f.ClearChanged()
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 0, Machine: 0, Count: 2}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.RunnableStages(0); len(got) != 0 {
		t.Fatalf("RunnableStages(0) = %v before the parent finished, want none", got)
	}
	if err := f.Finish(0, 0, 2); err != nil {
		t.Fatal(err)
	}
	if got := f.RunnableStages(0); !slices.Equal(got, []int32{1}) {
		t.Fatalf("RunnableStages(0) = %v, want [1]", got)
	}
	if got := f.JobState(0); got.Pending != 1 || got.Finished != 2 || got.RemainingEstimate != 7 {
		t.Errorf("JobState(0) = %+v, want 1 pending, 2 finished, 7µs remaining", got)
	}
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 0, Stage: 1, Machine: 1, Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.FinishTask(policies.TaskRef{Job: 0, Stage: 1, Task: 0}); err != nil {
		t.Fatal(err)
	}
	if !f.JobState(0).Done {
		t.Errorf("job 0 is not done after its last task finished")
	}
	if got := f.Active(); !slices.Equal(got, []policies.JobID{1}) {
		t.Errorf("Active = %v, want [1]", got)
	}
	if f.FreeTotal() != cpu(4) {
		t.Errorf("FreeTotal = %v, want all capacity back", f.FreeTotal())
	}
}

func TestPreemptedResourcesReturnAfterTheDelay(t *testing.T) {
	f := twoJobs(t)
	f.PreemptDelay = 3
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 0, Count: 2}}}); err != nil {
		t.Fatal(err)
	}
	p := policies.Plan{Preempts: []policies.TaskRef{{Job: 1, Task: 1}}}
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if got := f.StageState(1, 0); got.Pending != 2 || got.Running != 1 {
		t.Errorf("StageState = %+v, want the preempted task pending again", got)
	}
	if got := f.Free(0); !got.IsZero() {
		t.Errorf("Free(0) = %v right after preemption, want still allocated", got)
	}
	if err := f.Advance(7); err != nil {
		t.Fatal(err)
	}
	if f.Releasing() != 1 {
		t.Errorf("released before the delay passed")
	}
	if err := f.Advance(8); err != nil {
		t.Fatal(err)
	}
	if got := f.Free(0); got != cpu(1) || f.Releasing() != 0 {
		t.Errorf("Free(0) = %v after the delay, want one task's demand back", got)
	}
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 0, Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.RunningTasks(1); len(got) != 2 || got[1].Task != 1 {
		t.Errorf("RunningTasks = %+v, want the preempted task (1) restarted first", got)
	}
}

func TestAdvanceAdmitsJobsInSubmitOrder(t *testing.T) {
	f := New(cpu(1))
	for _, sub := range []traces.Time{20, 10, 30} {
		if _, err := f.AddJob(traces.Job{Submit: sub, Stages: []traces.Stage{st(1, 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Advance(20); err != nil {
		t.Fatal(err)
	}
	if got := f.Active(); !slices.Equal(got, []policies.JobID{1, 0}) {
		t.Errorf("Active = %v, want [1 0]", got)
	}
	if err := f.Advance(10); !errors.Is(err, ErrTime) {
		t.Errorf("Advance backwards = %v, want ErrTime", err)
	}
}

func TestAddJobRejectsMalformedJobs(t *testing.T) {
	tests := []struct {
		name string
		job  traces.Job
	}{
		{"a job without stages is rejected", traces.Job{}},
		{"a stage without tasks is rejected", traces.Job{Stages: []traces.Stage{st(0, 1)}}},
		{"a parent out of range is rejected", traces.Job{Stages: []traces.Stage{st(1, 1, 3)}}},
		{"a cycle of stages is rejected", traces.Job{Stages: []traces.Stage{st(1, 1, 1), st(1, 1, 0)}}},
		{"a negative demand is rejected", traces.Job{Stages: []traces.Stage{st(1, -1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(cpu(1)).AddJob(tt.job); !errors.Is(err, ErrBadJob) {
				t.Errorf("AddJob = %v, want ErrBadJob", err)
			}
		})
	}
}

func TestFromWorkloadPoolsTheCluster(t *testing.T) {
	w := &traces.Workload{
		Dims:    []string{"cpu", "mem"},
		Cluster: traces.Cluster{Machines: traces.Uniform(3, cpu(1), 0).Machines, Pooled: true},
		Jobs: []traces.Job{
			{ID: 1, Queue: "x", Stages: []traces.Stage{{Tasks: 2, Demand: cpu(0.5), Duration: 5, Estimate: 9}}},
			{ID: 2, Submit: 4, Queue: "y", Stages: []traces.Stage{{Tasks: 1, Demand: cpu(1), Duration: 5, Estimate: 9}}},
		},
	}
	f, err := FromWorkload(w, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumMachines() != 1 || f.Capacity() != cpu(3) {
		t.Errorf("machines %d, capacity %v; want one pooled machine of 3", f.NumMachines(), f.Capacity())
	}
	if got := f.Job(0).Stages[0].Estimate; got != 5 {
		t.Errorf("oracle estimate = %d, want the true duration 5", got)
	}
	if !slices.Equal(f.Queues(), []string{"x", "y"}) {
		t.Errorf("Queues = %v", f.Queues())
	}
	if len(f.Active()) != 0 {
		t.Errorf("jobs arrived before Advance")
	}
	if err := f.Advance(4); err != nil {
		t.Fatal(err)
	}
	if got := f.Changed(); !slices.Equal(got, []policies.JobID{0, 1}) {
		t.Errorf("Changed = %v, want both arrivals", got)
	}
}

func TestFirstFitFindsTheLowestMachineWithRoom(t *testing.T) {
	f := New(cpu(1), cpu(3), cpu(2))
	tests := []struct {
		name   string
		demand traces.Vec
		want   int
		ok     bool
	}{
		{"a small demand goes to machine 0", cpu(1), 0, true},
		{"a larger demand skips machines without room", cpu(2), 1, true},
		{"a demand no machine fits is reported", cpu(4), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := f.FirstFit(tt.demand)
			if m != tt.want || ok != tt.ok {
				t.Errorf("FirstFit = %d, %t; want %d, %t", m, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestChangedMachinesListsEachChangedMachineOnce(t *testing.T) {
	f := twoJobs(t)
	f.ClearChanged()
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 1, Count: 1}, {Job: 0, Machine: 0, Count: 1}, {Job: 0, Machine: 1, Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.ChangedMachines(); !slices.Equal(got, []int32{1, 0}) {
		t.Errorf("ChangedMachines = %v, want [1 0]", got)
	}
	f.ClearChanged()
	if err := f.FinishTask(policies.TaskRef{Job: 0, Task: 0}); err != nil {
		t.Fatal(err)
	}
	if got := f.ChangedMachines(); !slices.Equal(got, []int32{0}) {
		t.Errorf("ChangedMachines after a finish = %v, want [0]", got)
	}
	if _, ok := WithoutMachineChanges(f).(interface{ ChangedMachines() []int32 }); ok {
		t.Errorf("WithoutMachineChanges still offers ChangedMachines")
	}
}

// recorder is a policy that remembers the View it was given.
type recorder struct{ seen policies.View }

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Schedule(v policies.View, _ *policies.Plan) error { r.seen = v; return nil }

func TestScheduleHidesMachineChangesOnRequest(t *testing.T) {
	for _, hide := range []bool{false, true} {
		name := "Schedule offers ChangedMachines by default"
		if hide {
			name = "Schedule hides ChangedMachines when HideMachineChanges is set"
		}
		t.Run(name, func(t *testing.T) {
			f := twoJobs(t)
			f.HideMachineChanges = hide
			var r recorder
			if _, err := f.Schedule(&r); err != nil {
				t.Fatal(err)
			}
			if _, ok := r.seen.(interface{ ChangedMachines() []int32 }); ok == hide {
				t.Errorf("ChangedMachines offered: %t", ok)
			}
			if len(f.Changed()) != 0 {
				t.Errorf("Schedule left the Changed list at %v", f.Changed())
			}
		})
	}
}

func TestFinishTakesTasksInStartOrder(t *testing.T) {
	f := twoJobs(t)
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 0, Count: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Advance(6); err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(&policies.Plan{Starts: []policies.Start{{Job: 1, Machine: 1, Count: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(1, 0, 2); err != nil {
		t.Fatal(err)
	}
	got := f.RunningTasks(1)
	if len(got) != 1 || got[0].Task != 2 || got[0].Start != 6 {
		t.Errorf("running after finishing two = %+v, want task 2 started at 6", got)
	}
	if f.Free(0) != cpu(2) || f.Free(1) != cpu(1) {
		t.Errorf("free = %v %v, want machine 0 empty and one task on machine 1", f.Free(0), f.Free(1))
	}
}
