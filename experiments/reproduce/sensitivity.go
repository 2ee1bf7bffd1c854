package reproduce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report"
)

// Sensitivity is where each claim of a spec holds along its one-at-a-time sensitivity axes
// (experiments.Spec.Sensitivity): the claim judged again on the cells of each point.
type Sensitivity struct {
	// Points name the points, the base point first ("base", "key=value", ...).
	Points []string
	Claims []SensitivityClaim
	// Files are the table of the region figures' points (regions.go), relative to Out.
	Files []string
}

// SensitivityClaim is one claim's verdict at every point.
type SensitivityClaim struct {
	Figure, Text string
	Verdicts     []claim.Verdict
	// Results are the claim's results at each point; Files and SVG its region figure
	// (regions.go; none when no point has an estimate).
	Results []ClaimResult
	Files   []string
	SVG     []byte
}

// pointRows returns the rows at one sensitivity point.
func (d *data) pointRows(rows []sweep.Row, p experiments.SensitivityPoint) []sweep.Row {
	var out []sweep.Row
	for i := range rows {
		r := &rows[i]
		if d.spec.SensitivitySelects(p, func(key string) string {
			v, _ := d.t.Value(r, key)
			return v
		}) {
			out = append(out, *r)
		}
	}
	return out
}

// atBase narrows d's table to the base point's rows (figures and the main verdicts use them)
// and returns every row, or nil when the spec has no sensitivity block.
func (d *data) atBase() []sweep.Row {
	pts := d.spec.SensitivityPoints()
	if len(pts) == 0 {
		return nil
	}
	all := d.t.Rows
	t := *d.t
	t.Rows = d.pointRows(all, pts[0])
	d.t = &t
	return all
}

// sensitivity judges every claim of the spec's figures at each sensitivity point over all's
// rows, then restores d's base rows.
func (d *data) sensitivity(all []sweep.Row) *Sensitivity {
	pts := d.spec.SensitivityPoints()
	if len(pts) == 0 {
		return nil
	}
	base := d.t.Rows
	defer func() { d.t.Rows = base }()
	s := &Sensitivity{}
	for _, p := range pts {
		s.Points = append(s.Points, p.Name())
	}
	for i := range d.spec.Figures {
		fs := &d.spec.Figures[i]
		for j := range fs.Claims {
			c := SensitivityClaim{Figure: fs.ID, Text: fs.Claims[j].Text}
			for _, p := range pts {
				d.t.Rows = d.pointRows(all, p)
				r := d.checkClaim(fs, &fs.Claims[j])
				c.Verdicts = append(c.Verdicts, r.Verdict)
				c.Results = append(c.Results, r)
			}
			s.Claims = append(s.Claims, c)
		}
	}
	return s
}

// verdictMark abbreviates a verdict for the sensitivity table.
func verdictMark(v claim.Verdict) string {
	switch v {
	case claim.Held:
		return "held"
	case claim.NotSignificant:
		return "n.s."
	case claim.NotHeld:
		return "NOT held"
	case claim.NotEvaluable:
		return "—"
	}
	return "error"
}

// Region says where a claim holds, e.g. "held at base, load=0.7; not held at load=1.5".
func (s *Sensitivity) Region(c SensitivityClaim) string {
	by := map[string][]string{}
	var order []string
	for i, v := range c.Verdicts {
		k := v.String()
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], s.Points[i])
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s at %s", k, strings.Join(by[k], ", ")))
	}
	return strings.Join(parts, "; ")
}

// table renders the verdicts: a row per claim, a column per point, and the region.
func (s *Sensitivity) table(id string) *report.Table {
	cols := append([]string{"claim"}, s.Points...)
	cols = append(cols, "where it holds")
	t := report.NewTable(id+"-sensitivity", "", cols...)
	t.Align = slices.Repeat([]report.Align{report.AlignLeft}, len(cols))
	for _, c := range s.Claims {
		row := []string{c.Figure + ": " + c.Text}
		for _, v := range c.Verdicts {
			row = append(row, verdictMark(v))
		}
		row = append(row, s.Region(c))
		t.AddRow(row...)
	}
	return t
}
