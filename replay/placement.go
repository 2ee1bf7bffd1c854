package replay

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Placement constraints (traces.Placement) are enforced here. A job's preferred resources are
// the GPU machines (kind gpu) or any single rack holding all of its running tasks (kind rack).
//
//   - Hard: every start must keep the job on preferred resources — a task of a gpu job only on
//     a machine with GPU = true, a task of a rack job only on the rack its running tasks are on
//     (any rack when none runs). Anything else is an invalid plan (PlanError), checked start by
//     start before anything is applied.
//   - Soft: a task's slowdown is settled when it starts, once the whole plan's starts are in:
//     if the job's running tasks (those started earlier and those the plan starts) are then not
//     all on preferred resources, the tasks the plan starts run Slowdown times their duration
//     (rounded to the microsecond). Tasks already running keep the speed they started with, so a
//     gang started in one plan runs at one speed, and a policy that spreads a job's starts over
//     several plans gets the speed of each plan's placement. A preempted task that restarts is
//     placed, and its slowdown settled, anew; with Config.PreemptKeepsWork its kept work is
//     counted in nominal time (elapsed time divided by the slowdown it ran with).
//
// In pooled mode there are no machines to prefer and constraints have no effect. Jobs without a
// constraint cost nothing extra: only constrained jobs carry a placeRT.

type placeKind uint8

const (
	placeGPU placeKind = iota + 1
	placeRack
)

// placeRT tracks where a constrained job's running tasks are.
type placeRT struct {
	kind   placeKind
	hard   bool
	slow   float64 // soft: runtime factor off the preferred resources
	off    int32   // gpu: running tasks on machines without a GPU
	racks  []rackCount
	slowed int32 // task starts that ran slowed
}

type rackCount struct {
	rack, n int32
}

// preferred reports whether every running task is on preferred resources.
func (p *placeRT) preferred() bool {
	if p.kind == placeGPU {
		return p.off == 0
	}
	return len(p.racks) <= 1
}

// deferredStart is a task of a soft-constrained job started by the plan being applied, whose
// duration is settled once all of the plan's starts are in.
type deferredStart struct {
	job, stage, task int32
}

// newPlaceRT returns the runtime state for job constraint c, or nil when the engine does not
// enforce it (none, pooled mode).
func (e *Engine) newPlaceRT(c traces.Placement) *placeRT {
	if c.IsZero() || e.rackOf == nil {
		return nil
	}
	p := &placeRT{hard: c.Hard, slow: c.Slowdown}
	switch c.Kind {
	case traces.PlacementGPU:
		p.kind = placeGPU
	case traces.PlacementRack:
		p.kind = placeRack
	default:
		return nil // Workload.Validate rejects other kinds
	}
	if !p.hard && !(p.slow >= 1) {
		p.slow = 1
	}
	return p
}

// indexMachines records each machine's rack (interned) and GPU flag for placement checks.
func (e *Engine) indexMachines() {
	e.rackOf = make([]int32, len(e.mach))
	e.gpu = make([]bool, len(e.mach))
	ids := map[string]int32{}
	for m := range e.mach {
		r, ok := ids[e.mach[m].Rack]
		if !ok {
			r = int32(len(e.rackNames))
			ids[e.mach[m].Rack] = r
			e.rackNames = append(e.rackNames, e.mach[m].Rack)
		}
		e.rackOf[m] = r
		e.gpu[m] = e.mach[m].GPU
	}
}

// checkHard returns why starting tasks of a hard-constrained job on machine m breaks its
// constraint, or "".
func (e *Engine) checkHard(p *placeRT, m int32) string {
	switch p.kind {
	case placeGPU:
		if !e.gpu[m] {
			return fmt.Sprintf("hard gpu constraint: machine %d (%s) has no GPU", m, e.mach[m].Name)
		}
	case placeRack:
		if len(p.racks) > 0 && p.racks[0].rack != e.rackOf[m] {
			return fmt.Sprintf("hard rack constraint: the job's running tasks are on rack %q, machine %d (%s) is on rack %q",
				e.rackNames[p.racks[0].rack], m, e.mach[m].Name, e.rackNames[e.rackOf[m]])
		}
	}
	return ""
}

// placed records n tasks of the job starting (n > 0) or stopping (n < 0) on machine m.
func (e *Engine) placed(p *placeRT, m int32, n int32) {
	switch p.kind {
	case placeGPU:
		if !e.gpu[m] {
			p.off += n
		}
	case placeRack:
		r := e.rackOf[m]
		for i := range p.racks {
			if p.racks[i].rack == r {
				p.racks[i].n += n
				if p.racks[i].n == 0 {
					p.racks = append(p.racks[:i], p.racks[i+1:]...)
				}
				return
			}
		}
		p.racks = append(p.racks, rackCount{rack: r, n: n})
	}
}

// stretch returns duration d run slow times longer.
func stretch(d traces.Time, slow float64) traces.Time {
	return max(d, traces.Time(math.Round(float64(d)*slow)))
}

// settleDeferred pushes the finish events of the plan's soft-constrained starts, each with the
// duration its job's placement gives it.
func (e *Engine) settleDeferred() {
	for _, d := range e.deferred {
		jr := &e.jobs[d.job]
		st := &jr.stages[d.stage]
		p := jr.pl
		dur := st.src.TaskDuration(d.task)
		if st.worked != nil {
			dur -= st.worked[d.task]
		}
		slowed := !p.preferred()
		if slowed {
			dur = stretch(dur, p.slow)
			p.slowed++
			e.stats.SlowedStarts++
		}
		st.slowed[d.task] = slowed
		if e.y == nil {
			e.heap.push(event{t: e.now + dur, kind: KindFinish, job: d.job, stage: d.stage, task: d.task, machine: st.machine[d.task], attempt: st.attempt[d.task]})
		} else {
			e.pushFinish(d.job, d.stage, d.task, st.machine[d.task], dur) // yarn.go
		}
	}
	e.deferred = e.deferred[:0]
}

// nominalWork converts elapsed running time of a task attempt to work done at nominal speed.
func nominalWork(elapsed traces.Time, slowed bool, slow float64) traces.Time {
	if !slowed {
		return elapsed
	}
	return traces.Time(math.Round(float64(elapsed) / slow))
}
