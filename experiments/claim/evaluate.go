package claim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/report/stats"
)

// Source gives a check's operands their values over the cells of one comparison (the figure's
// cells in one for-each group).
type Source interface {
	// Seeds returns the seeds of the cells o matches, ascending and without repeats; an error
	// when o matches no cell.
	Seeds(o *Operand) ([]int64, error)
	// Value returns o's aggregate over the matching cells whose seed is in seeds — a seed listed
	// k times counts its cells k times — or over every matching cell when seeds is nil, and the
	// number of values aggregated (cells, or jobs for per-job metrics).
	Value(o *Operand, seeds []int64) (v float64, n int, err error)
}

// Options configure Evaluate.
type Options struct {
	// Margin, when set, is the claim's practical margin (a fraction of the threshold); nil
	// applies the default rule: DefaultMargin for a check that compares two measurements with
	// no factor or tolerance of its own (A < B), none otherwise (A <= 80% * B, A / B > 1.5 and
	// A / B = 3.05 ± 25% state their threshold themselves).
	Margin *float64
	// Rand drives the bootstrap of unpaired comparisons; nil uses a generator seeded from the
	// check's text.
	Rand *rand.Rand
	// Resamples is the number of bootstrap resamples (default 2000).
	Resamples int
}

// OperandValue is an operand with its value over all of a comparison's cells.
type OperandValue struct {
	Operand string
	Value   float64
	// N is the number of values aggregated (cells, or jobs for job.* metrics).
	N int
}

// SeedValue is a comparison evaluated on one seed's cells.
type SeedValue struct {
	Seed             int64
	LHS, RHS, Effect float64
	// num and den are the measured parts of a ratio or difference (the sides without their
	// constant factors).
	num, den float64
}

// Effect kinds: how a check's comparison is measured.
const (
	// EffectValue: one side is a constant; the effect is the other side as written.
	EffectValue = "value"
	// EffectRatio: both sides are measurements; the effect is their ratio, with positive
	// constant factors (A <= 80% * B) moved into the threshold.
	EffectRatio = "ratio"
	// EffectDifference: both sides are measurements and a ratio does not apply (a side is not
	// positive, or the tolerance is absolute); the effect is LHS − RHS.
	EffectDifference = "difference"
)

// Outcome is a check evaluated on one comparison.
type Outcome struct {
	// LHS and RHS are the sides over all the comparison's cells (every seed).
	LHS, RHS float64
	// Operands are the operands' values over all cells, in order of first use.
	Operands []OperandValue
	// Effect is the kind of effect (EffectValue, EffectRatio, EffectDifference) and EffectExpr
	// the expression it measures.
	Effect, EffectExpr string
	// PerSeed are the comparison's sides and effect on each seed, when the operands share seeds.
	PerSeed  []SeedValue
	Estimate Estimate
	Test     Test
	Verdict  Verdict
	Reason   string
	// Identical is set when the two measured sides are equal on every cell and seed: the
	// settings compared behave identically, and the check cannot tell them apart.
	Identical bool
}

// IdenticalNote ends the reason of a comparison whose sides are identical.
const IdenticalNote = "the compared sides are identical in every seed, so the check cannot tell them apart"

