// Package claim is the claim language of experiment specs and its statistics: a check
// compares two arithmetic expressions over a sweep's cell metrics (ParseCheck, ParseExpr), and
// Evaluate judges it over seeds with an effect, a 95% interval and a three-way verdict.
//
//	check     = [ "for each" key { "," key } ":" ] expr cmp expr [ "±" tolerance ]
//	cmp       = "<" | "<=" | ">" | ">=" | "="        ("=" only with a tolerance)
//	tolerance = number [ "%" ]                       ("+/-" may be written for "±")
//	expr      = term { ("+" | "-") term }
//	term      = unary { ("*" | "/") unary }
//	unary     = [ "-" ] primary
//	primary   = number [ "%" ] | "(" expr ")" | agg "(" operand ")" | operand
//	agg       = "mean" | "median" | "p90" | "p99" | "min" | "max"
//	operand   = { selector } metric
//	selector  = key "=" value        (value: up to the next space, or "double quoted")
//
// An operand is the aggregate (mean by default) of a metric over the cells — every seed, or
// one seed's — whose axis values match its selectors, within the figure's where filter and the
// current for-each group. Keys may be short (policy = policy.name, machines =
// workload.machines). Examples:
//
//	policy=srpt avg_jct_s < policy=fifo avg_jct_s
//	for each machines: policy=srpt avg_jct_s <= 80% * policy=fifo avg_jct_s
//	policy=drf p95_jct_s / policy=fifo p95_jct_s > 1.1
//	policy=sp by_class.tq.avg_jct_s / policy=bpf by_class.tq.avg_jct_s = 3.05 ± 25%
//	policy=sp by_class.tq.avg_jct_s / policy=bpf by_class.tq.avg_jct_s >= 3.05 ± 25%
//	policy=bpf by_class.lq.avg_jct_s = policy=sp by_class.lq.avg_jct_s ± 5%
//
// The effect a check measures follows its shape: with a constant side, the other side as
// written (a ratio written A / B stays one); with measurements on both sides, their ratio, any
// positive constant factor moving into the threshold (A <= 80% * B is A / B against 0.8), or
// their difference when a side is not positive or the tolerance is absolute. A tolerance
// loosens the comparison around the right-hand side: "= P ± t" asks for ours within P ± t,
// "<= P ± t" for at most P + t, ">= P ± t" for at least P − t; "t%" is a fraction of |P|.
//
// Evaluate measures the effect on each seed the operands' cells share and takes Student's t
// interval over seeds (on the log scale for ratios, giving a geometric mean), or bootstraps each
// operand's seeds when they share none; Judge gives the verdict (held, not significant, not
// held) against the threshold and the practical margin (DefaultMargin when the check compares
// two measurements without a factor or tolerance of its own). With "for each", every group is
// judged and the claim takes the worst verdict (Worst).
package claim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/report/stats"
)

// Check is a parsed claim check.
type Check struct {
	ForEach  []string
	LHS, RHS Expr
	// Op is <, <=, >, >= or = (= only with a tolerance).
	Op string
	// Tol, when set, loosens the comparison by "± tolerance" (see Tolerance).
	Tol *Tolerance
	Src string
}

// Tolerance is the "± x" or "± x%" of a check: how far ours may be from the right-hand side
// (typically a number the paper quotes) and still count. With "=" the check asks for the
// left-hand side within RHS ± x; with "<" or "<=" for at most RHS + x; with ">" or ">=" for at
// least RHS − x.
type Tolerance struct {
	// Value is the tolerance: a fraction of |RHS| when Relative ("± 25%" is 0.25), else an
	// absolute amount in the left-hand side's unit.
	Value    float64
	Relative bool
	// Src is the tolerance as written, without "±" ("25%").
	Src string
}

// Abs returns the tolerance as an absolute amount around ref (the right-hand side's value).
func (t *Tolerance) Abs(ref float64) float64 {
	if t.Relative {
		return t.Value * math.Abs(ref)
	}
	return t.Value
}

// Expr is a parsed arithmetic expression of the claim language.
type Expr interface {
	// Eval computes the expression, resolving operands with env.
	Eval(env Env) (float64, error)
	// Operands calls f for every operand of the expression, in order.
	Operands(f func(*Operand))
	// String renders the expression canonically.
	String() string
}

// Env resolves an operand to a number (the aggregate of its metric over its matching cells).
type Env func(o *Operand) (float64, error)

// Selector restricts an operand to cells whose Key has the formatted Value.
type Selector struct {
	Key, Value string
}

// Operand is an aggregate of a metric over the cells its selectors match.
type Operand struct {
	Where  []Selector
	Metric string
	// Agg is mean, median, p90, p99, min or max.
	Agg string
}

