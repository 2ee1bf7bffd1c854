package cora

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies/solver"
)

// FINAL is the paper's linear program (§II-C, "FINAL") built for a Problem, exactly as
// published: for every job i, slot t and resource r a variable x_{i,t}^r and three
// λ-variables for the sample points 0, 1 and C^r of the convex function k^{−u_it·I(x)},
//
//	minimise   Σ_{i,t,r} λ⁰ + k^{−u_it}(λ¹ + λ^C)
//	subject to λ¹ + C^r·λ^C = x,   λ⁰ + λ¹ + λ^C = 1,   λ ≥ 0          (per i, t, r)
//	           Σ_i x_{i,t}^r ≤ C^r                                      (3), per t, r
//	           Σ_t x_{i,t}^r = R_i^r                                    (4), per i, r
//
// with integrality (5) relaxed (the paper's Lemma 2 and Theorem 1 claim the LP optimum is
// integral and solves CORA). u_it = round(Scale · U_i(t)) are the integer-scaled utilities the
// paper asks for and k = |N|·|T|·|R| (Lemma 1). 4·|N|·|T|·|R| variables.
//
// What the LP does, measured by the tests in lp_test.go and reported in
// experiments/cora/README.md:
//
//   - k^{−u} leaves double precision quickly: it is below the smallest normal double
//     (2.2·10⁻³⁰⁸) once u·ln k > 708.4, e.g. for k = 1,000 (10 jobs × 100 slots) at u > 102. A
//     CORA sigmoid has height p ≤ 5, so a scale of 100 (two decimals) already underflows there;
//     ScaleNoUnderflow picks the largest scale that does not, which resolves utility only to
//     steps of ln k·U_max/708 (0.05 for k = 1,000 and U_max = 5). Long before underflow the
//     terms are lost to HiGHS's tolerances: a cost of 10⁻¹⁰⁰ next to the λ⁰ costs of 1 is zero
//     to a dual-feasibility tolerance of 10⁻⁷. ScaleResolvable (the default) keeps every cost ≥
//     10⁻⁶, i.e. steps of ln k·U_max/13.8: 2.5 for k = 1,000 — two or three utility levels.
//   - The objective sums a term for every (job, slot) pair, used or not — an unused slot costs 1,
//     a used one k^{−u} < 1 — so the LP prefers spreading each job over as many slots as it
//     can: every extra slot a job uses saves about 1, more than any change of utility levels
//     can (< 1/k each). The completion slot of a spread job is its last used slot, late.
//     R-CORA's vector of u_it·I(x_{i,t}) has an entry per (job, slot), not per job, so its
//     lexicographic maximum is not CORA's; FINAL inherits that. lp_test.go's study measures
//     how often FINAL's optimum has a different sorted utility vector from Exact's, and keeps
//     the smallest counter-example.
type FINAL struct {
	Model *solver.Model
	// Scale multiplies utilities before rounding them to integers u_it.
	Scale float64
	// K is the base k = |N|·|T|·|R| (at least 2).
	K float64
	// Underflow counts the costs k^{−u_it} that fell below the smallest normal double.
	Underflow int
	p         *Problem
	x         []solver.Var // index ((i·Slots)+t-1)·R + r
}

// Cost floors for choosing the utility scale: the smallest positive normal float64, below which
// k^{−u} underflows, and the smallest cost HiGHS resolves against the λ⁰ costs of 1 (its dual
// feasibility tolerance is 10⁻⁷).
const (
	smallestNormal = 2.2250738585072014e-308
	resolvable     = 1e-6
)

// Scale rules for FINAL's integer utilities u = round(s·U).
const (
	// ScaleResolvable picks the largest s with k^{−s·U_max} ≥ 10⁻⁶: the finest quantization
	// whose cost differences HiGHS can still see. The default.
	ScaleResolvable = 0
	// ScaleNoUnderflow picks the largest s with k^{−s·U_max} a normal double: the finest
	// quantization the paper's objective can represent at all, though HiGHS sees none of the
	// differences between small costs.
	ScaleNoUnderflow = -1
)

// ScaleFor returns the scale a rule picks for base k and largest utility umax (1 when umax ≤
// 0 or k ≤ 1).
func ScaleFor(rule float64, k, umax float64) float64 {
	if rule > 0 {
		return rule
	}
	if umax <= 0 || k <= 1 {
		return 1
	}
	floor := resolvable
	if rule == ScaleNoUnderflow {
		floor = smallestNormal
	}
	return -math.Log(floor) / (math.Log(k) * umax)
}

