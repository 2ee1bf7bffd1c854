package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// randomLP is a small random LP in both our form and gonum's standard
// form (min cᵀx, Ax = b, x ≥ 0):
//
//	min or max cᵀx  s.t.  G x ≤ h (some rows as equalities),  0 ≤ x_j ≤ u_j (some u_j finite).
type randomLP struct {
	m    *Model
	c    []float64
	a    *mat.Dense
	b    []float64
	sign float64 // +1 minimise, −1 maximise (gonum always minimises)
}

func newRandomLP(rng *rand.Rand) randomLP {
	n := 2 + rng.IntN(7)
	rows := 1 + rng.IntN(6)
	m := NewModel("random_lp")
	sign := 1.0
	if rng.IntN(2) == 0 {
		m.SetSense(Maximize)
		sign = -1
	}
	g := make([][]float64, rows)
	for i := range g {
		g[i] = make([]float64, n)
	}
	for j := 0; j < n; j++ {
		for i := 0; i < rows; i++ {
			if rng.Float64() < 0.6 {
				g[i][j] = float64(rng.IntN(11) - 5)
			}
		}
		if allZero(g, j) { // gonum rejects zero columns
			g[rng.IntN(rows)][j] = float64(1 + rng.IntN(5))
		}
	}
	c := make([]float64, n)
	ub := make([]float64, n)
	for j := range c {
		c[j] = float64(rng.IntN(21) - 10)
		ub[j] = Inf
		if rng.Float64() < 0.3 {
			ub[j] = float64(1 + rng.IntN(10))
		}
		m.AddContinuous(0, ub[j], c[j], "")
	}
	h := make([]float64, rows)
	eq := make([]bool, rows)
	for i := range h {
		h[i] = float64(rng.IntN(26) - 5)
		eq[i] = rng.Float64() < 0.2
		vars := make([]Var, n)
		for j := range vars {
			vars[j] = Var(j)
		}
		lb := -Inf
		if eq[i] {
			lb = h[i]
		}
		m.AddRow(lb, h[i], vars, g[i], "")
	}
	// Standard form: one slack per inequality row and per finite upper bound.
	var slackRows []int
	for i := range eq {
		if !eq[i] {
			slackRows = append(slackRows, i)
		}
	}
	var ubVars []int
	for j := range ub {
		if !math.IsInf(ub[j], 1) {
			ubVars = append(ubVars, j)
		}
	}
	nRows := rows + len(ubVars)
	nCols := n + len(slackRows) + len(ubVars)
	a := mat.NewDense(nRows, nCols, nil)
	b := make([]float64, nRows)
	cs := make([]float64, nCols)
	for j := range c {
		cs[j] = sign * c[j]
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, g[i][j])
		}
		b[i] = h[i]
	}
	for k, i := range slackRows {
		a.Set(i, n+k, 1)
	}
	for k, j := range ubVars {
		r := rows + k
		a.Set(r, j, 1)
		a.Set(r, n+len(slackRows)+k, 1)
		b[r] = ub[j]
	}
	return randomLP{m: m, c: cs, a: a, b: b, sign: sign}
}

func allZero(g [][]float64, j int) bool {
	for i := range g {
		if g[i][j] != 0 {
			return false
		}
	}
	return true
}

func TestDifferentialLPvsGonum(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2024, 1))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	counts := map[Status]int{}
	skipped := 0
	for k := 0; k < cases; k++ {
		p := newRandomLP(rng)
		res, err := s.Solve(ctx, p.m, Options{})
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		gObj, _, gErr := lp.Simplex(p.c, p.a, p.b, 1e-10, nil)
		var want Status
		switch {
		case gErr == nil:
			want = StatusOptimal
		case errors.Is(gErr, lp.ErrInfeasible):
			want = StatusInfeasible
		case errors.Is(gErr, lp.ErrUnbounded):
			want = StatusUnbounded
		default: // gonum's simplex gives up on some degenerate cases
			skipped++
			continue
		}
		counts[want]++
		if res.Status != want {
			t.Errorf("case %d: HiGHS %v, gonum %v (%v)", k, res.Status, want, gErr)
			continue
		}
		if want != StatusOptimal {
			continue
		}
		if wantObj := p.sign * gObj; !near(res.Objective, wantObj) {
			t.Errorf("case %d: HiGHS objective %.9g, gonum %.9g", k, res.Objective, wantObj)
		}
		if obj, viol := p.m.Eval(res.Values); viol > 1e-7 || !near(obj, res.Objective) {
			t.Errorf("case %d: solution violation %g, objective %g vs %g", k, viol, obj, res.Objective)
		}
	}
	t.Logf("compared %d LPs (%v), gonum gave up on %d", cases-skipped, counts, skipped)
	if skipped > cases/10 || counts[StatusOptimal] < cases/3 || counts[StatusInfeasible] == 0 || counts[StatusUnbounded] == 0 {
		t.Errorf("poor coverage: %v, %d skipped", counts, skipped)
	}
}

