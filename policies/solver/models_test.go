package solver

import (
	"math/rand/v2"
	"os"
	"testing"
)

// needWasm skips the test when highs.wasm is not installed, or fails it
// under CI (CI=true), where `make test` installs it first.
func needWasm(tb testing.TB) {
	tb.Helper()
	if _, err := LocateWasm(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v", err)
		}
		tb.Skipf("%v", err)
	}
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// transportLP builds a seeded random sparse transportation LP: sources
// supply nodes, sinks demand nodes, arcsPerSink arcs into every sink from
// distinct random sources, with random integer costs 1..100 per unit,
// demands 1..20 and supplies totalling 110% of demand, spread evenly.
//
//	min Σ cost_a x_a  s.t.  Σ_{a out of s} x_a ≤ supply_s,  Σ_{a into d} x_a ≥ demand_d,  x ≥ 0.
//
// transportLP(1, 70, 2000, 2) is the 4,000-column × 2,070-row benchmark LP.
func transportLP(seed uint64, sources, sinks, arcsPerSink int) *Model {
	rng := rand.New(rand.NewPCG(seed, 42))
	m := NewModel("transport")
	bySource := make([][]Var, sources)
	bySink := make([][]Var, sinks)
	demand := make([]float64, sinks)
	total := 0.0
	for d := 0; d < sinks; d++ {
		demand[d] = float64(1 + rng.IntN(20))
		total += demand[d]
		used := map[int]bool{}
		for k := 0; k < arcsPerSink; k++ {
			s := rng.IntN(sources)
			for used[s] {
				s = rng.IntN(sources)
			}
			used[s] = true
			v := m.AddContinuous(0, Inf, float64(1+rng.IntN(100)), "")
			bySource[s] = append(bySource[s], v)
			bySink[d] = append(bySink[d], v)
		}
	}
	for s := 0; s < sources; s++ {
		m.AddRow(-Inf, total*1.1/float64(sources), bySource[s], ones(len(bySource[s])), "")
	}
	for d := 0; d < sinks; d++ {
		m.AddRow(demand[d], Inf, bySink[d], ones(len(bySink[d])), "")
	}
	return m
}

// tetriMIP builds a seeded random TetriSched-shaped placement MILP: jobs
// jobs, each with opts binary placement options (a random partition and a
// random start slot; the job needs k ∈ 1..4 units for d ∈ 1..3 slots),
// at most one option per job, capacity 10 per partition and slot, and
// utility base − start (base ∈ 10..99), maximised.
func tetriMIP(seed uint64, jobs, opts, parts, slots int) *Model {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := NewModel("tetri")
	m.SetSense(Maximize)
	type use struct {
		v Var
		k float64
	}
	capRows := make([][]use, parts*slots)
	for j := 0; j < jobs; j++ {
		vs := make([]Var, 0, opts)
		k := float64(1 + rng.IntN(4))
		d := 1 + rng.IntN(3)
		base := float64(10 + rng.IntN(90))
		for o := 0; o < opts; o++ {
			p := rng.IntN(parts)
			s := rng.IntN(slots - d + 1)
			v := m.AddBinary(base-float64(s), "")
			vs = append(vs, v)
			for t := s; t < s+d; t++ {
				capRows[p*slots+t] = append(capRows[p*slots+t], use{v, k})
			}
		}
		m.AddRow(-Inf, 1, vs, ones(len(vs)), "")
	}
	for _, us := range capRows {
		vs := make([]Var, len(us))
		ks := make([]float64, len(us))
		for i, u := range us {
			vs[i], ks[i] = u.v, u.k
		}
		m.AddRow(-Inf, 10, vs, ks, "")
	}
	return m
}
