package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RegionRow is one row of a KindRegion figure: a claim's effect at one point of a sensitivity
// study (the base point, or one setting changed), with its interval and its verdict there.
type RegionRow struct {
	// Label names the point, e.g. "base" or "task_startup_s=5".
	Label string
	// Value is the point estimate, Lo and Hi its interval; a NaN Value draws no estimate (the
	// claim could not be judged there) and keeps the row.
	Value, Lo, Hi float64
	// Verdict indexes the figure's RegionVerdicts: its marker and colour.
	Verdict int
}

// Mark is a vertical line of a KindRegion figure: a claim's threshold or margin bound.
type Mark struct {
	Label string
	X     float64
}

// NewRegion builds a KindRegion figure, a forest plot of one claim along a sensitivity study:
// a row per point, top to bottom in order, each the effect with its interval, marked by its
// verdict; verdicts names the legend's entries, best first (held, not significant, not held:
// a green disc, a grey ring, a vermillion cross, then black squares); marks are vertical
// lines (the threshold, the margin's bound) and band, when set, the interval an = claim
// accepts, shaded. The height grows with the rows.
func NewRegion(id, title, xLabel, yLabel string, verdicts []string, marks []Mark, band *Range, rows ...RegionRow) *Figure {
	st := DefaultStyle()
	st.Width = 5 * vg.Inch
	st.Height = vg.Inch + vg.Length(len(rows))*0.17*vg.Inch
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindRegion, Style: &st,
		RegionVerdicts: verdicts, RegionMarks: marks, RegionBand: band, Regions: rows}
}

func (f *Figure) validateRegion() error {
	if len(f.Regions) == 0 {
		return f.figErr("no rows")
	}
	for i, r := range f.Regions {
		switch {
		case r.Verdict < 0 || r.Verdict >= len(f.RegionVerdicts):
			return f.figErr("row %d (%s): verdict %d of %d", i, r.Label, r.Verdict, len(f.RegionVerdicts))
		case math.IsNaN(r.Value):
			continue
		case badFloat(r.Value, f.LogX) != "" || badFloat(r.Lo, f.LogX) != "" || badFloat(r.Hi, f.LogX) != "":
			return f.figErr("row %d (%s): value %v [%v, %v]", i, r.Label, r.Value, r.Lo, r.Hi)
		case r.Lo > r.Value || r.Value > r.Hi:
			return f.figErr("row %d (%s): value %v outside its interval [%v, %v]", i, r.Label, r.Value, r.Lo, r.Hi)
		}
	}
	for _, m := range f.RegionMarks {
		if b := badFloat(m.X, f.LogX); b != "" {
			return f.seriesErr(m.Label, "mark X %s", b)
		}
	}
	if b := f.RegionBand; b != nil && (badFloat(b.Min, f.LogX) != "" || badFloat(b.Max, f.LogX) != "" || b.Min > b.Max) {
		return f.figErr("band [%v, %v]", b.Min, b.Max)
	}
	return nil
}

// regionGlyph is the marker of verdict v.
func regionGlyph(st *Style, v int) draw.GlyphStyle {
	g := draw.GlyphStyle{Radius: st.MarkerRadius * 1.2}
	switch v {
	case 0:
		g.Color, g.Shape = okabeBluishGreen, draw.CircleGlyph{}
	case 1:
		g.Color, g.Shape = color.Gray{Y: 0x70}, draw.RingGlyph{}
	case 2:
		g.Color, g.Shape = okabeVermillion, draw.CrossGlyph{}
	default:
		g.Color, g.Shape = color.Black, draw.BoxGlyph{}
	}
	return g
}

// regionY is row i's position: the first row on top.
func (f *Figure) regionY(i int) float64 { return float64(len(f.Regions) - 1 - i) }

