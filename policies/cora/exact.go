package cora

import (
	"slices"
)

// ExactBudget bounds the search the exact solver spends on ties (see Exact). The zero value
// means DefaultExactBudget.
type ExactBudget struct {
	// Checks is the number of joint feasibility checks allowed for choosing which tied jobs to
	// keep at a level.
	Checks int
	// Branches is the number of alternative completions explored when several choices keep the
	// same number of jobs at a level.
	Branches int
}

// DefaultExactBudget is enough for every tie among up to a dozen jobs.
var DefaultExactBudget = ExactBudget{Checks: 1 << 14, Branches: 256}

// Exact solves a Problem to the true lexicographic max-min of the jobs' completion utilities
// U_i(T_i): it returns completion slots T whose utility vector, sorted ascending, is
// lexicographically largest among all feasible slot assignments. Budget bounds the search spent
// on ties (zero value: DefaultExactBudget); Solution.Inexact reports when it ran out.
//
// # Algorithm
//
// Completion slots T are feasible iff for every resource r and slot t the work of the jobs due
// by t fits: need_r(t) = Σ_{i: T_i ≤ t} R_i^r ≤ C^r·t (Problem.Feasible). Necessity is plain;
// sufficiency holds because serving the jobs earliest deadline first, each resource on its own
// (CORA's constraints (3) and (4) couple neither resources nor slots), misses no deadline. So
// feasibility is monotone: raising any T_i keeps T feasible. D_i(v) = max{t: U_i(t) ≥ v} is the
// loosest deadline at which job i still has utility ≥ v.
//
// The solver is progressive filling over utility levels. Every job starts free with deadline
// |T| (feasible: the problem holds all work in |T| slots). One tree per resource (slack) holds
// need_r(t) − C^r·t, so moving a job's deadline earlier is a range add and "can it move there"
// a range maximum, O(log |T|) each. Repeatedly, with v the smallest utility among free jobs:
//
//   - One job i at v: let v2 be the next smallest free utility (+∞ if none). Progressive filling
//     would raise i through its utility values one at a time while it stays the only one at the
//     bottom, i.e. while its value is below v2; the solver does those steps at once: it moves i
//     to the earliest feasible deadline not before D_i(v2) (one tree search). If it reaches
//     D_i(v2), i goes back among the free jobs with its new utility. If it stops short at D',
//     the next step (to a strictly higher utility, at a deadline < D') is infeasible with every
//     other free job at its current, loosest-for-its-level deadline: i can never do better, so
//     it is fixed, at the loosest deadline of its final value. If i cannot rise at all (its
//     utility is already U_i(1), or the first step is infeasible), it is fixed where it is.
//   - Several jobs L at v (a tie): each j ∈ L that cannot rise alone (to its next value, all
//     others where they are) is fixed. If the rest can all rise together, they all move to
//     their next value. Otherwise the lexicographic order wants as few of them left at v as
//     possible: the solver enumerates the sets K ⊆ L of smallest size such that L∖K can rise
//     together (one exists: every single job can rise alone), fixes K and raises L∖K; if several
//     K qualify, it completes the solve from each and keeps the lexicographically best final
//     vector (the first on equality).
//
// # Correctness
//
// Write X for the current configuration (fixed jobs at their deadlines, free jobs at theirs,
// always feasible: every move is checked) and sorted(·) for a configuration's utility vector
// sorted ascending. Invariant: some lexicographically optimal feasible T* has every fixed job at
// the utility it was fixed with and every free job i at T*_i ≤ dl_i (utility at least its current
// one). It holds at the start (dl = |T|). Two facts carry the steps. (F1) Fixed utilities never
// exceed the smallest free one (jobs are fixed at the current bottom, which only rises), so
// sorted(T*) is the fixed utilities followed by the free ones; hence for any feasible Y that
// agrees with X on the fixed jobs, sorted(T*) ⪰ sorted(Y) implies min over free jobs of T* ≥ min
// over free jobs of Y. (F2) If a free job j cannot move to deadline d while every other job
// stays where it is, no feasible configuration has j at ≤ d and the others at ≤ their current
// deadlines (monotonicity); so T*_j > d.
//
//   - One job i at the bottom v, next value v2: the solver moves i to D' ≥ D_i(v2), feasible,
//     giving Y with free minimum min(U_i(D'), v2). By (F1) every free job of T* has utility ≥
//     that. If D' = D_i(v2), U_i(T*_i) ≥ v2 so T*_i ≤ D_i(v2) = D': the invariant holds for the
//     new deadline. If D' > D_i(v2) (stopped short), U_i(T*_i) ≥ U_i(D'), and by (F2) (D'−1 ≥
//     D_i(v2) is not reachable) U_i(T*_i) ≤ U_i(D'): T* gives i exactly U_i(D'), and fixing i at
//     the loosest deadline of that value keeps the invariant (a looser deadline for a fixed
//     value leaves T* feasible). If i cannot move at all, the same argument with D' = dl_i, and
//     if it is at its best value, trivially.
//   - Several jobs L at the bottom v: one that cannot rise alone has exactly v in T* by (F1) and
//     (F2). If the rest L' can rise together, Y has free minimum > v, so by (F1) every job of L'
//     has more than v in T*, i.e. T*_j ≤ its next-value deadline: raising them all keeps the
//     invariant. Otherwise T* keeps some K* ⊆ L' at v; T*'s sorted vector counts its jobs at v
//     before anything above, and a configuration keeping fewer of L' at v (with the others
//     above) would beat it, so |K*| is the smallest size of a K for which L'∖K can rise
//     together — and K* is such a set, since T* itself has L'∖K* above v within the others'
//     deadlines. The solver enumerates all those smallest sets; in the branch for K* the
//     invariant holds, so that branch ends with sorted(T*), and keeping the lexicographically
//     best branch loses nothing.
//
// Every round fixes a job or raises the smallest free utility, and utilities are finitely many,
// so the solver ends with every job fixed; the final X then has sorted(X) = sorted(T*). The
// differential test checks this against enumerating every slot assignment on random instances
// with ties, flat utilities and two resources.
//
// # Cost and the budget
//
// Without ties each round costs O(log n + log |T| · (resources + utility evaluations)); the
// number of rounds is the number of times the bottom job changes, at most jobs × |T| and in
// practice close to jobs × (distinct utility values a job passes). Ties are the hard case:
// maximizing the number of tied jobs lifted is a knapsack-like choice — with integer work and
// two utility levels per job, lexicographic max-min contains 1|d̄_j|ΣU_j (minimizing late jobs
// under hard deadlines), which is strongly NP-hard — so the tie search is exponential in the
// number of tied jobs. It stops after Budget.Checks joint checks or Budget.Branches branches,
// takes the first qualifying K it found (or, with none yet, keeps all but the lowest-indexed
// raisable job at v) and sets Solution.Inexact. Ties need equal float utilities in different
// jobs: flat utilities of equal height, or utilities that reached exactly 0.
func Exact(p *Problem, budget ExactBudget) (*Solution, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if budget.Checks <= 0 {
		budget.Checks = DefaultExactBudget.Checks
	}
	if budget.Branches <= 0 {
		budget.Branches = DefaultExactBudget.Branches
	}
	stats := &SolveStats{}
	s := newExactState(p, &budget)
	s.stats = stats
	s.run()
	sol := &Solution{Slot: s.dl, Inexact: s.inexact, Stats: *stats}
	p.complete(sol)
	return sol, nil
}

