package replay

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/traces"
)

// Variance spreads the TRUE task durations the engine replays; estimates (what policies see)
// and targets are unchanged (engine.duration_sigma, engine.straggler_p, engine.straggler_factor).
//
//   - Sigma: each task's work is its workload duration × exp(Sigma·Z − Sigma²/2), Z standard
//     normal: a lognormal factor of mean 1, so the mean work is preserved.
//   - StragglerP, StragglerFactor: with probability StragglerP a task is a straggler and its work
//     is multiplied by StragglerFactor as well. Sources: Mantri (Ananthanarayanan et al., OSDI'10:
//     stragglers run 1.5× the median task or longer, the median straggler about 2×, on a few
//     percent of tasks) and Dolly (Ananthanarayanan et al., NSDI'13: the slowest task of small
//     jobs 6-8× the median).
//
// The factor belongs to the task (all its attempts), drawn by a generator seeded from
// Config.Seed, "replay/durations/variance" and the task, so every policy replays the same work
// for the same task. Work is rounded to the microsecond and at least 1 µs.
type Variance struct {
	Sigma           float64
	StragglerP      float64
	StragglerFactor float64
}

func (v Variance) on() bool { return v.Sigma > 0 || v.StragglerP > 0 }

func (v Variance) validate() error {
	if math.IsNaN(v.Sigma) || math.IsInf(v.Sigma, 0) || v.Sigma < 0 || v.Sigma > 10 {
		return fmt.Errorf("replay: duration sigma must be in [0, 10], got %v", v.Sigma)
	}
	if !(v.StragglerP >= 0 && v.StragglerP <= 1) {
		return fmt.Errorf("replay: straggler probability must be in [0, 1], got %v", v.StragglerP)
	}
	if v.StragglerP > 0 && !(v.StragglerFactor > 0 && v.StragglerFactor <= 1e6) {
		return fmt.Errorf("replay: straggler factor must be in (0, 1e6], got %v", v.StragglerFactor)
	}
	return nil
}

// factor is task (job, stage, task)'s work multiplier.
func (e *Engine) varianceFactor(job, stage, task int32) float64 {
	v := e.cfg.Variance
	r := e.rnd.For(compVariance, job, stage, task, 0)
	f := 1.0
	if v.Sigma > 0 {
		f = math.Exp(v.Sigma*r.NormFloat64() - v.Sigma*v.Sigma/2)
	}
	if v.StragglerP > 0 && r.Float64() < v.StragglerP {
		f *= v.StragglerFactor
	}
	return f
}

// Wave says what an executor ran before the task it starts now, as decima-sim classifies a
// task's duration (executorTable).
type Wave uint8

const (
	// WaveJoin: the executor is new to the job (decima-sim: a fresh executor, moved to the
	// job, with JVM warm-up).
	WaveJoin Wave = iota
	// WaveFirst: an executor of the job that finished a task of another stage, unfinished, at
	// this instant (decima-sim hands it straight to the next stage: a first wave).
	WaveFirst
	// WaveRest: an executor of the job that finished a task of the same stage at this instant
	// (decima-sim keeps it on its stage: a later wave).
	WaveRest
	// WaveIdle: an executor of the job that waited idle in its pool, or whose last stage has
	// completed (decima-sim detaches an executor that enters its job's free pool from its last
	// task, so its next task is a fresh one, with JVM warm-up but no move).
	WaveIdle
)

// TaskStart is what a DurationModel knows about a task attempt when it starts.
type TaskStart struct {
	Job, Stage, Task int32 // indexes into the workload
	Machine          int32
	// Work is the task's remaining true work: its workload duration with Variance applied, less
	// work kept from preempted attempts (Config.PreemptKeepsWork).
	Work traces.Time
	// Load is the dominant share of the task's machine (of the cluster in pooled mode) held by
	// other tasks at its start, those started earlier in the same plan included.
	Load float64
	// Executors is the number of executors the job holds, the one this task runs on included
	// (executorTable: each task runs on one executor; the cluster has as many as it can run
	// tasks of this one's demand at once).
	Executors int
	// Wave is what the task's executor ran before.
	Wave Wave
}

// DurationModel decides a task attempt's work when it starts, from the state of the replay at
// that moment (engine.duration_model). Draw from r only: it is seeded from Config.Seed,
// "replay/durations/model" and the task attempt, so a draw does not depend on policy order.
type DurationModel interface {
	Duration(s *TaskStart, r *rand.Rand) traces.Time
}

