package replay

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// AttemptOutcome is how a task attempt ended.
type AttemptOutcome uint8

const (
	AttemptFinished   AttemptOutcome = iota // the task completed
	AttemptPreempted                        // the policy preempted it
	AttemptKilled                           // a cluster event (a machine failure) ended it
	AttemptUnfinished                       // still running when the run stopped (the horizon)
)

var outcomeNames = [...]string{"finished", "preempted", "killed", "unfinished"}

func (o AttemptOutcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// OutcomeNames lists the outcomes' names in order (AttemptOutcome.String).
func OutcomeNames() []string { return outcomeNames[:] }

// Attempt is one task attempt: a task's run from a start to its finish, preemption, kill or the
// end of the run.
type Attempt struct {
	Job, Stage, Task int32
	Machine          int32 // 0 in pooled mode
	// Ready is when the task could first have started for this attempt: its stage's unlock (the
	// job's arrival for a stage without parents), or the previous attempt's preemption.
	Ready, Start, End traces.Time
	Outcome           AttemptOutcome
	Slowed            bool        // the attempt ran Slowdown times longer (soft placement)
	WorkLost          traces.Time // run time thrown away: a preempted attempt that restarts from zero
	Why               policies.Reason
	EndWhy            policies.Reason // the preemption's reason; zero otherwise
}

// CallInfo describes one scheduling call after its plan was applied.
type CallInfo struct {
	T                traces.Time
	Starts, Preempts int        // tasks started and preempted by the plan
	Free             traces.Vec // free capacity summed over machines
	Pending, Running int64      // tasks waiting in runnable stages, and tasks running
}

// Recorder receives a run's task attempts as each ends, in simulated-time order. The Attempt
// passed is reused: copy what is kept. A recorder that fails (a full disk) keeps its error for
// its owner to report after the run.
type Recorder interface {
	Attempt(a *Attempt)
}

// StartRecorder is a Recorder that is also told when each attempt starts: Job, Stage, Task,
// Machine, Ready and Start are set (Why too); the rest is known when it ends.
type StartRecorder interface {
	Recorder
	Started(a *Attempt)
}

// CallRecorder is a Recorder that also receives every scheduling call.
type CallRecorder interface {
	Recorder
	Call(c *CallInfo)
}

// stageRec is what recording keeps per stage: the unlock time and, per task, its current
// attempt's readiness and start reason. Freed when the stage's last task finished.
type stageRec struct {
	unlocked traces.Time
	ready    []traces.Time // per task, set by a preemption; 0 = the stage's readiness
	requeued []bool
	why      []policies.Reason
}

type recording struct {
	r       Recorder
	calls   CallRecorder  // nil unless r is one
	starts  StartRecorder // nil unless r is one
	a       Attempt
	c       CallInfo
	nRun    int64 // tasks running
	pending int64 // tasks pending in runnable stages (jobRT.pending summed)
}

func (e *Engine) stageReady(jr *jobRT, st *stageRT) traces.Time {
	if st.rec != nil && len(st.src.Parents) > 0 {
		return st.rec.unlocked
	}
	return jr.info.Submit
}

// recUnlock notes that stage s of job j became runnable now.
func (e *Engine) recUnlock(jr *jobRT, s int32) {
	st := &jr.stages[s]
	if st.rec == nil {
		st.rec = &stageRec{}
	}
	st.rec.unlocked = e.now
	e.rec.pending += int64(st.pending)
}

// recStart notes task's start by plan start i.
func (e *Engine) recStart(job, stage, task int32, i int) {
	jr := &e.jobs[job]
	st := &jr.stages[stage]
	if st.rec == nil {
		st.rec = &stageRec{unlocked: e.stageReady(jr, st)}
	}
	if st.rec.why == nil {
		st.rec.why = make([]policies.Reason, st.src.Tasks)
	}
	st.rec.why[task] = policies.Reason{} // i < 0: the engine started it (a reservation fulfilled)
	if i >= 0 {
		st.rec.why[task] = e.plan.StartReason(i)
	}
	e.rec.nRun++
	e.rec.pending--
	if e.rec.starts != nil {
		a := &e.rec.a
		*a = Attempt{Job: job, Stage: stage, Task: task, Machine: st.machine[task], Start: e.now, Why: st.rec.why[task]}
		a.Ready = e.stageReady(jr, st)
		if st.rec.requeued != nil && st.rec.requeued[task] {
			a.Ready = st.rec.ready[task]
		}
		e.rec.starts.Started(a)
	}
}

// recEnd emits the attempt of task that ends now with the outcome.
func (e *Engine) recEnd(job, stage, task int32, out AttemptOutcome, lost traces.Time, why policies.Reason) {
	jr := &e.jobs[job]
	st := &jr.stages[stage]
	a := &e.rec.a
	*a = Attempt{
		Job: job, Stage: stage, Task: task, Machine: st.machine[task], Ready: e.stageReady(jr, st),
		Start: st.started[task], End: e.now, Outcome: out, Slowed: st.slowed != nil && st.slowed[task],
		WorkLost: lost, EndWhy: why,
	}
	if r := st.rec; r != nil {
		if r.requeued != nil && r.requeued[task] {
			a.Ready = r.ready[task]
		}
		if r.why != nil {
			a.Why = r.why[task]
		}
		if out == AttemptPreempted || out == AttemptKilled {
			if r.ready == nil {
				r.ready = make([]traces.Time, st.src.Tasks)
				r.requeued = make([]bool, st.src.Tasks)
			}
			r.ready[task], r.requeued[task] = e.now, true
		}
	}
	e.rec.nRun--
	if out == AttemptPreempted || out == AttemptKilled {
		e.rec.pending++
	}
	e.rec.r.Attempt(a)
	if out == AttemptFinished && st.finished == st.src.Tasks {
		st.rec = nil
	}
}

// recCall reports the scheduling call just applied.
func (e *Engine) recCall() {
	if e.rec.calls == nil {
		return
	}
	c := &e.rec.c
	*c = CallInfo{T: e.now, Starts: 0, Preempts: len(e.plan.Preempts), Free: e.freeSum, Pending: e.rec.pending, Running: e.rec.nRun}
	for _, s := range e.plan.Starts {
		c.Starts += int(s.Count)
	}
	e.rec.calls.Call(c)
}

// recUnfinished emits the attempts still running when the run stopped.
func (e *Engine) recUnfinished() {
	for ji := range e.jobs {
		jr := &e.jobs[ji]
		if jr.running == 0 {
			continue
		}
		for si := range jr.stages {
			st := &jr.stages[si]
			if st.running == 0 {
				continue
			}
			for ti, s := range st.status {
				if s == taskRunning {
					e.recEnd(int32(ji), int32(si), int32(ti), AttemptUnfinished, 0, policies.Reason{})
				}
			}
		}
	}
}

// recPreempt emits the attempt that plan preemption i ends now.
func (e *Engine) recPreempt(i int, p policies.TaskRef) {
	st := &e.jobs[p.Job].stages[p.Stage]
	var lost traces.Time
	if st.worked == nil {
		lost = e.now - st.started[p.Task]
	}
	e.recEnd(int32(p.Job), p.Stage, p.Task, AttemptPreempted, lost, e.plan.PreemptReason(i))
}

func newRecording(r Recorder) *recording {
	rec := &recording{r: r}
	rec.calls, _ = r.(CallRecorder)
	rec.starts, _ = r.(StartRecorder)
	return rec
}

var _ policies.Explainer = (*Engine)(nil)

// Explains implements policies.Explainer: reasons are wanted when the run is recorded.
func (e *Engine) Explains() bool { return e.rec != nil }
