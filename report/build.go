package report

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/report/stats"
)

// Layout constants in data units of a categorical axis, where category c
// occupies the slot [c-0.5, c+0.5].
const (
	groupWidth   = 0.8  // fraction of a slot used by one group of bars/boxes
	capFraction  = 0.5  // error-bar cap width relative to the bar width
	boxFraction  = 0.75 // box width relative to its share of the group
	rangeMargin  = 0.04 // fraction of the data range added on each side
	barTopMargin = 0.05 // headroom above the tallest bar or error bar
)

// shapeKind distinguishes the primitives used to find free legend space.
type shapeKind int

const (
	shapePoint shapeKind = iota
	shapeSegment
	shapeRect
)

// shape is a piece of "ink" in data coordinates: a point, a segment from
// (x0,y0) to (x1,y1), or a rectangle spanning both corners.
type shape struct {
	kind           shapeKind
	x0, y0, x1, y1 float64
}

// legendEntry is one legend item: a label and a function drawing its key.
type legendEntry struct {
	label string
	thumb func(c *draw.Canvas)
}

// built is a figure turned into a gonum plot plus the extra information
// the renderer needs to place the legend.
type built struct {
	p       *plot.Plot
	pending []plot.Plotter // plotters in drawing order, added last
	legend  []legendEntry
	ink     []shape
}

// extent accumulates a data range.
type extent struct{ lo, hi float64 }

func newExtent() extent { return extent{math.Inf(1), math.Inf(-1)} }

func (e *extent) add(vs ...float64) {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		e.lo, e.hi = math.Min(e.lo, v), math.Max(e.hi, v)
	}
}

func (e extent) empty() bool { return e.lo > e.hi }

// padded returns the extent widened for display by rangeMargin of its
// width on each side (in log space on a log axis).
func (e extent) padded(log bool) (float64, float64) {
	if e.empty() {
		return 0, 1
	}
	if log {
		l0, l1 := math.Log10(e.lo), math.Log10(e.hi)
		if l0 == l1 {
			return e.lo / 2, e.hi * 2
		}
		m := (l1 - l0) * rangeMargin
		return math.Pow(10, l0-m), math.Pow(10, l1+m)
	}
	if e.lo == e.hi {
		d := math.Max(math.Abs(e.lo)*0.1, 1)
		return e.lo - d, e.hi + d
	}
	m := (e.hi - e.lo) * rangeMargin
	return e.lo - m, e.hi + m
}

// build validates the figure and converts it into a plot.
func (f *Figure) build(st *Style) (*built, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	p := plot.New()
	p.BackgroundColor = nil // the renderer paints the whole canvas
	configureAxis(&p.X, st)
	configureAxis(&p.Y, st)
	b := &built{p: p}

	xs, ys := newExtent(), newExtent()
	vertGrid := true
	switch f.Kind {
	case KindLines:
		f.buildLines(b, st, &xs, &ys)
	case KindBars:
		f.buildBars(b, st, &ys)
		vertGrid = false
	case KindBoxes:
		f.buildBoxes(b, st, &ys)
		vertGrid = false
	case KindCDF, KindCCDF:
		f.buildDists(b, st, &xs, &ys)
	case KindStackedArea:
		f.buildStacked(b, st, &xs, &ys)
		vertGrid = false
	case KindScatter:
		f.buildScatter(b, st, &xs, &ys)
	case KindGantt:
		f.buildGantt(b, st, &xs, &ys)
		vertGrid = false
	case KindRegion:
		f.buildRegion(b, st, &xs, &ys)
	}

	refs := f.buildRefLines(b, st, &ys)

	// X range.
	switch f.Kind {
	case KindBars, KindBoxes:
		p.X.Min, p.X.Max = -0.5, float64(len(f.Categories))-0.5
		categoryTicks(&p.X, f.Categories, st)
	case KindStackedArea:
		p.X.Min, p.X.Max = xs.lo, xs.hi
		if f.LogX {
			p.X.Min, p.X.Max = xs.padded(true)
		}
	default:
		p.X.Min, p.X.Max = xs.padded(f.LogX)
	}
	// Y range.
	switch f.Kind {
	case KindBars, KindStackedArea:
		lo, hi := math.Min(ys.lo, 0), math.Max(ys.hi, 0)
		if hi == lo {
			hi = lo + 1
		}
		p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*barTopMargin
		if lo < 0 {
			p.Y.Min = lo - (hi-lo)*barTopMargin
		}
	case KindCDF:
		p.Y.Min, p.Y.Max = -0.02, 1.02
	case KindCCDF:
		if f.LogY {
			p.Y.Min, p.Y.Max = ys.padded(true)
		} else {
			p.Y.Min, p.Y.Max = -0.02, 1.02
		}
	default:
		p.Y.Min, p.Y.Max = ys.padded(f.LogY)
	}
	if f.Kind == KindGantt {
		p.X.Min, p.X.Max = xs.lo, xs.hi
		f.ganttAxes(p, st)
	}
	if f.Kind == KindRegion {
		f.regionAxes(p)
	}
	if r := f.XRange; r != nil {
		p.X.Min, p.X.Max = r.Min, r.Max
	}
	if r := f.YRange; r != nil {
		p.Y.Min, p.Y.Max = r.Min, r.Max
	}
	if f.LogX {
		p.X.Scale = logScale{}
		p.X.Tick.Marker = logTicks{}
	} else if f.Kind != KindBars && f.Kind != KindBoxes {
		p.X.Tick.Marker = linearTicks{target: 5}
	}
	if f.LogY {
		p.Y.Scale = logScale{}
		p.Y.Tick.Marker = logTicks{}
	} else if f.Kind != KindGantt && f.Kind != KindRegion {
		p.Y.Tick.Marker = linearTicks{target: 5}
	}
	if st.GridColor != nil {
		g := plotter.NewGrid()
		ls := draw.LineStyle{Color: st.GridColor, Width: vg.Points(0.4)}
		g.Horizontal = ls
		g.Vertical = draw.LineStyle{}
		if vertGrid {
			g.Vertical = ls
		}
		// The grid goes under everything else.
		p.Add(g)
	}
	p.Add(b.pending...)
	if refs != nil {
		p.Add(refs)
		// Reference lines span the whole x range.
		for _, r := range f.RefLines {
			b.ink = append(b.ink, shape{kind: shapeSegment, x0: p.X.Min, y0: r.Y, x1: p.X.Max, y1: r.Y})
		}
	}
	return b, nil
}