// exactState is the progressive-filling state; it is cloned to branch over ties.
type exactState struct {
	p       *Problem
	budget  *ExactBudget // shared by all branches
	dl      []int        // current deadline (completion slot) per job
	val     []float64    // U_i(dl_i)
	fixed   []bool
	trees   []*slack // per resource: need(t) − C·t at position t-1, t = 1..Slots-1
	guess   Guesser  // nil: binary searches
	free    valHeap
	inexact bool
	stats   *SolveStats // shared by all branches
}

func newExactState(p *Problem, budget *ExactBudget) *exactState {
	n := p.Jobs()
	s := &exactState{p: p, budget: budget, dl: make([]int, n), val: make([]float64, n), fixed: make([]bool, n)}
	s.guess, _ = p.Utility.(Guesser)
	s.free.val = s.val
	for r, c := range p.Capacity {
		s.trees = append(s.trees, newSlack(p.Slots-1, func(pos int) int64 { return -c * int64(pos+1) }))
		_ = r
	}
	for i := range n {
		s.dl[i] = p.Slots
		s.val[i] = p.Utility.At(i, p.Slots)
		s.free.push(i)
	}
	return s
}

func (s *exactState) clone() *exactState {
	c := &exactState{p: s.p, budget: s.budget, dl: slices.Clone(s.dl), val: slices.Clone(s.val),
		fixed: slices.Clone(s.fixed), inexact: s.inexact, stats: s.stats, guess: s.guess}
	for _, t := range s.trees {
		c.trees = append(c.trees, t.clone())
	}
	c.free = valHeap{val: c.val, items: slices.Clone(s.free.items)}
	return c
}