// ExecutorModel is a DurationModel that reads TaskStart.Executors and TaskStart.Wave: only for
// such a model does the engine follow which executors each job holds (executorTable), at a cost
// per start that grows with the idle executors it must search.
type ExecutorModel interface {
	DurationModel
	UsesExecutors()
}

// Contention slows a task by the load on its machine at its start: work × (1 + Slope × Load)
// (engine.duration_model contention, engine.contention_slope; f = 1 at Slope 0). Load is the
// co-located share TaskStart.Load, the cluster's in pooled mode. Sources: co-location slowdowns
// measured on shared clusters (e.g. Bubble-Up, Mars et al., MICRO'11: 1.0-1.3 for co-located
// batch work); the slope is the sensitivity's free parameter.
type Contention struct{ Slope float64 }

// Duration implements DurationModel.
func (c Contention) Duration(s *TaskStart, _ *rand.Rand) traces.Time {
	return max(1, roundTime(float64(s.Work)*(1+c.Slope*s.Load)))
}

// taskMech is a task's state under the execution mechanics.
type taskMech struct {
	hold traces.Time // the current attempt's start-up hold
	work traces.Time // the current attempt's full work (before slowdowns and kept work)
}

// mechOn reports whether any execution mechanic changes task attempts.
func (e *Engine) mechOn() bool {
	return e.cfg.Holding.on() || e.cfg.Variance.on() || e.cfg.Durations != nil
}

// trueWork is task's work with Variance applied (the workload's duration when it is off).
func (e *Engine) trueWork(jr *jobRT, st *stageRT, job, stage, task int32) traces.Time {
	d := st.src.TaskDuration(task)
	if e.cfg.Variance.on() {
		d = max(1, roundTime(float64(d)*e.varianceFactor(job, stage, task)))
	}
	return d
}

// mechanicsWork is the work of the attempt of task starting now on machine m under the
// execution mechanics, before slowdowns and kept work, and records the attempt's start-up hold
// and work; c tasks of the same start decision were started on m before it. (With every
// mechanic off the engine takes the workload's duration without calling it.)
func (e *Engine) mechanicsWork(jr *jobRT, st *stageRT, job, stage, task, m, c int32) traces.Time {
	tm := e.mech[st]
	if tm == nil {
		tm = make([]taskMech, st.src.Tasks)
		e.mech[st] = tm
	}
	w := e.trueWork(jr, st, job, stage, task)
	if e.cfg.Durations != nil {
		s := TaskStart{Job: job, Stage: stage, Task: task, Machine: m, Work: w}
		if st.worked != nil {
			s.Work = max(1, w-st.worked[task])
		}
		d := st.src.Demand
		used := e.mach[m].Capacity.Sub(e.free[m]).Add(d.Scale(int64(c)))
		s.Load = used.DominantShare(e.mach[m].Capacity)
		if _, ok := e.cfg.Durations.(ExecutorModel); ok {
			s.Executors, s.Wave = e.executors.start(job, stage, e.now, len(e.jobs), e.executorCount, func(s int32) bool {
				st := &jr.stages[s]
				return st.finished == st.src.Tasks
			})
		}
		w = max(1, e.cfg.Durations.Duration(&s, e.rnd.For(compModel, job, stage, task, st.attempt[task])))
		if st.worked != nil {
			w += st.worked[task] // kept work is subtracted by the caller
		}
	}
	tm[task] = taskMech{hold: e.startupHold(job, stage, task, st.attempt[task]), work: w}
	return w
}

// startupOf is the start-up hold of task's current attempt.
func (e *Engine) startupOf(st *stageRT, task int32) traces.Time {
	if e.rnd == nil {
		return 0
	}
	return e.mech[st][task].hold
}

// fullWork is the work of task's current attempt (its cap for kept work).
func (e *Engine) fullWork(st *stageRT, task int32) traces.Time {
	if e.rnd == nil {
		return st.src.TaskDuration(task)
	}
	return e.mech[st][task].work
}

// executorTable follows the executors each job holds, as decima-sim does (spark_env/env.py):
// an executor joins a job when the job needs one more than it holds, taken from the executors no
// job holds or else from the job holding the most idle ones; it stays with the job, running its
// tasks or idle in its pool, until the job completes (then no job holds it) or another job takes
// it while it is idle. A job's executors are its running tasks plus its idle ones; the machines
// are interchangeable executors (decima-sim has executors, not machines), so which machine a
// policy places a task on does not matter. The task's wave (decima-sim's spark_env/node.py and
// free_executors.py): a new executor's is WaveJoin; an executor freed at this instant by the same
// stage gives WaveRest, by another stage not yet complete WaveFirst; any other idle executor
// WaveIdle.
type executorTable struct {
	init   bool
	unheld int          // executors no job holds
	held   []int32      // per job: executors held (running + idle)
	idle   [][]idleExec // per job: its idle executors
	done   []bool       // per job: completed (its executors returned)
}