// BuildFINAL builds the LP for p. scale > 0 is the utility scale; ScaleResolvable (0) and
// ScaleNoUnderflow (-1) choose one (ScaleFor). names labels every variable and row (for model
// dumps; it costs time on large models).
func BuildFINAL(p *Problem, scale float64, names bool) (*FINAL, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n, T, R := p.Jobs(), p.Slots, p.Resources()
	u := Materialize(p)
	umax := 0.0
	for i := range u {
		for _, v := range u[i] {
			if v > umax {
				umax = v
			}
		}
	}
	k := math.Max(float64(n*T*R), 2)
	scale = ScaleFor(scale, k, umax)
	f := &FINAL{Model: solver.NewModel("cora_final"), Scale: scale, K: k, p: p, x: make([]solver.Var, n*T*R)}
	m := f.Model
	lnk := math.Log(k)
	name := func(format string, a ...any) string {
		if !names {
			return ""
		}
		return fmt.Sprintf(format, a...)
	}
	vars := make([]solver.Var, 4)
	coefs := make([]float64, 4)
	for i := range n {
		for t := 1; t <= T; t++ {
			ui := math.Round(scale * u[i][t-1])
			cost := math.Exp(-ui * lnk)
			if cost < smallestNormal {
				f.Underflow++
			}
			for r, c := range p.Capacity {
				cf := float64(c)
				x := m.AddContinuous(0, cf, 0, name("x_%d_%d_%d", i, t, r))
				l0 := m.AddContinuous(0, solver.Inf, 1, name("l0_%d_%d_%d", i, t, r))
				l1 := m.AddContinuous(0, solver.Inf, cost, name("l1_%d_%d_%d", i, t, r))
				lc := m.AddContinuous(0, solver.Inf, cost, name("lC_%d_%d_%d", i, t, r))
				f.x[((i*T)+t-1)*R+r] = x
				vars, coefs = vars[:3], coefs[:3]
				vars[0], vars[1], vars[2] = l1, lc, x
				coefs[0], coefs[1], coefs[2] = 1, cf, -1
				m.AddRow(0, 0, vars, coefs, name("link_%d_%d_%d", i, t, r))
				vars[0], vars[1], vars[2] = l0, l1, lc
				coefs[0], coefs[1], coefs[2] = 1, 1, 1
				m.AddRow(1, 1, vars, coefs, name("convex_%d_%d_%d", i, t, r))
			}
		}
	}
	cv := make([]solver.Var, 0, max(n, T))
	cc := make([]float64, 0, max(n, T))
	for t := 1; t <= T; t++ { // (3) capacity
		for r, c := range p.Capacity {
			cv, cc = cv[:0], cc[:0]
			for i := range n {
				cv, cc = append(cv, f.x[((i*T)+t-1)*R+r]), append(cc, 1)
			}
			m.AddRow(-solver.Inf, float64(c), cv, cc, name("cap_%d_%d", t, r))
		}
	}
	for i := range n { // (4) requirement
		for r := range p.Capacity {
			cv, cc = cv[:0], cc[:0]
			for t := 1; t <= T; t++ {
				cv, cc = append(cv, f.x[((i*T)+t-1)*R+r]), append(cc, 1)
			}
			w := float64(p.Work[i][r])
			m.AddRow(w, w, cv, cc, name("req_%d_%d", i, r))
		}
	}
	return f, nil
}

// LPInfo describes how an LP solution maps back to CORA.
type LPInfo struct {
	// Fractional is the largest distance of an x_{i,t}^r from an integer (0 when integral, as
	// Lemma 2 promises for vertices).
	Fractional float64
	// Objective is the LP's objective value.
	Objective float64
}

// Interpret turns an optimal LP solution into a Solution: job i completes in the last slot in
// which some x_{i,t}^r > 10⁻⁶ (slot 1 for a job with no work), its first-slot allocation is
// x_{i,1}^r rounded, and the order is by completion slot then index.
func (f *FINAL) Interpret(res *solver.Result) (*Solution, LPInfo, error) {
	if res == nil || !res.Status.HasSolution() || len(res.Values) != f.Model.NumVars() {
		return nil, LPInfo{}, fmt.Errorf("cora: LP has no solution")
	}
	p := f.p
	n, T, R := p.Jobs(), p.Slots, p.Resources()
	s := &Solution{Slot: make([]int, n), First: make([][]int64, n)}
	info := LPInfo{Objective: res.Objective}
	for i := range n {
		s.Slot[i] = 1
		s.First[i] = make([]int64, R)
		for t := 1; t <= T; t++ {
			for r := range R {
				x := res.Values[f.x[((i*T)+t-1)*R+r]]
				info.Fractional = math.Max(info.Fractional, math.Abs(x-math.Round(x)))
				if x > 1e-6 {
					s.Slot[i] = t
				}
				if t == 1 {
					s.First[i][r] = int64(math.Round(math.Max(x, 0)))
				}
			}
		}
	}
	s.Utility = make([]float64, n)
	s.Order = make([]int, n)
	for i := range n {
		s.Utility[i] = p.Utility.At(i, s.Slot[i])
		s.Order[i] = i
	}
	slices.SortStableFunc(s.Order, func(a, b int) int { return s.Slot[a] - s.Slot[b] })
	return s, info, nil
}

// LPResult is a solved FINAL with HiGHS's outcome.
type LPResult struct {
	Solution *Solution
	Info     LPInfo
	FINAL    *FINAL
	Result   *solver.Result
}

// SolveLP builds FINAL for p, solves it with ms and interprets the optimum. A status other than
// optimal is an error (the Result, when there is one, is still returned for its statistics).
func SolveLP(ctx context.Context, ms solver.ModelSolver, p *Problem, scale float64, opts solver.Options) (*LPResult, error) {
	f, err := BuildFINAL(p, scale, opts.DumpDir != "")
	if err != nil {
		return nil, err
	}
	out := &LPResult{FINAL: f}
	res, err := ms.Solve(ctx, f.Model, opts)
	out.Result = res
	if err != nil {
		return out, err
	}
	if res.Status != solver.StatusOptimal {
		return out, fmt.Errorf("cora: FINAL LP %s (HiGHS: %s)", res.Status, res.HiGHSStatus)
	}
	out.Solution, out.Info, err = f.Interpret(res)
	return out, err
}
