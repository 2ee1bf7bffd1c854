package baseline

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/internal/fit"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// hold withholds capacity on a machine from classes strictly below rank: the part of a blocked
// job's demand that must come from already-free capacity while the tasks it preempted there are
// being released. The hold ends when the machine's free capacity reaches expected (the victims'
// resources came back) or when the job no longer waits.
type hold struct {
	job      policies.JobID
	rank     int64
	machine  int32
	amount   traces.Vec // withheld from classes ranked after rank
	expected traces.Vec // free capacity once the victims are released, less later starts there
}

// MachineChanges is an optional ability of a View, discovered by type assertion: the machines
// whose free capacity changed since the previous Schedule call, each once. A View that has it
// lets the baselines keep their per-machine free capacity in step in O(changed machines ·
// log machines) per scheduling point; without it they re-read the machines that jobs with
// finished tasks ran on.
type MachineChanges interface {
	ChangedMachines() []int32
}

// SharedFit is an optional ability of a View, discovered by type assertion: a first-fit tree
// over every machine's free capacity, owned by the View's engine, that the policy may change
// during Schedule (by fit.Tree.Set on the machines it plans starts on) and that the engine sets
// back to the machines' free capacity after applying the plan. A View that has it spares the
// baselines their own copy of the tree, and with it one tree update per start and per finish.
type SharedFit interface {
	PlanFit() *fit.Tree
}

// placer tracks free capacity while a plan is being built. The View reports capacity as it was
// before the plan, so the placer subtracts each planned start itself.
//
// With one machine (pooled mode) it keeps a single vector. With several it mirrors every
// machine's free capacity in a fit.Tree kept across scheduling points: the policy's own starts
// are applied as they are planned; capacity freed by finishes is picked up by re-reading the
// machines the View reports through MachineChanges or, lacking that, the machines of jobs whose
// running count dropped (marked dirty while Changed is processed); and if the total still
// differs from View.FreeTotal (capacity freed where no changed job ran, such as a preempted
// task's delayed release) every machine is re-read. A View with SharedFit lends its own tree
// instead, up to date at every scheduling point: the placer then keeps no copy.
type placer struct {
	n      int
	free0  traces.Vec // one machine: its plan-adjusted free capacity
	tree   *fit.Tree  // several machines: plan-adjusted free capacity per machine (own or shared)
	own    fit.Tree   // the copy, when the View does not share its tree
	total  traces.Vec // several machines: sum of the tree's leaves
	synced bool       // the tree mirrors the View (set after the first full read)

	dirty   []int32
	isDirty []bool
	holds   []hold
	hints   fit.Hints // recent searches of tree: later ones start where they ended
}

// multi reports whether the placer tracks several machines.
func (pl *placer) multi() bool { return pl.n > 1 }

// markDirty asks the next sync to re-read machine m.
func (pl *placer) markDirty(m int32) {
	if m < 0 || int(m) >= len(pl.isDirty) || pl.isDirty[m] {
		return
	}
	pl.isDirty[m] = true
	pl.dirty = append(pl.dirty, m)
}

// sync brings the placer up to date with v at the start of a scheduling point.
func (pl *placer) sync(v policies.View) error {
	n := v.NumMachines()
	if n < 1 {
		return fmt.Errorf("view has %d machines", n)
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("view has %d machines, more than a plan can address", n)
	}
	if n == 1 {
		pl.n = 1
		pl.free0 = v.Free(0)
		pl.clearDirty()
		return nil
	}
	if sf, ok := v.(SharedFit); ok {
		if t := sf.PlanFit(); t != nil && t.Len() == n {
			pl.n, pl.tree, pl.synced = n, t, false
			pl.total = v.FreeTotal()
			pl.clearDirty()
			return nil
		}
	}
	if pl.tree != &pl.own {
		pl.tree, pl.synced = &pl.own, false
	}
	if n != pl.n || !pl.synced {
		pl.n = n
		pl.tree.Reset(n)
		pl.isDirty = make([]bool, n)
		pl.dirty = pl.dirty[:0]
		pl.readAll(v)
		return nil
	}
	if mc, ok := v.(MachineChanges); ok {
		pl.clearDirty()
		for _, m := range mc.ChangedMachines() {
			if m >= 0 && int(m) < n {
				pl.reread(v, int(m))
			}
		}
	} else {
		for _, m := range pl.dirty {
			pl.isDirty[m] = false
			pl.reread(v, int(m))
		}
		pl.dirty = pl.dirty[:0]
	}
	if pl.total != v.FreeTotal() {
		pl.readAll(v)
	}
	return nil
}

