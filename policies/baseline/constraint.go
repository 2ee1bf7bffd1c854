package baseline

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Placement constraints (policies.JobInfo.Placement), honoured the way a runtime-unaware
// scheduler can: a task of a constrained job goes to the lowest-numbered fitting machine among
// its preferred resources — GPU machines for kind gpu; for kind rack, the rack its running tasks
// are on, or any machine when none runs (that machine's rack becomes the job's). A hard
// constraint waits for preferred resources; a soft one falls back to first fit anywhere rather
// than wait (the engine then runs the task Slowdown times longer). Preemption for a hard-
// constrained job only considers victims on machines it may use. In pooled mode constraints
// have no effect, as in the engine.

// constrained reports whether job j's placement restricts where its tasks go.
func (c *core) constrained(info *policies.JobInfo) bool {
	return c.pl.multi() && info.Placement.Kind != traces.PlacementNone
}

// jobRack returns a machine on the rack that job j's running tasks are on, or -1 when it has
// none running.
func (c *core) jobRack(v policies.View, j policies.JobID, r *jobRec) int {
	if r.running <= 0 {
		r.rackAt = 0
		return -1
	}
	if r.rackAt == 0 {
		// Tasks the policy did not place in this run (it saw the job mid-run): ask the View.
		if ts := v.RunningTasks(j); len(ts) > 0 {
			r.rackAt = ts[0].Machine + 1
		} else {
			return -1
		}
	}
	return int(r.rackAt - 1)
}

// preferred says which machines are a constrained job's preferred resources: GPU machines,
// or the machines of one rack. The zero value (any) accepts every machine.
type preferred struct {
	v    policies.View
	kind string // traces.PlacementGPU, traces.PlacementRack or "" for any
	rack string
}

func (p preferred) ok(m int) bool {
	switch p.kind {
	case traces.PlacementGPU:
		return p.v.Machine(m).GPU
	case traces.PlacementRack:
		return p.v.Machine(m).Rack == p.rack
	}
	return true
}

// preferredOn returns job j's preferred resources now.
func (c *core) preferredOn(v policies.View, info *policies.JobInfo, j policies.JobID, r *jobRec) preferred {
	switch info.Placement.Kind {
	case traces.PlacementGPU:
		return preferred{v: v, kind: traces.PlacementGPU}
	case traces.PlacementRack:
		if at := c.jobRack(v, j, r); at >= 0 {
			return preferred{v: v, kind: traces.PlacementRack, rack: v.Machine(at).Rack}
		}
	}
	return preferred{} // any machine (a rack job with nothing running picks its rack by first fit)
}

// findFor returns the machine for one task of demand d of job j, honouring its constraint.
func (c *core) findFor(v policies.View, info *policies.JobInfo, j policies.JobID, r *jobRec, d traces.Vec) (int, bool) {
	if !c.constrained(info) {
		return c.pl.find(d, r.rank)
	}
	pref := c.preferredOn(v, info, j, r)
	if pref.kind == "" {
		return c.pl.find(d, r.rank)
	}
	if m, found := c.pl.findWhere(d, r.rank, pref); found || info.Placement.Hard {
		return m, found
	}
	return c.pl.find(d, r.rank)
}

// placedOn records that job j got a task on machine m (the rack of a rack-constrained job).
func (c *core) placedOn(info *policies.JobInfo, r *jobRec, m int) {
	if info.Placement.Kind == traces.PlacementRack && r.rackAt == 0 {
		r.rackAt = int32(m) + 1
	}
}

// mayUse returns, for preemption on behalf of job j, the machines its next task may go to.
func (c *core) mayUse(v policies.View, info *policies.JobInfo, j policies.JobID, r *jobRec) preferred {
	if !c.constrained(info) || !info.Placement.Hard {
		return preferred{}
	}
	return c.preferredOn(v, info, j, r)
}

// findWhere is find restricted to the preferred machines.
func (pl *placer) findWhere(d traces.Vec, rank int64, pref preferred) (int, bool) {
	m, found := pl.tree.First(d)
	for found && (!pref.ok(m) || (len(pl.holds) > 0 && !d.Fits(pl.avail(m, rank)))) {
		m, found = pl.tree.FirstFrom(d, m+1)
	}
	return m, found
}