// at is U_i(t).
func (s *exactState) at(i, t int) float64 { return s.p.Utility.At(i, t) }

// latestAtLeast returns max{t ∈ [1, hi]: U_i(t) ≥ v}, or 0.
func (s *exactState) latestAtLeast(i int, v float64, hi int) int {
	ok := func(u float64) bool { return u >= v }
	if s.guess != nil {
		return s.latestNear(i, hi, s.guess.Guess(i, v), ok)
	}
	return s.bisect(i, hi, ok)
}

// nextUp returns the latest deadline before i's current one with a strictly higher utility and
// that utility, or 0 when i is at its best.
func (s *exactState) nextUp(i int) (int, float64) {
	v, d := s.val[i], s.dl[i]
	if d < 2 {
		return 0, 0
	}
	if u := s.at(i, d-1); u > v { // one slot earlier is already better (the common case)
		return d - 1, u
	}
	var up int
	if s.guess != nil {
		up = s.latestNear(i, d-2, s.guess.Guess(i, v), func(u float64) bool { return u > v })
	} else {
		up = s.bisect(i, d-2, func(u float64) bool { return u > v })
	}
	if up == 0 {
		return 0, 0
	}
	return up, s.at(i, up)
}

// bisect returns max{t ∈ [1, hi]: ok(U_i(t))} (0 if none) for a predicate that holds on a prefix
// of the slots.
func (s *exactState) bisect(i, hi int, ok func(float64) bool) int {
	lo, best := 1, 0
	for lo <= hi {
		mid := (lo + hi) / 2
		if ok(s.at(i, mid)) {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// latestNear returns max{t ∈ [1, hi]: ok(U_i(t))} (0 if none) for a predicate that holds on a
// prefix of the slots, galloping outwards from the guess g, then bisecting.
func (s *exactState) latestNear(i, hi int, g float64, ok func(float64) bool) int {
	if hi < 1 {
		return 0
	}
	test := func(t int) bool {
		s.stats.Evals++
		return ok(s.at(i, t))
	}
	t := hi
	if g < float64(hi) {
		t = max(1, int(g))
	}
	lo, top := 0, 0 // answer in [lo, top]; ok(lo) unless lo == 0
	if test(t) {
		lo, top = t, hi
		for step := 1; lo < top; step *= 2 {
			nxt := min(lo+step, top)
			if !test(nxt) {
				top = nxt - 1
				break
			}
			lo = nxt
		}
	} else {
		top = t - 1
		for step := 1; ; step *= 2 {
			nxt := t - step
			if nxt < 1 {
				break
			}
			if test(nxt) {
				lo = nxt
				break
			}
			t, top = nxt, nxt-1
		}
	}
	for lo < top {
		mid := (lo + top + 1) / 2
		if test(mid) {
			lo = mid
		} else {
			top = mid - 1
		}
	}
	return lo
}

// canMove reports whether job i's deadline can move to d (≤ its current one) with every other
// job where it is.
func (s *exactState) canMove(i, d int) bool {
	for r, t := range s.trees {
		w := s.p.Work[i][r]
		if w > 0 && t.Max(d-1, s.dl[i]-2)+w > 0 {
			return false
		}
	}
	return true
}

// earliestFrom returns the earliest deadline in [lo, dl_i] job i can move to.
func (s *exactState) earliestFrom(i, lo int) int {
	d := lo
	for r, t := range s.trees {
		w := s.p.Work[i][r]
		if w == 0 {
			continue
		}
		if pos := t.RightmostAbove(lo-1, s.dl[i]-2, -w); pos >= 0 {
			d = max(d, pos+2)
		}
	}
	return d
}

// moveTo sets job i's deadline to d (earlier or later than the current one) and its utility.
func (s *exactState) moveTo(i, d int) { s.moveToVal(i, d, s.at(i, d)) }

// moveToVal is moveTo for a caller that knows U_i(d).
func (s *exactState) moveToVal(i, d int, u float64) {
	old := s.dl[i]
	for r, t := range s.trees {
		w := s.p.Work[i][r]
		if d < old {
			t.Add(d-1, old-2, w)
		} else if d > old {
			t.Add(old-1, d-2, -w)
		}
	}
	s.dl[i] = d
	s.val[i] = u
}

func (s *exactState) fix(i int) { s.fixed[i] = true }

// run progressive-fills until every job is fixed.
func (s *exactState) run() {
	for s.free.len() > 0 {
		s.stats.Rounds++
		v := s.val[s.free.top()]
		i := s.free.pop()
		if s.free.len() > 0 && s.val[s.free.top()] == v {
			tied := []int{i}
			for s.free.len() > 0 && s.val[s.free.top()] == v {
				tied = append(tied, s.free.pop())
			}
			if s.tie(tied) {
				return // a branch completed the solve
			}
			continue
		}
		up, upVal := s.nextUp(i)
		if up == 0 {
			s.fix(i)
			continue
		}
		target := 0
		if s.free.len() > 0 {
			if v2 := s.val[s.free.top()]; upVal >= v2 {
				target = up // the first step already passes the next job (the common case)
			} else {
				target = s.latestAtLeast(i, v2, up)
			}
		}
		if target == 0 { // alone, or it cannot catch up with the next one: as high as it goes
			target = s.latestAtLeast(i, s.at(i, 1), up)
		}
		d := s.earliestFrom(i, target)
		switch {
		case d > up: // not even one step
			s.fix(i)
		case d > target: // stopped short: blocked at U_i(d); fix at that value's loosest deadline
			s.moveTo(i, s.latestAtLeast(i, s.at(i, d), up))
			s.fix(i)
		case d == up:
			s.moveToVal(i, d, upVal)
			s.free.push(i)
		default:
			s.moveTo(i, d)
			s.free.push(i)
		}
	}
}

// tie handles jobs tied at the smallest free utility (ascending index). It reports whether it
// finished the whole solve (by branching).
func (s *exactState) tie(tied []int) bool {
	type cand struct{ i, up int }
	var raisable []cand
	for _, j := range tied {
		up, _ := s.nextUp(j)
		if up == 0 || !s.canMove(j, up) {
			s.fix(j)
			continue
		}
		raisable = append(raisable, cand{j, up})
	}
	switch len(raisable) {
	case 0:
		return false
	case 1:
		s.free.push(raisable[0].i)
		return false
	}
	// raise tries to move every job not in keep to its next value, all together. It undoes its
	// moves unless commit is set, and reports success. Committed jobs go back among the free.
	raise := func(st *exactState, keep []bool, commit bool) bool {
		var moved, from []int
		ok := true
		for k, c := range raisable {
			if keep != nil && keep[k] {
				continue
			}
			if !st.canMove(c.i, c.up) {
				ok = false
				break
			}
			moved, from = append(moved, k), append(from, st.dl[c.i])
			st.moveTo(c.i, c.up)
		}
		if !ok || !commit {
			for x := len(moved) - 1; x >= 0; x-- {
				st.moveTo(raisable[moved[x]].i, from[x])
			}
			return ok
		}
		for _, k := range moved {
			st.free.push(raisable[k].i)
		}
		return true
	}
	apply := func(st *exactState, keep []bool) {
		for k, c := range raisable {
			if keep[k] {
				st.fix(c.i)
			}
		}
		raise(st, keep, true)
	}
	if raise(s, nil, true) {
		return false
	}
	// Smallest sets K to keep at this level such that the others can all rise.
	m := len(raisable)
	var found [][]bool
	exhausted := false
	for k := 1; k < m && len(found) == 0 && !exhausted; k++ {
		combinations(m, k, func(idx []int) bool {
			if s.budget.Checks <= 0 {
				exhausted = true
				return false
			}
			s.budget.Checks--
			s.stats.TieChecks++
			keep := make([]bool, m)
			for _, x := range idx {
				keep[x] = true
			}
			if raise(s, keep, false) {
				found = append(found, keep)
			}
			return true
		})
	}
	if len(found) == 0 { // budget gone before any: keep all but the first raisable job
		s.inexact = true
		keep := make([]bool, m)
		for k := 1; k < m; k++ {
			keep[k] = true
		}
		apply(s, keep)
		return false
	}
	if exhausted {
		s.inexact = true
	}
	if len(found) == 1 {
		apply(s, found[0])
		return false
	}
	// Several ways to keep the fewest jobs at this level: complete each and keep the best.
	var best *exactState
	var bestVec []float64
	for _, keep := range found {
		if s.budget.Branches <= 0 {
			s.inexact = true
			if best == nil {
				apply(s, keep)
				return false
			}
			break
		}
		s.budget.Branches--
		s.stats.Branches++
		b := s.clone()
		apply(b, keep)
		b.run()
		vec := slices.Clone(b.val)
		slices.Sort(vec)
		if best == nil || CompareSorted(vec, bestVec) > 0 {
			best, bestVec = b, vec
		}
		s.inexact = s.inexact || b.inexact
	}
	inexact := s.inexact || best.inexact
	*s = *best
	s.inexact = inexact
	return true
}

// combinations calls f with every k-subset of 0..n-1 in lexicographic order until f returns
// false.
func combinations(n, k int, f func([]int) bool) {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		if !f(idx) {
			return
		}
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// valHeap is a min-heap of job indices by (val[i], i).
type valHeap struct {
	val   []float64
	items []int
}

func (h *valHeap) len() int { return len(h.items) }
func (h *valHeap) top() int { return h.items[0] }

func (h *valHeap) less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	if h.val[x] != h.val[y] {
		return h.val[x] < h.val[y]
	}
	return x < y
}

func (h *valHeap) push(i int) {
	h.items = append(h.items, i)
	k := len(h.items) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !h.less(k, p) {
			break
		}
		h.items[k], h.items[p] = h.items[p], h.items[k]
		k = p
	}
}

func (h *valHeap) pop() int {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	k := 0
	for {
		l, r, m := 2*k+1, 2*k+2, k
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == k {
			break
		}
		h.items[k], h.items[m] = h.items[m], h.items[k]
		k = m
	}
	return top
}
