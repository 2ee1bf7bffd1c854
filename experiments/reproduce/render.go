package reproduce

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/report"
)

// seedsText lists seeds compactly.
func seedsText(seeds []int64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

const seedNote = "Every metric is identical across seeds: nothing in these runs draws random numbers " +
	"(the workload and policies are deterministic), so the 95% confidence intervals have zero width."

// verdictRule explains the verdicts, under the tally.
const verdictRule = "A claim is held when its effect is significant at α = 0.05 — the 95% interval lies on the claimed side of " +
	"the threshold — and the estimate passes the practical margin (5% of the threshold unless the claim states its own threshold, " +
	"factor or tolerance); not held when the interval lies entirely on the wrong side of the margin (a significant effect the wrong " +
	"way, or one significantly smaller than the margin); not significant otherwise. A claim quoting the paper's number (= 3.05 ± 25%) " +
	"is held when the interval lies within the tolerance and not held when it lies outside it. Intervals are Student's t over seeds, " +
	"paired where the compared cells share seeds (ratios on the log scale: geometric means), and a seeded bootstrap where they do not; " +
	"with one seed, or no variance across seeds, the margin alone decides and the table says so. A claim on a maximum or minimum is " +
	"judged on the values of every seed pooled (the margin alone decides), and the interval of a bounded metric (a fraction, a time) " +
	"stays within its bounds."

// failedText introduces the error of a reproduction that failed.
const failedText = "This reproduction failed; the report covers the others. The error:"

// numbersTable builds a figure's reference numbers beside ours (nil without numbers): the
// paper's, the authors' simulator's (a column when any number has one) and ours with its 95%
// interval over seeds.
func numbersTable(f *Figure) *report.Table {
	if len(f.Numbers) == 0 {
		return nil
	}
	sim := slices.ContainsFunc(f.Numbers, func(n NumberResult) bool { return n.Simulator != "" })
	cols := []string{"", "paper"}
	if sim {
		cols = append(cols, "simulator")
	}
	cols = append(cols, "ours (95% CI)")
	t := report.NewTable(f.Spec.ID+"-numbers", "", cols...)
	t.Align = slices.Repeat([]report.Align{report.AlignLeft}, len(cols)-1)
	for _, n := range f.Numbers {
		row := []string{n.Name, n.Paper}
		if sim {
			row = append(row, orDash(n.Simulator))
		}
		t.AddRow(append(row, numberText(n))...)
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// numberText formats our value of a reference number.
func numberText(n NumberResult) string {
	switch {
	case n.Err != nil:
		return n.Err.Error()
	case n.Expr == "":
		return "—"
	}
	return estimateText(n.Ours)
}

// claimsTable builds a figure's claims with our effects, tests and verdicts (nil without
// claims).
func claimsTable(f *Figure) *report.Table {
	if len(f.Claims) == 0 {
		return nil
	}
	t := report.NewTable(f.Spec.ID+"-claims", "", "claim", "paper", "ours: effect (95% CI); sides over all seeds", "test", "verdict")
	t.Align = slices.Repeat([]report.Align{report.AlignLeft}, 5)
	for _, c := range f.Claims {
		why := claimReasons(c)
		v := c.Verdict.String()
		if len(why) > 0 {
			v += ": " + strings.Join(why, "; ")
		}
		t.AddRow(c.Text+" ("+c.Check+")", claimPaper(c), strings.Join(claimLines(c), "; "), claimTest(c), v)
	}
	return t
}

// failedLine is " 1 of 3 reproductions failed: demo/x." when some failed, "" otherwise.
func (r *Report) failedLine() string {
	f := r.Failed()
	if len(f) == 0 {
		return ""
	}
	ids := make([]string, len(f))
	for i, s := range f {
		ids[i] = s.ID
	}
	return fmt.Sprintf(" %d of %d reproductions failed: %s.", len(f), len(r.Sections), strings.Join(ids, ", "))
}

// WriteMarkdown writes report.md: every section's figures (linked PNG files), tables,
// references and paper-vs-ours tables, in the report's order.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# schedlab reproduction report\n\nschedlab %s, label %s. %s.%s\n\n%s\n", experiments.Version, labelName(r.Label), capitalize(r.Tally().String()), r.failedLine(), verdictRule)
	for _, sec := range r.Sections {
		var err error
		switch {
		case sec.Err != nil:
			fmt.Fprintf(&b, "\n## `%s`: failed\n\n%s\n\n```\n%s\n```\n", sec.ID, failedText, sec.Err)
		case sec.JVu != nil:
			err = sec.JVu.writeMarkdown(&b)
		default:
			err = sec.Spec.writeMarkdown(&b)
		}
		if err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeMarkdown writes a spec's section of report.md.
func (s *SpecReport) writeMarkdown(b *bytes.Buffer) error {
	title := s.Spec.Title
	if title == "" {
		title = s.Spec.ID
	}
	fmt.Fprintf(b, "\n## %s (`%s`)\n\n", title, s.Spec.ID)
	if d := strings.TrimSpace(s.Spec.Description); d != "" {
		fmt.Fprintf(b, "%s\n\n", d)
	}
	fmt.Fprintf(b, "Spec `%s`, label %s: %d cells (%d run, %d cached), seeds %s. Results: `%s/cells.parquet`.\n",
		s.Spec.File, labelName(s.Label), s.Cells, s.Ran, s.Cached, seedsText(s.Seeds), s.Dir)
	if s.SeedInvariant {
		fmt.Fprintf(b, "\n> Note: %s\n", seedNote)
	}
	for i := range s.Figures {
		f := &s.Figures[i]
		kind := "Figure"
		if f.Table != nil {
			kind = "Table"
		}
		fmt.Fprintf(b, "\n### %s %s", kind, f.Spec.ID)
		if f.Spec.Title != "" {
			fmt.Fprintf(b, ": %s", f.Spec.Title)
		}
		b.WriteString("\n\n")
		if f.Table != nil {
			t := *f.Table
			t.Title = ""
			if err := t.WriteMarkdown(b); err != nil {
				return err
			}
			b.WriteString("\n")
		} else {
			for _, p := range f.Files {
				if strings.HasSuffix(p, ".png") {
					fmt.Fprintf(b, "![%s](%s)\n\n", f.Spec.ID, p)
				}
			}
		}
		if c := captionText(f); c != "" {
			fmt.Fprintf(b, "*%s*\n\n", c)
		}
		fmt.Fprintf(b, "Files: %s\n\n", strings.Join(wrapCode(f.Files), ", "))
		if ref := referenceLine(f.Spec.Reference); ref != "" {
			fmt.Fprintf(b, "**Paper:** %s\n\n", ref)
		}
		for _, t := range []*report.Table{numbersTable(f), claimsTable(f)} {
			if t == nil {
				continue
			}
			if err := t.WriteMarkdown(b); err != nil {
				return err
			}
			b.WriteString("\n")
		}
	}
	if s.Sensitivity != nil {
		fmt.Fprintf(b, "\n### Sensitivity: where each claim holds\n\nEach claim judged again with one key changed at a time from the base point (the figures and verdicts above): %s.\n\n", strings.Join(s.Sensitivity.Points, ", "))
		if err := s.Sensitivity.table(s.Spec.ID).WriteMarkdown(b); err != nil {
			return err
		}
		b.WriteString("\n")
		s.Sensitivity.writeRegionsMarkdown(b)
	}
	return nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// paperVsOurs builds the paper-vs-ours table of a JamaisVu reproduction's claims (nil
// without claims).
func (j *JVuReport) paperVsOurs() *report.Table {
	a := j.Artifact
	if len(a.Claims) == 0 {
		return nil
	}
	t := report.NewTable(a.ID+"-claims", "", "claim", "paper", "ours", "tolerance / margin", "verdict")
	t.Align = slices.Repeat([]report.Align{report.AlignLeft}, 5)
	for _, c := range a.Claims {
		t.AddRow(c.Text, c.Paper, c.Ours, c.Test, c.Verdict.String()+": "+c.Reason)
	}
	return t
}

// jvuTable converts a jvu table to a report table (the title kept apart).
func jvuTable(id string, t jvu.Table) *report.Table {
	rt := report.NewTable(id, "", t.Columns...)
	for _, r := range t.Rows {
		rt.AddRow(r...)
	}
	return rt
}

// notesParagraphs splits notes into paragraphs at blank lines, each joined onto one line.
func notesParagraphs(notes string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(notes, "\r\n", "\n"), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writeMarkdown writes a JamaisVu reproduction's section of report.md.
func (j *JVuReport) writeMarkdown(b *bytes.Buffer) error {
	a := j.Artifact
	fmt.Fprintf(b, "\n## %s (`%s`)\n\n", a.Title, a.ID)
	fmt.Fprintf(b, "**Paper:** %s, %s\n\n", a.Paper, a.Reference)
	fmt.Fprintf(b, "JVuPredict replayed online on the Google 2011 trace `%s`, label %s. Page: `%s`.\n", j.Src, labelName(j.Label), j.Page())
	for _, f := range j.Figures {
		fmt.Fprintf(b, "\n### Figure %s: %s\n\n", f.Name, j.figureTitle(f.Name))
		for _, p := range f.Files {
			if strings.HasSuffix(p, ".png") {
				fmt.Fprintf(b, "![%s](%s)\n\n", f.Name, p)
			}
		}
		fmt.Fprintf(b, "Files: %s\n", strings.Join(wrapCode(f.Files), ", "))
	}
	for i, t := range a.Tables {
		fmt.Fprintf(b, "\n### Table: %s\n\n", t.Title)
		if err := jvuTable(fmt.Sprintf("%s-%d", a.ID, i+1), t).WriteMarkdown(b); err != nil {
			return err
		}
	}
	if t := j.paperVsOurs(); t != nil {
		b.WriteString("\n### Paper vs ours\n\n")
		if a.Informational != "" {
			fmt.Fprintf(b, "> Not counted: %s\n\n", a.Informational)
		}
		if err := t.WriteMarkdown(b); err != nil {
			return err
		}
	}
	if ps := notesParagraphs(a.Notes); len(ps) > 0 {
		b.WriteString("\n### Notes\n\n")
		b.WriteString(strings.Join(ps, "\n\n"))
		b.WriteString("\n")
	}
	return nil
}

func wrapCode(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return out
}

func captionText(f *Figure) string {
	parts := []string{}
	if f.Spec.Caption != "" {
		parts = append(parts, strings.TrimSpace(f.Spec.Caption))
	}
	for _, n := range f.Notes {
		parts = append(parts, "Note: "+n+".")
	}
	return strings.Join(parts, " ")
}

// htmlFigure is a figure prepared for the page template.
type htmlFigure struct {
	Anchor, Kind, ID, Title, Caption, Reference string
	Img                                         template.HTMLAttr
	Width, Height                               string
	Table                                       *report.Table
	Files                                       []string
	// Simulator is set when a reference number has the authors' simulator's value.
	Simulator bool
	Numbers   []htmlNumber
	Claims    []htmlClaim
}

type htmlNumber struct {
	Name, Expr, Paper, Simulator, Ours string
	Err                                bool
}

type htmlClaim struct {
	Text, Check, Paper, Test, Verdict, Class string
	Lines, Reasons                           []string
}

// htmlSpec is a section of the page: a spec, or a JamaisVu reproduction when JVu is set.
type htmlSpec struct {
	Anchor, Title, ID, File, Description, Label, Seeds, Dir string
	Cells, Ran, Cached                                      int
	Note                                                    string
	Figures                                                 []htmlFigure
	// JamaisVu reproductions: the trace read, the artifact's page, the paper reference, the
	// section's claims and its notes.
	JVu                  bool
	Src, Page, Reference string
	Claims               []htmlClaim
	Notes                []string
	// Informational says why the section's claims are not counted.
	Informational string
	// Err is the error of a reproduction that failed (nothing else is set but its names).
	Err string
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="schedlab {{.Version}}">
<title>schedlab reproduction report</title>
<style>
body { font-family: system-ui, "Liberation Sans", Arial, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; } h3 { margin-bottom: .4rem; }
code, .check { font-family: ui-monospace, "Liberation Mono", monospace; font-size: .85em; }
.meta, .files { color: #555; font-size: .9rem; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .5rem .8rem; }
figure { margin: 1.5rem 0; padding: 1rem; border: 1px solid #e3e3e3; border-radius: 6px; }
figure img { display: block; max-width: 100%; height: auto; margin: .5rem auto; }
figcaption { font-size: .92rem; color: #333; margin-top: .4rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; max-width: 100%; }
th, td { border: 1px solid #d6d6d6; padding: .25rem .5rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
.check, td code { overflow-wrap: anywhere; }
table.results { display: block; overflow-x: auto; }
table.results th { white-space: nowrap; }
th { background: #f4f4f4; }
pre.error { white-space: pre-wrap; background: #fdecea; padding: .5rem .8rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.held { color: #0a6b2a; font-weight: 600; } .not-held { color: #b00020; font-weight: 600; } .not-significant { color: #8a5a00; font-weight: 600; } .error { color: #b00020; }
.not-evaluable-at-this-label { color: #555; font-style: italic; }
.reason { color: #555; font-size: .85rem; }
.ref { font-size: .92rem; }
nav ul { columns: 2; }
</style>
</head>
<body>
<h1>schedlab reproduction report</h1>
<p class="meta">schedlab {{.Version}}, label {{.Label}}. Claims held: <strong id="claims-held">{{.Held}} of {{.Total}}</strong>{{.Rest}}.{{if .FailedLine}}<strong class="error">{{.FailedLine}}</strong>{{end}}</p>
<p class="meta">{{.Rule}}</p>
<nav><ul>
{{- range .Specs}}
<li><a href="#{{.Anchor}}">{{.Title}}</a> <code>{{.ID}}</code></li>
{{- end}}
</ul></nav>
{{range .Specs}}
<section class="spec" id="{{.Anchor}}">
<h2>{{.Title}} <code>{{.ID}}</code>{{if .Err}}: failed{{end}}</h2>
{{if .Err}}<p>{{$.Failed}}</p>
<pre class="error">{{.Err}}</pre>
{{else}}{{if .Description}}<p>{{.Description}}</p>{{end}}
{{if .JVu}}<p class="ref"><strong>Paper:</strong> {{.Reference}}</p>
<p class="meta">JVuPredict replayed online on the Google 2011 trace <code>{{.Src}}</code>, label {{.Label}}. Page: <code>{{.Page}}</code>.</p>{{else}}<p class="meta">Spec <code>{{.File}}</code>, label {{.Label}}: {{.Cells}} cells ({{.Ran}} run, {{.Cached}} cached), seeds {{.Seeds}}. Results: <code>{{.Dir}}/cells.parquet</code>.</p>{{end}}
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{range .Figures}}
<figure id="{{.Anchor}}" class="{{.Kind}}">
<h3>{{if eq .Kind "table"}}Table{{else}}Figure{{end}}{{if .ID}} {{.ID}}{{end}}{{if .Title}}: {{.Title}}{{end}}</h3>
{{if .Img}}<img {{.Img}} alt="{{.ID}}{{if .Title}}: {{.Title}}{{end}}" width="{{.Width}}" height="{{.Height}}">{{end}}
{{if .Table}}<table class="results" id="table-{{.Anchor}}">
<thead><tr>{{range .Table.Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Table.Rows}}<tr>{{range $i, $c := .}}<td{{if $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{end}}
{{if .Caption}}<figcaption>{{.Caption}}</figcaption>{{end}}
{{if .Reference}}<p class="ref"><strong>Paper:</strong> {{.Reference}}</p>{{end}}
{{if .Numbers}}<table class="paper-vs-ours numbers">
<thead><tr><th></th><th>paper</th>{{if .Simulator}}<th>simulator</th>{{end}}<th>ours (95% CI)</th></tr></thead>
<tbody>
{{- $sim := .Simulator}}
{{- range .Numbers}}
<tr><td>{{.Name}}{{if .Expr}}<br><span class="check">{{.Expr}}</span>{{end}}</td><td>{{.Paper}}</td>{{if $sim}}<td>{{.Simulator}}</td>{{end}}<td class="num">{{if .Err}}<span class="error">{{.Ours}}</span>{{else}}{{.Ours}}{{end}}</td></tr>
{{- end}}
</tbody>
</table>{{end}}
{{if .Claims}}<table class="paper-vs-ours claims">
<thead><tr><th>claim</th><th>paper</th><th>ours: effect (95% CI); sides over all seeds</th><th>test</th><th>verdict</th></tr></thead>
<tbody>
{{- range .Claims}}
<tr class="claim"><td>{{.Text}}{{if .Check}}<br><span class="check">{{.Check}}</span>{{end}}</td><td>{{.Paper}}</td><td>{{range .Lines}}{{.}}<br>{{end}}</td><td>{{.Test}}</td><td><span class="{{.Class}}">{{.Verdict}}</span>{{range .Reasons}}<br><span class="reason">{{.}}</span>{{end}}</td></tr>
{{- end}}
</tbody>
</table>{{end}}
{{if .Files}}<p class="files">Files: {{range $i, $f := .Files}}{{if $i}}, {{end}}<code>{{$f}}</code>{{end}}</p>{{end}}
</figure>
{{end}}
{{if .JVu}}{{if .Claims}}<h3>Paper vs ours</h3>
{{if .Informational}}<p class="note">Not counted: {{.Informational}}</p>{{end}}
<table class="paper-vs-ours claims">
<thead><tr><th>claim</th><th>paper</th><th>ours</th><th>tolerance / margin</th><th>verdict</th></tr></thead>
<tbody>
{{- range .Claims}}
<tr class="claim"><td>{{.Text}}</td><td>{{.Paper}}</td><td>{{range .Lines}}{{.}}<br>{{end}}</td><td>{{.Test}}</td><td><span class="{{.Class}}">{{.Verdict}}</span>{{range .Reasons}}<br><span class="reason">{{.}}</span>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{end}}{{if .Notes}}<div class="notes"><h3>Notes</h3>
{{range .Notes}}<p>{{.}}</p>
{{end}}</div>
{{end}}{{end}}{{end}}</section>
{{end}}
</body>
</html>
`))

// svgSize reads the width and height attributes of an SVG's root element (in pt).
func svgSize(svg []byte) (w, h string) {
	start := bytes.Index(svg, []byte("<svg"))
	if start < 0 {
		return "", ""
	}
	end := bytes.IndexByte(svg[start:], '>')
	if end < 0 {
		return "", ""
	}
	head := string(svg[start : start+end])
	attr := func(name string) string {
		i := strings.Index(head, " "+name+`="`)
		if i < 0 {
			return ""
		}
		v := head[i+len(name)+3:]
		if q := strings.IndexByte(v, '"'); q >= 0 {
			v = v[:q]
		}
		// CSS pixels (1pt = 4/3 px), shown at 1.75× the figure's print size for the screen.
		var f float64
		unit := strings.TrimLeft(v, "0123456789.")
		fmt.Sscanf(strings.TrimSuffix(v, unit), "%g", &f)
		if unit == "pt" {
			f *= 4.0 / 3
		}
		return fmt.Sprintf("%.0f", 1.75*f)
	}
	return attr("width"), attr("height")
}

// figureTitle titles a JamaisVu reproduction's figure: the reproduction's title for its own
// figure (jv-fig12), with the part of the name that follows the ID for one of several
// (jv-refine-filter: "…: filter").
func (j *JVuReport) figureTitle(name string) string {
	a := j.Artifact
	if part, ok := strings.CutPrefix(name, a.ID+"-"); ok && part != "" {
		return a.Title + ": " + strings.ReplaceAll(part, "-", " ")
	}
	return a.Title
}

// htmlSection prepares a JamaisVu reproduction's section of the page: its figures inlined as
// SVG data URIs, its tables, its claims and notes.
func (j *JVuReport) htmlSection() htmlSpec {
	a := j.Artifact
	anchor := "jvu-" + a.ID
	hs := htmlSpec{Anchor: anchor, Title: a.Title, ID: a.ID, Label: labelName(j.Label), Dir: j.Dir,
		JVu: true, Src: j.Src, Page: j.Page(), Reference: a.Paper + ", " + a.Reference, Notes: notesParagraphs(a.Notes), Informational: a.Informational}
	for _, f := range j.Figures {
		hf := htmlFigure{Anchor: anchor + "-" + f.Name, Kind: "figure", ID: f.Name, Title: j.figureTitle(f.Name), Files: f.Files}
		if f.SVG != nil {
			// A base64 data URI holds only [A-Za-z0-9+/=:;,] and is safe in a quoted attribute.
			hf.Img = template.HTMLAttr(`src="` + dataURI("image/svg+xml", f.SVG) + `"`)
			hf.Width, hf.Height = svgSize(f.SVG)
		}
		hs.Figures = append(hs.Figures, hf)
	}
	for i, t := range a.Tables {
		id := fmt.Sprintf("%s-table-%d", a.ID, i+1)
		hs.Figures = append(hs.Figures, htmlFigure{Anchor: "jvu-" + id, Kind: "table", Title: t.Title, Table: jvuTable(id, t)})
	}
	for _, c := range a.Claims {
		v := c.Verdict.String()
		hs.Claims = append(hs.Claims, htmlClaim{Text: c.Text, Paper: c.Paper, Test: c.Test, Verdict: v, Class: strings.ReplaceAll(v, " ", "-"),
			Lines: []string{c.Ours}, Reasons: []string{c.Reason}})
	}
	return hs
}

// WriteHTML writes index.html: one self-contained page with every figure inlined as an SVG data
// URI, every table, and the paper-vs-ours tables.
func (r *Report) WriteHTML(w io.Writer) error {
	tally := r.Tally()
	page := struct {
		Version, Label, Rest, Rule, Failed, FailedLine string
		Held, Total                                    int
		Specs                                          []htmlSpec
	}{Version: experiments.Version, Label: labelName(r.Label), Held: tally.Held, Total: tally.Total(), Rule: verdictRule, Failed: failedText, FailedLine: r.failedLine()}
	_, page.Rest, _ = strings.Cut(tally.String(), fmt.Sprintf("of %d", tally.Total()))
	for _, sec := range r.Sections {
		if sec.Err != nil {
			page.Specs = append(page.Specs, htmlSpec{Anchor: "failed-" + strings.ReplaceAll(sec.ID, "/", "-"), Title: sec.ID, ID: sec.ID, Err: sec.Err.Error()})
			continue
		}
		if sec.JVu != nil {
			page.Specs = append(page.Specs, sec.JVu.htmlSection())
			continue
		}
		s := sec.Spec
		anchor := "spec-" + strings.ReplaceAll(s.Spec.ID, "/", "-")
		hs := htmlSpec{Anchor: anchor, Title: s.Spec.Title, ID: s.Spec.ID, File: s.Spec.File,
			Description: strings.TrimSpace(s.Spec.Description), Label: labelName(s.Label), Seeds: seedsText(s.Seeds),
			Dir: s.Dir, Cells: s.Cells, Ran: s.Ran, Cached: s.Cached}
		if hs.Title == "" {
			hs.Title = s.Spec.ID
		}
		if s.SeedInvariant {
			hs.Note = seedNote
		}
		for i := range s.Figures {
			f := &s.Figures[i]
			hf := htmlFigure{Anchor: anchor + "-" + f.Spec.ID, Kind: f.Spec.Kind, ID: f.Spec.ID, Title: f.Spec.Title,
				Caption: captionText(f), Reference: referenceLine(f.Spec.Reference), Table: f.Table, Files: f.Files}
			for _, n := range f.Numbers {
				hf.Numbers = append(hf.Numbers, htmlNumber{Name: n.Name, Expr: n.Expr, Paper: n.Paper, Simulator: orDash(n.Simulator), Ours: numberText(n), Err: n.Err != nil})
				hf.Simulator = hf.Simulator || n.Simulator != ""
			}
			if f.SVG != nil {
				// A base64 data URI holds only [A-Za-z0-9+/=:;,] and is safe in a quoted attribute.
				hf.Img = template.HTMLAttr(`src="` + dataURI("image/svg+xml", f.SVG) + `"`)
				hf.Width, hf.Height = svgSize(f.SVG)
			}
			for _, c := range f.Claims {
				hc := htmlClaim{Text: c.Text, Check: c.Check, Paper: claimPaper(c), Test: claimTest(c), Verdict: c.Verdict.String(),
					Lines: claimLines(c), Reasons: claimReasons(c)}
				hc.Class = strings.ReplaceAll(hc.Verdict, " ", "-")
				hf.Claims = append(hf.Claims, hc)
			}
			hs.Figures = append(hs.Figures, hf)
		}
		hs.Figures = append(hs.Figures, s.Sensitivity.htmlFigures(anchor, s.Spec.ID)...)
		page.Specs = append(page.Specs, hs)
	}
	return pageTmpl.Execute(w, page)
}
