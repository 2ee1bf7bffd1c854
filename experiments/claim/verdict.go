package claim

import (
	"fmt"
	"math"
	"strings"

	"github.com/schedlab/schedlab/report"
)

// Verdict is the outcome of a claim: held, not significant or not held (or Error when it could
// not be evaluated).
type Verdict int

// The verdicts, from best to worst. The zero value is Error: nothing was judged.
const (
	Error Verdict = iota
	Held
	NotSignificant
	NotHeld
	// NotEvaluable: the claim refers to cells the label does not run (a seed or axis value of
	// the paper label at the quick one); it is shown, and counted neither way.
	NotEvaluable
)

// String returns "held", "not significant", "not held", "not evaluable at this label" or
// "error".
func (v Verdict) String() string {
	switch v {
	case NotEvaluable:
		return "not evaluable at this label"
	case Held:
		return "held"
	case NotSignificant:
		return "not significant"
	case NotHeld:
		return "not held"
	}
	return "error"
}

// Worst combines the verdicts of a claim's comparisons (its for-each groups): Error if any is an
// error, else NotHeld if any is not held, else NotSignificant if any is not significant, else
// Held. A claim holds only where every comparison holds; requiring each at α = 0.05 keeps the
// whole claim at α = 0.05 without a multiplicity correction (an intersection-union test).
func Worst(vs ...Verdict) Verdict {
	if len(vs) == 0 {
		return Error
	}
	w := Held
	for _, v := range vs {
		switch {
		case v == Error:
			return Error
		case v > w:
			w = v
		}
	}
	return w
}

// Level is the confidence level of every interval: 95%, a test at α = 0.05.
const Level = 0.95

// DefaultMargin is the practical margin of a check that compares two measurements without
// stating a threshold of its own (A < B): ours must be beyond the threshold by 5% of it.
const DefaultMargin = 0.05

// Estimate is an effect measured over replicates (seeds, or jobs) with its 95% interval.
type Estimate struct {
	// Value is the point estimate; Lo and Hi bound the interval (Lo = Value = Hi when Exact).
	Value, Lo, Hi float64
	// N is the number of replicates behind the interval.
	N int
	// Exact is set when there is no interval to speak of — one replicate, or every replicate
	// equal (a deterministic scenario) — so that the verdict rests on the margin alone.
	Exact bool
	// Method says how the interval was obtained, or why there is none ("paired t over 5
	// seeds", "identical in all 3 seeds").
	Method string
}

// ExactEstimate is an estimate without an interval.
func ExactEstimate(v float64, method string) Estimate {
	return Estimate{Value: v, Lo: v, Hi: v, N: 1, Exact: true, Method: method}
}

// Test is what a claim asks of an effect: to lie below (<, <=) or above (>, >=) Threshold by at
// least the practical margin — that is, beyond Bound — or, for =, inside [Lo, Hi].
type Test struct {
	Op string
	// Threshold is the value the comparison is made against (1 for a ratio of two
	// measurements, 0 for a difference, the constant side otherwise, moved by a tolerance).
	Threshold float64
	// Bound is Threshold moved by the margin in the claimed direction: the point estimate
	// must pass it. Bound = Threshold without a margin.
	Bound float64
	// Margin is the practical margin (a fraction of |Threshold|), for display.
	Margin float64
	// Lo and Hi bound the band of an = test.
	Lo, Hi float64
	// Quote is the paper's number the test compares with (NaN when the claim quotes none);
	// Tol the tolerance as written ("25%").
	Quote float64
	Tol   string
}

// below reports whether the test asks for an effect below its threshold.
func (t Test) below() bool { return t.Op == "<" || t.Op == "<=" }

// on reports whether x is on the claimed side of y.
func (t Test) on(x, y float64) bool {
	switch t.Op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	case ">=":
		return x >= y
	}
	return false
}

// String describes the test for a report: "< 1, margin 5% (< 0.95)", "= 3.05 ± 25% (2.29 to
// 3.81)", ">= 3.05 − 25% (≥ 2.29)".
func (t Test) String() string {
	if t.Op == "=" {
		if t.Tol == "" {
			return fmt.Sprintf("in [%s, %s]", Num(t.Lo), Num(t.Hi))
		}
		return fmt.Sprintf("%s ± %s (%s to %s)", Num(t.Quote), t.Tol, Num(t.Lo), Num(t.Hi))
	}
	if !math.IsNaN(t.Quote) && t.Tol != "" {
		sign := "+"
		if !t.below() {
			sign = "−"
		}
		return fmt.Sprintf("%s %s %s %s (%s %s)", t.Op, Num(t.Quote), sign, t.Tol, t.Op, Num(t.Bound))
	}
	s := t.Op + " " + Num(t.Threshold)
	if t.Bound != t.Threshold {
		s += fmt.Sprintf(", margin %s (%s %s)", Percent(t.Margin), t.Op, Num(t.Bound))
	}
	return s
}

