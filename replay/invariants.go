package replay

import (
	"fmt"

	"github.com/schedlab/schedlab/traces"
)

// checkInvariants verifies, after every instant, what the engine promises: free capacity never
// negative and consistent with running tasks and draining preemptions, the clock never behind an
// event, and per-job counters consistent with per-task states (a task runs at most once at a
// time). It costs O(machines + tasks) and runs only under the invariants build tag.
//
// go:norace: the check only reads state the engine's own goroutine owns, and under -race each
// of its O(tasks) reads per instant went through the race runtime (three quarters of the CPU of
// an engine-heavy test); the engine's own accesses to the same state stay instrumented.
//
//go:norace
func (e *Engine) checkInvariants() error {
	held := make([]traces.Vec, len(e.mach))
	// Finished tasks in their release hold (holding.go) still count in their job's allocation.
	releasing := make([]traces.Vec, len(e.jobs))
	for _, ev := range e.heap.items {
		if ev.kind == KindRelease && ev.holding {
			releasing[ev.job] = releasing[ev.job].Add(e.jobs[ev.job].stages[ev.stage].src.Demand)
		}
	}
	for ji := range e.jobs {
		jr := &e.jobs[ji]
		var running, pending int32
		alloc := releasing[ji]
		for si := range jr.stages {
			st := &jr.stages[si]
			var r, d int32
			for ti, s := range st.status {
				switch s {
				case taskRunning:
					r++
					held[st.machine[ti]] = held[st.machine[ti]].Add(st.src.Demand)
					alloc = alloc.Add(st.src.Demand)
				case taskDone:
					d++
				}
			}
			if r != st.running || d != st.finished || st.running+st.pending+st.finished != st.src.Tasks {
				return fmt.Errorf("replay: invariant: job %d stage %d: counters running=%d pending=%d finished=%d, tasks say running=%d finished=%d of %d",
					ji, si, st.running, st.pending, st.finished, r, d, st.src.Tasks)
			}
			running += r
			if st.parentsLeft == 0 {
				pending += st.pending
			}
		}
		if jr.arrived && (running != jr.running || pending != jr.pending || alloc != jr.alloc) {
			return fmt.Errorf("replay: invariant: job %d: running=%d pending=%d alloc=%v, stages say %d, %d, %v", ji, jr.running, jr.pending, jr.alloc, running, pending, alloc)
		}
		if jr.pl != nil {
			if err := e.checkPlacement(ji, jr); err != nil {
				return err
			}
		}
	}
	// Draining preemptions and release holds hold resources until their release event.
	for _, ev := range e.heap.items {
		if ev.kind == KindRelease {
			held[ev.machine] = held[ev.machine].Add(e.jobs[ev.job].stages[ev.stage].src.Demand)
		}
		if ev.t < e.now {
			return fmt.Errorf("replay: invariant: %s event at t=%d behind the clock t=%d", ev.kind, ev.t, e.now)
		}
	}
	if e.y != nil {
		e.yarnHeld(held)
	}
	e.clusterHeld(held)
	for m := range e.mach {
		if e.free[m].AnyNegative() {
			return fmt.Errorf("replay: invariant: machine %d free capacity negative: %v", m, e.free[m])
		}
		if e.free[m].Add(held[m]) != e.mach[m].Capacity {
			return fmt.Errorf("replay: invariant: machine %d: free %v + held %v != capacity %v", m, e.free[m], held[m], e.mach[m].Capacity)
		}
	}
	return nil
}

// checkPlacement recounts where a constrained job's running tasks are and compares with the
// tallies the engine keeps; a hard-constrained job must be wholly on preferred resources.
// Not race-instrumented, as checkInvariants.
//
//go:norace
func (e *Engine) checkPlacement(ji int, jr *jobRT) error {
	var off int32
	racks := map[int32]int32{}
	for si := range jr.stages {
		st := &jr.stages[si]
		for ti, s := range st.status {
			if s != taskRunning {
				continue
			}
			m := st.machine[ti]
			if !e.gpu[m] {
				off++
			}
			racks[e.rackOf[m]]++
			if st.slowed != nil && st.slowed[ti] && jr.pl.hard {
				return fmt.Errorf("replay: invariant: job %d: hard-constrained task slowed", ji)
			}
		}
	}
	p := jr.pl
	switch p.kind {
	case placeGPU:
		if off != p.off {
			return fmt.Errorf("replay: invariant: job %d: %d running tasks off GPU machines, tally says %d", ji, off, p.off)
		}
	case placeRack:
		if len(racks) != len(p.racks) {
			return fmt.Errorf("replay: invariant: job %d: running tasks on %d racks, tally says %d", ji, len(racks), len(p.racks))
		}
		for _, rc := range p.racks {
			if racks[rc.rack] != rc.n {
				return fmt.Errorf("replay: invariant: job %d: %d running tasks on rack %d, tally says %d", ji, racks[rc.rack], rc.rack, rc.n)
			}
		}
	}
	if p.hard && !p.preferred() {
		return fmt.Errorf("replay: invariant: job %d: hard %v constraint broken", ji, p.kind)
	}
	return nil
}
