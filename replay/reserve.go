package replay

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Node reservations (YarnConfig.Reservations), after Hadoop 2.7's FairScheduler: when the
// container an application is offered a node for does not fit there, FSAppAttempt reserves the
// node for it; while a node holds a reservation, FairScheduler.attemptScheduling offers that
// node to nothing else, and it allocates the reserved container as soon as the node has room
// ("fulfilled"), or drops the reservation when the application no longer needs it. Reserved
// resources stay free: the node is idle where the container does not fit, so reservations are
// not work-conserving.
//
// The engine applies this to the plans it is given, start by start:
//   - A start of n tasks on machine m that m holds reserved for another (job, stage) is
//     dropped: its tasks stay pending (no error; the policy sees them pending at its next
//     scheduling point, and the machine and the job are reported changed so policies that
//     mirror free capacity or job state re-read them).
//   - Otherwise the k ≤ n tasks that fit on m start; if k < n and m is not reserved, m is
//     reserved for one container of the start's (job, stage) (log "reserve"); the other
//     n − k − 1 tasks stay pending. A start on m for the (job, stage) m is reserved for that
//     fits fulfills the reservation (log "unreserve").
//   - A start that leaves its stage without pending tasks drops the stage's reservations on
//     other machines (log "unreserve").
//   - At every instant, after its events and before the policy's scheduling point, the engine
//     looks at every reserved machine: if the stage has no pending task any more, or the job
//     completed, the reservation is dropped; else if one container now fits, the engine starts
//     one task of the stage there itself (a start like a plan's, logged as one) and the
//     reservation is fulfilled. A hard placement constraint the start would break drops the
//     reservation instead.
//   - A plan cannot reserve a machine for a start that fits nowhere without naming a machine:
//     a policy asks for a reservation by planning a start on a machine too full for it. The
//     built-in policies never do (they plan only starts that fit), so for them reservations
//     change only what happens to an engine-placed container (none yet).
//   - In pooled mode the pool is the one node and can be reserved: a start that does not fit
//     reserves the whole cluster until it fits.
type reservations struct {
	node []resv  // per machine; job -1 = not reserved
	list []int32 // reserved machines, in reservation order
}

type resv struct {
	job, stage int32
}

func newReservations(machines int) *reservations {
	r := &reservations{node: make([]resv, machines)}
	for m := range r.node {
		r.node[m].job = -1
	}
	return r
}

// reserveAdmit applies reservations to a validated start of tasks of demand d and returns how
// many of them start now (0: none).
func (e *Engine) reserveAdmit(s policies.Start, jr *jobRT, d traces.Vec) int32 {
	r := e.y.resv
	m := s.Machine
	if pl := jr.pl; pl != nil && pl.hard && e.checkHard(pl, m) != "" {
		return s.Count // the start is invalid: the engine reports it
	}
	own := resv{job: int32(s.Job), stage: s.Stage}
	if held := r.node[m]; held.job >= 0 && held != own {
		e.machineChanged(m)         // policies mirroring free capacity re-read the machine
		e.markChanged(int32(s.Job)) // and the job, whose tasks did not start
		return 0
	}
	k := s.Count
	if !d.Scale(int64(k)).Fits(e.free[m]) {
		k = fitCount(d, e.free[m], s.Count)
	}
	if r.node[m] == own && k > 0 {
		e.unreserve(m)
	}
	if r.node[m].job < 0 && k < s.Count {
		r.node[m] = own
		r.list = append(r.list, m)
		e.machineChanged(m)
		e.stats.Events++
		e.log(LogEntry{T: e.now, Kind: KindReserve, Job: own.job, Stage: own.stage, Machine: m})
	}
	if k > 0 && k == jr.stages[s.Stage].pending && len(r.list) > 0 {
		e.dropReservations(own) // nothing of the stage left to wait for a reserved node
	}
	return k
}

// dropReservations ends every reservation held for (job, stage) own.
func (e *Engine) dropReservations(own resv) {
	r := e.y.resv
	for i := 0; i < len(r.list); {
		if m := r.list[i]; r.node[m] == own {
			e.unreserve(m)
			continue
		}
		i++
	}
}

// fitCount returns how many containers of demand d, up to n, fit into free.
func fitCount(d, free traces.Vec, n int32) int32 {
	k := int64(n)
	for i := range d {
		if d[i] > 0 {
			k = min(k, max(0, free[i])/d[i])
		}
	}
	return int32(k)
}

// unreserve ends machine m's reservation.
func (e *Engine) unreserve(m int32) {
	r := e.y.resv
	held := r.node[m]
	r.node[m].job = -1
	for i, x := range r.list {
		if x == m {
			r.list = append(r.list[:i], r.list[i+1:]...)
			break
		}
	}
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindUnreserve, Job: held.job, Stage: held.stage, Machine: m})
}

// fulfillReservations drops reservations no longer needed and starts the reserved containers
// that now fit (see reservations).
func (e *Engine) fulfillReservations() {
	r := e.y.resv
	for i := 0; i < len(r.list); {
		m := r.list[i]
		held := r.node[m]
		jr := &e.jobs[held.job]
		st := &jr.stages[held.stage]
		if jr.done || st.pending == 0 || st.parentsLeft > 0 || (jr.pl != nil && jr.pl.hard && e.checkHard(jr.pl, m) != "") {
			e.unreserve(m)
			continue
		}
		if !st.src.Demand.Fits(e.free[m]) {
			i++
			continue
		}
		dirty := e.dirty
		// Validated above: the start cannot fail.
		_ = e.start(-1, policies.Start{Job: policies.JobID(held.job), Stage: held.stage, Machine: m, Count: 1})
		e.dirty = dirty
		if r.node[m] == held {
			e.unreserve(m)
		}
	}
}