// plan is how a check is measured, fixed by its shape.
type plan struct {
	kind string
	// op is the comparison with the measured side on the left.
	op string
	// flipped is set when the constant side of a value effect is the left-hand one.
	flipped bool
	// num and den are the sides of a ratio without their constant factors.
	num, den Expr
	// threshold is the constant of a value effect, the ratio of the factors (RHS over LHS) of
	// a ratio effect, 0 for a difference.
	threshold float64
	// stated is set when the check states its own threshold (a constant side, a factor other
	// than 1, or a tolerance): no default margin then.
	stated bool
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// constant returns the value of an expression without operands.
func constant(e Expr) (float64, bool) {
	n := 0
	e.Operands(func(*Operand) { n++ })
	if n > 0 {
		return 0, false
	}
	v, err := e.Eval(func(*Operand) (float64, error) { return 0, fmt.Errorf("no operands") })
	return v, err == nil
}

// factor splits e into a positive constant factor and the rest: 80% * x → (0.8, x), x / 2 →
// (0.5, x); (1, e) otherwise.
func factor(e Expr) (float64, Expr) {
	b, ok := e.(binExpr)
	if !ok {
		return 1, e
	}
	switch b.op {
	case '*':
		if c, ok := constant(b.l); ok && c > 0 {
			f, rest := factor(b.r)
			return c * f, rest
		}
		if c, ok := constant(b.r); ok && c > 0 {
			f, rest := factor(b.l)
			return c * f, rest
		}
	case '/':
		if c, ok := constant(b.r); ok && c > 0 {
			f, rest := factor(b.l)
			return f / c, rest
		}
	}
	return 1, e
}

func (c *Check) plan() plan {
	if k, ok := constant(c.RHS); ok {
		return plan{kind: EffectValue, op: c.Op, threshold: k, stated: true}
	}
	if k, ok := constant(c.LHS); ok {
		return plan{kind: EffectValue, op: flip(c.Op), flipped: true, threshold: k, stated: true}
	}
	a, num := factor(c.LHS)
	b, den := factor(c.RHS)
	p := plan{kind: EffectRatio, op: c.Op, num: num, den: den, threshold: b / a, stated: a != b || c.Tol != nil}
	if c.Tol != nil && !c.Tol.Relative {
		p.kind, p.threshold = EffectDifference, 0
	}
	return p
}

// measured returns the side a value effect measures.
func (p *plan) measured(c *Check) Expr {
	if p.flipped {
		return c.RHS
	}
	return c.LHS
}

// sides is one evaluation of a check: its sides and the parts of a ratio.
type sides struct {
	lhs, rhs, num, den float64
}

func (p *plan) eval(c *Check, env Env) (sides, error) {
	var v sides
	var err error
	if v.lhs, err = c.LHS.Eval(env); err != nil {
		return v, err
	}
	if v.rhs, err = c.RHS.Eval(env); err != nil {
		return v, err
	}
	if p.num != nil {
		if v.num, err = p.num.Eval(env); err != nil {
			return v, err
		}
		if v.den, err = p.den.Eval(env); err != nil {
			return v, err
		}
	}
	return v, nil
}

// ratioOK reports whether a ratio effect is defined on v: both parts positive.
func (v sides) ratioOK() bool { return v.num > 0 && v.den > 0 }

// effect returns the effect of the given kind on v.
func (p *plan) effect(kind string, v sides) float64 {
	switch kind {
	case EffectRatio:
		return v.num / v.den
	case EffectDifference:
		return v.lhs - v.rhs
	}
	if p.flipped {
		return v.rhs
	}
	return v.lhs
}

// effectExpr renders what the effect measures.
func (p *plan) effectExpr(c *Check, kind string) string {
	switch kind {
	case EffectRatio:
		return p.num.String() + " / " + p.den.String()
	case EffectDifference:
		return c.LHS.String() + " - " + c.RHS.String()
	}
	return p.measured(c).String()
}

// logScale reports whether the effect is a ratio — by construction, or a value effect written
// as a quotient — so that its interval is computed on the log scale.
func (p *plan) logScale(c *Check, kind string) bool {
	if kind == EffectRatio {
		return true
	}
	if kind != EffectValue {
		return false
	}
	b, ok := p.measured(c).(binExpr)
	return ok && b.op == '/'
}

// Evaluate judges c on one comparison: it evaluates the check on every cell (the sides shown
// beside the verdict), measures the effect per seed where the operands' cells share seeds — a
// paired comparison: Student's t over the per-seed effects, on the log scale for a ratio — or
// by a seeded bootstrap over each operand's seeds where they do not, and judges the estimate
// against the check's threshold and margin or tolerance (see Judge). With one seed, or the same
// effect in every seed, there is no interval and the margin alone decides.
func Evaluate(c *Check, src Source, o Options) (*Outcome, error) {
	p := c.plan()
	out := &Outcome{}
	whole, kind, est, err := p.measure(c, src, o, out)
	if err != nil {
		return nil, err
	}
	out.LHS, out.RHS = whole.lhs, whole.rhs
	out.Effect, out.Estimate = kind, est
	out.EffectExpr = p.effectExpr(c, kind)
	out.Test = p.test(c, kind, whole, o.Margin)
	out.Verdict, out.Reason = Judge(out.Test, est)
	if kind == EffectDifference && p.kind == EffectRatio {
		out.Reason += "; compared as a difference, since a side of the ratio is not positive"
	}
	if p.kind != EffectValue && identical(whole, out.PerSeed) {
		out.Identical = true
		out.Reason += "; " + IdenticalNote
	}
	return out, nil
}

// identical reports whether a comparison's two measured parts are equal over all cells and on
// every seed measured: the policies or settings compared behave identically.
func identical(whole sides, per []SeedValue) bool {
	if whole.num != whole.den {
		return false
	}
	for _, s := range per {
		if s.num != s.den {
			return false
		}
	}
	return true
}

// Measure estimates an expression over seeds as Evaluate measures a value effect: the mean
// over seeds (geometric for a quotient) with Student's t interval when its operands share
// seeds, a bootstrap with rng when they do not, the value over every cell alone with one seed.
func Measure(e Expr, src Source, rng *rand.Rand) (Estimate, error) {
	c := &Check{LHS: e, Op: "=", RHS: numExpr{0, "0"}}
	p := c.plan()
	_, _, est, err := p.measure(c, src, Options{Rand: rng}, &Outcome{})
	return est, err
}

// measure evaluates the check on every cell and estimates its effect over seeds, recording the
// operands and per-seed values in out.
func (p *plan) measure(c *Check, src Source, o Options, out *Outcome) (whole sides, kind string, est Estimate, err error) {
	// Every cell: the sides, and each operand's value and count.
	seen := map[string]bool{}
	all := func(op *Operand) (float64, error) {
		v, n, err := src.Value(op, nil)
		if err != nil {
			return 0, err
		}
		if s := op.String(); !seen[s] {
			seen[s] = true
			out.Operands = append(out.Operands, OperandValue{Operand: s, Value: v, N: n})
		}
		return v, nil
	}
	if whole, err = p.eval(c, all); err != nil {
		return
	}
	kind = p.kind
	if kind == EffectRatio && !whole.ratioOK() {
		kind = EffectDifference
	}
	// The operands (each once) and their seeds.
	var ops []*Operand
	opSeeds := map[string][]int64{}
	c.Operands(func(op *Operand) {
		s := op.String()
		if _, ok := opSeeds[s]; ok || err != nil {
			return
		}
		var seeds []int64
		if seeds, err = src.Seeds(op); err == nil {
			ops = append(ops, op)
			opSeeds[s] = seeds
		}
	})
	if err != nil {
		return
	}
	shared := opSeeds[ops[0].String()]
	most := 0
	for _, op := range ops {
		ss := opSeeds[op.String()]
		shared = slices.DeleteFunc(slices.Clone(shared), func(s int64) bool { return !slices.Contains(ss, s) })
		most = max(most, len(ss))
	}
	switch {
	case most >= 2 && extremes(ops):
		// A maximum or minimum is judged on every seed's values pooled: the mean of per-seed
		// maxima estimates something else, and its interval says nothing of the largest value.
		est = ExactEstimate(p.effect(kind, whole), fmt.Sprintf("pooled over the values of all %d seeds", most))
	case len(shared) >= 2:
		est, kind, err = p.paired(c, src, shared, kind, out)
	case most >= 2:
		est, kind, err = p.bootstrap(c, src, ops, opSeeds, kind, whole, o)
	default:
		est = ExactEstimate(p.effect(kind, whole), "one seed")
	}
	return
}

// extremes reports whether every operand aggregates by max or min.
func extremes(ops []*Operand) bool {
	for _, op := range ops {
		if op.Agg != "max" && op.Agg != "min" {
			return false
		}
	}
	return true
}

// domain is the domain of what a value effect measures: its metric's (stats.DomainOf) when
// the measured side is one operand, Signed otherwise.
func (p *plan) domain(c *Check, kind string) stats.Domain {
	if kind != EffectValue {
		return stats.Signed
	}
	if op, ok := p.measured(c).(*Operand); ok {
		return stats.DomainOf(op.Metric)
	}
	return stats.Signed
}

// seedEnv resolves operands over the cells of the given seeds.
func seedEnv(src Source, seeds []int64) Env {
	return func(op *Operand) (float64, error) {
		v, _, err := src.Value(op, seeds)
		return v, err
	}
}

// paired measures the effect on each shared seed and takes Student's t interval over them.
func (p *plan) paired(c *Check, src Source, seeds []int64, kind string, out *Outcome) (Estimate, string, error) {
	per := make([]sides, len(seeds))
	for i, s := range seeds {
		v, err := p.eval(c, seedEnv(src, []int64{s}))
		if err != nil {
			return Estimate{}, kind, fmt.Errorf("seed %d: %w", s, err)
		}
		per[i] = v
		if kind == EffectRatio && !v.ratioOK() {
			kind = EffectDifference
		}
	}
	xs := make([]float64, len(per))
	for i, v := range per {
		xs[i] = p.effect(kind, v)
		out.PerSeed = append(out.PerSeed, SeedValue{Seed: seeds[i], LHS: v.lhs, RHS: v.rhs, Effect: xs[i], num: v.num, den: v.den})
	}
	n := len(xs)
	if slices.ContainsFunc(xs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) {
		return ExactEstimate(math.NaN(), fmt.Sprintf("undefined in a seed of %d", n)), kind, nil
	}
	if allEqual(xs) {
		return ExactEstimate(xs[0], fmt.Sprintf("identical in all %d seeds", n)), kind, nil
	}
	logs := p.logScale(c, kind) && !slices.ContainsFunc(xs, func(x float64) bool { return x <= 0 })
	ys := xs
	if logs {
		ys = make([]float64, n)
		for i, x := range xs {
			ys[i] = math.Log(x)
		}
	}
	ci, err := stats.MeanCI(ys, Level)
	if err != nil {
		return Estimate{}, kind, err
	}
	e := Estimate{Value: ci.Estimate, Lo: ci.Lo, Hi: ci.Hi, N: n, Method: fmt.Sprintf("paired t over %d seeds", n)}
	if d := p.domain(c, kind); !logs && d != stats.Signed {
		// A bounded metric's interval stays in its bounds.
		b := d.Bound(ci)
		if b.Lo != ci.Lo || b.Hi != ci.Hi {
			e.Lo, e.Hi = b.Lo, b.Hi
			e.Method += ", clipped to the " + d.String() + " range"
		}
	}
	if logs {
		e.Value, e.Lo, e.Hi = math.Exp(e.Value), math.Exp(e.Lo), math.Exp(e.Hi)
		e.Method = fmt.Sprintf("paired t over %d seeds, geometric mean", n)
	}
	return e, kind, nil
}

// bootstrap resamples each operand's seeds independently (the operands' cells do not share
// seeds) and takes the percentile interval of the effect.
func (p *plan) bootstrap(c *Check, src Source, ops []*Operand, opSeeds map[string][]int64, kind string, whole sides, o Options) (Estimate, string, error) {
	rng := o.Rand
	if rng == nil {
		h := fnv.New64a()
		h.Write([]byte(c.String()))
		rng = rand.New(rand.NewPCG(1, h.Sum64()))
	}
	iters := o.Resamples
	if iters <= 0 {
		iters = 2000
	}
	point := p.effect(kind, whole)
	reps := make([]float64, 0, iters)
	drawn := map[string]float64{}
	env := func(op *Operand) (float64, error) { return drawn[op.String()], nil }
	for range iters {
		for _, op := range ops {
			s := opSeeds[op.String()]
			pick := make([]int64, len(s))
			for i := range pick {
				pick[i] = s[rng.IntN(len(s))]
			}
			v, _, err := src.Value(op, pick)
			if err != nil {
				return Estimate{}, kind, err
			}
			drawn[op.String()] = v
		}
		v, err := p.eval(c, env)
		if err != nil {
			return Estimate{}, kind, err
		}
		if kind == EffectRatio && !v.ratioOK() {
			continue
		}
		if x := p.effect(kind, v); !math.IsNaN(x) && !math.IsInf(x, 0) {
			reps = append(reps, x)
		}
	}
	method := fmt.Sprintf("bootstrap over unpaired seeds, %d resamples", iters)
	if len(reps) < iters/2 {
		return ExactEstimate(math.NaN(), method+": the effect is undefined in most resamples"), kind, nil
	}
	if allEqual(reps) {
		return ExactEstimate(point, "identical in every resample"), kind, nil
	}
	lo, hi := stats.Quantile(reps, (1-Level)/2), stats.Quantile(reps, (1+Level)/2)
	return Estimate{Value: point, Lo: lo, Hi: hi, N: iters, Method: method}, kind, nil
}

func allEqual(xs []float64) bool {
	for _, x := range xs[1:] {
		if math.Abs(x-xs[0]) > 1e-12*math.Max(1, math.Abs(xs[0])) {
			return false
		}
	}
	return true
}

// test builds the check's test: the threshold (moved by a tolerance), the margin bound, or the
// band of an = check.
func (p *plan) test(c *Check, kind string, whole sides, margin *float64) Test {
	t := Test{Op: p.op, Quote: math.NaN()}
	ref := p.threshold // what a relative tolerance or margin is a fraction of
	thr := p.threshold
	if kind == EffectDifference {
		thr, ref = 0, whole.rhs
		if p.flipped {
			ref = whole.lhs
		}
	}
	m := 0.0
	switch {
	case margin != nil:
		m = *margin
	case !p.stated:
		m = DefaultMargin
	}
	if c.Tol != nil {
		tol := c.Tol.Abs(ref)
		t.Tol = c.Tol.Src
		t.Quote = thr
		switch {
		case t.Op == "=":
			t.Lo, t.Hi = thr-tol, thr+tol
			t.Threshold, t.Bound = thr, thr
			return t
		case t.below():
			thr += tol
		default:
			thr -= tol
		}
		if kind != EffectDifference {
			ref = thr
		}
	}
	t.Threshold, t.Margin = thr, m
	d := m * math.Abs(ref)
	if t.below() {
		t.Bound = thr - d
	} else {
		t.Bound = thr + d
	}
	return t
}
