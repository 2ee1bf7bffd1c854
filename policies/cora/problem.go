package cora

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Utilities gives the utility U_i(t) of job i completing at the end of slot t (1-based). For
// every job it must be non-increasing in t; solvers may rely on it.
type Utilities interface {
	At(i, t int) float64
}

// Guesser is an optional ability of Utilities: Guess(i, v) estimates the real slot position at
// which U_i falls to v (for example by inverting a sigmoid), so the exact solver searches near it
// instead of bisecting all slots. Any value is safe — a bad guess costs time, not correctness.
type Guesser interface {
	Guess(i int, v float64) float64
}

// Table is Utilities held as a matrix: Table[i][t-1] = U_i(t).
type Table [][]float64

// At implements Utilities.
func (u Table) At(i, t int) float64 { return u[i][t-1] }

// Problem is one CORA instance in slotted time (CORA §II): jobs 0..Jobs()-1, each needing
// Work[i][r] units of resource r over slots 1..Slots, with Capacity[r] units of each resource per
// slot. A job completes in the last slot in which it receives any resource; its utility is
// Utility.At(i, T_i).
type Problem struct {
	// Slots is |T|, the number of slots; every job must complete by its end.
	Slots int
	// Capacity is C^r, the units of each resource per slot (≥ 1).
	Capacity []int64
	// Work is R_i^r: Work[i][r] units of resource r (≥ 0; len(Work[i]) = len(Capacity)).
	Work [][]int64
	// Utility gives U_i(t), non-increasing in t.
	Utility Utilities
}

// Jobs returns the number of jobs.
func (p *Problem) Jobs() int { return len(p.Work) }

// Resources returns the number of resource types.
func (p *Problem) Resources() int { return len(p.Capacity) }

// MinSlots returns the fewest slots that can hold all the work: max_r ⌈Σ_i R_i^r / C^r⌉ (at least
// 1). CORA's |T| is "just large enough" (§III-A), i.e. this.
func MinSlots(capacity []int64, work [][]int64) int {
	n := int64(1)
	for r, c := range capacity {
		var sum int64
		for i := range work {
			sum += work[i][r]
		}
		if c > 0 {
			n = max(n, (sum+c-1)/c)
		}
	}
	return int(n)
}

// errProblem is wrapped by Validate.
var errProblem = errors.New("cora: invalid problem")

// maxCells bounds Jobs × Slots × Resources, so an absurd instance is refused before allocation.
const maxCells = 1 << 28

// Validate checks the instance's shape and that all work fits into Slots × Capacity.
func (p *Problem) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errProblem, fmt.Sprintf(format, a...))
	}
	if p.Slots < 1 {
		return bad("%d slots", p.Slots)
	}
	if len(p.Capacity) == 0 {
		return bad("no resources")
	}
	if p.Utility == nil && p.Jobs() > 0 {
		return bad("no utilities")
	}
	if float64(p.Jobs())*float64(p.Slots)*float64(len(p.Capacity)) > maxCells {
		return bad("%d jobs × %d slots × %d resources is too large", p.Jobs(), p.Slots, len(p.Capacity))
	}
	for r, c := range p.Capacity {
		if c < 1 {
			return bad("capacity of resource %d is %d", r, c)
		}
		var sum int64
		for i := range p.Work {
			if len(p.Work[i]) != len(p.Capacity) {
				return bad("job %d has %d resources, want %d", i, len(p.Work[i]), len(p.Capacity))
			}
			w := p.Work[i][r]
			if w < 0 || w > math.MaxInt64/4 {
				return bad("job %d needs %d of resource %d", i, w, r)
			}
			sum += w
			if sum > c*int64(p.Slots) {
				return bad("resource %d: the jobs need more than %d slots × %d", r, p.Slots, c)
			}
		}
	}
	return nil
}

// Solution is a schedule of a Problem: each job's completion slot and the allocation of the
// first slot, which is what a scheduler acts on until the next event.
type Solution struct {
	// Slot is T_i, job i's completion slot (1-based).
	Slot []int
	// Utility is U_i(T_i).
	Utility []float64
	// First is x_{i,1}^r: what job i receives of resource r in slot 1.
	First [][]int64
	// Order lists the jobs by completion slot, then by index: the order in which a scheduler
	// serves them.
	Order []int
	// Inexact reports that a tie between jobs exceeded the exact solver's search budget and was
	// broken by job index, so the solution may not be lexicographically optimal (see Exact).
	Inexact bool
	// Stats are the exact solver's counters (zero for other solvers).
	Stats SolveStats
}

// SolveStats count the exact solver's work.
type SolveStats struct {
	Rounds    int // progressive-filling rounds
	Evals     int // utility evaluations in guided searches
	TieChecks int // joint feasibility checks spent on ties
	Branches  int // alternative completions explored for ties
}

// Sorted returns the utilities in non-decreasing order: the vector CORA maximizes
// lexicographically.
func (s *Solution) Sorted() []float64 {
	v := slices.Clone(s.Utility)
	slices.Sort(v)
	return v
}

// MinUtility returns the smallest utility (+Inf with no jobs).
func (s *Solution) MinUtility() float64 {
	m := math.Inf(1)
	for _, u := range s.Utility {
		m = min(m, u)
	}
	return m
}

// CompareSorted compares two sorted utility vectors lexicographically: -1 if a is worse than b,
// 0 if equal, +1 if better. Vectors of different lengths compare by their common prefix, then
// length.
func CompareSorted(a, b []float64) int {
	for k := range min(len(a), len(b)) {
		if c := cmp.Compare(a[k], b[k]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Feasible reports whether completion slots T can be met: for every resource r and slot t,
// Σ_{i: T_i ≤ t} R_i^r ≤ C^r·t (every job in 1..Slots). Serving jobs in order of T (earliest
// deadline first) then meets them all; the condition is also necessary. Jobs with no work may
// complete in any slot.
func (p *Problem) Feasible(T []int) bool {
	if len(T) != p.Jobs() {
		return false
	}
	order := make([]int, len(T))
	for i := range order {
		order[i] = i
		if T[i] < 1 || T[i] > p.Slots {
			return false
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(T[a], T[b]) })
	for r, c := range p.Capacity {
		var need int64
		for k, i := range order {
			need += p.Work[i][r]
			if (k+1 == len(order) || T[order[k+1]] != T[i]) && need > c*int64(T[i]) {
				return false
			}
		}
	}
	return true
}

// complete fills a solution's utilities, order and first-slot allocation from its slots, by
// earliest deadline first: jobs in order of completion slot (ties by index) each take what they
// can of every resource in slot 1. When the slots are feasible, this allocation extends to a
// schedule that meets all of them.
func (p *Problem) complete(s *Solution) {
	n := p.Jobs()
	s.Utility = make([]float64, n)
	s.Order = make([]int, n)
	for i := range n {
		s.Utility[i] = p.Utility.At(i, s.Slot[i])
		s.Order[i] = i
	}
	slices.SortStableFunc(s.Order, func(a, b int) int { return cmp.Compare(s.Slot[a], s.Slot[b]) })
	s.First = edfFirst(p, s.Order)
}

// edfFirst allocates slot 1 to jobs in the given order, each taking all it can.
func edfFirst(p *Problem, order []int) [][]int64 {
	first := make([][]int64, p.Jobs())
	left := slices.Clone(p.Capacity)
	for _, i := range order {
		first[i] = make([]int64, len(p.Capacity))
		for r := range p.Capacity {
			x := min(left[r], p.Work[i][r])
			first[i][r] = x
			left[r] -= x
		}
	}
	return first
}
