package cora

import (
	"math"

	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/traces"
)

// Slotting maps jobs' remaining work and utilities onto CORA's slotted time (§II, §III-A):
//
//   - Time from now is cut into slots of Slot; slot t is (now + (t-1)·Slot, now + t·Slot]. Slot
//     is the configured length, stretched when needed so that |T| ≤ MaxSlots (see Fit): a
//     rolling horizon of bounded size, fine when few jobs are active and coarser under load.
//   - Resource r's capacity C^r is the cluster's capacity in whole units (40 containers in the
//     CORA workload, where a container is 1.0 cpu); dimensions with no capacity are left out.
//   - R_i^r = ⌈remaining work in unit-seconds / Slot⌉: unit-slots, so a task of 30 s on one
//     container is one unit for one slot when Slot = 30 s. A job with work left but less than
//     a unit-slot in every dimension counts one unit of its first demanded dimension.
//   - |T| = max_r ⌈Σ_i R_i^r / C^r⌉, just large enough to finish everything (CORA's rule: 160
//     tasks on 40 containers give 4 slots).
//   - U_i(t) is the job's utility at the end of slot t: U_i(now + t·Slot).
type Slotting struct {
	Now  traces.Time
	Slot traces.Time
	// Dims are the dimensions modelled, in order: Problem resource k is dimension Dims[k].
	Dims []int
}

// Fit stretches the slot, if needed, so that the jobs' work fits into about maxSlots slots
// (maxSlots ≤ 0: no bound): Slot becomes at least max_r Σ_i work_i^r / (C^r · maxSlots),
// rounded up to a whole millisecond. Rounding each job's work up to whole unit-slots can add
// ⌈jobs / C⌉ more.
func (s *Slotting) Fit(capacity traces.Vec, jobs []jobwork.Job, maxSlots int) {
	if maxSlots <= 0 {
		return
	}
	need := 0.0
	for _, d := range s.Dims {
		var w float64
		for i := range jobs {
			w += jobs[i].Work[d]
		}
		need = max(need, w/(float64(capacity[d]/traces.Unit)*float64(maxSlots)))
	}
	if min := traces.FromSeconds(need) + traces.Millisecond; s.Slot < min {
		s.Slot = (min + traces.Millisecond - 1) / traces.Millisecond * traces.Millisecond
	}
}

// NewSlotting picks the dimensions with at least one whole unit of capacity.
func NewSlotting(now, slot traces.Time, capacity traces.Vec) Slotting {
	s := Slotting{Now: now, Slot: slot}
	for d, c := range capacity {
		if c >= traces.Unit {
			s.Dims = append(s.Dims, d)
		}
	}
	return s
}

// Problem builds the instance for jobs with the given capacity.
func (s Slotting) Problem(capacity traces.Vec, jobs []jobwork.Job) *Problem {
	p := &Problem{Work: make([][]int64, len(jobs))}
	for _, d := range s.Dims {
		p.Capacity = append(p.Capacity, capacity[d]/traces.Unit)
	}
	slot := traces.Seconds(s.Slot)
	flat := make([]int64, len(jobs)*len(s.Dims))
	for i := range jobs {
		w := flat[i*len(s.Dims) : (i+1)*len(s.Dims)]
		any := false
		for k, d := range s.Dims {
			if x := jobs[i].Work[d]; x > 0 {
				w[k] = int64(math.Ceil(x/slot - 1e-9))
				any = any || w[k] > 0
			}
		}
		if !any && len(w) > 0 {
			k := 0
			for kk, d := range s.Dims {
				if jobs[i].Work[d] > 0 {
					k = kk
					break
				}
			}
			w[k] = 1
		}
		p.Work[i] = w
	}
	p.Slots = MinSlots(p.Capacity, p.Work)
	p.Utility = &slotUtilities{s: s, jobs: jobs}
	return p
}

// slotUtilities evaluates U_i at slot ends on demand.
type slotUtilities struct {
	s    Slotting
	jobs []jobwork.Job
}

func (u *slotUtilities) At(i, t int) float64 {
	j := &u.jobs[i]
	if j.Utility == nil {
		return 0
	}
	return j.Utility.Value(j.Submit, u.s.Now+traces.Time(t)*u.s.Slot)
}

// Materialize returns a problem's utilities as a Table (what the LP needs: every U_i(t)).
func Materialize(p *Problem) Table {
	if t, ok := p.Utility.(Table); ok {
		return t
	}
	tab := make(Table, p.Jobs())
	cells := make([]float64, p.Jobs()*p.Slots)
	for i := range tab {
		tab[i] = cells[i*p.Slots : (i+1)*p.Slots]
		for t := range tab[i] {
			tab[i][t] = p.Utility.At(i, t+1)
		}
	}
	return tab
}

// Guess implements Guesser by inverting the utility families of traces.Utility: the real slot
// position at which U_i falls to v.
func (u *slotUtilities) Guess(i int, v float64) float64 {
	const far = 1e18
	j := &u.jobs[i]
	ut := j.Utility
	if ut == nil || v <= 0 {
		if v <= 0 {
			return far
		}
		return -far
	}
	var at float64 // seconds from now at which U falls to v
	switch ut.Kind {
	case traces.UtilitySigmoid:
		switch {
		case ut.Decay == 0 || v >= ut.Priority:
			if ut.Priority/2 >= v && ut.Decay == 0 {
				return far
			}
			return -far
		default:
			at = traces.Seconds(ut.Target-u.s.Now) + math.Log(ut.Priority/v-1)/ut.Decay
		}
	case traces.UtilityLinear:
		end := traces.Seconds(ut.Target - u.s.Now)
		if ut.Slope < 0 {
			end = min(end, traces.Seconds(j.Submit-u.s.Now)+(v-ut.Priority)/ut.Slope)
		} else if ut.Priority < v {
			return -far
		}
		at = end
	default:
		if ut.Priority >= v {
			return far
		}
		return -far
	}
	return at / traces.Seconds(u.s.Slot)
}
