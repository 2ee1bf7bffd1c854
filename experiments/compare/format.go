package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report"
)

// sample formats a sample as "mean ± 95% CI half-width" (or the mean alone).
func sample(xs []float64) string {
	if len(xs) < 2 {
		return report.FormatNumber(xs[0])
	}
	return report.FormatMeanCISamples(xs)
}

func delta(r *Row) string {
	if math.IsNaN(r.Rel.Estimate) {
		if r.BaseMean == r.NewMean {
			return "0%"
		}
		return "n/a (base 0)"
	}
	s := report.FormatRelChange(r.Rel.Estimate)
	if r.Rel.Defined() && (r.Rel.Lo != r.Rel.Estimate || r.Rel.Hi != r.Rel.Estimate) {
		s += " [" + report.FormatRelChange(r.Rel.Lo) + ", " + report.FormatRelChange(r.Rel.Hi) + "]"
	}
	return s
}

func pval(r *Row, alpha float64) string {
	switch {
	case r.Test == "exact":
		return "exact"
	case math.IsNaN(r.P):
		if r.Significant {
			return fmt.Sprintf("boot<%g", alpha)
		}
		return "boot"
	}
	return "p=" + report.FormatSig(r.P, 2)
}

func dirMark(d Direction) string {
	switch d {
	case LowerIsBetter:
		return "↓"
	case HigherIsBetter:
		return "↑"
	}
	return " "
}

// WriteText writes a benchstat-like table: one block per group, one line per metric.
func (res *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "base: %s\nnew:  %s\n", res.Base, res.New)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	group := "\x00"
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Group != group {
			group = r.Group
			fmt.Fprintf(tw, "\n%s\n", displayGroup(group))
			fmt.Fprintf(tw, "  metric\tbase\tnew\tdelta [95%% CI]\ttest\tn\tverdict\n")
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\t%s\t%s\t%d+%d\t%s\n", r.Metric, dirMark(r.Direction), sample(r.Base), sample(r.New), delta(r), pval(r, res.Options.Alpha), len(r.Base), len(r.New), r.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	res.writeFooter(w, "")
	return nil
}

func displayGroup(g string) string {
	if g == "" {
		return "(all)"
	}
	return g
}

func (res *Result) writeFooter(w io.Writer, bullet string) {
	fmt.Fprintln(w)
	for _, g := range res.OnlyBase {
		fmt.Fprintf(w, "%sonly in base: %s\n", bullet, displayGroup(g))
	}
	for _, g := range res.OnlyNew {
		fmt.Fprintf(w, "%sonly in new: %s\n", bullet, displayGroup(g))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "%snote: %s\n", bullet, n)
	}
	fmt.Fprintf(w, "%s↓ lower is better, ↑ higher is better; significance at alpha %g; a regression is a significant move the wrong way beyond %g%%.\n",
		bullet, res.Options.Alpha, 100*res.Options.Threshold)
	if res.Regressions > 0 {
		fmt.Fprintf(w, "%s%s.\n", bullet, sweep.Plural(res.Regressions, "regression", "regressions"))
	} else {
		fmt.Fprintf(w, "%sno regressions.\n", bullet)
	}
}

// WriteMarkdown writes the comparison as a Markdown table.
func (res *Result) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "**base:** %s  \n**new:** %s\n\n", mdEscape(res.Base), mdEscape(res.New))
	t := report.NewTable("compare", "", "group", "metric", "base", "new", "delta [95% CI]", "test", "n", "verdict")
	t.Align = []report.Align{report.AlignLeft, report.AlignLeft, report.AlignRight, report.AlignRight, report.AlignRight, report.AlignLeft, report.AlignRight, report.AlignLeft}
	for i := range res.Rows {
		r := &res.Rows[i]
		v := r.Verdict
		if v == VerdictRegression {
			v = "**" + v + "**"
		}
		t.AddRow(displayGroup(r.Group), r.Metric+" "+dirMark(r.Direction), sample(r.Base), sample(r.New), delta(r), pval(r, res.Options.Alpha), fmt.Sprintf("%d+%d", len(r.Base), len(r.New)), v)
	}
	if err := t.WriteMarkdown(w); err != nil {
		return err
	}
	res.writeFooter(w, "- ")
	return nil
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`).Replace(s)
}