// Judge decides a verdict from an estimate and its 95% interval, and says why.
//
// For a directional test (effect below or above the threshold):
//   - held: the interval lies entirely on the claimed side of the threshold (significant at
//     α = 0.05) and the point estimate is beyond the margin bound;
//   - not held: the interval lies entirely on the wrong side of the margin bound — the data rule
//     out an effect as large as the margin: a significant effect in the wrong direction, or one
//     significantly inside the margin;
//   - not significant: anything else (the interval does not decide).
//
// For an = test (ours within the paper's value ± a tolerance): held when the interval lies
// inside the band, not held when it lies entirely outside it, not significant otherwise.
//
// Without an interval (Exact: one replicate, or no variance) the point estimate alone decides:
// held when it passes the bound (lies in the band), not held otherwise.
func Judge(t Test, e Estimate) (Verdict, string) {
	if math.IsNaN(e.Value) {
		return NotHeld, "the effect is undefined (a division by zero)"
	}
	v, lo, hi := Num(e.Value), Num(e.Lo), Num(e.Hi)
	if t.Op == "=" {
		band := fmt.Sprintf("[%s, %s]", Num(t.Lo), Num(t.Hi))
		in := func(x float64) bool { return t.Lo <= x && x <= t.Hi }
		switch {
		case e.Exact && in(e.Value):
			return Held, fmt.Sprintf("%s lies in %s (%s: by the tolerance alone)", v, band, e.Method)
		case e.Exact:
			return NotHeld, fmt.Sprintf("%s lies outside %s (%s: by the tolerance alone)", v, band, e.Method)
		case in(e.Lo) && in(e.Hi):
			return Held, fmt.Sprintf("the interval [%s, %s] lies in %s", lo, hi, band)
		case e.Hi < t.Lo || e.Lo > t.Hi:
			return NotHeld, fmt.Sprintf("the interval [%s, %s] lies outside %s", lo, hi, band)
		}
		return NotSignificant, fmt.Sprintf("the interval [%s, %s] straddles an edge of %s", lo, hi, band)
	}
	side := "above"
	if t.below() {
		side = "below"
	}
	thr, bound := Num(t.Threshold), Num(t.Bound)
	margin := t.Bound != t.Threshold
	if e.Exact {
		if t.on(e.Value, t.Bound) {
			return Held, fmt.Sprintf("%s is %s %s (%s: by the margin alone)", v, side, bound, e.Method)
		}
		return NotHeld, fmt.Sprintf("%s is not %s %s (%s: by the margin alone)", v, side, bound, e.Method)
	}
	// The interval's bound nearer the wrong side.
	near, far := e.Hi, e.Lo
	if !t.below() {
		near, far = e.Lo, e.Hi
	}
	significant := t.on(near, t.Threshold)
	switch {
	case significant && t.on(e.Value, t.Bound):
		if margin {
			return Held, fmt.Sprintf("the interval [%s, %s] lies %s %s and %s passes the margin bound %s", lo, hi, side, thr, v, bound)
		}
		return Held, fmt.Sprintf("the interval [%s, %s] lies %s %s", lo, hi, side, thr)
	case !t.on(far, t.Bound):
		if !t.on(far, t.Threshold) {
			return NotHeld, fmt.Sprintf("the interval [%s, %s] lies on the wrong side of %s", lo, hi, thr)
		}
		return NotHeld, fmt.Sprintf("the interval [%s, %s] lies within the margin (not %s %s)", lo, hi, side, bound)
	case significant:
		return NotSignificant, fmt.Sprintf("significant, but %s does not pass the margin bound %s and the interval [%s, %s] reaches past it", v, bound, lo, hi)
	}
	return NotSignificant, fmt.Sprintf("the interval [%s, %s] includes %s", lo, hi, thr)
}

// Num formats a number for verdicts and reports: report.FormatNumber (three significant
// digits) without trailing zeros ("1", "0.95", "2.29").
func Num(v float64) string {
	s := report.FormatNumber(v)
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "e") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Percent formats a fraction as a percentage ("5%", "2.5%").
func Percent(f float64) string { return Num(100*f) + "%" }
