package solver

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"
)

// CheckLP returns the built-in LP of Check: the "Wyndor Glass" production
// LP, max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18, x, y ≥ 0, whose
// optimum is 36 at (2, 6).
func CheckLP() (m *Model, optimum float64) {
	m = NewModel("check_lp_wyndor")
	m.SetSense(Maximize)
	x := m.AddContinuous(0, Inf, 3, "x")
	y := m.AddContinuous(0, Inf, 5, "y")
	m.AddRow(-Inf, 4, []Var{x}, []float64{1}, "plant1")
	m.AddRow(-Inf, 12, []Var{y}, []float64{2}, "plant2")
	m.AddRow(-Inf, 18, []Var{x, y}, []float64{3, 2}, "plant3")
	return m, 36
}

// CheckMILP returns the built-in MILP of Check: a 0-1 knapsack (values
// 10 13 7 8 9 6 12 4, weights 5 6 3 4 5 2 7 1, capacity 16) plus an
// integer variable z ∈ [0, 3] worth 2.5 per unit that uses 3 units of
// capacity, with at most one of items 0 and 1. Its unique optimum is 38
// (items 1, 2, 3, 5, 7 and z = 0); the LP relaxation is fractional.
func CheckMILP() (m *Model, optimum float64) {
	m = NewModel("check_milp_knapsack")
	m.SetSense(Maximize)
	values := []float64{10, 13, 7, 8, 9, 6, 12, 4}
	weights := []float64{5, 6, 3, 4, 5, 2, 7, 1}
	vars := make([]Var, 0, len(values)+1)
	for i, v := range values {
		vars = append(vars, m.AddBinary(v, fmt.Sprintf("item%d", i)))
	}
	z := m.AddInteger(0, 3, 2.5, "z")
	m.AddRow(-Inf, 16, append(vars, z), append(weights, 3), "capacity")
	m.AddRow(-Inf, 1, vars[:2], []float64{1, 1}, "item0_or_item1")
	return m, 38
}

// Check solves the built-in LP and MILP and writes the HiGHS version, the
// location of highs.wasm, statuses, objectives and times to w. It returns
// an error (wrapping ErrWasmNotFound with an install hint when highs.wasm is
// missing) unless both solve to their known optima. It is what
// `schedlab solver check` runs.
func Check(ctx context.Context, w io.Writer) error {
	t0 := time.Now()
	info, err := Load(ctx)
	if err != nil {
		return err
	}
	loadTime := time.Since(t0)
	fmt.Fprintf(w, "HiGHS %s (npm %s, %s licence), in-process WebAssembly under wazero\n", info.HiGHSVersion, NpmPackage, License)
	fmt.Fprintf(w, "wasm:          %s (sha256 %s…)\n", info.WasmPath, WasmSHA256[:16])
	cache := info.CacheDir
	if cache == "" {
		cache = "off"
	}
	fmt.Fprintf(w, "compile cache: %s\n", cache)
	fmt.Fprintf(w, "load:          %s (compile or cache load %s, first instance included)\n", round(loadTime), round(info.CompileTime))

	s, err := NewSolver(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	var failed []string
	for _, c := range []struct {
		kind string
		mk   func() (*Model, float64)
	}{{"LP", CheckLP}, {"MILP", CheckMILP}} {
		m, want := c.mk()
		res, err := s.Solve(ctx, m, Options{MIPGap: 1e-9})
		if err != nil {
			fmt.Fprintf(w, "%-4s %-20s error: %v\n", c.kind, m.Name, err)
			failed = append(failed, c.kind)
			continue
		}
		fmt.Fprintf(w, "%-4s %-20s %d vars x %d rows: status=%s objective=%g (expected %g) time=%s highs_time=%s iterations=%d nodes=%d\n",
			c.kind, m.Name, m.NumVars(), m.NumRows(), res.Status, res.Objective, want,
			round(res.Stats.WallTime), round(res.Stats.SolverTime), res.Stats.SimplexIterations, res.Stats.Nodes)
		if res.Status != StatusOptimal || math.Abs(res.Objective-want) > 1e-6 {
			failed = append(failed, c.kind)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("solver: check failed for %v", failed)
	}
	fmt.Fprintln(w, "ok")
	return nil
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(100 * time.Nanosecond)
}
