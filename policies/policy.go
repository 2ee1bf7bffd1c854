// Package policies defines the contract between the replay engine and scheduling policies: a
// read-only View of the cluster and its jobs, the Plan a policy returns, the Policy interface,
// and the registry that names policies. Concrete policies live in subpackages.
//
// A policy never mutates engine state. At each scheduling point the engine calls Schedule with a
// View and an empty Plan; the policy appends task starts and preemptions to the Plan; the engine
// validates the whole plan and rejects an invalid one with an error naming the policy and the
// offending decision.
package policies

import (
	"github.com/schedlab/schedlab/traces"
)

// JobID is a job's index in the replayed workload (traces.Workload.Jobs), in submit order.
type JobID int32

// Policy decides which tasks start where, and which running tasks to preempt.
type Policy interface {
	// Name is the registry name of the policy.
	Name() string
	// Schedule appends decisions to p (which arrives empty). It must not retain v after returning.
	Schedule(v View, p *Plan) error
}

// Start asks the engine to start Count pending tasks of a runnable stage on a machine (machine 0
// in pooled mode). The engine picks the lowest-numbered pending tasks of the stage.
type Start struct {
	Job     JobID
	Stage   int32
	Machine int32
	Count   int32
}

// TaskRef names one task.
type TaskRef struct {
	Job   JobID
	Stage int32
	Task  int32
}

// Plan is a policy's decision at one scheduling point. Preemptions are applied before starts, but
// the resources of a preempted task are free only after the configured preemption delay.
//
// StartReasons and PreemptReasons, when a policy fills them (StartBecause, PreemptBecause), hold
// why: entry i explains Starts[i] or Preempts[i]; shorter slices leave the rest unexplained.
type Plan struct {
	Starts         []Start
	Preempts       []TaskRef
	StartReasons   []Reason
	PreemptReasons []Reason
}

// Reset empties the plan, keeping its storage.
func (p *Plan) Reset() {
	p.Starts = p.Starts[:0]
	p.Preempts = p.Preempts[:0]
	p.StartReasons = p.StartReasons[:0]
	p.PreemptReasons = p.PreemptReasons[:0]
}

// JobInfo is the static, scheduler-visible description of a job. True task durations are absent:
// StageInfo.Estimate holds the estimate, or the true duration when the run is an oracle.
type JobInfo struct {
	ID       int64 // the trace's id
	Name     string
	Submit   traces.Time
	Queue    int // index into View.Queues()
	Class    string
	Priority int
	Weight   float64 // ≥ 0; 0 is read as 1 by policies
	Features traces.Features
	Deadline traces.Time // 0 = none
	Utility  *traces.Utility
	// Placement is the job's placement constraint (zero: none). The engine enforces its
	// consequences (traces.Placement): a start that puts a hard-constrained job off its preferred
	// resources is an invalid plan, and the tasks of a soft-constrained job that is not wholly on
	// them run Slowdown times longer. Choosing placements, and gang-starting a job's tasks, is the
	// policy's business.
	Placement traces.Placement
	Stages    []StageInfo
	Tasks     int64 // total tasks
}

// StageInfo is the scheduler-visible description of a stage.
type StageInfo struct {
	Name     string
	Tasks    int32
	Demand   traces.Vec
	Estimate traces.Time // per task
	Parents  []int32
}

// JobState is a job's dynamic state at the current scheduling point.
type JobState struct {
	Arrived  bool
	Done     bool
	Running  int32      // tasks running now
	Pending  int32      // tasks waiting in runnable (unlocked) stages
	Finished int64      // tasks completed
	Alloc    traces.Vec // resources held by running tasks
	// RemainingEstimate is the estimated task-time left: estimate × tasks not yet finished, over
	// all stages (running tasks count whole).
	RemainingEstimate traces.Time
	FirstStart        traces.Time // -1 until a task started
}

// StageState is a stage's dynamic state.
type StageState struct {
	Runnable bool // all parents finished
	Pending  int32
	Running  int32
	Finished int32
}

// RunningTask is a task that holds resources now.
type RunningTask struct {
	TaskRef
	Machine int32
	Start   traces.Time
	// Slowed reports that this attempt runs JobInfo.Placement.Slowdown times its duration: the
	// job is soft-constrained and was not wholly on its preferred resources when it started.
	Slowed bool
}

// Timing is an optional ability of a View, discovered by type assertion: the engine settings
// that decide when a plan takes effect, for policies that plan ahead in time (jvusched).
type Timing interface {
	// SchedulingCycle is the scheduling period; 0 means the engine schedules whenever something
	// changed.
	SchedulingCycle() traces.Time
	// PreemptionDelay is how long a preempted task's resources stay held before they are free.
	PreemptionDelay() traces.Time
}

// View is the read-only state a policy sees. Slices returned by a View are owned by the engine
// and valid only until Schedule returns; policies must not modify them.
type View interface {
	// Now is the current simulated time.
	Now() traces.Time
	// Oracle reports whether estimates equal true durations in this run.
	Oracle() bool
	// Dims names the resource dimensions in use.
	Dims() []string

	// NumMachines is the number of placement targets: 1 in pooled mode.
	NumMachines() int
	// Machine describes placement target m (the whole pool in pooled mode).
	Machine(m int) *traces.Machine
	// Capacity is the total capacity over all machines.
	Capacity() traces.Vec
	// Free is the unallocated capacity of machine m.
	Free(m int) traces.Vec
	// FreeTotal is the unallocated capacity summed over machines.
	FreeTotal() traces.Vec
	// FirstFit returns the lowest-numbered machine whose free capacity fits d, in O(log machines).
	FirstFit(d traces.Vec) (m int, ok bool)

	// Queues lists queue names; JobInfo.Queue indexes it.
	Queues() []string
	// Job describes job j.
	Job(j JobID) *JobInfo
	// JobState is job j's dynamic state.
	JobState(j JobID) JobState
	// StageState is stage s of job j's dynamic state.
	StageState(j JobID, s int32) StageState
	// RunnableStages lists the stages of j that are unlocked and still have pending tasks.
	RunnableStages(j JobID) []int32
	// RunningTasks lists the running tasks of job j.
	RunningTasks(j JobID) []RunningTask
	// Active lists arrived, unfinished jobs in submit order.
	Active() []JobID
	// Changed lists, once each and in order of first change, the jobs whose state changed since
	// the previous Schedule call: arrived, a task started, finished or was preempted, a stage
	// unlocked, or the job completed. Policies that keep incremental indexes update them from it.
	Changed() []JobID
}