// refLinePlotter draws horizontal lines across the data area.
type refLinePlotter struct {
	ys    []float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (r *refLinePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	_, ty := p.Transforms(&c)
	for _, y := range r.ys {
		c.StrokeLines(r.style, c.ClipLinesXY([]vg.Point{{X: c.Min.X, Y: ty(y)}, {X: c.Max.X, Y: ty(y)}})...)
	}
}

// buildRefLines returns the plotter for the figure's reference lines (nil
// if there are none) and adds their legend entries.
func (f *Figure) buildRefLines(b *built, st *Style, ys *extent) *refLinePlotter {
	if len(f.RefLines) == 0 {
		return nil
	}
	rp := &refLinePlotter{style: draw.LineStyle{
		Color:  color.Gray{Y: 0x40},
		Width:  st.LineWidth * 0.8,
		Dashes: []vg.Length{vg.Points(3), vg.Points(2)},
	}}
	for _, r := range f.RefLines {
		rp.ys = append(rp.ys, r.Y)
		ys.add(r.Y)
		b.legend = append(b.legend, legendEntry{r.Label, lineThumb(rp.style, nil, nil)})
	}
	return rp
}

// configureAxis applies the style to one axis. Axis labels are left empty:
// the renderer draws them itself (see drawPlot).
func configureAxis(a *plot.Axis, st *Style) {
	a.Tick.Label.Font = st.font(st.TickSize)
	a.LineStyle.Width = st.AxisWidth
	a.Tick.LineStyle.Width = st.AxisWidth
	a.Tick.Length = st.TickLength
	a.Padding = 0
}

// categoryTicks labels the integer positions of a categorical axis,
// rotating the labels when they would not fit side by side.
func categoryTicks(a *plot.Axis, names []string, st *Style) {
	ticks := make([]plot.Tick, len(names))
	var widest vg.Length
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
		widest = max(widest, a.Tick.Label.Width(n))
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
	a.Tick.Length = 0
	// Rough width of the data area: the figure minus the y axis.
	slot := (st.Width - vg.Points(45)) / vg.Length(len(names))
	if widest > slot*0.95 {
		a.Tick.Label.Rotation = math.Pi / 6
		a.Tick.Label.XAlign = draw.XRight
		a.Tick.Label.YAlign = draw.YTop
	}
}

// seriesLine returns the line style of series i.
func seriesLine(st *Style, i int) draw.LineStyle {
	return draw.LineStyle{Color: st.Color(i), Width: st.LineWidth, Dashes: st.Dash(i)}
}

// seriesGlyph returns the marker style of series i.
func seriesGlyph(st *Style, i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: st.Color(i), Radius: st.MarkerRadius, Shape: st.Glyph(i)}
}

