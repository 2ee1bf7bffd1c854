package claim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cell is a synthetic sweep cell: its policy, seed and metric values.
type cell struct {
	policy string
	seed   int64
	m      map[string]float64
}

// cells is a Source over synthetic cells; operands select by policy.
type cells []cell

func (cs cells) match(o *Operand) []cell {
	var out []cell
	for _, c := range cs {
		ok := true
		for _, s := range o.Where {
			if s.Key != "policy" || s.Value != c.policy {
				ok = false
			}
		}
		if _, has := c.m[o.Metric]; ok && has {
			out = append(out, c)
		}
	}
	return out
}

func (cs cells) Seeds(o *Operand) ([]int64, error) {
	var seeds []int64
	for _, c := range cs.match(o) {
		if !slices.Contains(seeds, c.seed) {
			seeds = append(seeds, c.seed)
		}
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no cells match %s", o)
	}
	slices.Sort(seeds)
	return seeds, nil
}

func (cs cells) Value(o *Operand, seeds []int64) (float64, int, error) {
	var xs []float64
	for _, c := range cs.match(o) {
		k := 1
		if seeds != nil {
			k = 0
			for _, s := range seeds {
				if s == c.seed {
					k++
				}
			}
		}
		for range k {
			xs = append(xs, c.m[o.Metric])
		}
	}
	if len(xs) == 0 {
		return 0, 0, fmt.Errorf("no cells match %s", o)
	}
	return Aggregate(o.Agg, xs), len(xs), nil
}

// sweep builds cells of policies a and b with the given per-seed values of metric t_s (seeds
// 1, 2, ...); bSeedBase shifts b's seeds (a large shift makes the two unpaired).
func sweep(a, b []float64, bSeedBase int64) cells {
	var cs cells
	for i, v := range a {
		cs = append(cs, cell{"a", int64(i + 1), map[string]float64{"t_s": v}})
	}
	for i, v := range b {
		cs = append(cs, cell{"b", bSeedBase + int64(i+1), map[string]float64{"t_s": v}})
	}
	return cs
}

