package reproduce

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/report"
)

// Region figures (issue 24, item 6): per claim of a spec with a sensitivity block, a forest plot
// of the claim's effect with its interval at every point — the base point, then each setting —
// marked held, not significant or not held, with the claim's threshold (and margin bound, or
// the band an = claim accepts). They are written beside the spec's figures as
// <figure>-region-<n>.<format>, with regions.{md,csv,tex}: the plotted points.

// regionVerdicts name report.NewRegion's verdicts, best first; regionIndex maps a verdict.
var regionVerdicts = []string{"held", "not significant", "not held", "not evaluable"}

func regionIndex(v claim.Verdict) int {
	switch v {
	case claim.Held:
		return 0
	case claim.NotSignificant:
		return 1
	case claim.NotHeld:
		return 2
	}
	return 3
}

// shortPoints names the points for the figures' rows: every key without its dotted prefix
// ("engine.task_startup_s=5" → "task_startup_s=5"), leaving out a key set with others that
// has the same value at every point (engine.duration_model=contention beside its slope); in
// full when shortening would make two names equal.
func shortPoints(points []string) []string {
	values := map[string]map[string]bool{}
	split := make([][][2]string, len(points))
	for i, p := range points {
		for _, kv := range strings.Split(p, ",") {
			k, v, _ := strings.Cut(kv, "=")
			split[i] = append(split[i], [2]string{k, v})
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][v] = true
		}
	}
	out := make([]string, len(points))
	seen := map[string]bool{}
	for i, parts := range split {
		var kept []string
		for _, kv := range parts {
			if len(parts) > 1 && len(values[kv[0]]) == 1 {
				continue
			}
			k := kv[0]
			if j := strings.LastIndex(k, "."); j >= 0 {
				k = k[j+1:]
			}
			if kv[1] == "" && !strings.Contains(points[i], "=") {
				kept = append(kept, k)
				continue
			}
			kept = append(kept, k+"="+kv[1])
		}
		out[i] = strings.Join(kept, ", ")
		if seen[out[i]] {
			return slices.Clone(points)
		}
		seen[out[i]] = true
	}
	return out
}

// effectLabel is the x axis of a claim's region figure: the measured expression when it is
// short, else what kind of effect it is.
func effectLabel(kind, expr string) string {
	if expr != "" && utf8.RuneCountInString(expr) <= 64 {
		return expr
	}
	switch kind {
	case claim.EffectRatio:
		return "Ratio of the compared sides"
	case claim.EffectDifference:
		return "Difference of the compared sides"
	}
	return "Value of the checked side"
}

// regionFigure draws claim c of the sensitivity study: a row per point (and per for-each group
// when the claim has several), or nil when no point has an estimate.
func (s *Sensitivity) regionFigure(id string, c *SensitivityClaim) *report.Figure {
	labels := shortPoints(s.Points)
	var rows []report.RegionRow
	var marks []report.Mark
	var band *report.Range
	kind, expr := "", ""
	for i, r := range c.Results {
		if len(r.Groups) == 0 {
			rows = append(rows, report.RegionRow{Label: labels[i], Value: math.NaN(), Verdict: regionIndex(r.Verdict)})
			continue
		}
		for _, g := range r.Groups {
			row := report.RegionRow{Label: labels[i], Value: math.NaN(), Verdict: regionIndex(g.Verdict)}
			if len(r.Groups) > 1 {
				row.Label += " · " + g.Group
			}
			if e := g.Estimate; finite(e.Value, e.Lo, e.Hi) && e.Lo <= e.Value && e.Value <= e.Hi {
				row.Value, row.Lo, row.Hi = e.Value, e.Lo, e.Hi
				if marks == nil {
					kind, expr = g.Outcome.Effect, g.EffectExpr
					marks, band = regionMarks(g.Test)
				}
			}
			rows = append(rows, row)
		}
	}
	if marks == nil {
		return nil
	}
	f := report.NewRegion(id, "", effectLabel(kind, expr), "Setting", regionVerdicts, marks, band, rows...)
	return f
}