// markerIndices picks at most limit of n indices, evenly spaced, shifted
// by series index so that markers of different series do not coincide.
func markerIndices(n, limit, series int) []int {
	if limit <= 0 || n <= 0 {
		return nil
	}
	if n <= limit {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	phase := 0.2 + 0.6*math.Mod(float64(series)*0.381966, 1)
	var idx []int
	for k := range limit {
		i := int((float64(k) + phase) * float64(n) / float64(limit))
		if i >= n {
			i = n - 1
		}
		if len(idx) == 0 || idx[len(idx)-1] != i {
			idx = append(idx, i)
		}
	}
	return idx
}

// lineThumb draws a legend key: optional band, line and marker.
func lineThumb(line draw.LineStyle, glyph *draw.GlyphStyle, band color.Color) func(c *draw.Canvas) {
	return func(c *draw.Canvas) {
		if band != nil {
			c.FillPolygon(band, []vg.Point{
				{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
				{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
			})
		}
		y := c.Center().Y
		c.StrokeLine2(line, c.Min.X, y, c.Max.X, y)
		if glyph != nil {
			c.DrawGlyphNoClip(*glyph, c.Center())
		}
	}
}

// rectThumb draws a legend key for filled shapes.
func rectThumb(fill color.Color, edge draw.LineStyle) func(c *draw.Canvas) {
	return func(c *draw.Canvas) {
		pts := []vg.Point{
			{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
			{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
		}
		c.FillPolygon(fill, pts)
		if edge.Width > 0 {
			c.StrokeLines(edge, append(pts, pts[0]))
		}
	}
}

// lineSummary is one X of a KindLines series.
type lineSummary struct {
	x, mean, lo, hi float64
	band            bool
}

func (f *Figure) buildLines(b *built, st *Style, xs, ys *extent) {
	sums := make([][]lineSummary, len(f.Series))
	for si, s := range f.Series {
		pts := make([]lineSummary, len(s.X))
		for i, x := range s.X {
			ci, _ := stats.DomainMeanCI(s.Samples[i], 0.95, f.YDomain) // validated: cannot fail
			pts[i] = lineSummary{x: x, mean: ci.Estimate, lo: ci.Lo, hi: ci.Hi, band: ci.Defined()}
		}
		slices.SortStableFunc(pts, func(a, b lineSummary) int { return cmp.Compare(a.x, b.x) })
		if f.LogY {
			// A band reaching zero or below cannot be drawn on a log
			// axis; clip it at a tenth of the smallest mean.
			floor := math.Inf(1)
			for _, q := range pts {
				floor = math.Min(floor, q.mean)
			}
			for i := range pts {
				if pts[i].band && pts[i].lo <= 0 {
					pts[i].lo = floor / 10
				}
			}
		}
		sums[si] = pts
	}
	// Bands first, so that every line is drawn over every band.
	var pending []plot.Plotter
	hasBand := make([]bool, len(f.Series))
	for si, pts := range sums {
		fp := &fillPlotter{color: withAlpha(st.Color(si), st.BandAlpha)}
		for i := 0; i < len(pts); {
			if !pts[i].band {
				i++
				continue
			}
			j := i
			for j < len(pts) && pts[j].band {
				j++
			}
			if j-i >= 2 {
				ring := make([]xy, 0, 2*(j-i))
				for k := i; k < j; k++ {
					ring = append(ring, xy{pts[k].x, pts[k].hi})
				}
				for k := j - 1; k >= i; k-- {
					ring = append(ring, xy{pts[k].x, pts[k].lo})
				}
				fp.rings = append(fp.rings, ring)
				for k := i; k+1 < j; k++ {
					b.ink = append(b.ink, shape{kind: shapeRect,
						x0: pts[k].x, x1: pts[k+1].x,
						y0: math.Min(pts[k].lo, pts[k+1].lo), y1: math.Max(pts[k].hi, pts[k+1].hi)})
				}
			}
			i = j
		}
		if len(fp.rings) > 0 {
			hasBand[si] = true
			pending = append(pending, fp)
		}
	}
	var marks []plot.Plotter
	for si, pts := range sums {
		line := &linePlotter{style: seriesLine(st, si), noGlyph: true}
		for i, q := range pts {
			line.pts = append(line.pts, xy{q.x, q.mean})
			xs.add(q.x)
			ys.add(q.mean, q.lo, q.hi)
			// A single sample has no band but still gets its error
			// visible as a marker.
			if !pts[i].band {
				b.ink = append(b.ink, shape{kind: shapePoint, x0: q.x, y0: q.mean})
			}
			if i > 0 {
				b.ink = append(b.ink, shape{kind: shapeSegment, x0: pts[i-1].x, y0: pts[i-1].mean, x1: q.x, y1: q.mean})
			}
		}
		pending = append(pending, line)
		g := seriesGlyph(st, si)
		mk := &linePlotter{glyph: g}
		for _, i := range markerIndices(len(pts), st.MaxMarkers, si) {
			mk.marks = append(mk.marks, xy{pts[i].x, pts[i].mean})
			b.ink = append(b.ink, shape{kind: shapePoint, x0: pts[i].x, y0: pts[i].mean})
		}
		marks = append(marks, mk)
		var band color.Color
		if hasBand[si] {
			band = withAlpha(st.Color(si), st.BandAlpha)
		}
		b.legend = append(b.legend, legendEntry{f.Series[si].Label, lineThumb(seriesLine(st, si), &g, band)})
	}
	b.pending = append(b.pending, pending...)
	b.pending = append(b.pending, marks...)
}

// slotX returns the x centre of series s of n within category c, and the
// width of one series' share of the group.
func slotX(c, s, n int) (x, share float64) {
	share = groupWidth / float64(n)
	return float64(c) - groupWidth/2 + (float64(s)+0.5)*share, share
}

func (f *Figure) buildBars(b *built, st *Style, ys *extent) {
	edge := draw.LineStyle{Color: color.Black, Width: st.AxisWidth * 0.75}
	errStyle := draw.LineStyle{Color: color.Black, Width: st.AxisWidth}
	var errs []plot.Plotter
	n := len(f.Groups)
	for si, g := range f.Groups {
		bp := &barPlotter{color: st.Color(si), outline: edge}
		eb := &errBarPlotter{style: errStyle}
		for c, vs := range g.Samples {
			ci, _ := stats.DomainMeanCI(vs, 0.95, f.YDomain) // validated: cannot fail
			x, share := slotX(c, si, n)
			r := rect{x0: x - share/2, x1: x + share/2, y0: 0, y1: ci.Estimate}
			bp.bars = append(bp.bars, r)
			b.ink = append(b.ink, shape{kind: shapeRect, x0: r.x0, x1: r.x1, y0: math.Min(0, r.y1), y1: math.Max(0, r.y1)})
			ys.add(ci.Estimate)
			if ci.Defined() {
				eb.x = append(eb.x, x)
				eb.lo = append(eb.lo, ci.Lo)
				eb.hi = append(eb.hi, ci.Hi)
				eb.halfCap = share * capFraction / 2
				ys.add(ci.Lo, ci.Hi)
				b.ink = append(b.ink, shape{kind: shapeSegment, x0: x, x1: x, y0: ci.Lo, y1: ci.Hi})
			}
		}
		b.pending = append(b.pending, bp)
		errs = append(errs, eb)
		b.legend = append(b.legend, legendEntry{g.Label, rectThumb(st.Color(si), edge)})
	}
	b.pending = append(b.pending, errs...)
}

func (f *Figure) buildBoxes(b *built, st *Style, ys *extent) {
	n := len(f.Groups)
	for si, g := range f.Groups {
		edge := draw.LineStyle{Color: st.Color(si), Width: st.LineWidth * 0.8}
		bp := &boxPlotter{
			fill:    lighten(st.Color(si), 1-st.BoxAlpha),
			edge:    edge,
			median:  draw.LineStyle{Color: color.Black, Width: st.LineWidth * 1.2},
			outlier: draw.GlyphStyle{Color: st.Color(si), Radius: st.MarkerRadius * 0.7, Shape: draw.RingGlyph{}},
		}
		for c, vs := range g.Samples {
			s, _ := stats.Summarize(vs) // validated: cannot fail
			x, share := slotX(c, si, n)
			hw := share * boxFraction / 2
			bp.boxes = append(bp.boxes, box{
				x: x, halfWidth: hw,
				q1: s.Q1, median: s.Median, q3: s.Q3,
				loWhisker: s.LoWhisker, hiWhisker: s.HiWhisker,
				outliers: s.Outliers,
			})
			ys.add(s.Min, s.Max)
			b.ink = append(b.ink, shape{kind: shapeRect, x0: x - hw, x1: x + hw, y0: s.LoWhisker, y1: s.HiWhisker})
			for _, o := range s.Outliers {
				b.ink = append(b.ink, shape{kind: shapePoint, x0: x, y0: o})
			}
		}
		b.pending = append(b.pending, bp)
		b.legend = append(b.legend, legendEntry{g.Label, rectThumb(bp.fill, edge)})
	}
}

func (f *Figure) buildDists(b *built, st *Style, xs, ys *extent) {
	ccdf := f.Kind == KindCCDF
	var marks []plot.Plotter
	for si, d := range f.Dists {
		ecdf := stats.ECDF(d.Values)
		// Explicit step path: vertical jump at each distinct value.
		var path, corners []xy
		prev := 0.0
		if ccdf {
			prev = 1
		}
		for _, q := range ecdf {
			y := q.P
			if ccdf {
				y = 1 - q.P
			}
			if ccdf && f.LogY && y <= 0 {
				// P(X > max) = 0 is off a log axis; stop at the
				// last positive level.
				path = append(path, xy{q.X, prev})
				break
			}
			path = append(path, xy{q.X, prev}, xy{q.X, y})
			corners = append(corners, xy{q.X, y})
			prev = y
		}
		for i, q := range path {
			xs.add(q.x)
			ys.add(q.y)
			if i > 0 {
				b.ink = append(b.ink, shape{kind: shapeSegment, x0: path[i-1].x, y0: path[i-1].y, x1: q.x, y1: q.y})
			}
		}
		line := &linePlotter{pts: path, style: seriesLine(st, si), noGlyph: true}
		b.pending = append(b.pending, line)
		g := seriesGlyph(st, si)
		mk := &linePlotter{glyph: g}
		limit := min(st.MaxMarkers, 6)
		for _, i := range markerIndices(len(corners), limit, si) {
			mk.marks = append(mk.marks, corners[i])
			b.ink = append(b.ink, shape{kind: shapePoint, x0: corners[i].x, y0: corners[i].y})
		}
		marks = append(marks, mk)
		b.legend = append(b.legend, legendEntry{d.Label, lineThumb(seriesLine(st, si), &g, nil)})
	}
	b.pending = append(b.pending, marks...)
}

func (f *Figure) buildStacked(b *built, st *Style, xs, ys *extent) {
	base := make([]float64, len(f.T))
	xs.add(f.T[0], f.T[len(f.T)-1])
	ys.add(0)
	sep := draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}
	var entries []legendEntry
	for li, l := range f.Layers {
		top := make([]float64, len(f.T))
		for i := range f.T {
			top[i] = base[i] + l.Y[i]
		}
		ring := make([]xy, 0, 2*len(f.T))
		// The white separator runs along the layer's top wherever the
		// layer has thickness (so it never paints over the x axis).
		var edges [][]xy
		var edge []xy
		for i, t := range f.T {
			ring = append(ring, xy{t, top[i]})
			ys.add(top[i])
			if i+1 < len(f.T) && (l.Y[i] > 0 || l.Y[i+1] > 0) {
				if len(edge) == 0 {
					edge = append(edge, xy{t, top[i]})
				}
				edge = append(edge, xy{f.T[i+1], top[i+1]})
			} else if len(edge) > 0 {
				edges = append(edges, edge)
				edge = nil
			}
		}
		if len(edge) > 0 {
			edges = append(edges, edge)
		}
		for i := len(f.T) - 1; i >= 0; i-- {
			ring = append(ring, xy{f.T[i], base[i]})
		}
		fill := st.Color(li)
		b.pending = append(b.pending, &fillPlotter{rings: [][]xy{ring}, color: fill, edges: edges, edge: sep})
		entries = append(entries, legendEntry{l.Label, rectThumb(fill, draw.LineStyle{})})
		base = top
	}
	for i := 0; i+1 < len(f.T); i++ {
		b.ink = append(b.ink, shape{kind: shapeRect, x0: f.T[i], x1: f.T[i+1], y0: 0, y1: math.Max(base[i], base[i+1])})
	}
	// List the top layer first so the legend reads like the stack.
	slices.Reverse(entries)
	b.legend = append(b.legend, entries...)
}

func (f *Figure) buildScatter(b *built, st *Style, xs, ys *extent) {
	for si, ps := range f.Points {
		g := seriesGlyph(st, si)
		mk := &linePlotter{glyph: g}
		for i := range ps.X {
			mk.marks = append(mk.marks, xy{ps.X[i], ps.Y[i]})
			xs.add(ps.X[i])
			ys.add(ps.Y[i])
			b.ink = append(b.ink, shape{kind: shapePoint, x0: ps.X[i], y0: ps.Y[i]})
		}
		b.pending = append(b.pending, mk)
		b.legend = append(b.legend, legendEntry{ps.Label, func(c *draw.Canvas) { c.DrawGlyphNoClip(g, c.Center()) }})
	}
}

// textStyle returns a plain text style in the figure font.
func textStyle(st *Style, size vg.Length, xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    st.font(size),
		XAlign:  xa,
		YAlign:  ya,
		Handler: plot.DefaultTextHandler,
	}
}
