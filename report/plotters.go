package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plotters in this file draw in data units (bar and box widths are
// fractions of a category slot rather than absolute lengths), which keeps
// grouped layouts independent of the figure size. Axis ranges are set
// explicitly by build, so none of them implements plot.DataRanger.

// xy is a point in data coordinates.
type xy struct{ x, y float64 }

// fillPlotter fills polygons, e.g. confidence bands and stacked areas,
// optionally stroking the given edge polylines.
type fillPlotter struct {
	rings [][]xy
	color color.Color
	edges [][]xy
	edge  draw.LineStyle
}

// Plot implements plot.Plotter.
func (f *fillPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, ring := range f.rings {
		pts := make([]vg.Point, len(ring))
		for i, q := range ring {
			pts[i] = vg.Point{X: tx(q.x), Y: ty(q.y)}
		}
		c.FillPolygon(f.color, c.ClipPolygonXY(pts))
	}
	if f.edge.Width <= 0 || f.edge.Color == nil {
		return
	}
	for _, e := range f.edges {
		pts := make([]vg.Point, len(e))
		for i, q := range e {
			pts[i] = vg.Point{X: tx(q.x), Y: ty(q.y)}
		}
		c.StrokeLines(f.edge, c.ClipLinesXY(pts)...)
	}
}

// rect is an axis-aligned rectangle in data coordinates.
type rect struct{ x0, x1, y0, y1 float64 }

// barPlotter draws filled, outlined rectangles.
type barPlotter struct {
	bars    []rect
	color   color.Color
	outline draw.LineStyle
}

// Plot implements plot.Plotter.
func (b *barPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, r := range b.bars {
		pts := []vg.Point{
			{X: tx(r.x0), Y: ty(r.y0)}, {X: tx(r.x0), Y: ty(r.y1)},
			{X: tx(r.x1), Y: ty(r.y1)}, {X: tx(r.x1), Y: ty(r.y0)},
		}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		if b.outline.Width > 0 {
			c.StrokeLines(b.outline, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

// errBarPlotter draws vertical error bars with caps whose half-width is
// given in data units.
type errBarPlotter struct {
	x, lo, hi []float64
	halfCap   float64
	style     draw.LineStyle
}

// Plot implements plot.Plotter.
func (e *errBarPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i, x := range e.x {
		xl, xc, xr := tx(x-e.halfCap), tx(x), tx(x+e.halfCap)
		yl, yh := ty(e.lo[i]), ty(e.hi[i])
		c.StrokeLines(e.style, c.ClipLinesXY(
			[]vg.Point{{X: xc, Y: yl}, {X: xc, Y: yh}},
			[]vg.Point{{X: xl, Y: yl}, {X: xr, Y: yl}},
			[]vg.Point{{X: xl, Y: yh}, {X: xr, Y: yh}},
		)...)
	}
}

// box is one box of a box plot in data coordinates.
type box struct {
	x, halfWidth         float64
	q1, median, q3       float64
	loWhisker, hiWhisker float64
	outliers             []float64
}

// boxPlotter draws Tukey box plots.
type boxPlotter struct {
	boxes   []box
	fill    color.Color
	edge    draw.LineStyle
	median  draw.LineStyle
	outlier draw.GlyphStyle
}

// Plot implements plot.Plotter.
func (b *boxPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, bx := range b.boxes {
		xl, xc, xr := tx(bx.x-bx.halfWidth), tx(bx.x), tx(bx.x+bx.halfWidth)
		cl, cr := tx(bx.x-bx.halfWidth/2), tx(bx.x+bx.halfWidth/2)
		y1, y3 := ty(bx.q1), ty(bx.q3)
		body := []vg.Point{{X: xl, Y: y1}, {X: xl, Y: y3}, {X: xr, Y: y3}, {X: xr, Y: y1}}
		c.FillPolygon(b.fill, c.ClipPolygonXY(body))
		wl, wh := ty(bx.loWhisker), ty(bx.hiWhisker)
		c.StrokeLines(b.edge, c.ClipLinesXY(
			append(body, body[0]),
			[]vg.Point{{X: xc, Y: y1}, {X: xc, Y: wl}},
			[]vg.Point{{X: xc, Y: y3}, {X: xc, Y: wh}},
			[]vg.Point{{X: cl, Y: wl}, {X: cr, Y: wl}},
			[]vg.Point{{X: cl, Y: wh}, {X: cr, Y: wh}},
		)...)
		ym := ty(bx.median)
		c.StrokeLines(b.median, c.ClipLinesXY([]vg.Point{{X: xl, Y: ym}, {X: xr, Y: ym}})...)
		for _, o := range bx.outliers {
			c.DrawGlyph(b.outlier, vg.Point{X: xc, Y: ty(o)})
		}
	}
}

// linePlotter strokes a polyline and draws markers at selected vertices.
type linePlotter struct {
	pts     []xy
	style   draw.LineStyle
	marks   []xy
	glyph   draw.GlyphStyle
	noGlyph bool
}

// Plot implements plot.Plotter.
func (l *linePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	if len(l.pts) > 1 && l.style.Width > 0 {
		pts := make([]vg.Point, len(l.pts))
		for i, q := range l.pts {
			pts[i] = vg.Point{X: tx(q.x), Y: ty(q.y)}
		}
		c.StrokeLines(l.style, c.ClipLinesXY(pts)...)
	}
	if l.noGlyph {
		return
	}
	for _, m := range l.marks {
		c.DrawGlyph(l.glyph, vg.Point{X: tx(m.x), Y: ty(m.y)})
	}
}