// reread refreshes machine m from the View.
func (pl *placer) reread(v policies.View, m int) {
	if f := v.Free(m); f != pl.tree.Free(m) {
		pl.total = pl.total.Add(f).Sub(pl.tree.Free(m))
		pl.tree.Set(m, f)
	}
}

func (pl *placer) clearDirty() {
	for _, m := range pl.dirty {
		pl.isDirty[m] = false
	}
	pl.dirty = pl.dirty[:0]
}

func (pl *placer) readAll(v policies.View) {
	pl.tree.SetAll(v.Free)
	pl.total = traces.Vec{}
	for m := 0; m < pl.n; m++ {
		pl.total = pl.total.Add(pl.tree.Free(m))
	}
	pl.synced = true
}

// free is machine m's plan-adjusted free capacity.
func (pl *placer) free(m int) traces.Vec {
	if pl.n == 1 {
		return pl.free0
	}
	return pl.tree.Free(m)
}

// avail is machine m's free capacity as seen by a job of the given rank: less whatever holds of
// strictly higher classes withhold there, and never below zero.
func (pl *placer) avail(m int, rank int64) traces.Vec {
	f := pl.free(m)
	held := false
	for i := range pl.holds {
		if h := &pl.holds[i]; int(h.machine) == m && h.rank < rank {
			f = f.Sub(h.amount)
			held = true
		}
	}
	if held {
		for d := range f {
			f[d] = max(f[d], 0)
		}
	}
	return f
}

// find returns the lowest machine where one task of demand d fits for a job of the given rank.
func (pl *placer) find(d traces.Vec, rank int64) (int, bool) {
	if pl.n == 1 {
		return 0, d.Fits(pl.avail(0, rank))
	}
	m, ok := pl.tree.FirstHinted(d, &pl.hints)
	for ok && len(pl.holds) > 0 && !d.Fits(pl.avail(m, rank)) {
		m, ok = pl.tree.FirstFrom(d, m+1)
	}
	return m, ok
}

// mayFit reports whether a task of demand d might fit somewhere: false means it fits on no
// machine (holds aside), so a job needing at least d is blocked.
func (pl *placer) mayFit(d *traces.Vec) bool {
	if pl.n == 1 {
		return d.Fits(pl.free0)
	}
	return d.Fits(pl.tree.Max())
}

// count returns how many tasks of demand d, at most limit, fit on machine m for the given rank.
func (pl *placer) count(m int, d traces.Vec, rank int64, limit int32) int32 {
	f := pl.avail(m, rank)
	k := int64(limit)
	for i := range d {
		if d[i] > 0 {
			k = min(k, max(f[i], 0)/d[i])
		}
	}
	return int32(k)
}

// take records k tasks of demand d planned on machine m.
func (pl *placer) take(m int, d traces.Vec, k int32) {
	use := d.Scale(int64(k))
	if pl.n == 1 {
		pl.free0 = pl.free0.Sub(use)
	} else {
		pl.tree.Set(m, pl.tree.Free(m).Sub(use))
		pl.total = pl.total.Sub(use)
	}
	for i := range pl.holds {
		if h := &pl.holds[i]; int(h.machine) == m {
			h.expected = h.expected.Sub(use)
		}
	}
}