// idleExec is an idle executor: the stage of its last task and when that task stopped.
type idleExec struct {
	stage int32
	since traces.Time
}

// start records that job starts a task of stage on one of its executors and returns the
// executors the job then holds and the task's wave; executors gives the cluster's count.
// now is the time; complete reports whether a stage of the job has finished all its tasks.
func (t *executorTable) start(job, stage int32, now traces.Time, jobs int, executors func() int, complete func(int32) bool) (int, Wave) {
	if !t.init {
		t.init = true
		t.unheld = executors()
		t.held = make([]int32, jobs)
		t.idle = make([][]idleExec, jobs)
		t.done = make([]bool, jobs)
	}
	if idle := t.idle[job]; len(idle) > 0 {
		k, wave := len(idle)-1, WaveIdle
		for i := len(idle) - 1; i >= 0; i-- {
			if x := idle[i]; x.since == now && x.stage == stage {
				k, wave = i, WaveRest
				break
			} else if x.since == now && wave == WaveIdle && !complete(x.stage) {
				k, wave = i, WaveFirst
			}
		}
		t.idle[job] = append(idle[:k], idle[k+1:]...)
		return int(t.held[job]), wave
	}
	if t.unheld > 0 {
		t.unheld--
	} else if k := t.mostIdle(job); k >= 0 {
		t.idle[k] = t.idle[k][:len(t.idle[k])-1]
		t.held[k]--
	}
	t.held[job]++
	return int(t.held[job]), WaveJoin
}

// mostIdle returns the job other than job holding the most idle executors (the lowest index
// among equals), or −1.
func (t *executorTable) mostIdle(job int32) int32 {
	best, n := int32(-1), 0
	for k := range t.idle {
		if int32(k) != job && len(t.idle[k]) > n {
			best, n = int32(k), len(t.idle[k])
		}
	}
	return best
}

// stop records that a task of job's stage stopped (finished or preempted): its executor is idle
// in the job's pool, or, when the job completed, held by no job any more.
func (t *executorTable) stop(job, stage int32, now traces.Time, jobDone bool) {
	if !t.init || t.done[job] {
		return
	}
	if !jobDone {
		t.idle[job] = append(t.idle[job], idleExec{stage: stage, since: now})
		return
	}
	t.done[job] = true
	t.unheld += int(t.held[job])
	t.held[job] = 0
	t.idle[job] = nil
}

// initMechanics checks the execution mechanics' settings and prepares their state.
func (e *Engine) initMechanics() error {
	if err := e.cfg.Holding.validate(); err != nil {
		return err
	}
	if err := e.cfg.Variance.validate(); err != nil {
		return err
	}
	if e.mechOn() {
		e.rnd = newDraws(e.cfg.Seed)
		e.mech = map[*stageRT][]taskMech{}
	}
	if invariants {
		e.acct = &conservation{}
	}
	return nil
}

// pushFinish schedules a task attempt's finish event (ev.t: the end of its start-up hold and
// work).
func (e *Engine) pushFinish(ev event) {
	if invariants {
		e.acct.started(ev, e.now, e.jobs[ev.job].stages[ev.stage].src.Demand)
	}
	e.heap.push(ev)
}

// executorCount is the number of executors in the cluster for the duration models: how many
// tasks of the first job's first stage's demand it runs at once (its capacity in that demand's
// largest dimension), at least 1. Decima's workloads have one single-core machine per executor.
func (e *Engine) executorCount() int {
	if len(e.w.Jobs) == 0 || len(e.w.Jobs[0].Stages) == 0 {
		return 1
	}
	d := e.w.Jobs[0].Stages[0].Demand
	n := int64(math.MaxInt64)
	for i := range d {
		if d[i] > 0 {
			n = min(n, e.cap[i]/d[i])
		}
	}
	return int(max(1, min(n, math.MaxInt32)))
}

// executorStopped records, for the duration models, that a task attempt of job's stage stopped.
func (e *Engine) executorStopped(job, stage int32) {
	if e.executors.init {
		e.executors.stop(job, stage, e.now, e.jobs[job].finished == e.jobs[job].info.Tasks)
	}
}
