package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/sweep"
)

// GroupResult is a claim judged in one for-each group (or over everything): the sides over
// every cell, the effect with its interval, the test and the verdict.
type GroupResult struct {
	// Group names the for-each values, e.g. "workload.machines=25" ("" without for each).
	Group string
	*claim.Outcome
}

// ClaimResult is a claim of a figure judged against the sweep.
type ClaimResult struct {
	Text  string
	Check string
	// Op is the check's comparison.
	Op string
	// Verdict combines the groups' verdicts (claim.Worst).
	Verdict claim.Verdict
	Groups  []GroupResult
	// Note is the spec's note on the claim (why ours may differ from the paper).
	Note string
	// Err is set when the check could not be evaluated (e.g. no cell matched an operand).
	Err error
}

// Held reports whether the claim held.
func (c *ClaimResult) Held() bool { return c.Err == nil && c.Verdict == claim.Held }

// NumberResult is a reference number of the paper next to ours.
type NumberResult struct {
	Name  string
	Paper string
	// Simulator is the authors' simulator's number ("" when the spec gives none).
	Simulator string
	// Ours is the estimate of the "ours" expression over seeds, with its interval (Value NaN
	// when the spec gives no expression).
	Ours claim.Estimate
	Expr string
	Err  error
}

// source resolves claim operands over one group of a figure's rows.
type source struct {
	d    *data
	fig  *experiments.Figure
	rows []sweep.Row
}

// match returns the rows an operand selects.
func (s source) match(o *claim.Operand) ([]sweep.Row, error) {
	sel := s.rows
	for _, w := range o.Where {
		sel = s.d.rowsWhere(sel, w.Key, w.Value)
	}
	if len(sel) == 0 {
		var parts []string
		for _, w := range o.Where {
			parts = append(parts, w.Key+"="+w.Value)
		}
		return nil, fmt.Errorf("no cells match %s", strings.Join(parts, " "))
	}
	return sel, nil
}

// Seeds returns the seeds of the operand's cells.
func (s source) Seeds(o *claim.Operand) ([]int64, error) {
	sel, err := s.match(o)
	if err != nil {
		return nil, err
	}
	var seeds []int64
	for _, r := range sel {
		if !slices.Contains(seeds, r.Seed) {
			seeds = append(seeds, r.Seed)
		}
	}
	slices.Sort(seeds)
	return seeds, nil
}

// Value aggregates the operand's metric over its cells of the given seeds (every cell when
// seeds is nil; a seed listed twice counts twice).
func (s source) Value(o *claim.Operand, seeds []int64) (float64, int, error) {
	sel, err := s.match(o)
	if err != nil {
		return 0, 0, err
	}
	if seeds != nil {
		var picked []sweep.Row
		for _, seed := range seeds {
			for _, r := range sel {
				if r.Seed == seed {
					picked = append(picked, r)
				}
			}
		}
		sel = picked
	}
	vals, err := s.d.values(s.fig, sel, o.Metric)
	if err != nil {
		return 0, 0, err
	}
	if len(vals) == 0 {
		return 0, 0, fmt.Errorf("no values of %s in the matching cells", o.Metric)
	}
	return claim.Aggregate(o.Agg, vals), len(vals), nil
}

// checkClaim judges a claim in every for-each group of the figure's rows.
func (d *data) checkClaim(fig *experiments.Figure, c *experiments.Claim) ClaimResult {
	res := ClaimResult{Text: c.Text, Check: c.Check.String(), Op: c.Check.Op, Note: c.Note}
	rows := d.t.FilterRows(d.t.Rows, fig.Where)
	groups := [][]sweep.Row{rows}
	names := []string{""}
	for _, k := range c.Check.ForEach {
		var ng [][]sweep.Row
		var nn []string
		for gi, g := range groups {
			for _, v := range d.t.Distinct(g, k) {
				ng = append(ng, d.rowsWhere(g, k, v))
				nn = append(nn, strings.TrimSpace(names[gi]+" "+k+"="+v))
			}
		}
		groups, names = ng, nn
	}
	if why := d.notRun(c.Check); why != "" {
		res.Verdict = claim.NotEvaluable
		res.Err = errNotEvaluable{why}
		return res
	}
	var verdicts []claim.Verdict
	for gi, g := range groups {
		o := claim.Options{Margin: c.Margin, Rand: experiments.Rand(d.firstSeed(), "claim/"+fig.ID+"/"+c.Text+"/"+names[gi])}
		out, err := claim.Evaluate(c.Check, source{d, fig, g}, o)
		if err != nil {
			res.Err = fmt.Errorf("%s: claim %q%s: %w", c.Pos, c.Text, inGroup(names[gi]), err)
			res.Verdict = claim.Error
			return res
		}
		res.Groups = append(res.Groups, GroupResult{Group: names[gi], Outcome: out})
		verdicts = append(verdicts, out.Verdict)
	}
	res.Verdict = claim.Worst(verdicts...)
	return res
}

