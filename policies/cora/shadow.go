package cora

import (
	"cmp"
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/rrh"
	"github.com/schedlab/schedlab/traces"
)

// Shadow evaluation (the paper's Fig. 3): at a scheduling event, the smallest utility that other
// schedulers' allocation rules would reach from the same state, projected in the same slotted
// model as CORA's problem (the same remaining work R_i^r, capacity and utilities at slot ends;
// no parallelism limits, as in CORA's model):
//
//   - FIFO, EDF and RRH serve jobs one after another in their order — submit time; target
//     completion time (deadline, none last); decreasing RRH reward — so job k of the order
//     completes in slot max_r ⌈(Σ_{m ≤ k} R_m^r) / C^r⌉.
//   - Fair shares every resource among the unfinished jobs in proportion to their weights
//     (weighted processor sharing): in virtual time dV/dt = C^r / Σ_{unfinished} w, job i
//     finishes when V reaches R_i^r / w_i; it completes in the slot containing that time.

// Meta is what the shadow orders need of a job beyond its work.
type Meta struct {
	Submit   traces.Time
	Deadline traces.Time // 0: none
	Weight   float64     // ≤ 0 reads as 1
}

// ShadowMins are the smallest projected utilities of the comparators at one event.
type ShadowMins struct {
	FIFO, Fair, EDF, RRH float64
}

// Shadow projects the comparators on p (whose jobs are jobs and meta, in submit order).
func Shadow(p *Problem, now traces.Time, capacity traces.Vec, jobs []jobwork.Job, meta []Meta, prm rrh.Params) ShadowMins {
	n := p.Jobs()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	fifo := slices.Clone(idx)
	slices.SortStableFunc(fifo, func(a, b int) int { return cmp.Compare(meta[a].Submit, meta[b].Submit) })
	edf := slices.Clone(idx)
	slices.SortStableFunc(edf, func(a, b int) int {
		da, db := meta[a].Deadline, meta[b].Deadline
		if (da == 0) != (db == 0) {
			if da == 0 {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(da, db); c != 0 {
			return c
		}
		return cmp.Compare(meta[a].Submit, meta[b].Submit)
	})
	return ShadowMins{
		FIFO: minUtility(p, SequenceSlots(p, fifo)),
		Fair: minUtility(p, FairSlots(p, meta)),
		EDF:  minUtility(p, SequenceSlots(p, edf)),
		RRH:  minUtility(p, SequenceSlots(p, rrh.Rank(now, capacity, jobs, prm))),
	}
}

func minUtility(p *Problem, slots []int) float64 {
	m := math.Inf(1)
	for i, t := range slots {
		m = min(m, p.Utility.At(i, t))
	}
	return m
}

// SequenceSlots returns each job's completion slot when the jobs are served one after another
// in order, each taking all of every resource it can.
func SequenceSlots(p *Problem, order []int) []int {
	slots := make([]int, p.Jobs())
	cum := make([]int64, p.Resources())
	for _, i := range order {
		t := int64(1)
		for r, c := range p.Capacity {
			cum[r] += p.Work[i][r]
			t = max(t, (cum[r]+c-1)/c)
		}
		slots[i] = int(min(t, int64(p.Slots)))
	}
	return slots
}

// FairSlots returns each job's completion slot under weighted processor sharing of every
// resource.
func FairSlots(p *Problem, meta []Meta) []int {
	n := p.Jobs()
	slots := make([]int, n)
	for i := range slots {
		slots[i] = 1
	}
	w := func(i int) float64 {
		if x := meta[i].Weight; x > 0 && !math.IsInf(x, 0) {
			return x
		}
		return 1
	}
	order := make([]int, 0, n)
	for r, c := range p.Capacity {
		order = order[:0]
		total := 0.0
		for i := range n {
			if p.Work[i][r] > 0 {
				order = append(order, i)
				total += w(i)
			}
		}
		ratio := func(i int) float64 { return float64(p.Work[i][r]) / w(i) }
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ratio(a), ratio(b)) })
		var t, v float64 // real time in slots, virtual time
		for _, i := range order {
			t += (ratio(i) - v) * total / float64(c)
			v = ratio(i)
			total -= w(i)
			slots[i] = max(slots[i], min(int(math.Ceil(t-1e-9)), p.Slots))
		}
	}
	return slots
}
