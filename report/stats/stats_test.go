package stats

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

func TestMeanVarianceStdDev(t *testing.T) {
	tests := []struct {
		name           string
		xs             []float64
		mean, variance float64
	}{
		{"empty", nil, math.NaN(), math.NaN()},
		{"single", []float64{4}, 4, math.NaN()},
		{"pair", []float64{2, 4}, 3, 2},
		{"one-to-five", []float64{1, 2, 3, 4, 5}, 3, 2.5},
		{"offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 3}, 1e9 + 2, 1},
		{"negative", []float64{-1, -3}, -2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mean(tc.xs); !near(got, tc.mean, 1e-9) {
				t.Errorf("Mean = %v, want %v", got, tc.mean)
			}
			if got := Variance(tc.xs); !near(got, tc.variance, 1e-9) {
				t.Errorf("Variance = %v, want %v", got, tc.variance)
			}
			if got := StdDev(tc.xs); !near(got, math.Sqrt(tc.variance), 1e-9) {
				t.Errorf("StdDev = %v, want %v", got, math.Sqrt(tc.variance))
			}
		})
	}
}

func TestTQuantile(t *testing.T) {
	// Two-sided 95% critical values from standard t tables.
	tests := []struct {
		dof  int
		want float64
	}{
		{1, 12.706204736},
		{2, 4.302652730},
		{4, 2.776445105},
		{9, 2.262157163},
		{30, 2.042272456},
	}
	for _, tc := range tests {
		if got := TQuantile(0.95, tc.dof); !near(got, tc.want, 1e-6) {
			t.Errorf("TQuantile(0.95, %d) = %v, want %v", tc.dof, got, tc.want)
		}
	}
	if got := TQuantile(0.95, 0); !math.IsNaN(got) {
		t.Errorf("TQuantile(0.95, 0) = %v, want NaN", got)
	}
	if got := TQuantile(1, 3); !math.IsNaN(got) {
		t.Errorf("TQuantile(1, 3) = %v, want NaN", got)
	}
}

