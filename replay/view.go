package replay

import (
	"slices"

	"github.com/schedlab/schedlab/internal/fit"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// The Engine is the View its policy sees. Every method is read-only, but for PlanFit's tree,
// whose changes the engine undoes.

// Now implements policies.View.
func (e *Engine) Now() traces.Time { return e.now }

// Oracle implements policies.View.
func (e *Engine) Oracle() bool { return e.cfg.Oracle }

// Dims implements policies.View.
func (e *Engine) Dims() []string { return e.dims }

// NumMachines implements policies.View.
func (e *Engine) NumMachines() int { return len(e.mach) }

// Machine implements policies.View.
func (e *Engine) Machine(m int) *traces.Machine { return &e.mach[m] }

// Capacity implements policies.View.
func (e *Engine) Capacity() traces.Vec { return e.cap }

// Free implements policies.View.
func (e *Engine) Free(m int) traces.Vec { return e.free[m] }

// FreeTotal implements policies.View.
func (e *Engine) FreeTotal() traces.Vec { return e.freeSum }

// FirstFit implements policies.View.
func (e *Engine) FirstFit(d traces.Vec) (int, bool) { return e.fit.First(d) }

// PlanFit returns the engine's first-fit tree over every machine's free capacity, for a policy
// to plan on during Schedule (the optional ability policies/baseline.SharedFit): the policy may
// Set the machines it plans starts on, and the engine sets each of those back to its free
// capacity once the plan is applied (fit.Tree.EndPlan), so no policy keeps a copy.
func (e *Engine) PlanFit() *fit.Tree { return e.fit }

// Queues implements policies.View.
func (e *Engine) Queues() []string { return e.queues }

// Job implements policies.View.
func (e *Engine) Job(j policies.JobID) *policies.JobInfo { return &e.jobs[j].info }

// JobState implements policies.View.
func (e *Engine) JobState(j policies.JobID) policies.JobState {
	jr := &e.jobs[j]
	return policies.JobState{
		Arrived: jr.arrived, Done: jr.done, Running: jr.running, Pending: jr.pending,
		Finished: jr.finished, Alloc: jr.alloc, RemainingEstimate: jr.remEst, FirstStart: jr.firstStart,
	}
}

// StageState implements policies.View.
func (e *Engine) StageState(j policies.JobID, s int32) policies.StageState {
	st := &e.jobs[j].stages[s]
	return policies.StageState{Runnable: st.parentsLeft == 0, Pending: st.pending, Running: st.running, Finished: st.finished}
}

// RunnableStages implements policies.View.
func (e *Engine) RunnableStages(j policies.JobID) []int32 {
	e.buf = e.buf[:0]
	jr := &e.jobs[j]
	if !jr.arrived || jr.pending == 0 {
		return e.buf
	}
	// Stages without pending tasks leave the ready list (a preemption lists them again), and the
	// list is kept in stage order, as policies see it.
	k := 0
	for _, si := range jr.ready {
		if st := &jr.stages[si]; st.pending > 0 {
			jr.ready[k] = si
			k++
		} else {
			st.ready = false
		}
	}
	jr.ready = jr.ready[:k]
	if !slices.IsSorted(jr.ready) {
		slices.Sort(jr.ready)
	}
	e.buf = append(e.buf, jr.ready...)
	return e.buf
}

// RunningTasks implements policies.View.
func (e *Engine) RunningTasks(j policies.JobID) []policies.RunningTask {
	e.runBuf = e.runBuf[:0]
	jr := &e.jobs[j]
	// Stages without running tasks leave the live list (a start lists them again); the list is
	// kept in stage order, as policies see the tasks.
	k := 0
	for _, si := range jr.live {
		if st := &jr.stages[si]; st.running > 0 {
			jr.live[k] = si
			k++
		} else {
			st.live = false
		}
	}
	jr.live = jr.live[:k]
	if !slices.IsSorted(jr.live) {
		slices.Sort(jr.live)
	}
	for _, si := range jr.live {
		st := &jr.stages[si]
		for ti, s := range st.status {
			if s == taskRunning {
				e.runBuf = append(e.runBuf, policies.RunningTask{
					TaskRef: policies.TaskRef{Job: j, Stage: int32(si), Task: int32(ti)},
					Machine: st.machine[ti], Start: st.started[ti],
					Slowed: st.slowed != nil && st.slowed[ti],
				})
			}
		}
	}
	return e.runBuf
}

// Active implements policies.View. Completed jobs are compacted away lazily, so the cost is paid
// only by policies that call it.
func (e *Engine) Active() []policies.JobID {
	if len(e.active) != e.nActive {
		k := 0
		for _, j := range e.active {
			if !e.jobs[j].done {
				e.active[k] = j
				k++
			}
		}
		e.active = e.active[:k]
	}
	return e.active
}

// Changed implements policies.View.
func (e *Engine) Changed() []policies.JobID { return e.changed }

// ChangedMachines lists, once each, the machines whose free capacity changed since the previous
// Schedule call (the optional ability policies/baseline.MachineChanges), so policies that mirror
// free capacity re-read only those.
func (e *Engine) ChangedMachines() []int32 { return e.changedMach }

var _ policies.Timing = (*Engine)(nil)

// SchedulingCycle implements policies.Timing.
func (e *Engine) SchedulingCycle() traces.Time { return e.cfg.Cycle }

// PreemptionDelay implements policies.Timing.
func (e *Engine) PreemptionDelay() traces.Time { return e.cfg.PreemptDelay }
