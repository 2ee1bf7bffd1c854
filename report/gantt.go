package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one interval of a KindGantt figure: a task attempt on a row (a machine or a queue)
// from Start to End, coloured by its group (a queue or a class); Marked draws a cross at its end
// (a preemption).
type Bar struct {
	Row        int
	Start, End float64
	Group      int
	Marked     bool
}

// NewGantt builds a KindGantt figure: rows (machines or queues) bottom to top on the y axis,
// time on the x axis, a bar per interval coloured by group (groups names the legend's entries,
// in palette order), a cross at the end of each marked bar. Bars sharing a row overlap; draw a
// window or one row per slot to keep them apart.
func NewGantt(id, title, xLabel, yLabel string, rows, groups []string, bars ...Bar) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindGantt, Categories: rows, GanttGroups: groups, Bars: bars}
}

func (f *Figure) validateGantt() error {
	if len(f.Categories) == 0 {
		return f.figErr("no rows")
	}
	if len(f.Bars) == 0 {
		return f.figErr("no bars")
	}
	for i, b := range f.Bars {
		switch {
		case b.Row < 0 || b.Row >= len(f.Categories):
			return f.figErr("bar %d: row %d of %d", i, b.Row, len(f.Categories))
		case b.Group < 0 || b.Group >= len(f.GanttGroups):
			return f.figErr("bar %d: group %d of %d", i, b.Group, len(f.GanttGroups))
		case badFloat(b.Start, f.LogX) != "" || badFloat(b.End, f.LogX) != "":
			return f.figErr("bar %d: start %v, end %v", i, b.Start, b.End)
		case b.End < b.Start:
			return f.figErr("bar %d ends (%v) before it starts (%v)", i, b.End, b.Start)
		}
	}
	return nil
}

// ganttHeight is the share of a row's height its bars fill.
const ganttHeight = 0.7

// buildGantt draws the bars, the marks and a legend entry per group.
func (f *Figure) buildGantt(b *built, st *Style, xs, ys *extent) {
	g := &ganttPlotter{bars: f.Bars, st: st}
	for _, bar := range f.Bars {
		xs.add(bar.Start, bar.End)
		b.ink = append(b.ink, shape{kind: shapeRect, x0: bar.Start, y0: float64(bar.Row) - ganttHeight/2, x1: bar.End, y1: float64(bar.Row) + ganttHeight/2})
	}
	ys.add(-0.5, float64(len(f.Categories))-0.5)
	b.pending = append(b.pending, g)
	for gi, name := range f.GanttGroups {
		c := st.Color(gi)
		b.legend = append(b.legend, legendEntry{name, func(cv *draw.Canvas) {
			r := cv.Rectangle
			cv.FillPolygon(c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
		}})
	}
	if f.marked() {
		cross := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.2), Shape: draw.CrossGlyph{}}
		b.legend = append(b.legend, legendEntry{"preempted", func(c *draw.Canvas) { c.DrawGlyphNoClip(cross, c.Center()) }})
	}
}

func (f *Figure) marked() bool {
	for _, b := range f.Bars {
		if b.Marked {
			return true
		}
	}
	return false
}

// ganttAxes sets the row ticks of a Gantt figure's y axis.
func (f *Figure) ganttAxes(p *plot.Plot, st *Style) {
	ticks := make([]plot.Tick, len(f.Categories))
	for i, n := range f.Categories {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.5, float64(len(f.Categories))-0.5
}

type ganttPlotter struct {
	bars []Bar
	st   *Style
}

// Plot draws each bar as a filled rectangle with a thin white outline, then the marks on top.
func (g *ganttPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.White, Width: vg.Points(0.3)}
	outline := ty(ganttHeight)-ty(0) >= vg.Points(4) // thin rows: outlines would hide the colours
	for _, b := range g.bars {
		x0, x1 := tx(b.Start), tx(b.End)
		if x1-x0 < vg.Points(0.3) {
			x1 = x0 + vg.Points(0.3) // a zero-length attempt stays visible
		}
		y0, y1 := ty(float64(b.Row)-ganttHeight/2), ty(float64(b.Row)+ganttHeight/2)
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(g.st.Color(b.Group), c.ClipPolygonXY(pts))
		if outline {
			c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
	cross := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.2), Shape: draw.CrossGlyph{}}
	for _, b := range g.bars {
		if b.Marked {
			pt := vg.Point{X: tx(b.End), Y: ty(float64(b.Row))}
			if c.Contains(pt) {
				c.DrawGlyph(cross, pt)
			}
		}
	}
}

var _ plot.Plotter = (*ganttPlotter)(nil)
