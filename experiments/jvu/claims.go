package jvu

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/experiments/claim"
)

// The JamaisVu reproductions replay one trace through a deterministic predictor: there are no
// seeds and no sampling (the paper label reads the paper's own population), so each claim is
// judged on our number alone against the paper's value and a stated tolerance, or against a
// comparison's margin (claim.Judge with an exact estimate).

// replayMethod names how every JamaisVu number is obtained, for the verdicts' reasons.
const replayMethod = "one deterministic replay of the trace"

// RelTolerance is the tolerance of a number the paper quotes: ours must lie within 20% of it,
// and at least within half a unit of the paper's last printed digit (the paper's own rounding:
// "1%" stands for 0.5–1.5%), so a small percentage is never matched by 0.
const RelTolerance = 0.20

// quoteTolerance returns the tolerance around a printed paper number (a percentage such as
// "0.16%", "+2%", "−2%"): RelTolerance of it, at least half a unit of its last digit.
func quoteTolerance(paper string) (value, tol float64, err error) {
	s := strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(paper, "−", "-")), "%")
	value, err = strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil {
		return 0, 0, fmt.Errorf("jvu: paper number %q: %w", paper, err)
	}
	decimals := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		decimals = len(s) - i - 1
	}
	half := 0.5 * math.Pow(10, -float64(decimals))
	return value, math.Max(RelTolerance*math.Abs(value), half), nil
}

// quoted checks ours (in the paper's unit, e.g. percent or percentage points) against a number
// the paper prints, within quoteTolerance.
func quoted(text, paper string, ours float64, oursText string) Claim {
	v, tol, err := quoteTolerance(paper)
	if err != nil {
		panic(err) // the paper numbers are constants of this package
	}
	t := claim.Test{Op: "=", Threshold: v, Bound: v, Lo: v - tol, Hi: v + tol, Quote: v}
	return judged(text, paper, oursText, fmt.Sprintf("%s ± %s pp (%s to %s)", paper, claim.Num(tol), claim.Num(t.Lo), claim.Num(t.Hi)), t, ours)
}

// compare checks that a is below (op "<") or above (op ">") b by at least the default margin
// (claim.DefaultMargin): the ratio a/b against 1, or the difference a − b against 0 (margin a
// fraction of |b|) when a ratio is undefined.
func compare(text, paper string, a, b float64, op, oursText string) Claim {
	t := claim.Test{Op: op, Threshold: 1, Margin: claim.DefaultMargin, Quote: math.NaN()}
	effect, d, what := a/b, claim.DefaultMargin, "ratio"
	if !(a > 0 && b > 0) {
		t.Threshold, effect, d, what = 0, a-b, claim.DefaultMargin*math.Abs(b), "difference"
	}
	t.Bound = t.Threshold - d
	if op == ">" {
		t.Bound = t.Threshold + d
	}
	test := fmt.Sprintf("%s %s %s, margin %s (%s %s)", what, op, claim.Num(t.Threshold), claim.Percent(claim.DefaultMargin), op, claim.Num(t.Bound))
	return judged(text, paper, oursText, test, t, effect)
}

// threshold checks ours against a threshold the claim states (op "<", "<=", ">", ">="; unit
// follows the number in the test's description), with no further margin.
func threshold(text, paper string, ours float64, op string, thr float64, unit, oursText string) Claim {
	t := claim.Test{Op: op, Threshold: thr, Bound: thr, Quote: math.NaN()}
	return judged(text, paper, oursText, op+" "+claim.Num(thr)+unit, t, ours)
}

// exact is a claim decided by a condition on ours that is not a single number (an ordering, a
// category, several comparisons at once); test says what the condition is.
func exact(text, paper, oursText, test string, ok bool) Claim {
	c := Claim{Text: text, Paper: paper, Ours: oursText, Test: test, Verdict: claim.NotHeld,
		Reason: "the condition does not hold (" + replayMethod + ")"}
	if ok {
		c.Verdict, c.Reason = claim.Held, "the condition holds ("+replayMethod+")"
	}
	return c
}

// all combines claims that must all hold into one: the worst verdict, the reasons of those that
// did not hold.
func all(text, paper, oursText, test string, parts ...Claim) Claim {
	c := Claim{Text: text, Paper: paper, Ours: oursText, Test: test}
	var vs []claim.Verdict
	var why []string
	for _, p := range parts {
		vs = append(vs, p.Verdict)
		if p.Verdict != claim.Held {
			why = append(why, p.Text+": "+p.Reason)
		}
	}
	c.Verdict = claim.Worst(vs...)
	c.Reason = "every part holds (" + replayMethod + ")"
	if len(why) > 0 {
		c.Reason = strings.Join(why, "; ")
	}
	return c
}

func judged(text, paper, oursText, test string, t claim.Test, ours float64) Claim {
	v, why := claim.Judge(t, claim.ExactEstimate(ours, replayMethod))
	return Claim{Text: text, Paper: paper, Ours: oursText, Test: test, Verdict: v, Reason: why, Bounds: &t, Value: ours}
}