// newRandom01MILP returns a random pure 0-1 program with n ≤ 12 variables
// and its optimum by enumeration (ok=false when infeasible).
func newRandom01MILP(rng *rand.Rand) (m *Model, best float64, feasible bool) {
	n := 1 + rng.IntN(12)
	rows := 1 + rng.IntN(5)
	m = NewModel("random_01")
	maximize := rng.IntN(2) == 0
	if maximize {
		m.SetSense(Maximize)
	}
	cost := make([]float64, n)
	for j := range cost {
		cost[j] = float64(rng.IntN(201)-100) / 10
		m.AddBinary(cost[j], "")
	}
	type row struct {
		coef   []float64
		lo, hi float64
	}
	rs := make([]row, rows)
	for i := range rs {
		coef := make([]float64, n)
		vars := make([]Var, n)
		sum := 0.0
		for j := range coef {
			vars[j] = Var(j)
			if rng.Float64() < 0.7 {
				coef[j] = float64(rng.IntN(16) - 6)
			}
			sum += math.Abs(coef[j])
		}
		rhs := math.Round((rng.Float64() - 0.3) * sum * 0.6)
		lo, hi := -Inf, rhs
		switch rng.IntN(6) {
		case 0:
			lo, hi = rhs, Inf
		case 1:
			lo, hi = rhs, rhs
		case 2:
			lo, hi = rhs-3, rhs
		}
		rs[i] = row{coef, lo, hi}
		m.AddRow(lo, hi, vars, coef, "")
	}
	for mask := 0; mask < 1<<n; mask++ {
		ok := true
		for _, r := range rs {
			act := 0.0
			for j, c := range r.coef {
				if mask>>j&1 == 1 {
					act += c
				}
			}
			if act < r.lo-1e-9 || act > r.hi+1e-9 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		obj := 0.0
		for j, c := range cost {
			if mask>>j&1 == 1 {
				obj += c
			}
		}
		if !feasible || (maximize && obj > best) || (!maximize && obj < best) {
			best, feasible = obj, true
		}
	}
	return m, best, feasible
}

func TestDifferential01MILPvsEnumeration(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 99))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	feasibleCases := 0
	for k := 0; k < cases; k++ {
		m, best, feasible := newRandom01MILP(rng)
		res, err := s.Solve(ctx, m, Options{MIPGap: 1e-9})
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if !feasible {
			if res.Status != StatusInfeasible {
				t.Errorf("case %d: HiGHS %v, enumeration infeasible", k, res.Status)
			}
			continue
		}
		feasibleCases++
		if res.Status != StatusOptimal || math.Abs(res.Objective-best) > 1e-6 {
			t.Errorf("case %d: HiGHS %v %.6g, enumeration %.6g", k, res.Status, res.Objective, best)
			continue
		}
		if obj, viol := m.Eval(res.Values); viol > 1e-6 || math.Abs(obj-best) > 1e-6 {
			t.Errorf("case %d: solution violation %g objective %g", k, viol, obj)
		}
	}
	t.Logf("%d feasible, %d infeasible 0-1 programs", feasibleCases, cases-feasibleCases)
	if feasibleCases < cases/3 || feasibleCases == cases {
		t.Errorf("poor coverage: %d of %d feasible", feasibleCases, cases)
	}
}
