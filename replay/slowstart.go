package replay

import (
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Consumer slow-start (YarnConfig.SlowStartOn, SlowStart = f). MapReduce launches a job's
// reducers once mapreduce.job.reduce.slowstart.completedmaps (0.05 by default) of its maps
// finished; Tez's ShuffleVertexManager schedules a consumer vertex's tasks between
// tez.shuffle-vertex-manager.min-src-fraction (0.25) and max-src-fraction (0.75) of its source
// tasks finished. Such tasks take their containers early and wait in them for the rest of their
// input (the shuffle). The engine models one fraction f:
//
//   - A stage with producer (parent) stages becomes runnable — the policy sees its tasks and
//     may start them — once ⌈f × its producers' tasks⌉ of those tasks finished (counted over
//     all of its producers together, as MapReduce counts maps) and every producer is itself
//     runnable; with f = 0 that is as soon as its producers are runnable. It is logged as
//     "unlock" then.
//   - A task of such a stage started before all of its producers finished holds its resources
//     without progress; when the last producer finishes (log "input") every waiting task's
//     work begins (at its container's launch, if that is later), and it finishes its full
//     duration after that.
//   - Stages whose producers all finished before the threshold is reached unlock as without
//     slow-start. f = 1 is the same as off.
type slowStart struct {
	f    float64
	jobs [][]slowStage // per job: per stage; nil for single-stage jobs and before arrival
}

type slowStage struct {
	need, done int64 // producer tasks that must finish / that finished, while locked
	early      bool  // made runnable before its producers all finished
	inputs     int32 // producers unfinished, when early
	waiting    []waitingTask
}

// waitingTask is a started attempt of an early stage that waits for its input.
type waitingTask struct {
	task, machine int32
	attempt       uint32
	launch, dur   traces.Time
}

func newSlowStart(e *Engine, f float64) *slowStart {
	return &slowStart{f: f, jobs: make([][]slowStage, len(e.jobs))}
}

// slowArrive prepares job j's counters at its arrival and unlocks what f = 0 unlocks.
func (e *Engine) slowArrive(j int32) {
	jr := &e.jobs[j]
	if len(jr.stages) < 2 {
		return
	}
	ss := make([]slowStage, len(jr.stages))
	e.y.slow.jobs[j] = ss
	for c := range jr.stages {
		var total int64
		for _, p := range jr.stages[c].src.Parents {
			total += int64(jr.stages[p].src.Tasks)
		}
		ss[c].need = int64(math.Ceil(e.y.slow.f * float64(total)))
		if ss[c].need > total {
			ss[c].need = total
		}
	}
	for c := range jr.stages {
		e.tryEarly(j, int32(c))
	}
}

// tryEarly makes locked stage c of job j runnable if slow-start allows it, and then its
// children.
func (e *Engine) tryEarly(j, c int32) {
	jr := &e.jobs[j]
	cs := &jr.stages[c]
	ss := &e.y.slow.jobs[j][c]
	if cs.parentsLeft == 0 || ss.done < ss.need {
		return
	}
	var total int64
	for _, p := range cs.src.Parents {
		if jr.stages[p].parentsLeft > 0 {
			return
		}
		total += int64(jr.stages[p].src.Tasks)
	}
	if ss.done == total {
		return // every producer task finished: the stage unlocks as without slow-start
	}
	ss.early = true
	ss.inputs = cs.parentsLeft
	cs.parentsLeft = 0
	jr.pending += cs.pending
	jr.markReady(c)
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindUnlock, Job: j, Stage: c})
	e.markChanged(j)
	for _, g := range cs.children {
		e.tryEarly(j, g)
	}
}

// slowProgress counts a finished task of stage s of job j towards its locked children.
func (e *Engine) slowProgress(j, s int32) {
	ss := e.y.slow.jobs[j]
	if ss == nil {
		return
	}
	jr := &e.jobs[j]
	for _, c := range jr.stages[s].children {
		if jr.stages[c].parentsLeft > 0 {
			ss[c].done++
			e.tryEarly(j, c)
		}
	}
}

// slowWaits reports whether a task of stage s of job j, started now, must wait for its input,
// and then records it.
func (e *Engine) slowWaits(j, s, task int32, launch, dur traces.Time) bool {
	ss := e.y.slow.jobs[j]
	if ss == nil || !ss[s].early || ss[s].inputs == 0 {
		return false
	}
	st := &e.jobs[j].stages[s]
	ss[s].waiting = append(ss[s].waiting, waitingTask{task: task, machine: st.machine[task], attempt: st.attempt[task], launch: launch, dur: dur})
	return true
}

// slowParentDone records that a producer of early stage c of job j finished; when it was the
// last, the waiting tasks' work begins.
func (e *Engine) slowParentDone(j, c int32) {
	if e.y == nil || e.y.slow == nil || e.y.slow.jobs[j] == nil {
		return
	}
	ss := &e.y.slow.jobs[j][c]
	ss.inputs--
	if ss.inputs > 0 {
		return
	}
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindInput, Job: j, Stage: c})
	st := &e.jobs[j].stages[c]
	for _, w := range ss.waiting {
		if st.status[w.task] == taskRunning && st.attempt[w.task] == w.attempt {
			e.beginWork(j, c, w.task, w.machine, w.launch, max(w.launch, e.now), w.dur)
		}
	}
	ss.waiting = nil
}
