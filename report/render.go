package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/schedlab/schedlab/internal/safefs"
)

// DefaultFormats are the formats Save writes when given none.
var DefaultFormats = []string{"pdf", "png", "svg"}

// Layout lengths.
var (
	outerPad     = vg.Points(2)   // margin around the whole figure
	legendPad    = vg.Points(2)   // padding inside the legend box
	legendInset  = vg.Points(3)   // gap between legend box and plot-area edge
	thumbWidth   = vg.Points(16)  // width of a legend key
	thumbGap     = vg.Points(3)   // gap between key and label
	entryGap     = vg.Points(8)   // gap between entries of a horizontal legend
	lineSpacing  = 1.2            // legend row height relative to the font size
	titleGap     = vg.Points(2.5) // gap below the title
	axisLabelGap = vg.Points(3)   // gap between an axis label and its tick labels
)

// normFormat lower-cases a format and strips a leading dot.
func normFormat(format string) string {
	return strings.TrimPrefix(strings.ToLower(format), ".")
}

// Encode draws the figure and writes it to w in the given format: "svg",
// "png" or "pdf" (case-insensitive, leading dot allowed). SVG output is
// byte-for-byte deterministic; PDF output embeds a creation date.
func (f *Figure) Encode(w io.Writer, format string) error {
	c, _, err := f.canvas(format)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("report: figure %q: writing %s: %w", f.ID, normFormat(format), err)
	}
	return nil
}