// Aggregate reduces an operand's values by its aggregate: agg is "mean" (or empty), "median",
// "p90" or "p99" (the 90th and 99th percentiles, stats.Quantile), "min" or "max"; vals must not
// be empty.
func Aggregate(agg string, vals []float64) float64 {
	switch agg {
	case "median":
		return stats.Median(vals)
	case "p90":
		return stats.Quantile(vals, 0.9)
	case "p99":
		return stats.Quantile(vals, 0.99)
	case "min":
		return slices.Min(vals)
	case "max":
		return slices.Max(vals)
	}
	return stats.Mean(vals)
}

// Eval resolves the operand with env.
func (o *Operand) Eval(env Env) (float64, error) { return env(o) }

// Operands calls f with o.
func (o *Operand) Operands(f func(*Operand)) { f(o) }

// String renders the operand, e.g. "median(policy.name=drf avg_jct_s)".
func (o *Operand) String() string {
	var b strings.Builder
	for _, s := range o.Where {
		// The language has no escapes: a value the lexer read between double quotes (it has
		// no quote of its own) is written back between them.
		v := s.Value
		if strings.ContainsAny(v, " \t\n(),") || v == "" || v[0] == '=' {
			v = `"` + v + `"`
		}
		fmt.Fprintf(&b, "%s=%s ", s.Key, v)
	}
	b.WriteString(o.Metric)
	if o.Agg != "mean" {
		return o.Agg + "(" + b.String() + ")"
	}
	return b.String()
}

type numExpr struct {
	v   float64
	src string
}

func (n numExpr) Eval(Env) (float64, error) { return n.v, nil }
func (n numExpr) Operands(func(*Operand))   {}
func (n numExpr) String() string            { return n.src }

type binExpr struct {
	op   byte
	l, r Expr
}

func (b binExpr) Eval(env Env) (float64, error) {
	l, err := b.l.Eval(env)
	if err != nil {
		return 0, err
	}
	r, err := b.r.Eval(env)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	}
	if r == 0 {
		return math.NaN(), nil
	}
	return l / r, nil
}

func (b binExpr) Operands(f func(*Operand)) { b.l.Operands(f); b.r.Operands(f) }
func (b binExpr) String() string {
	return "(" + b.l.String() + " " + string(b.op) + " " + b.r.String() + ")"
}

type negExpr struct{ e Expr }

func (n negExpr) Eval(env Env) (float64, error) {
	v, err := n.e.Eval(env)
	return -v, err
}
func (n negExpr) Operands(f func(*Operand)) { n.e.Operands(f) }
func (n negExpr) String() string            { return "-" + n.e.String() }

// Eval evaluates both sides and the comparison on the values env gives, without statistics
// (see Evaluate for the verdict over seeds).
func (c *Check) Eval(env Env) (lhs, rhs float64, held bool, err error) {
	if lhs, err = c.LHS.Eval(env); err != nil {
		return
	}
	if rhs, err = c.RHS.Eval(env); err != nil {
		return
	}
	tol := 0.0
	if c.Tol != nil {
		tol = c.Tol.Abs(rhs)
	}
	switch c.Op {
	case "<":
		held = lhs < rhs+tol
	case "<=":
		held = lhs <= rhs+tol
	case ">":
		held = lhs > rhs-tol
	case ">=":
		held = lhs >= rhs-tol
	case "=":
		held = math.Abs(lhs-rhs) <= tol
	}
	return
}

// Operands calls f for every operand of both sides.
func (c *Check) Operands(f func(*Operand)) { c.LHS.Operands(f); c.RHS.Operands(f) }

// String renders the check canonically.
func (c *Check) String() string {
	s := c.LHS.String() + " " + c.Op + " " + c.RHS.String()
	if c.Tol != nil {
		s += " ± " + c.Tol.Src
	}
	if len(c.ForEach) > 0 {
		s = "for each " + strings.Join(c.ForEach, ", ") + ": " + s
	}
	return s
}

// Normalize rewrites the check's for-each keys and its operands' selector keys with norm (a
// spec's short axis names: policy → policy.name). A for-each over seeds is an error: claims
// aggregate over seeds.
func (c *Check) Normalize(norm func(key string) (string, error)) error {
	for i, k := range c.ForEach {
		nk, err := norm(k)
		if err != nil {
			return err
		}
		if nk == "seed" {
			return fmt.Errorf("for each seed: claims aggregate over seeds")
		}
		c.ForEach[i] = nk
	}
	if err := NormalizeExpr(c.LHS, norm); err != nil {
		return err
	}
	return NormalizeExpr(c.RHS, norm)
}

// NormalizeExpr rewrites the selector keys of e's operands with norm.
func NormalizeExpr(e Expr, norm func(key string) (string, error)) error {
	var err error
	e.Operands(func(o *Operand) {
		for i := range o.Where {
			k, e := norm(o.Where[i].Key)
			if e != nil && err == nil {
				err = e
			}
			o.Where[i].Key = k
		}
	})
	return err
}
