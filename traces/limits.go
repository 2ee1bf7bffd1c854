package traces

import (
	"errors"
	"fmt"
	"math"
)

// Limits bound a workload's size, so that an absurd input — a stage of 2³¹−1 tasks, a cluster of
// 10¹² machines — is refused with an error naming the field and the limit before a replay
// allocates per task or per machine. A zero field is no limit. Callers derive the limits from
// the memory they may use or take them from configuration; traces only checks them.
type Limits struct {
	StageTasks int64 // tasks in one stage
	JobTasks   int64 // tasks in one job (all stages)
	Tasks      int64 // tasks in the workload
	Machines   int64 // machines in the cluster
	// Memory bounds what a replay of the workload is estimated to hold: JobBytes per job plus
	// TaskBytes per task (a workload of many small jobs costs more than its tasks say).
	Memory, JobBytes, TaskBytes int64
}

// The limits' names, as LimitError.Limit reports which one was exceeded.
const (
	LimitStageTasks = "stage_tasks"
	LimitJobTasks   = "job_tasks"
	LimitTasks      = "tasks"
	LimitMachines   = "machines"
	LimitMemory     = "memory"
)

// ErrLimit is wrapped by every *LimitError.
var ErrLimit = errors.New("traces: limit exceeded")

// LimitError reports a workload that exceeds one of its Limits, located like an InvalidError.
type LimitError struct {
	Limit string // LimitStageTasks, LimitJobTasks, LimitTasks, LimitMachines or LimitMemory
	Job   int    // index in Workload.Jobs; -1 for the workload's tasks and machines
	JobID int64
	Stage int // -1 unless the limit is per stage
	Value int64
	Max   int64
	// For LimitMemory: the workload's jobs and tasks, and the bytes assumed for each.
	Jobs, Tasks, JobBytes, TaskBytes int64
}

func (e *LimitError) Error() string {
	if e.Limit == LimitMemory {
		return fmt.Sprintf("traces: workload: memory: %d jobs and %d tasks need about %s for a replay (%d B per job, %d B per task), more than the limit of %s",
			e.Jobs, e.Tasks, sizeOf(e.Value), e.JobBytes, e.TaskBytes, sizeOf(e.Max))
	}
	var where, field, per string
	switch e.Limit {
	case LimitStageTasks:
		where, field, per = fmt.Sprintf("job %d (id %d) stage %d", e.Job, e.JobID, e.Stage), "tasks", "tasks per stage"
	case LimitJobTasks:
		where, field, per = fmt.Sprintf("job %d (id %d)", e.Job, e.JobID), "tasks", "tasks per job"
	case LimitTasks:
		where, field, per = "workload", "tasks", "tasks per workload"
	default:
		where, field, per = "workload", "cluster.machines", "machines"
	}
	return fmt.Sprintf("traces: %s: %s: %d exceeds the limit of %d %s", where, field, e.Value, e.Max, per)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// sizeOf renders a byte count in MiB or GiB.
func sizeOf(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// Check returns a *LimitError for the first limit w exceeds: its machines, then each stage and
// job in order, then the workload's total tasks and estimated memory.
func (l Limits) Check(w *Workload) error {
	return l.CheckScaled(w, nil)
}

// CheckScaled is Check for the workload w would be once each stage's task count n became
// tasks(n) (nil: n), so a caller can refuse a scaling step before it allocates.
func (l Limits) CheckScaled(w *Workload, tasks func(n int32) int64) error {
	if err := l.CheckMachines(int64(len(w.Cluster.Machines))); err != nil {
		return err
	}
	var total int64
	for ji := range w.Jobs {
		j := &w.Jobs[ji]
		var jt int64
		for si := range j.Stages {
			n := int64(j.Stages[si].Tasks)
			if tasks != nil {
				n = tasks(j.Stages[si].Tasks)
			}
			if l.StageTasks > 0 && n > l.StageTasks {
				return &LimitError{Limit: LimitStageTasks, Job: ji, JobID: j.ID, Stage: si, Value: n, Max: l.StageTasks}
			}
			jt += n
		}
		if l.JobTasks > 0 && jt > l.JobTasks {
			return &LimitError{Limit: LimitJobTasks, Job: ji, JobID: j.ID, Stage: -1, Value: jt, Max: l.JobTasks}
		}
		total += jt
	}
	if l.Tasks > 0 && total > l.Tasks {
		return &LimitError{Limit: LimitTasks, Job: -1, Stage: -1, Value: total, Max: l.Tasks}
	}
	return l.CheckMemory(int64(len(w.Jobs)), total)
}

// CheckMemory returns a *LimitError when a workload of jobs jobs and tasks tasks is estimated to
// need more than the memory limit.
func (l Limits) CheckMemory(jobs, tasks int64) error {
	if l.Memory <= 0 {
		return nil
	}
	// Saturating: jobs and tasks are at most 2⁶³ and the per-item costs small.
	need := func(n, per int64) int64 {
		if per > 0 && n > math.MaxInt64/4/per {
			return math.MaxInt64 / 4
		}
		return n * per
	}
	if b := need(jobs, l.JobBytes) + need(tasks, l.TaskBytes); b > l.Memory {
		return &LimitError{Limit: LimitMemory, Job: -1, Stage: -1, Value: b, Max: l.Memory, Jobs: jobs, Tasks: tasks, JobBytes: l.JobBytes, TaskBytes: l.TaskBytes}
	}
	return nil
}

// CheckMachines returns a *LimitError when a cluster of n machines exceeds the machine limit.
func (l Limits) CheckMachines(n int64) error {
	if l.Machines > 0 && n > l.Machines {
		return &LimitError{Limit: LimitMachines, Job: -1, Stage: -1, Value: n, Max: l.Machines}
	}
	return nil
}