// Render draws the figure into the file at path, choosing the format from
// the extension (.svg, .png or .pdf). The file is written atomically: the
// data go to a temporary file in the same directory, which is renamed over
// path only once complete, so path never holds a partial figure.
func (f *Figure) Render(path string) error {
	ext := filepath.Ext(path)
	if ext == "" {
		if f == nil {
			return fmt.Errorf("report: %w: nil figure", ErrInvalid)
		}
		return fmt.Errorf("report: figure %q: %w: output path %q has no extension (.svg, .png, .pdf)", f.ID, ErrInvalid, path)
	}
	c, _, err := f.canvas(ext)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// Save renders the figure as dir/basename.<format> for each format (or
// DefaultFormats if none are given) and returns the paths written. Each
// file is written atomically, as by Render.
func (f *Figure) Save(dir, basename string, formats ...string) ([]string, error) {
	if basename == "" || strings.ContainsAny(basename, `/\`) {
		id := ""
		if f != nil {
			id = f.ID
		}
		return nil, fmt.Errorf("report: figure %q: %w: bad base name %q", id, ErrInvalid, basename)
	}
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	var paths []string
	for _, format := range formats {
		p := filepath.Join(dir, basename+"."+normFormat(format))
		if err := f.Render(p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// canvas draws the figure on a new canvas of the given format and
// reports where the legend went (LegendNone if nowhere).
func (f *Figure) canvas(format string) (c vg.CanvasWriterTo, pos LegendPosition, err error) {
	if f == nil {
		return nil, 0, fmt.Errorf("report: %w: nil figure", ErrInvalid)
	}
	defer func() {
		// Validation should make this unreachable; a bug in the
		// plotting library must still not crash an experiment run.
		if r := recover(); r != nil {
			c, pos, err = nil, 0, fmt.Errorf("report: figure %q: drawing failed: %v", f.ID, r)
		}
	}()
	st := f.style()
	b, err := f.build(st)
	if err != nil {
		return nil, 0, err
	}
	switch normFormat(format) {
	case "svg":
		c = vgsvg.New(st.Width, st.Height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(st.Width, st.Height), vgimg.UseDPI(st.DPI))}
	case "pdf":
		c = vgpdf.New(st.Width, st.Height)
	default:
		return nil, 0, fmt.Errorf("report: figure %q: %w: unsupported format %q (want svg, png or pdf)", f.ID, ErrInvalid, format)
	}
	pos = f.draw(draw.New(c), b, st)
	return c, pos, nil
}

// draw lays out title, legend and plot on dc and returns where the legend
// went.
func (f *Figure) draw(dc draw.Canvas, b *built, st *Style) LegendPosition {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, outerPad, -outerPad, outerPad, -outerPad)

	if f.Title != "" {
		ts := textStyle(st, st.TitleSize, draw.XCenter, draw.YTop)
		area.FillText(ts, vg.Point{X: area.Center().X, Y: area.Max.Y}, f.Title)
		area.Max.Y -= ts.Height(f.Title) + titleGap
	}

	var entries []legendEntry
	for _, e := range b.legend {
		if e.label != "" {
			entries = append(entries, e)
		}
	}
	if f.Legend == LegendNone || len(entries) == 0 {
		f.drawPlot(area, b, st)
		return LegendNone
	}
	ls := textStyle(st, st.LegendSize, draw.XLeft, draw.YCenter)
	rowH := vg.Length(float64(st.LegendSize) * lineSpacing)

	if f.Legend != LegendAbove {
		w, h := verticalLegendSize(entries, ls, rowH)
		da := f.dataArea(area, b, st)
		if at, corner, ok := pickCorner(b, da, w, h, f.Legend, st); ok {
			f.drawPlot(area, b, st)
			drawVerticalLegend(dc, corner, entries, ls, rowH)
			return at
		}
	}
	// Legend above the plot area, in rows centred over the data area.
	rows := horizontalRows(entries, ls, area.Max.X-area.Min.X)
	stripH := vg.Length(len(rows))*rowH + legendPad
	top := area.Max.Y
	area.Max.Y -= stripH
	da := f.drawPlot(area, b, st)
	cx := (da.Min.X + da.Max.X) / 2
	y := top - rowH/2
	for _, row := range rows {
		var width vg.Length
		for i, e := range row {
			width += entryWidth(e, ls)
			if i > 0 {
				width += entryGap
			}
		}
		x := cx - width/2
		// Keep the row inside the figure.
		if x+width > area.Max.X {
			x = area.Max.X - width
		}
		x = max(x, area.Min.X)
		for _, e := range row {
			drawEntry(dc, vg.Point{X: x, Y: y}, e, ls, rowH)
			x += entryWidth(e, ls) + entryGap
		}
		y -= rowH
	}
	return LegendAbove
}

// labelStyles returns the text styles of f's x and y axis labels drawn in area: the style's
// label size, smaller for a label longer than area is wide (x) or tall (y), so that no label is
// cut at the figure's edge.
func (f *Figure) labelStyles(area draw.Canvas, st *Style) (xs, ys text.Style) {
	xs = fitText(textStyle(st, st.LabelSize, draw.XCenter, draw.YBottom), f.XLabel, area.Max.X-area.Min.X)
	ys = fitText(textStyle(st, st.LabelSize, draw.XCenter, draw.YBottom), f.YLabel, area.Max.Y-area.Min.Y)
	ys.Rotation = math.Pi / 2
	return xs, ys
}

// fitText shrinks ts's font so that s is at most span long.
func fitText(ts text.Style, s string, span vg.Length) text.Style {
	if w := ts.Width(s); w > span && span > 0 {
		ts.Font.Size *= span / w
	}
	return ts
}

// labelCentre is where a label of length w centred on c along [lo, hi] is centred instead
// when it would cross an end: moved inward just enough.
func labelCentre(c, w, lo, hi vg.Length) vg.Length {
	return max(lo+w/2, min(c, hi-w/2))
}

// axesArea returns area without the strips taken by the axis labels.
// The labels are drawn by drawPlot rather than by gonum/plot so that they
// are centred on the data area (and correctly so on log axes).
func (f *Figure) axesArea(area draw.Canvas, st *Style) draw.Canvas {
	xs, ys := f.labelStyles(area, st)
	area.Min.Y += xs.Height(f.XLabel) + axisLabelGap
	area.Min.X += ys.Height(f.YLabel) + ys.FontExtents().Descent + axisLabelGap
	return area
}

// dataArea returns the data area the plot would get inside area.
func (f *Figure) dataArea(area draw.Canvas, b *built, st *Style) draw.Canvas {
	return b.p.DataCanvas(f.axesArea(area, st))
}

// drawPlot draws the axes, data and axis labels into area and returns the
// data area. A label is centred on the data area where it fits beside it, and
// otherwise kept inside area.
func (f *Figure) drawPlot(area draw.Canvas, b *built, st *Style) draw.Canvas {
	inner := f.axesArea(area, st)
	b.p.Draw(inner)
	da := b.p.DataCanvas(inner)
	xs, ys := f.labelStyles(area, st)
	descent := xs.FontExtents().Descent
	x := labelCentre(da.Center().X, xs.Width(f.XLabel), area.Min.X, area.Max.X)
	y := labelCentre(da.Center().Y, ys.Width(f.YLabel), area.Min.Y, area.Max.Y)
	area.FillText(xs, vg.Point{X: x, Y: area.Min.Y + descent}, f.XLabel)
	area.FillText(ys, vg.Point{X: area.Min.X + ys.Height(f.YLabel) - descent, Y: y}, f.YLabel)
	return da
}

// entryWidth is the width of one legend entry: key, gap and label.
func entryWidth(e legendEntry, ls text.Style) vg.Length {
	return thumbWidth + thumbGap + ls.Width(e.label)
}

// drawEntry draws one legend entry whose key starts at left and whose row
// is centred vertically on left.Y.
func drawEntry(dc draw.Canvas, left vg.Point, e legendEntry, ls text.Style, rowH vg.Length) {
	kh := rowH * 0.6
	key := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: left.X, Y: left.Y - kh/2},
		Max: vg.Point{X: left.X + thumbWidth, Y: left.Y + kh/2},
	}}
	e.thumb(&key)
	dc.FillText(ls, vg.Point{X: left.X + thumbWidth + thumbGap, Y: left.Y}, e.label)
}

// verticalLegendSize returns the size of a one-entry-per-row legend box.
func verticalLegendSize(entries []legendEntry, ls text.Style, rowH vg.Length) (w, h vg.Length) {
	for _, e := range entries {
		w = max(w, entryWidth(e, ls))
	}
	return w + 2*legendPad, vg.Length(len(entries))*rowH + 2*legendPad
}

// drawVerticalLegend draws the legend box r with a white background.
func drawVerticalLegend(dc draw.Canvas, r vg.Rectangle, entries []legendEntry, ls text.Style, rowH vg.Length) {
	dc.FillPolygon(color.White, []vg.Point{
		r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y},
	})
	y := r.Max.Y - legendPad - rowH/2
	for _, e := range entries {
		drawEntry(dc, vg.Point{X: r.Min.X + legendPad, Y: y}, e, ls, rowH)
		y -= rowH
	}
}

// horizontalRows greedily packs entries into rows no wider than width.
func horizontalRows(entries []legendEntry, ls text.Style, width vg.Length) [][]legendEntry {
	var rows [][]legendEntry
	var cur []legendEntry
	var used vg.Length
	for _, e := range entries {
		w := entryWidth(e, ls)
		if len(cur) > 0 && used+entryGap+w > width {
			rows = append(rows, cur)
			cur, used = nil, 0
		}
		if len(cur) > 0 {
			used += entryGap
		}
		cur = append(cur, e)
		used += w
	}
	if len(cur) > 0 {
		rows = append(rows, cur)
	}
	return rows
}

// pickCorner returns the legend rectangle inside the data area da for the
// requested position. For LegendAuto it tries the corners in the order
// top-right, top-left, bottom-right, bottom-left and takes the first whose
// rectangle (grown by a marker's clearance) touches no data; ok is false
// when none is free or the legend does not fit, and the caller then puts
// the legend above the plot.
func pickCorner(b *built, da draw.Canvas, w, h vg.Length, pos LegendPosition, st *Style) (LegendPosition, vg.Rectangle, bool) {
	if w+2*legendInset > da.Max.X-da.Min.X || h+2*legendInset > da.Max.Y-da.Min.Y {
		return 0, vg.Rectangle{}, false
	}
	at := func(p LegendPosition) vg.Rectangle {
		var r vg.Rectangle
		switch p {
		case LegendTopLeft, LegendBottomLeft:
			r.Min.X = da.Min.X + legendInset
		default:
			r.Min.X = da.Max.X - legendInset - w
		}
		switch p {
		case LegendBottomLeft, LegendBottomRight:
			r.Min.Y = da.Min.Y + legendInset
		default:
			r.Min.Y = da.Max.Y - legendInset - h
		}
		r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
		return r
	}
	if pos != LegendAuto {
		return pos, at(pos), true
	}
	clear := st.MarkerRadius + st.LineWidth
	for _, p := range []LegendPosition{LegendTopRight, LegendTopLeft, LegendBottomRight, LegendBottomLeft} {
		r := at(p)
		grown := vg.Rectangle{
			Min: vg.Point{X: r.Min.X - clear, Y: r.Min.Y - clear},
			Max: vg.Point{X: r.Max.X + clear, Y: r.Max.Y + clear},
		}
		if !inkHits(b, da, grown) {
			return p, r, true
		}
	}
	return 0, vg.Rectangle{}, false
}

// inkHits reports whether any ink shape of b, mapped into da, touches r.
func inkHits(b *built, da draw.Canvas, r vg.Rectangle) bool {
	tx := func(x float64) float64 { return float64(da.X(b.p.X.Norm(x))) }
	ty := func(y float64) float64 { return float64(da.Y(b.p.Y.Norm(y))) }
	rx0, rx1 := float64(r.Min.X), float64(r.Max.X)
	ry0, ry1 := float64(r.Min.Y), float64(r.Max.Y)
	for _, s := range b.ink {
		x0, y0 := tx(s.x0), ty(s.y0)
		switch s.kind {
		case shapePoint:
			if x0 >= rx0 && x0 <= rx1 && y0 >= ry0 && y0 <= ry1 {
				return true
			}
		case shapeSegment:
			if segmentHitsRect(x0, y0, tx(s.x1), ty(s.y1), rx0, ry0, rx1, ry1) {
				return true
			}
		case shapeRect:
			x1, y1 := tx(s.x1), ty(s.y1)
			if math.Max(x0, x1) >= rx0 && math.Min(x0, x1) <= rx1 &&
				math.Max(y0, y1) >= ry0 && math.Min(y0, y1) <= ry1 {
				return true
			}
		}
	}
	return false
}

// segmentHitsRect reports whether the segment (x0,y0)–(x1,y1) intersects
// the rectangle [rx0,rx1]×[ry0,ry1] (Liang–Barsky clipping).
func segmentHitsRect(x0, y0, x1, y1, rx0, ry0, rx1, ry1 float64) bool {
	if math.IsNaN(x0) || math.IsNaN(y0) || math.IsNaN(x1) || math.IsNaN(y1) {
		return false
	}
	dx, dy := x1-x0, y1-y0
	t0, t1 := 0.0, 1.0
	for _, pq := range [4][2]float64{
		{-dx, x0 - rx0}, {dx, rx1 - x0}, {-dy, y0 - ry0}, {dy, ry1 - y0},
	} {
		p, q := pq[0], pq[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// writeFileAtomic writes path by calling write on a temporary file in the
// same directory and renaming it over path once complete (safefs.WriteFile).
// On any error the temporary file is removed and path is left untouched.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := safefs.WriteFile(path, write); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Interface assertions for the plotters.
var (
	_ plot.Plotter = (*fillPlotter)(nil)
	_ plot.Plotter = (*barPlotter)(nil)
	_ plot.Plotter = (*errBarPlotter)(nil)
	_ plot.Plotter = (*boxPlotter)(nil)
	_ plot.Plotter = (*linePlotter)(nil)
)
