package jvu

import (
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/experiments/claim"
)

// Artifact is one reproduced table or figure of the JamaisVu paper, with the claims it checks.
type Artifact struct {
	// ID is the reproduction's id, e.g. "jv-fig12".
	ID string
	// Title describes the reproduction in one line.
	Title string
	// Paper is the paper's short name ("JamaisVu").
	Paper string
	// Reference is the figure or table number and its caption.
	Reference string
	// Label is the data-size label it ran at ("quick" or "paper").
	Label string
	// Figures are the files written into Options.OutDir (PNG and SVG).
	Figures []string
	// Tables hold the numbers behind the figures, paper beside ours where the paper gives them.
	Tables []Table
	// Claims are the paper's statements checked against ours.
	Claims []Claim
	// Informational, when set, says why the claims' verdicts are shown for information only
	// and not counted (the quick fixture is too small for the paper's claims).
	Informational string
	// Notes define the population and runtime and list departures from the paper.
	Notes string
}

// Table is a plain table of formatted cells.
type Table struct {
	// Title heads the table.
	Title string
	// Columns are the header cells; each row has one cell per column.
	Columns []string
	Rows    [][]string
}

// Claim is one statement of the paper with its value there and ours, judged against a stated
// tolerance or margin (see claims.go).
type Claim struct {
	// Text states the claim.
	Text string
	// Paper and Ours are the values, formatted.
	Paper string
	Ours  string
	// Test says what ours must satisfy: the paper's value ± the tolerance, a comparison with
	// its margin, or a condition.
	Test string
	// Verdict is held or not held (the reproductions are deterministic: never not
	// significant), and Reason says why.
	Verdict claim.Verdict
	Reason  string
	// Bounds is the test Value was judged against (claim.Judge); nil for a claim decided by a
	// condition that is not a single number (an ordering, several comparisons at once).
	Bounds *claim.Test
	// Value is the number judged (in the test's unit: percent, percentage points, a ratio),
	// set with Bounds.
	Value float64
}

// Held reports whether the claim held.
func (c Claim) Held() bool { return c.Verdict == claim.Held }

// Markdown renders the artifact as a Markdown document.
func (a *Artifact) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — %s\n\n", a.ID, a.Title)
	fmt.Fprintf(&b, "%s, %s. Label: %s.\n\n", a.Paper, a.Reference, a.Label)
	for _, f := range a.Figures {
		if strings.HasSuffix(f, ".png") {
			fmt.Fprintf(&b, "![%s](%s)\n\n", a.ID, baseName(f))
		}
	}
	for _, t := range a.Tables {
		b.WriteString(t.Markdown())
		b.WriteByte('\n')
	}
	if len(a.Claims) > 0 {
		c := Table{Title: "Claims", Columns: []string{"claim", "paper", "ours", "tolerance / margin", "verdict"}}
		for _, cl := range a.Claims {
			c.Rows = append(c.Rows, []string{cl.Text, cl.Paper, cl.Ours, cl.Test, cl.Verdict.String() + ": " + cl.Reason})
		}
		b.WriteString(c.Markdown())
		b.WriteByte('\n')
		if a.Informational != "" {
			fmt.Fprintf(&b, "**Not counted:** %s\n\n", a.Informational)
		}
	}
	if a.Notes != "" {
		b.WriteString("## Notes\n\n")
		b.WriteString(a.Notes)
		b.WriteString("\n")
	}
	return b.String()
}

// Markdown renders the table as a Markdown table under a level-2 heading.
func (t Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "## %s\n\n", t.Title)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Columns)
	b.WriteString("|")
	for range t.Columns {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	return b.String()
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
