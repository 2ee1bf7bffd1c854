package bpf

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// placer tracks free capacity while a plan is built: the View reports capacity as it was before
// the plan, so the placer subtracts each planned start itself. total is the plan-adjusted free
// capacity summed over machines; a start must also fit total less the reservation of blocked
// guaranteed queues (withheld as an amount, not on a particular machine).
//
// In pooled mode (one machine, as BPF's simulator shares its cluster) every operation is O(1).
// With several machines, View.FirstFit answers the first candidate in O(log machines); only
// when that machine has been filled by this plan does the placer scan on from it, so the worst
// case is O(machines) per placement.
type placer struct {
	v     policies.View
	n     int
	total traces.Vec
	adj   []traces.Vec // plan-adjusted free capacity of machines touched by this plan
	stamp []uint64
	epoch uint64
}

// begin prepares the placer for a scheduling point.
func (pl *placer) begin(v policies.View) {
	pl.v = v
	pl.n = v.NumMachines()
	pl.total = v.FreeTotal()
	pl.epoch++
	if len(pl.stamp) < pl.n {
		pl.stamp = make([]uint64, pl.n)
		pl.adj = make([]traces.Vec, pl.n)
	}
}

// free is machine m's plan-adjusted free capacity.
func (pl *placer) free(m int) traces.Vec {
	if pl.stamp[m] == pl.epoch {
		return pl.adj[m]
	}
	return pl.v.Free(m)
}

// find returns the lowest machine where one task of demand d fits, provided d also fits the
// total free capacity less reserve.
func (pl *placer) find(d, reserve traces.Vec) (int, bool) {
	if !d.Fits(pl.total.Sub(reserve)) {
		return 0, false
	}
	if pl.n == 1 {
		return 0, d.Fits(pl.free(0))
	}
	m, ok := pl.v.FirstFit(d)
	if !ok {
		return 0, false // the plan only takes capacity away
	}
	for ; m < pl.n; m++ {
		if d.Fits(pl.free(m)) {
			return m, true
		}
	}
	return 0, false
}

// count returns how many tasks of demand d, at most limit, fit on machine m and in the total
// less reserve.
func (pl *placer) count(m int, d, reserve traces.Vec, limit int32) int32 {
	f := pl.free(m)
	t := pl.total.Sub(reserve)
	k := int64(limit)
	for i := range d {
		if d[i] > 0 {
			k = min(k, max(f[i], 0)/d[i], max(t[i], 0)/d[i])
		}
	}
	return int32(k)
}

// take records use planned on machine m.
func (pl *placer) take(m int, use traces.Vec) {
	pl.adj[m] = pl.free(m).Sub(use)
	pl.stamp[m] = pl.epoch
	pl.total = pl.total.Sub(use)
}