func evaluate(t *testing.T, src Source, check string, o Options) *Outcome {
	t.Helper()
	c, err := ParseCheck(check)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Evaluate(c, src, o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr(f float64) *float64 { return &f }

// TestEvaluateOnSyntheticCells runs the evaluator on hand-made sweeps whose truth is known.
func TestEvaluateOnSyntheticCells(t *testing.T) {
	tests := []struct {
		name   string
		src    cells
		check  string
		margin *float64
		want   Verdict
		effect string
		method string // a substring of Estimate.Method
		reason string // a substring of Reason
	}{
		{"a real effect is held", sweep([]float64{52, 47, 55, 49, 51}, []float64{101, 96, 104, 99, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, Held, EffectRatio, "paired t over 5 seeds, geometric mean", "passes the margin bound 0.95"},
		{"noise is not significant", sweep([]float64{101, 88, 112, 93, 104}, []float64{96, 103, 98, 107, 95}, 0),
			"policy=a t_s < policy=b t_s", nil, NotSignificant, EffectRatio, "paired t", "includes 1"},
		{"a reversed effect is not held", sweep([]float64{151, 148, 155, 149, 150}, []float64{101, 96, 104, 99, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, NotHeld, EffectRatio, "paired t", "wrong side of 1"},
		{"a significant effect inside the margin is not held", sweep([]float64{98.1, 96.2, 102.0, 97.1, 98.0}, []float64{100, 98, 104, 99, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, NotHeld, EffectRatio, "paired t", "within the margin"},
		{"a significant effect whose interval reaches past the margin is not significant", sweep([]float64{96, 90, 101, 94, 98}, []float64{100, 98, 104, 99, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, NotSignificant, EffectRatio, "paired t", "does not pass the margin bound"},
		{"a deterministic effect is judged by the margin alone", sweep([]float64{50, 50, 50}, []float64{100, 100, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, Held, EffectRatio, "identical in all 3 seeds", "by the margin alone"},
		{"a deterministic effect inside the margin is not held", sweep([]float64{99, 99, 99}, []float64{100, 100, 100}, 0),
			"policy=a t_s < policy=b t_s", nil, NotHeld, EffectRatio, "identical in all 3 seeds", "is not below 0.95"},
		{"identical policies do not make a claim hold", sweep([]float64{7, 7}, []float64{7, 7}, 0),
			"policy=a t_s < policy=b t_s", nil, NotHeld, EffectRatio, "identical in all 2 seeds", "the compared sides are identical in every seed"},
		{"identical sides are flagged even when a stated tolerance holds", sweep([]float64{7, 7}, []float64{7, 7}, 0),
			"policy=a t_s <= 101% * policy=b t_s", nil, Held, EffectRatio, "identical in all 2 seeds", "cannot tell them apart"},
		{"one seed is judged by the margin alone", sweep([]float64{50}, []float64{100}, 0),
			"policy=a t_s < policy=b t_s", nil, Held, EffectRatio, "one seed", "by the margin alone"},
		{"a stated factor replaces the default margin", sweep([]float64{78, 77, 79, 78}, []float64{100, 99, 101, 100}, 0),
			"policy=a t_s <= 80% * policy=b t_s", nil, Held, EffectRatio, "paired t", "lies below 0.8"},
		{"an explicit margin applies to a stated threshold", sweep([]float64{78, 77, 79, 78}, []float64{100, 99, 101, 100}, 0),
			"policy=a t_s <= 80% * policy=b t_s", ptr(0.1), NotHeld, EffectRatio, "paired t", "within the margin"},
		{"a constant side makes a value effect", sweep([]float64{3.1, 3.2, 3.0}, []float64{1, 1, 1}, 0),
			"policy=a t_s > 2", nil, Held, EffectValue, "paired t over 3 seeds", "lies above 2"},
		{"a constant on the left is flipped", sweep([]float64{3.1, 3.2, 3.0}, []float64{1, 1, 1}, 0),
			"2 < policy=a t_s", nil, Held, EffectValue, "paired t over 3 seeds", "lies above 2"},
		{"a quoted ratio inside the tolerance is held", sweep([]float64{300, 310, 295, 305}, []float64{100, 101, 99, 100}, 0),
			"policy=a t_s / policy=b t_s = 3.05 ± 25%", nil, Held, EffectValue, "geometric mean", "lies in [2.29, 3.81]"},
		{"a quoted ratio far from the paper's is not held", sweep([]float64{125, 126, 124, 125}, []float64{100, 101, 99, 100}, 0),
			"policy=a t_s / policy=b t_s = 3.05 ± 25%", nil, NotHeld, EffectValue, "geometric mean", "outside [2.29, 3.81]"},
		{"a noisy quoted ratio is not significant", sweep([]float64{150, 420, 260, 380}, []float64{100, 101, 99, 100}, 0),
			"policy=a t_s / policy=b t_s = 3.05 ± 25%", nil, NotSignificant, EffectValue, "geometric mean", "straddles"},
		{"an at-least quote lowers the threshold by the tolerance", sweep([]float64{250, 251, 249}, []float64{100, 101, 99}, 0),
			"policy=a t_s / policy=b t_s >= 3.05 +/- 25%", nil, Held, EffectValue, "paired t", "lies above 2.29"},
		{"an absolute tolerance compares a difference", sweep([]float64{10.2, 10.1, 10.3}, []float64{10, 10, 10}, 0),
			"policy=a t_s = policy=b t_s ± 0.5", nil, Held, EffectDifference, "paired t", "lies in [-0.5, 0.5]"},
		{"a side that is not positive falls back to a difference", sweep([]float64{2, 3, 2}, []float64{0, 0, 0}, 0),
			"policy=a t_s > policy=b t_s", nil, Held, EffectDifference, "paired t", "compared as a difference"},
		{"unpaired cells are bootstrapped", sweep([]float64{52, 47, 55, 49, 51}, []float64{101, 96, 104, 99, 100}, 100),
			"policy=a t_s < policy=b t_s", nil, Held, EffectRatio, "bootstrap over unpaired seeds, 2000 resamples", "passes the margin bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := evaluate(t, tt.src, tt.check, Options{Margin: tt.margin})
			e := out.Estimate
			if out.Verdict != tt.want || out.Effect != tt.effect || !strings.Contains(e.Method, tt.method) || !strings.Contains(out.Reason, tt.reason) {
				t.Errorf("verdict %v (%s), effect %s %v [%v, %v] by %q; want %v, %s, method %q, reason %q",
					out.Verdict, out.Reason, out.Effect, e.Value, e.Lo, e.Hi, e.Method, tt.want, tt.effect, tt.method, tt.reason)
			}
			if !e.Exact && !(e.Lo <= e.Value && e.Value <= e.Hi) {
				t.Errorf("estimate %v outside its interval [%v, %v]", e.Value, e.Lo, e.Hi)
			}
		})
	}
}

// TestPairingUsesTheSeeds checks that a small effect under a large seed-to-seed variation is
// found when the cells share seeds, and not when the same values are unpaired.
func TestPairingUsesTheSeeds(t *testing.T) {
	b := []float64{50, 100, 150, 200, 250, 300}
	a := make([]float64, len(b))
	for i, v := range b {
		a[i] = 0.8 * v * (1 + 0.01*float64(i%3-1))
	}
	check := "policy=a t_s < policy=b t_s"
	paired := evaluate(t, sweep(a, b, 0), check, Options{})
	if paired.Verdict != Held || !strings.HasPrefix(paired.Estimate.Method, "paired t over 6 seeds") || len(paired.PerSeed) != 6 {
		t.Errorf("paired: %v (%s) by %s, %d seeds", paired.Verdict, paired.Reason, paired.Estimate.Method, len(paired.PerSeed))
	}
	if e := paired.Estimate; math.Abs(e.Value-0.8) > 0.01 || e.Hi-e.Lo > 0.05 {
		t.Errorf("paired ratio %v [%v, %v], want a tight interval around 0.8", e.Value, e.Lo, e.Hi)
	}
	unpaired := evaluate(t, sweep(a, b, 1000), check, Options{})
	if unpaired.Verdict != NotSignificant || !strings.HasPrefix(unpaired.Estimate.Method, "bootstrap") || unpaired.PerSeed != nil {
		t.Errorf("unpaired: %v (%s) by %s", unpaired.Verdict, unpaired.Reason, unpaired.Estimate.Method)
	}
	if e := unpaired.Estimate; !(e.Lo < 0.8 && e.Hi > 1) {
		t.Errorf("unpaired ratio %v [%v, %v], want an interval wide enough to include 1", e.Value, e.Lo, e.Hi)
	}
}

// TestBootstrapIsDeterministic checks that the same generator state gives the same interval,
// and another seed a different one.
func TestBootstrapIsDeterministic(t *testing.T) {
	src := sweep([]float64{52, 47, 55, 49, 51, 60}, []float64{101, 96, 104, 99, 100, 90}, 100)
	check := "policy=a t_s < policy=b t_s"
	run := func(seed uint64) Estimate {
		return evaluate(t, src, check, Options{Rand: rand.New(rand.NewPCG(seed, 7))}).Estimate
	}
	if a, b := run(1), run(1); a != b {
		t.Errorf("same seed, different intervals: %+v vs %+v", a, b)
	}
	if a, b := run(1), run(2); a == b {
		t.Errorf("different seeds, identical intervals: %+v", a)
	}
	if a, b := evaluate(t, src, check, Options{}).Estimate, evaluate(t, src, check, Options{}).Estimate; a != b {
		t.Errorf("default generator not deterministic: %+v vs %+v", a, b)
	}
}

// TestOutcomeRecordsSidesAndOperands checks the numbers shown beside a verdict: the sides over
// every cell, each operand once with its count, and the per-seed effects.
func TestOutcomeRecordsSidesAndOperands(t *testing.T) {
	out := evaluate(t, sweep([]float64{40, 60}, []float64{100, 100}, 0), "policy=a t_s + policy=a t_s < 2 * policy=b t_s", Options{})
	if out.LHS != 100 || out.RHS != 200 || len(out.Operands) != 2 || out.Operands[0] != (OperandValue{"policy=a t_s", 50, 2}) {
		t.Errorf("sides %v, %v; operands %+v", out.LHS, out.RHS, out.Operands)
	}
	if p := out.PerSeed; len(p) != 2 || p[0].Seed != 1 || p[0].LHS != 80 || p[0].RHS != 200 || p[0].Effect != 0.8 {
		t.Errorf("per seed %+v", out.PerSeed)
	}
	// The factor 2 moves into the threshold: the effect is (a + a) / b against 2.
	if out.EffectExpr != "(policy=a t_s + policy=a t_s) / policy=b t_s" || out.Test.Threshold != 2 || out.Test.Bound != 2 {
		t.Errorf("effect %q, test %+v", out.EffectExpr, out.Test)
	}
	c, _ := ParseCheck("policy=c t_s < 1")
	if _, err := Evaluate(c, sweep([]float64{1}, []float64{1}, 0), Options{}); err == nil || !strings.Contains(err.Error(), "no cells match policy=c t_s") {
		t.Errorf("missing operand: %v", err)
	}
}

func TestJudge(t *testing.T) {
	ci := func(v, lo, hi float64) Estimate {
		return Estimate{Value: v, Lo: lo, Hi: hi, N: 5, Method: "paired t over 5 seeds"}
	}
	below := Test{Op: "<", Threshold: 1, Bound: 0.95, Margin: 0.05, Quote: math.NaN()}
	above := Test{Op: ">=", Threshold: 2, Bound: 2, Quote: math.NaN()}
	band := Test{Op: "=", Threshold: 3.05, Bound: 3.05, Lo: 2.2875, Hi: 3.8125, Quote: 3.05, Tol: "25%"}
	tests := []struct {
		name string
		test Test
		est  Estimate
		want Verdict
	}{
		{"an interval below the threshold with the estimate past the margin holds", below, ci(0.9, 0.85, 0.96), Held},
		{"an interval below the threshold with the estimate inside the margin is undecided", below, ci(0.96, 0.93, 0.99), NotSignificant},
		{"an interval inside the margin is not held", below, ci(0.97, 0.955, 0.99), NotHeld},
		{"an interval above the threshold is not held", below, ci(1.1, 1.05, 1.15), NotHeld},
		{"an interval across the threshold is not significant", below, ci(0.9, 0.7, 1.1), NotSignificant},
		{"an exact estimate past the bound holds", below, ExactEstimate(0.9, "one seed"), Held},
		{"an exact estimate at the bound of a strict test is not held", below, ExactEstimate(0.95, "one seed"), NotHeld},
		{"an at-least test without margin holds above the threshold", above, ci(2.5, 2.1, 2.9), Held},
		{"an at-least test holds an exact estimate at the threshold", above, ExactEstimate(2, "identical in all 3 seeds"), Held},
		{"an interval inside the band holds", band, ci(3, 2.5, 3.5), Held},
		{"an interval across the band's edge is not significant", band, ci(3.5, 3, 4), NotSignificant},
		{"an interval outside the band is not held", band, ci(1.25, 1.2, 1.3), NotHeld},
		{"an exact estimate in the band holds", band, ExactEstimate(3.8, "one seed"), Held},
		{"an undefined effect is not held", below, ExactEstimate(math.NaN(), "one seed"), NotHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Judge(tt.test, tt.est)
			if got != tt.want || why == "" {
				t.Errorf("Judge = %v (%s), want %v", got, why, tt.want)
			}
		})
	}
}

func TestWorstAndVerdictNames(t *testing.T) {
	if Worst(Held, Held) != Held || Worst(Held, NotSignificant) != NotSignificant || Worst(NotSignificant, NotHeld, Held) != NotHeld || Worst(NotHeld, Error) != Error || Worst() != Error {
		t.Errorf("Worst combines wrongly")
	}
	for v, s := range map[Verdict]string{Held: "held", NotSignificant: "not significant", NotHeld: "not held", Error: "error"} {
		if v.String() != s {
			t.Errorf("%d.String() = %q, want %q", v, v.String(), s)
		}
	}
}

func TestTestString(t *testing.T) {
	tests := []struct {
		check string
		want  string
	}{
		{"policy=a t_s < policy=b t_s", "< 1, margin 5% (< 0.95)"},
		{"policy=a t_s <= 80% * policy=b t_s", "<= 0.8"},
		{"policy=a t_s / policy=b t_s = 3.05 ± 25%", "3.05 ± 25% (2.29 to 3.81)"},
		{"policy=a t_s / policy=b t_s >= 3.05 ± 25%", ">= 3.05 − 25% (>= 2.29)"},
	}
	src := sweep([]float64{3, 3}, []float64{1, 1}, 0)
	for _, tt := range tests {
		if got := evaluate(t, src, tt.check, Options{}).Test.String(); got != tt.want {
			t.Errorf("%s: test %q, want %q", tt.check, got, tt.want)
		}
	}
}

// TestMeasure checks the estimate of a reference number: the geometric mean of a quotient over
// paired seeds with its interval, the value alone with one seed.
func TestMeasure(t *testing.T) {
	e, err := ParseExpr("policy=a t_s / policy=b t_s")
	if err != nil {
		t.Fatal(err)
	}
	est, err := Measure(e, sweep([]float64{30, 32, 31}, []float64{10, 10, 10}, 0), nil)
	if err != nil || math.Abs(est.Value-math.Cbrt(3*3.2*3.1)) > 1e-12 || !(est.Lo < est.Value && est.Value < est.Hi) || est.Method != "paired t over 3 seeds, geometric mean" {
		t.Errorf("Measure = %+v, %v", est, err)
	}
	est, err = Measure(e, sweep([]float64{30}, []float64{10}, 0), nil)
	if err != nil || est.Value != 3 || !est.Exact {
		t.Errorf("Measure with one seed = %+v, %v", est, err)
	}
}
