package replay

import (
	"errors"
	"fmt"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// DecisionTimer says how long the scheduling call that just returned took, in simulated time
// (engine.decision_time): a modelled constant, or a wall time the policy side measured. The
// engine asks it once after every call and charges the answer to the simulated clock; it never
// reads a wall clock itself.
//
// A call made at t whose decision time is c > 0 keeps the scheduler busy until t+c. Its plan is
// applied at t+c, after the events of that instant, and checked against the state then. Events
// in between happen as usual (finishes free capacity, arrivals queue), but no call is made while
// the scheduler is busy: a call that falls due then (something changed, or a cycle tick came) is
// made once at t+c, after the plan is applied. A decision time of 0 applies the plan at t, as
// without a timer.
//
// Between t and t+c nothing but the plan can take capacity or tasks: free capacity only grows,
// stages only unlock, pending tasks only stay. So every check that fails at t+c would also have
// failed at t, with one kind of exception, which is dropped and counted instead of ending the
// run: a preemption of a task that finished in between (Stats.DroppedPreempts), and the tasks
// of a start that only that preemption would have put back in its stage (Stats.DroppedStarts;
// the start keeps the tasks still pending). Everything else — over-commit, a locked stage, a
// placement violation, a task that was not running when the scheduler decided — is an invalid
// plan as before, reported with the call's time and when it was applied.
type DecisionTimer interface {
	DecisionTime() traces.Time
}

// decisionState is the engine's bookkeeping of a busy scheduler.
type decisionState struct {
	busy  bool
	at    traces.Time // when the held plan was decided
	until traces.Time // when it is applied
	due   bool        // a call fell due while busy
	// finished holds the tasks that finished while the scheduler was busy: preempting one of
	// them is dropped, not an error.
	finished map[policies.TaskRef]struct{}
	// droppedBy counts the preemptions dropped per stage while applying a plan.
	droppedBy map[[2]int32]int32
	// dropped lists the preemptions of the last applied plan that were dropped (PlanDrops).
	dropped []policies.TaskRef
}

var _ policies.PlanDrops = (*Engine)(nil)

// DroppedPreempts lists the preemptions of the previous plan the engine dropped because their
// task finished while the scheduler was deciding (policies.PlanDrops).
func (e *Engine) DroppedPreempts() []policies.TaskRef { return e.dt.dropped }

// nextStop is the time of the next event, or of the held plan's application when earlier.
func (e *Engine) nextStop() (traces.Time, bool) {
	t, ok := e.nextTime()
	if e.dt.busy && (!ok || e.dt.until < t) {
		return e.dt.until, true
	}
	return t, ok
}

// hold asks the timer for the decision time of the call that just returned. With a positive
// one the plan is held until then and hold reports true.
func (e *Engine) hold() bool {
	if e.cfg.DecisionTime == nil {
		return false
	}
	c := e.cfg.DecisionTime.DecisionTime()
	if c <= 0 {
		return false
	}
	e.stats.DecisionTime += c
	e.dt.busy, e.dt.at, e.dt.until = true, e.now, e.now+c
	clear(e.dt.finished)
	return true
}

// decisionPoint runs after the events of an instant: it applies a plan whose decision time is
// over and says whether to call the scheduler now (call: whether a call is due without a timer).
func (e *Engine) decisionPoint(call bool) (bool, error) {
	if !e.dt.busy {
		return call, nil
	}
	if e.now < e.dt.until {
		if call && !e.dt.due {
			e.dt.due = true
			e.stats.DelayedCalls++
		}
		return false, nil
	}
	e.dt.busy = false
	if err := e.applyHeld(); err != nil {
		return false, err
	}
	call = call || e.dt.due
	e.dt.due = false
	return call, nil
}

// taskFinished notes a finish while the scheduler is busy.
func (e *Engine) taskFinished(ev *event) {
	if e.dt.finished == nil {
		e.dt.finished = map[policies.TaskRef]struct{}{}
	}
	e.dt.finished[policies.TaskRef{Job: policies.JobID(ev.job), Stage: ev.stage, Task: ev.task}] = struct{}{}
}

// applyHeld applies the held plan at the end of its decision time.
func (e *Engine) applyHeld() error {
	e.dt.dropped = e.dt.dropped[:0]
	clear(e.dt.droppedBy)
	for i, p := range e.plan.Preempts {
		if _, gone := e.dt.finished[p]; gone {
			if e.dt.droppedBy == nil {
				e.dt.droppedBy = map[[2]int32]int32{}
			}
			e.dt.droppedBy[[2]int32{int32(p.Job), p.Stage}]++
			e.dt.dropped = append(e.dt.dropped, p)
			e.stats.DroppedPreempts++
			continue
		}
		if err := e.preempt(i, p); err != nil {
			return e.lateError(err)
		}
	}
	for i, s := range e.plan.Starts {
		s = e.trimStart(s)
		if s.Count == 0 {
			continue
		}
		if err := e.start(i, s); err != nil {
			return e.lateError(err)
		}
	}
	if len(e.deferred) > 0 {
		e.settleDeferred()
	}
	clear(e.dt.finished)
	return nil
}

// trimStart removes from a start the tasks that only a dropped preemption of its stage would
// have made pending.
func (e *Engine) trimStart(s policies.Start) policies.Start {
	if len(e.dt.droppedBy) == 0 || s.Count <= 0 {
		return s
	}
	_, st, why := e.lookupStage(s.Job, s.Stage)
	if why != "" || st.parentsLeft > 0 || s.Count <= st.pending {
		return s
	}
	key := [2]int32{int32(s.Job), s.Stage}
	short := s.Count - st.pending
	if short > e.dt.droppedBy[key] {
		return s // more than the dropped preemptions explain: invalid
	}
	e.dt.droppedBy[key] -= short
	e.stats.DroppedStarts += int64(short)
	s.Count = st.pending
	return s
}

// lateError names the call's time and when its plan was applied in an invalid-plan error.
func (e *Engine) lateError(err error) error {
	var pe *PlanError
	if errors.As(err, &pe) {
		pe.T = e.dt.at
		pe.Reason += fmt.Sprintf(" (plan applied at t=%d, after a decision time of %d µs)", e.now, e.now-e.dt.at)
	}
	return err
}