// regionMarks are a test's vertical lines: the threshold (the paper's number when the claim
// quotes one), the margin's bound when it differs, and an = test's band.
func regionMarks(t claim.Test) ([]report.Mark, *report.Range) {
	name := "threshold " + claim.Num(t.Threshold)
	if !math.IsNaN(t.Quote) && t.Quote == t.Threshold {
		name = "paper " + claim.Num(t.Quote)
	}
	marks := []report.Mark{{Label: name, X: t.Threshold}}
	if t.Op == "=" {
		if finite(t.Lo, t.Hi) && t.Lo <= t.Hi {
			return marks, &report.Range{Min: t.Lo, Max: t.Hi}
		}
		return marks, nil
	}
	if t.Bound != t.Threshold && finite(t.Bound) {
		marks = append(marks, report.Mark{Label: "margin bound " + claim.Num(t.Bound), X: t.Bound})
	}
	return marks, nil
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// drawRegions writes every claim's region figure into figDir (files relative to out) and the
// table of plotted points; a nil Sensitivity draws nothing.
func (s *Sensitivity) drawRegions(figDir, out string, formats []string) error {
	if s == nil {
		return nil
	}
	n := map[string]int{}
	t := report.NewTable("regions", "Each claim's effect at each sensitivity point (the region figures' points)",
		"figure", "claim", "point", "group", "effect", "value", "lo", "hi", "threshold", "verdict")
	for i := range s.Claims {
		c := &s.Claims[i]
		n[c.Figure]++
		for j, r := range c.Results {
			for _, g := range r.Groups {
				e := g.Estimate
				t.AddRow(c.Figure, c.Text, s.Points[j], g.Group, g.Outcome.Effect, claim.Num(e.Value), claim.Num(e.Lo), claim.Num(e.Hi), claim.Num(g.Test.Threshold), g.Verdict.String())
			}
		}
		f := s.regionFigure(fmt.Sprintf("%s-region-%d", c.Figure, n[c.Figure]), c)
		if f == nil {
			continue
		}
		var svg bytes.Buffer
		if err := f.Encode(&svg, "svg"); err != nil {
			return err
		}
		c.SVG = svg.Bytes()
		paths, err := f.Save(figDir, f.ID, formats...)
		if err != nil {
			return err
		}
		c.Files = relAll(out, paths)
	}
	paths, err := t.Save(figDir, "regions")
	if err != nil {
		return err
	}
	s.Files = relAll(out, paths)
	return nil
}

// writeRegionsMarkdown adds each claim's region figure to report.md (its PNG, when written).
func (s *Sensitivity) writeRegionsMarkdown(b *bytes.Buffer) {
	if s == nil {
		return
	}
	b.WriteString("Where each claim holds along each setting: the claim's effect and 95% interval at every point, marked by its verdict, with the claim's threshold.\n\n")
	for _, c := range s.Claims {
		for _, p := range c.Files {
			if strings.HasSuffix(p, ".png") {
				fmt.Fprintf(b, "**%s: %s**\n\n![%s](%s)\n\n", c.Figure, c.Text, c.Figure, p)
			}
		}
	}
	if len(s.Files) > 0 {
		fmt.Fprintf(b, "Points: %s\n\n", strings.Join(wrapCode(s.Files), ", "))
	}
}

// htmlFigures are the sensitivity table and the region figures for index.html.
func (s *Sensitivity) htmlFigures(anchor, id string) []htmlFigure {
	if s == nil {
		return nil
	}
	out := []htmlFigure{{Anchor: anchor + "-sensitivity", Kind: "table", Title: "Sensitivity: where each claim holds",
		Caption: "Each claim judged again with one setting changed at a time from the base point: " + strings.Join(s.Points, "; ") + ".",
		Table:   s.table(id), Files: s.Files}}
	for i, c := range s.Claims {
		if c.SVG == nil {
			continue
		}
		hf := htmlFigure{Anchor: fmt.Sprintf("%s-region-%d", anchor, i+1), Kind: "figure", Title: c.Figure + ": " + c.Text,
			Caption: "The claim's effect and 95% interval at each point, marked by its verdict; " + s.Region(c) + ".", Files: c.Files}
		// A base64 data URI holds only [A-Za-z0-9+/=:;,] and is safe in a quoted attribute.
		hf.Img = template.HTMLAttr(`src="` + dataURI("image/svg+xml", c.SVG) + `"`)
		hf.Width, hf.Height = svgSize(c.SVG)
		out = append(out, hf)
	}
	return out
}