// errNotEvaluable says why a claim or number cannot be evaluated at the label.
type errNotEvaluable struct{ why string }

func (e errNotEvaluable) Error() string { return "not evaluable at this label: " + e.why }

// otherLabels returns the spec at each of its labels but label.
func otherLabels(spec *experiments.Spec, label string) []*experiments.Spec {
	var out []*experiments.Spec
	for _, l := range spec.LabelNames() {
		if l == label {
			continue
		}
		if s, err := spec.WithLabel(l); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// notRun says which selector of e refers to cells this label does not run but another label
// does — a seed, or an axis value, of the paper label at the quick one — or "" when none does.
func (d *data) notRun(e interface{ Operands(func(*claim.Operand)) }) string {
	why := ""
	e.Operands(func(o *claim.Operand) {
		for _, w := range o.Where {
			if why != "" || len(d.rowsWhere(d.t.Rows, w.Key, w.Value)) > 0 {
				continue
			}
			for _, other := range d.labels {
				if selects(other, w.Key, w.Value) {
					why = fmt.Sprintf("%s=%s is run at label %s, not at label %s", w.Key, w.Value, other.Label, labelName(d.spec.Label))
					if w.Key == "seed" {
						why += fmt.Sprintf(" (seeds %s)", seedsText(d.spec.Seeds.Values()))
					}
					break
				}
			}
		}
	})
	return why
}

// selects reports whether spec (at a label) runs cells with key=value: a seed, or a value of an
// axis whose key is key or ends in "."+key.
func selects(spec *experiments.Spec, key, value string) bool {
	if key == "seed" {
		return slices.ContainsFunc(spec.Seeds.Values(), func(s int64) bool { return fmt.Sprint(s) == value })
	}
	for _, g := range spec.Axes {
		for _, a := range g.Axes {
			if a.Key != key && !strings.HasSuffix(a.Key, "."+key) {
				continue
			}
			if slices.ContainsFunc(a.Values, func(v any) bool { return experiments.FormatValue(v) == value }) {
				return true
			}
		}
	}
	return false
}

// firstSeed is the sweep's first seed, which seeds the claims' bootstrap generators.
func (d *data) firstSeed() int64 {
	if s := d.spec.Seeds.Values(); len(s) > 0 {
		return s[0]
	}
	return 0
}

func inGroup(g string) string {
	if g == "" {
		return ""
	}
	return " in group " + g
}

// number evaluates a reference number's "ours" expression over seeds.
func (d *data) number(fig *experiments.Figure, n *experiments.RefNumber) NumberResult {
	r := NumberResult{Name: n.Name, Paper: n.Paper, Simulator: n.Simulator, Ours: claim.ExactEstimate(math.NaN(), "")}
	if n.Ours == nil {
		return r
	}
	r.Expr = n.Ours.String()
	if why := d.notRun(n.Ours); why != "" {
		r.Err = errNotEvaluable{why}
		return r
	}
	src := source{d, fig, d.t.FilterRows(d.t.Rows, fig.Where)}
	e, err := claim.Measure(n.Ours, src, experiments.Rand(d.firstSeed(), "number/"+fig.ID+"/"+n.Name))
	if err != nil {
		r.Err = fmt.Errorf("%s: number %q: %w", n.Pos, n.Name, err)
		return r
	}
	r.Ours = e
	return r
}

// estimateText formats an estimate with its interval: "0.54 [0.50, 0.58]", or the value alone
// when there is none.
func estimateText(e claim.Estimate) string {
	if e.Exact || math.IsNaN(e.Lo) {
		return claim.Num(e.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", claim.Num(e.Value), claim.Num(e.Lo), claim.Num(e.Hi))
}

// Effect formats a group's effect: "ratio 0.54 [0.50, 0.58] (paired t over 3 seeds)"; a value
// effect (a side against a constant) without its kind.
func (g *GroupResult) Effect() string {
	s := fmt.Sprintf("%s (%s)", estimateText(g.Estimate), g.Estimate.Method)
	if g.Outcome.Effect != claim.EffectValue {
		s = g.Outcome.Effect + " " + s
	}
	return s
}

// Numbers formats a group's sides over every cell, e.g. "8727 < 17024 (policy.name=srpt
// avg_jct_s = 8727; …)".
func (g *GroupResult) Numbers(op string) string {
	var parts []string
	for _, o := range g.Operands {
		parts = append(parts, fmt.Sprintf("%s = %s", o.Operand, claim.Num(o.Value)))
	}
	if op == "=" {
		op = "vs"
	}
	return fmt.Sprintf("%s %s %s (%s)", claim.Num(g.LHS), op, claim.Num(g.RHS), strings.Join(parts, "; "))
}
