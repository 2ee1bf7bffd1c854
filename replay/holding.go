package replay

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Holding is what a task's resources are held for without progress around its work
// (engine.task_startup_s, engine.task_release_s, engine.holding_dist, engine.holding_cv).
//
// Source: a YARN container is allocated before its process has started (localization, JVM
// launch) and stays allocated after the task's work until the NodeManager reports it finished at
// its next heartbeat and the ResourceManager releases it (yarn-default.xml:
// yarn.nodemanager.container-monitor.interval-ms, yarn.resourcemanager.nodemanagers.heartbeat-interval-ms
// 1000 ms); the BPF authors' Hadoop 2.7 + Tez logs (github.com/lenhattan86/ccra) show about 5 s
// held per container without work.
//
// Semantics:
//   - A task that starts at t holds its demand on its machine from t. Its work begins after the
//     start-up hold (Startup) and its finish event comes when the work is done: that is when its
//     stage counts it finished (children unlock, the job completes). Its resources stay held,
//     and counted in its job's allocation and the usage meter, for the release hold (Release)
//     after that, and are freed by a release event.
//   - Preemption during start-up: the attempt did no work; with Config.PreemptKeepsWork it keeps
//     none, and its resources are freed after Config.PreemptDelay as for any preemption. A
//     restarted attempt pays a new start-up hold. A task in its release hold has finished and
//     cannot be preempted.
//   - Each hold has the given mean. Dist "const" (or "") holds exactly the mean, "exp" draws an
//     exponential with that mean (coefficient of variation 1; CV must be 0 or 1), "lognormal"
//     a lognormal with that mean and coefficient of variation CV (> 0). A start-up hold is
//     drawn per task attempt, a release hold per task, each by its own generator seeded from
//     Config.Seed, the component ("replay/holding/startup", "replay/holding/release") and the
//     task, so policies see the same holds for the same task.
type Holding struct {
	Startup traces.Time
	Release traces.Time
	Dist    string
	CV      float64
}

// Holding distributions.
const (
	HoldConst     = "const"
	HoldExp       = "exp"
	HoldLognormal = "lognormal"
)

// HoldingDists lists the valid Holding.Dist values.
var HoldingDists = []string{HoldConst, HoldExp, HoldLognormal}

func (h Holding) on() bool { return h.Startup > 0 || h.Release > 0 }

func (h Holding) validate() error {
	if h.Startup < 0 || h.Release < 0 {
		return fmt.Errorf("replay: task start-up and release holds must be ≥ 0")
	}
	if math.IsNaN(h.CV) || math.IsInf(h.CV, 0) || h.CV < 0 {
		return fmt.Errorf("replay: holding coefficient of variation must be a number ≥ 0, got %v", h.CV)
	}
	switch h.Dist {
	case "", HoldConst:
	case HoldExp:
		if h.CV != 0 && h.CV != 1 {
			return fmt.Errorf("replay: holding distribution exp has coefficient of variation 1, got %v", h.CV)
		}
	case HoldLognormal:
		if h.CV <= 0 {
			return fmt.Errorf("replay: holding distribution lognormal needs a coefficient of variation > 0")
		}
	default:
		return fmt.Errorf("replay: unknown holding distribution %q (valid: const, exp, lognormal)", h.Dist)
	}
	return nil
}

// hold draws one hold of the given mean for a task attempt.
func (e *Engine) hold(mean traces.Time, comp uint64, job, stage, task int32, attempt uint32) traces.Time {
	if mean <= 0 {
		return 0
	}
	h := e.cfg.Holding
	switch h.Dist {
	case HoldExp:
		return roundTime(float64(mean) * e.rnd.For(comp, job, stage, task, attempt).ExpFloat64())
	case HoldLognormal:
		s2 := math.Log1p(h.CV * h.CV)
		z := e.rnd.For(comp, job, stage, task, attempt).NormFloat64()
		return roundTime(float64(mean) * math.Exp(math.Sqrt(s2)*z-s2/2))
	}
	return mean
}

// startupHold is the start-up hold of the attempt of a task starting now.
func (e *Engine) startupHold(job, stage, task int32, attempt uint32) traces.Time {
	return e.hold(e.cfg.Holding.Startup, compStartup, job, stage, task, attempt)
}

// freeAfterWork frees a finished task's resources, now or after its release hold; the job's
// allocation and the usage meter keep them until they are free.
func (e *Engine) freeAfterWork(ev *event, d traces.Vec) {
	if e.rnd != nil {
		e.freeAfterHold(ev, d)
		return
	}
	// Every mechanic off: as the engine always did.
	jr := &e.jobs[ev.job]
	jr.alloc = jr.alloc.Sub(d)
	e.m.allocChanged(ev.job, d, -1)
	e.release(ev.machine, d)
}

func (e *Engine) freeAfterHold(ev *event, d traces.Vec) {
	e.executorStopped(ev.job, ev.stage)
	r := e.hold(e.cfg.Holding.Release, compRelease, ev.job, ev.stage, ev.task, 0)
	if r <= 0 {
		e.freeTask(ev.job, ev.machine, d)
		return
	}
	if invariants {
		e.acct.commit(d, r)
	}
	e.heap.push(event{t: e.now + r, kind: KindRelease, job: ev.job, stage: ev.stage, task: ev.task, machine: ev.machine, holding: true})
}

// freeTask ends a task's hold on machine m: its job's allocation and the machine shrink.
func (e *Engine) freeTask(j int32, m int32, d traces.Vec) {
	jr := &e.jobs[j]
	jr.alloc = jr.alloc.Sub(d)
	if !e.trailing() {
		e.m.allocChanged(j, d, -1)
	}
	e.release(m, d)
}

// trailing reports whether every job has completed: release holds that end after the last
// completion are outside the run (Result.End) and its usage meter. Without release holds nothing
// is allocated then, so this changes nothing when they are off.
func (e *Engine) trailing() bool {
	return e.nActive == 0 && e.nextArr == len(e.jobs) && len(e.jobs) > 0
}

// workSince is the work a running task attempt has done by now: the time since it started
// less its start-up hold (none while it is still starting up).
func (e *Engine) workSince(st *stageRT, task int32) traces.Time {
	return max(e.now-st.started[task]-e.startupOf(st, task), 0)
}

func roundTime(x float64) traces.Time {
	if !(x > 0) {
		return 0
	}
	if x > math.MaxInt64/4 {
		return math.MaxInt64 / 4
	}
	return traces.Time(math.Round(x))
}

// releaseEvent frees what a release event was holding: a preempted task's resources after the
// preemption delay, or a finished task's after its release hold.
func (e *Engine) releaseEvent(ev *event) {
	d := e.jobs[ev.job].stages[ev.stage].src.Demand
	if ev.holding {
		e.freeTask(ev.job, ev.machine, d)
		return
	}
	e.release(ev.machine, d)
}
