package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/report/stats"
)

// OperandValue is an operand of a check with its value in one group.
type OperandValue struct {
	Operand string
	Value   float64
	// N is the number of values aggregated (cells, or jobs for job.* metrics).
	N int
}

// GroupResult is a check evaluated in one for-each group (or over everything).
type GroupResult struct {
	// Group names the for-each values, e.g. "workload.machines=25" ("" without for each).
	Group    string
	LHS, RHS float64
	Held     bool
	Operands []OperandValue
}

// ClaimResult is a claim of a figure checked against the sweep.
type ClaimResult struct {
	Text  string
	Check string
	// Op is the check's comparison.
	Op string
	// Held is true when the check held in every group.
	Held   bool
	Groups []GroupResult
	// Err is set when the check could not be evaluated (e.g. no cell matched an operand).
	Err error
}

// NumberResult is a reference number of the paper next to ours.
type NumberResult struct {
	Name  string
	Paper string
	// Ours is the value of the "ours" expression (NaN when the spec gives none).
	Ours float64
	Expr string
	Err  error
}

// env returns the operand resolver for rows (already filtered by the figure and the group).
func (d *data) env(fig *experiments.Figure, rows []sweep.Row, record *[]OperandValue) claim.Env {
	return func(o *claim.Operand) (float64, error) {
		sel := rows
		for _, s := range o.Where {
			sel = d.rowsWhere(sel, s.Key, s.Value)
		}
		if len(sel) == 0 {
			var parts []string
			for _, s := range o.Where {
				parts = append(parts, s.Key+"="+s.Value)
			}
			return 0, fmt.Errorf("no cells match %s", strings.Join(parts, " "))
		}
		vals, err := d.values(fig, sel, o.Metric)
		if err != nil {
			return 0, err
		}
		if len(vals) == 0 {
			return 0, fmt.Errorf("no values of %s in the matching cells", o.Metric)
		}
		var v float64
		switch o.Agg {
		case "median":
			v = stats.Median(vals)
		case "min":
			v = slices.Min(vals)
		case "max":
			v = slices.Max(vals)
		default:
			v = stats.Mean(vals)
		}
		if record != nil {
			*record = append(*record, OperandValue{Operand: o.String(), Value: v, N: len(vals)})
		}
		return v, nil
	}
}

// checkClaim evaluates a claim in every for-each group of the figure's rows.
func (d *data) checkClaim(fig *experiments.Figure, c *experiments.Claim) ClaimResult {
	res := ClaimResult{Text: c.Text, Check: c.Check.String(), Op: c.Check.Op, Held: true}
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
	for gi, g := range groups {
		gr := GroupResult{Group: names[gi]}
		lhs, rhs, held, err := c.Check.Eval(d.env(fig, g, &gr.Operands))
		if err != nil {
			res.Err = fmt.Errorf("%s: claim %q%s: %w", c.Pos, c.Text, inGroup(names[gi]), err)
			res.Held = false
			return res
		}
		if math.IsNaN(lhs) || math.IsNaN(rhs) {
			held = false
		}
		gr.LHS, gr.RHS, gr.Held = lhs, rhs, held
		res.Held = res.Held && held
		res.Groups = append(res.Groups, gr)
	}
	return res
}

func inGroup(g string) string {
	if g == "" {
		return ""
	}
	return " in group " + g
}

// number evaluates a reference number's "ours" expression.
func (d *data) number(fig *experiments.Figure, n *experiments.RefNumber) NumberResult {
	r := NumberResult{Name: n.Name, Paper: n.Paper, Ours: math.NaN()}
	if n.Ours == nil {
		return r
	}
	r.Expr = n.Ours.String()
	v, err := n.Ours.Eval(d.env(fig, d.t.FilterRows(d.t.Rows, fig.Where), nil))
	if err != nil {
		r.Err = fmt.Errorf("%s: number %q: %w", n.Pos, n.Name, err)
		return r
	}
	r.Ours = v
	return r
}

// Numbers formats a group's evaluated sides, e.g. "8727 < 17024 (policy.name=srpt avg_jct_s =
// 8727; …)".
func (g *GroupResult) Numbers(op string) string {
	var parts []string
	for _, o := range g.Operands {
		parts = append(parts, fmt.Sprintf("%s = %s", o.Operand, report.FormatNumber(o.Value)))
	}
	return fmt.Sprintf("%s %s %s (%s)", report.FormatNumber(g.LHS), op, report.FormatNumber(g.RHS), strings.Join(parts, "; "))
}