func TestMeanCI95(t *testing.T) {
	tests := []struct {
		name           string
		xs             []float64
		mean, half     float64
		wantErr        error
		wantUndefined  bool
		wantAnyErrText bool
	}{
		// sd = sqrt(2.5), se = sqrt(0.5), t(0.975, 4) = 2.776445105.
		{name: "one-to-five", xs: []float64{1, 2, 3, 4, 5}, mean: 3, half: 1.963243161},
		// sd = sqrt(2), se = 1, t(0.975, 1) = 12.706204736.
		{name: "pair", xs: []float64{2, 4}, mean: 3, half: 12.706204736},
		// Zero variance: a degenerate but defined interval.
		{name: "constant", xs: []float64{5, 5, 5}, mean: 5, half: 0},
		{name: "single", xs: []float64{7}, mean: 7, wantUndefined: true},
		{name: "empty", xs: nil, wantErr: ErrEmpty},
		{name: "nan", xs: []float64{1, math.NaN()}, wantErr: ErrNonFinite},
		{name: "inf", xs: []float64{1, math.Inf(1)}, wantErr: ErrNonFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ci, err := MeanCI95(tc.xs)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ci.Level != 0.95 {
				t.Errorf("Level = %v", ci.Level)
			}
			if !near(ci.Estimate, tc.mean, 1e-9) {
				t.Errorf("Estimate = %v, want %v", ci.Estimate, tc.mean)
			}
			if tc.wantUndefined {
				if ci.Defined() || !math.IsNaN(ci.HalfWidth()) {
					t.Errorf("interval %v should be undefined", ci)
				}
				return
			}
			if !ci.Defined() {
				t.Fatalf("interval %v undefined", ci)
			}
			if !near(ci.HalfWidth(), tc.half, 1e-6) || !near(ci.Lo, tc.mean-tc.half, 1e-6) || !near(ci.Hi, tc.mean+tc.half, 1e-6) {
				t.Errorf("interval %v, want %v ± %v", ci, tc.mean, tc.half)
			}
		})
	}
	if _, err := MeanCI([]float64{1, 2}, 1.5); err == nil {
		t.Error("MeanCI with level 1.5: want error")
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{4, 1, 3, 2} // sorted: 1 2 3 4
	tests := []struct {
		p, want float64
	}{
		{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.75, 3.25}, {0.9, 3.7}, {1, 4},
		{-0.1, math.NaN()}, {1.1, math.NaN()}, {math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		if got := Quantile(xs, tc.p); !near(got, tc.want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 4 {
		t.Error("Quantile modified its input")
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v", got)
	}
	if got := Quantile([]float64{1, math.NaN()}, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile with NaN = %v", got)
	}
	if got := Median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("Median = %v, want 3", got)
	}
}

func TestECDF(t *testing.T) {
	got := ECDF([]float64{3, 1, 2, 2, math.NaN()})
	want := []Point{{1, 0.25}, {2, 0.75}, {3, 1}}
	if len(got) != len(want) {
		t.Fatalf("ECDF = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].X != want[i].X || !near(got[i].P, want[i].P, 1e-12) {
			t.Errorf("ECDF[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if ECDF(nil) != nil || ECDF([]float64{math.NaN()}) != nil {
		t.Error("ECDF of no values should be nil")
	}
}

func TestSummarize(t *testing.T) {
	s, err := Summarize([]float64{100, 1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	// Q1 = 2, median = 3, Q3 = 4, IQR = 2, fences at -1 and 7.
	if s.N != 5 || s.Min != 1 || s.Max != 100 || s.Q1 != 2 || s.Median != 3 || s.Q3 != 4 {
		t.Errorf("summary = %+v", s)
	}
	if s.LoWhisker != 1 || s.HiWhisker != 4 {
		t.Errorf("whiskers = %v, %v, want 1, 4", s.LoWhisker, s.HiWhisker)
	}
	if len(s.Outliers) != 1 || s.Outliers[0] != 100 {
		t.Errorf("outliers = %v, want [100]", s.Outliers)
	}
	if _, err := Summarize(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Summarize(nil) err = %v", err)
	}
}

func TestMannWhitneyU(t *testing.T) {
	tests := []struct {
		name  string
		x, y  []float64
		u, p  float64
		exact bool
	}{
		// All 6 arrangements of 2+2 equally likely; U=0 has probability 1/6.
		{"separated-2x2", []float64{1, 2}, []float64{3, 4}, 0, 2.0 / 6, true},
		// C(6,3) = 20 arrangements; P(U=0) = 1/20.
		{"separated-3x3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		{"separated-3x3-reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 9, 0.1, true},
		// U = 3; counts of U for 3x3 are 1,1,2,3,3,3,3,2,1,1 so
		// P(U<=3) = 7/20 and p = 0.7.
		{"interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 0.7, true},
		// Ties, small samples: the exact distribution of U given the ties.
		// Of the C(8,4) = 70 ways to split the pooled values, 7 give
		// U <= 2.5, so p = 2*7/70 = 0.2. (The normal approximation with tie
		// correction, which schedlab used before go-moremath, gives
		// 0.136658248 here.)
		{"ties-exact", []float64{1, 2, 2, 3}, []float64{2, 3, 4, 5}, 2.5, 0.2, true},
		// Ties, samples over the exact limit: normal approximation with tie
		// and continuity corrections. 26 ones and 26 twos against 26 twos
		// and 26 threes: U = 338, mu = 1352, tie term 2*(26^3-26) +
		// (52^3-52), sigma^2 = 2704/12*(105-175656/10712), z = 1013.5/sigma.
		{"ties-normal", repeat(26, 1, 2), repeat(26, 2, 3), 338, 7.3473035e-13, false},
		{"all-tied", []float64{1, 1}, []float64{1, 1, 1}, 3, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := MannWhitneyU(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if r.U != tc.u || !near(r.P, tc.p, 1e-8*tc.p) || r.Exact != tc.exact {
				t.Errorf("got %+v, want U=%v P=%v exact=%v", r, tc.u, tc.p, tc.exact)
			}
		})
	}
	if _, err := MannWhitneyU(nil, []float64{1}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty x: err = %v", err)
	}
	if _, err := MannWhitneyU([]float64{1}, []float64{math.NaN()}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN y: err = %v", err)
	}
}

// repeat returns each of vs, n times.
func repeat(n int, vs ...float64) []float64 {
	var out []float64
	for _, v := range vs {
		for range n {
			out = append(out, v)
		}
	}
	return out
}

// TestMannWhitneyUMatchesEnumeration checks exact p-values of small samples,
// with and without ties, against enumerating every split of the pooled values
// into samples of the same sizes: p = 2 P(U <= min(U, n1*n2 - U)), capped at 1.
func TestMannWhitneyUMatchesEnumeration(t *testing.T) {
	u := func(x, y []float64) float64 {
		var s float64
		for _, a := range x {
			for _, b := range y {
				switch {
				case a > b:
					s++
				case a == b:
					s += 0.5
				}
			}
		}
		return s
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		n1, n2 := 1+rng.IntN(6), 1+rng.IntN(6)
		levels := 2 + rng.IntN(6) // few levels: ties in most trials
		if trial%2 == 1 {
			levels = 1 << 20 // ties rare: the exact distribution without ties
		}
		pool := make([]float64, n1+n2)
		for i := range pool {
			pool[i] = float64(rng.IntN(levels))
		}
		x, y := pool[:n1], pool[n1:]
		got, err := MannWhitneyU(x, y)
		if err != nil {
			t.Fatal(err)
		}
		u0 := u(x, y)
		small := min(u0, float64(n1*n2)-u0)
		var le, all int
		for mask := 0; mask < 1<<(n1+n2); mask++ {
			if bits.OnesCount(uint(mask)) != n1 {
				continue
			}
			var a, b []float64
			for i, v := range pool {
				if mask&(1<<i) != 0 {
					a = append(a, v)
				} else {
					b = append(b, v)
				}
			}
			all++
			if u(a, b) <= small {
				le++
			}
		}
		want := min(1, 2*float64(le)/float64(all))
		if got.U != u0 || !got.Exact || !near(got.P, want, 1e-9) {
			t.Errorf("trial %d: x=%v y=%v: got U=%v P=%v exact=%v, enumeration U=%v P=%v", trial, x, y, got.U, got.P, got.Exact, u0, want)
		}
	}
}

func TestBootstrapRelChangeCI(t *testing.T) {
	// Constant samples: every replicate is exactly +100%.
	ci, err := BootstrapRelChangeCI([]float64{1, 1, 1}, []float64{2, 2, 2}, 0.95, 200, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if ci.Estimate != 1 || ci.Lo != 1 || ci.Hi != 1 {
		t.Errorf("constant samples: %v, want 1 [1, 1]", ci)
	}

	base := []float64{10, 11, 9, 10.5, 9.5, 10.2}
	treat := []float64{12, 12.5, 11.5, 12.2, 11.8, 12.1}
	a, err := BootstrapRelChangeCI(base, treat, 0.95, 2000, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := BootstrapRelChangeCI(base, treat, 0.95, 2000, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("same seed gave different intervals: %v vs %v", a, b)
	}
	// Means are 10.0333 and 12.0167: +19.77%.
	if !near(a.Estimate, (12.0166666667-10.0333333333)/10.0333333333, 1e-9) {
		t.Errorf("Estimate = %v", a.Estimate)
	}
	if !(a.Lo < a.Estimate && a.Estimate < a.Hi) || a.Lo < 0.1 || a.Hi > 0.3 {
		t.Errorf("interval %v implausible", a)
	}

	bad := []struct {
		name        string
		base, treat []float64
		level       float64
		iters       int
		rng         *rand.Rand
	}{
		{"nil-rng", base, treat, 0.95, 10, nil},
		{"zero-iters", base, treat, 0.95, 0, rand.New(rand.NewPCG(1, 1))},
		{"bad-level", base, treat, 0, 10, rand.New(rand.NewPCG(1, 1))},
		{"empty-base", nil, treat, 0.95, 10, rand.New(rand.NewPCG(1, 1))},
		{"nan-treat", base, []float64{math.NaN()}, 0.95, 10, rand.New(rand.NewPCG(1, 1))},
		{"zero-mean", []float64{-1, 1}, treat, 0.95, 10, rand.New(rand.NewPCG(1, 1))},
	}
	for _, tc := range bad {
		if _, err := BootstrapRelChangeCI(tc.base, tc.treat, tc.level, tc.iters, tc.rng); err == nil {
			t.Errorf("%s: want error", tc.name)
		}
	}
	if got := RelChange([]float64{2}, []float64{3}); got != 0.5 {
		t.Errorf("RelChange = %v, want 0.5", got)
	}
}