// buildRegion draws the band, the marks, each row's interval and marker, and a legend entry
// per verdict used and per named mark.
func (f *Figure) buildRegion(b *built, st *Style, xs, ys *extent) {
	rp := &regionPlotter{f: f, st: st}
	used := make([]bool, len(f.RegionVerdicts))
	for i, r := range f.Regions {
		if math.IsNaN(r.Value) {
			continue
		}
		used[r.Verdict] = true
		y := f.regionY(i)
		xs.add(r.Lo, r.Value, r.Hi)
		b.ink = append(b.ink, shape{kind: shapeSegment, x0: r.Lo, y0: y, x1: r.Hi, y1: y})
	}
	for _, m := range f.RegionMarks {
		xs.add(m.X)
		b.ink = append(b.ink, shape{kind: shapeSegment, x0: m.X, y0: -0.5, x1: m.X, y1: float64(len(f.Regions)) - 0.5})
	}
	if bd := f.RegionBand; bd != nil {
		xs.add(bd.Min, bd.Max)
		b.ink = append(b.ink, shape{kind: shapeRect, x0: bd.Min, y0: -0.5, x1: bd.Max, y1: float64(len(f.Regions)) - 0.5})
	}
	ys.add(-0.5, float64(len(f.Regions))-0.5)
	b.pending = append(b.pending, rp)
	for v, name := range f.RegionVerdicts {
		if used[v] {
			g := regionGlyph(st, v)
			b.legend = append(b.legend, legendEntry{name, func(c *draw.Canvas) { c.DrawGlyphNoClip(g, c.Center()) }})
		}
	}
	for i, m := range f.RegionMarks {
		if m.Label != "" {
			b.legend = append(b.legend, legendEntry{m.Label, lineThumb(rp.markStyle(i), nil, nil)})
		}
	}
}

// regionAxes sets the row labels on a KindRegion figure's y axis.
func (f *Figure) regionAxes(p *plot.Plot) {
	ticks := make([]plot.Tick, len(f.Regions))
	for i, r := range f.Regions {
		ticks[i] = plot.Tick{Value: f.regionY(i), Label: r.Label}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.5, float64(len(f.Regions))-0.5
}

type regionPlotter struct {
	f  *Figure
	st *Style
}

// markStyle is mark i's line: the first dashed, the others dotted.
func (r *regionPlotter) markStyle(i int) draw.LineStyle {
	ls := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: r.st.LineWidth * 0.8, Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	if i > 0 {
		ls.Dashes = []vg.Length{vg.Points(1), vg.Points(1.5)}
	}
	return ls
}

// Plot draws the band, the marks, then each row's interval with caps and its marker.
func (r *regionPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	f := r.f
	if bd := f.RegionBand; bd != nil {
		x0, x1 := tx(bd.Min), tx(bd.Max)
		pts := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}
		c.FillPolygon(withAlpha(okabeBluishGreen, 0.12), c.ClipPolygonXY(pts))
	}
	for i, m := range f.RegionMarks {
		x := tx(m.X)
		c.StrokeLines(r.markStyle(i), c.ClipLinesXY([]vg.Point{{X: x, Y: c.Min.Y}, {X: x, Y: c.Max.Y}})...)
	}
	cap := vg.Points(2)
	for i, row := range f.Regions {
		if math.IsNaN(row.Value) {
			continue
		}
		g := regionGlyph(r.st, row.Verdict)
		ls := draw.LineStyle{Color: g.Color, Width: r.st.LineWidth}
		y := ty(f.regionY(i))
		lo, hi := tx(row.Lo), tx(row.Hi)
		c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{{X: lo, Y: y}, {X: hi, Y: y}})...)
		for _, x := range []vg.Length{lo, hi} {
			c.StrokeLines(ls, c.ClipLinesXY([]vg.Point{{X: x, Y: y - cap}, {X: x, Y: y + cap}})...)
		}
		if pt := (vg.Point{X: tx(row.Value), Y: y}); c.Contains(pt) {
			c.DrawGlyph(g, pt)
		}
	}
}

var _ plot.Plotter = (*regionPlotter)(nil)
