package report

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/report/stats"
)

// ErrInvalid is wrapped by every error about invalid figure or table input,
// so callers can test for it with errors.Is.
var ErrInvalid = errors.New("invalid input")

// Kind is the type of chart a Figure draws.
type Kind int

// The kinds of figure.
const (
	// KindLines draws the per-X mean of each Series as a line with a shaded
	// 95% confidence band across seeds.
	KindLines Kind = iota + 1
	// KindBars draws grouped bars (categories × series) of the mean
	// across seeds with 95% confidence-interval error bars.
	KindBars
	// KindBoxes draws grouped box plots (categories × series) of raw
	// samples with Tukey whiskers and outliers.
	KindBoxes
	// KindCDF draws empirical CDFs of raw samples as step lines.
	KindCDF
	// KindCCDF draws empirical complementary CDFs, P(X > x), as step lines.
	KindCCDF
	// KindStackedArea draws layers stacked on top of each other over a
	// shared time grid, e.g. resource usage per queue over time.
	KindStackedArea
	// KindScatter draws one marker per (x, y) point.
	KindScatter
	// KindGantt draws intervals on rows over time: task attempts on machines or queues
	// (gantt.go).
	KindGantt
	// KindRegion draws a claim's effect with its interval at each point of a sensitivity
	// study, a row per point marked by its verdict (region.go).
	KindRegion
)

// String returns the kind's name, e.g. "lines".
func (k Kind) String() string {
	switch k {
	case KindLines:
		return "lines"
	case KindBars:
		return "bars"
	case KindBoxes:
		return "boxes"
	case KindCDF:
		return "cdf"
	case KindCCDF:
		return "ccdf"
	case KindStackedArea:
		return "stacked-area"
	case KindScatter:
		return "scatter"
	case KindGantt:
		return "gantt"
	case KindRegion:
		return "region"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// LegendPosition says where the legend goes.
type LegendPosition int

// Legend positions.
const (
	// LegendAuto puts the legend inside the plot area, in the first corner
	// (top right, top left, bottom right, bottom left) where it covers no
	// data; if every corner would cover data it goes above the plot.
	LegendAuto LegendPosition = iota
	// LegendAbove puts the legend in a strip above the plot area.
	LegendAbove
	// LegendNone draws no legend.
	LegendNone
	// LegendTopRight forces the top-right corner of the plot area.
	LegendTopRight
	// LegendTopLeft forces the top-left corner of the plot area.
	LegendTopLeft
	// LegendBottomRight forces the bottom-right corner of the plot area.
	LegendBottomRight
	// LegendBottomLeft forces the bottom-left corner of the plot area.
	LegendBottomLeft
)

// String returns the position's name, e.g. "top-right".
func (p LegendPosition) String() string {
	switch p {
	case LegendAuto:
		return "auto"
	case LegendAbove:
		return "above"
	case LegendNone:
		return "none"
	case LegendTopRight:
		return "top-right"
	case LegendTopLeft:
		return "top-left"
	case LegendBottomRight:
		return "bottom-right"
	case LegendBottomLeft:
		return "bottom-left"
	}
	return fmt.Sprintf("LegendPosition(%d)", int(p))
}

// Series is one line of a KindLines figure. For each X[i], Samples[i] holds
// one measurement per seed; the line goes through the per-X means and the
// band spans the Student-t 95% confidence interval of the mean (omitted
// where there are fewer than two samples).
type Series struct {
	// Label names the series in the legend.
	Label string
	// X holds the x coordinates; they need not be sorted.
	X []float64
	// Samples[i] holds the per-seed values at X[i]; it must not be empty.
	Samples [][]float64
}

// CategorySeries is one series of a KindBars or KindBoxes figure.
// Samples[c] holds the values for category c of the figure: per-seed
// measurements for bars (drawn as mean ± 95% CI), or the raw distribution
// for box plots.
type CategorySeries struct {
	// Label names the series in the legend.
	Label string
	// Samples[c] holds the values for the figure's Categories[c].
	Samples [][]float64
}

// Distribution is one curve of a KindCDF or KindCCDF figure.
type Distribution struct {
	// Label names the curve in the legend.
	Label string
	// Values are the raw samples, in any order.
	Values []float64
}

// Layer is one member of a KindStackedArea figure: its value at each time
// of the figure's shared grid T. Layers are stacked in order, the first at
// the bottom.
type Layer struct {
	// Label names the layer in the legend.
	Label string
	// Y[i] is the layer's (non-negative) value at T[i].
	Y []float64
}

// Points is one set of markers of a KindScatter figure.
type Points struct {
	// Label names the set in the legend.
	Label string
	// X and Y are the coordinates; they must have equal lengths.
	X, Y []float64
}

// RefLine is a horizontal reference line across the plot, e.g. a baseline
// such as "DRF (162 s)". It is drawn dashed in dark grey and listed in the
// legend when Label is non-empty.
type RefLine struct {
	// Label names the line in the legend.
	Label string
	// Y is the line's value on the y axis.
	Y float64
}

// Range is a closed axis interval.
type Range struct {
	// Min and Max bound the axis.
	Min, Max float64
}

// Figure is a paper-style chart built from plain data. Create one with a
// constructor (NewLines, NewBars, NewBoxes, NewCDF, NewCCDF,
// NewStackedArea, NewScatter), optionally adjust the exported options, and
// write it with Render, Save or Encode.
//
// Axis labels are mandatory and should carry their unit in square
// brackets, e.g. "Completion time [s]" or "Memory [GiB]"; Label builds such
// strings. Quantities without a unit (a CDF, a count) are written bare.
type Figure struct {
	// ID identifies the figure in error messages, e.g. "fig5a".
	ID string
	// Title is drawn above the plot when non-empty. Paper figures usually
	// leave it empty and use the LaTeX caption instead.
	Title string
	// XLabel and YLabel are the axis labels, with units in brackets.
	XLabel, YLabel string
	// LogX and LogY select logarithmic axes; the data on a log axis must
	// be positive.
	LogX, LogY bool
	// YDomain is the domain of the y values (stats.DomainOf the metric):
	// the confidence intervals of KindLines and KindBars stay in it (no
	// error bar of a fraction above 1 or of a time below 0). The zero
	// value, stats.Signed, leaves Student's t intervals as they are.
	YDomain stats.Domain
	// XRange and YRange, when non-nil, fix the axis ranges instead of
	// fitting them to the data.
	XRange, YRange *Range
	// Legend selects the legend position; the zero value is LegendAuto.
	Legend LegendPosition
	// Style overrides DefaultStyle when non-nil.
	Style *Style
	// RefLines are horizontal reference lines drawn over the data.
	RefLines []RefLine

	// Kind is the chart type; the constructors set it.
	Kind Kind
	// Series holds the lines of a KindLines figure.
	Series []Series
	// Categories names the x-axis groups of KindBars and KindBoxes.
	Categories []string
	// Groups holds the series of KindBars and KindBoxes figures.
	Groups []CategorySeries
	// Dists holds the curves of KindCDF and KindCCDF figures.
	Dists []Distribution
	// T is the shared time grid of a KindStackedArea figure (strictly
	// increasing).
	T []float64
	// Layers holds the members of a KindStackedArea figure, bottom first.
	Layers []Layer
	// Points holds the marker sets of a KindScatter figure.
	Points []Points
	// Bars and GanttGroups hold a KindGantt figure's intervals and the names of their colour
	// groups; its rows are Categories.
	Bars        []Bar
	GanttGroups []string
	// Regions, RegionVerdicts, RegionMarks and RegionBand are a KindRegion figure's rows, the
	// names of their verdicts, its vertical lines and its shaded band (region.go).
	Regions        []RegionRow
	RegionVerdicts []string
	RegionMarks    []Mark
	RegionBand     *Range
}

// Label formats an axis label with its unit in brackets, e.g.
// Label("Completion time", "s") is "Completion time [s]". An empty unit
// returns quantity unchanged.
func Label(quantity, unit string) string {
	if unit == "" {
		return quantity
	}
	return quantity + " [" + unit + "]"
}

// NewLines returns a KindLines figure: one line per series through the
// per-X means across seeds, with shaded 95% confidence bands.
func NewLines(id, title, xLabel, yLabel string, series ...Series) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindLines, Series: series}
}

// NewBars returns a KindBars figure: for each category, one bar per series
// showing the mean across seeds with a 95% confidence-interval error bar.
func NewBars(id, title, xLabel, yLabel string, categories []string, series ...CategorySeries) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindBars, Categories: categories, Groups: series}
}

// NewBoxes returns a KindBoxes figure: for each category, one box plot per
// series (median, quartiles, Tukey whiskers at 1.5 IQR, outliers).
func NewBoxes(id, title, xLabel, yLabel string, categories []string, series ...CategorySeries) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindBoxes, Categories: categories, Groups: series}
}

// NewCDF returns a KindCDF figure of the empirical CDF of each
// distribution. yLabel is typically "CDF" or "Fraction of jobs".
func NewCDF(id, title, xLabel, yLabel string, dists ...Distribution) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindCDF, Dists: dists}
}

// NewCCDF returns a KindCCDF figure of the empirical complementary CDF,
// P(X > x), of each distribution; it is usually combined with LogY (and
// often LogX) to show tails.
func NewCCDF(id, title, xLabel, yLabel string, dists ...Distribution) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindCCDF, Dists: dists}
}

// NewStackedArea returns a KindStackedArea figure: the layers are stacked
// bottom-up over the shared, strictly increasing time grid t.
func NewStackedArea(id, title, xLabel, yLabel string, t []float64, layers ...Layer) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindStackedArea, T: t, Layers: layers}
}

// NewScatter returns a KindScatter figure with one marker per point.
func NewScatter(id, title, xLabel, yLabel string, points ...Points) *Figure {
	return &Figure{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, Kind: KindScatter, Points: points}
}

// figErr returns an error about the whole figure.
func (f *Figure) figErr(format string, args ...any) error {
	return fmt.Errorf("report: figure %q: %w: %s", f.ID, ErrInvalid, fmt.Sprintf(format, args...))
}

// seriesErr returns an error about one series of the figure.
func (f *Figure) seriesErr(label string, format string, args ...any) error {
	return fmt.Errorf("report: figure %q: series %q: %w: %s", f.ID, label, ErrInvalid, fmt.Sprintf(format, args...))
}

// badFloat describes v if it is NaN or infinite, or if it must be positive
// (on a log axis) and is not; otherwise it returns "".
func badFloat(v float64, positive bool) string {
	switch {
	case math.IsNaN(v):
		return "is NaN"
	case math.IsInf(v, 0):
		return "is infinite"
	case positive && v <= 0:
		return fmt.Sprintf("is %v, not positive as a log axis needs", v)
	}
	return ""
}

// Validate checks the figure's options and data and returns an error
// wrapping ErrInvalid that names the figure ID (and series label, where
// one is at fault) for the first problem found: missing ID or axis labels,
// no data, mismatched lengths, empty samples, NaN or infinite values,
// non-positive values on a log axis, or an invalid axis range.
func (f *Figure) Validate() error {
	if f == nil {
		return fmt.Errorf("report: %w: nil figure", ErrInvalid)
	}
	if f.ID == "" {
		return f.figErr("empty ID")
	}
	if f.XLabel == "" || f.YLabel == "" {
		return f.figErr("both axis labels are required (with units in brackets, e.g. %q)", Label("Completion time", "s"))
	}
	if f.Legend < LegendAuto || f.Legend > LegendBottomLeft {
		return f.figErr("unknown legend position %d", f.Legend)
	}
	if err := f.checkRange("x", f.XRange, f.LogX); err != nil {
		return err
	}
	if err := f.checkRange("y", f.YRange, f.LogY); err != nil {
		return err
	}
	if s := f.Style; s != nil {
		if s.Width <= 0 || s.Height <= 0 || s.DPI <= 0 {
			return f.figErr("style needs positive Width, Height and DPI")
		}
	}
	for _, r := range f.RefLines {
		if b := badFloat(r.Y, f.LogY); b != "" {
			return f.seriesErr(r.Label, "reference line Y %s", b)
		}
	}
	switch f.Kind {
	case KindLines:
		return f.validateLines()
	case KindBars, KindBoxes:
		return f.validateCategories()
	case KindCDF, KindCCDF:
		return f.validateDists()
	case KindStackedArea:
		return f.validateStacked()
	case KindScatter:
		return f.validatePoints()
	case KindGantt:
		return f.validateGantt()
	case KindRegion:
		return f.validateRegion()
	}
	return f.figErr("unknown kind %v", f.Kind)
}

func (f *Figure) checkRange(axis string, r *Range, log bool) error {
	if r == nil {
		return nil
	}
	if badFloat(r.Min, false) != "" || badFloat(r.Max, false) != "" || r.Min >= r.Max {
		return f.figErr("%s range [%v, %v] is not a finite interval with min < max", axis, r.Min, r.Max)
	}
	if log && r.Min <= 0 {
		return f.figErr("%s range [%v, %v] must be positive on a log axis", axis, r.Min, r.Max)
	}
	return nil
}

func (f *Figure) validateLines() error {
	if len(f.Series) == 0 {
		return f.figErr("no series")
	}
	for _, s := range f.Series {
		if len(s.X) == 0 {
			return f.seriesErr(s.Label, "no points")
		}
		if len(s.X) != len(s.Samples) {
			return f.seriesErr(s.Label, "len(X) = %d but len(Samples) = %d", len(s.X), len(s.Samples))
		}
		for i, x := range s.X {
			if b := badFloat(x, f.LogX); b != "" {
				return f.seriesErr(s.Label, "X[%d] %s", i, b)
			}
			if len(s.Samples[i]) == 0 {
				return f.seriesErr(s.Label, "no samples at X[%d] = %v", i, x)
			}
			for j, v := range s.Samples[i] {
				if b := badFloat(v, f.LogY); b != "" {
					return f.seriesErr(s.Label, "Samples[%d][%d] (X = %v) %s", i, j, x, b)
				}
			}
		}
	}
	return nil
}

func (f *Figure) validateCategories() error {
	if len(f.Categories) == 0 {
		return f.figErr("no categories")
	}
	if len(f.Groups) == 0 {
		return f.figErr("no series")
	}
	if f.LogX {
		return f.figErr("LogX is not supported for %v (the x axis is categorical)", f.Kind)
	}
	if f.LogY && f.Kind == KindBars {
		return f.figErr("LogY is not supported for bars (bars start at zero)")
	}
	for _, g := range f.Groups {
		if len(g.Samples) != len(f.Categories) {
			return f.seriesErr(g.Label, "has %d sample sets but the figure has %d categories", len(g.Samples), len(f.Categories))
		}
		for c, vs := range g.Samples {
			if len(vs) == 0 {
				return f.seriesErr(g.Label, "no samples for category %q", f.Categories[c])
			}
			for j, v := range vs {
				if b := badFloat(v, f.LogY); b != "" {
					return f.seriesErr(g.Label, "sample %d of category %q %s", j, f.Categories[c], b)
				}
			}
		}
	}
	return nil
}

func (f *Figure) validateDists() error {
	if len(f.Dists) == 0 {
		return f.figErr("no distributions")
	}
	if f.LogY && f.Kind == KindCDF {
		return f.figErr("LogY is not supported for a CDF (it starts at 0); use a CCDF for tails")
	}
	for _, d := range f.Dists {
		if len(d.Values) == 0 {
			return f.seriesErr(d.Label, "no values")
		}
		for i, v := range d.Values {
			if b := badFloat(v, f.LogX); b != "" {
				return f.seriesErr(d.Label, "Values[%d] %s", i, b)
			}
		}
		if f.LogY {
			// The CCDF is 0 past the maximum; at least one positive
			// point needs two distinct values.
			lo, hi := d.Values[0], d.Values[0]
			for _, v := range d.Values {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if lo == hi {
				return f.seriesErr(d.Label, "all values equal %v, so the CCDF has no positive point to show on a log axis", lo)
			}
		}
	}
	return nil
}

func (f *Figure) validateStacked() error {
	if len(f.Layers) == 0 {
		return f.figErr("no layers")
	}
	if f.LogY {
		return f.figErr("LogY is not supported for stacked areas")
	}
	if len(f.T) < 2 {
		return f.figErr("time grid T has %d points; need at least 2", len(f.T))
	}
	for i, t := range f.T {
		if b := badFloat(t, f.LogX); b != "" {
			return f.figErr("T[%d] %s", i, b)
		}
		if i > 0 && t <= f.T[i-1] {
			return f.figErr("time grid T is not strictly increasing at T[%d] = %v", i, t)
		}
	}
	for _, l := range f.Layers {
		if len(l.Y) != len(f.T) {
			return f.seriesErr(l.Label, "len(Y) = %d but len(T) = %d", len(l.Y), len(f.T))
		}
		for i, v := range l.Y {
			if b := badFloat(v, false); b != "" {
				return f.seriesErr(l.Label, "Y[%d] %s", i, b)
			}
			if v < 0 {
				return f.seriesErr(l.Label, "Y[%d] = %v is negative; stacked layers must be non-negative", i, v)
			}
		}
	}
	return nil
}

func (f *Figure) validatePoints() error {
	if len(f.Points) == 0 {
		return f.figErr("no point sets")
	}
	for _, p := range f.Points {
		if len(p.X) == 0 {
			return f.seriesErr(p.Label, "no points")
		}
		if len(p.X) != len(p.Y) {
			return f.seriesErr(p.Label, "len(X) = %d but len(Y) = %d", len(p.X), len(p.Y))
		}
		for i := range p.X {
			if b := badFloat(p.X[i], f.LogX); b != "" {
				return f.seriesErr(p.Label, "X[%d] %s", i, b)
			}
			if b := badFloat(p.Y[i], f.LogY); b != "" {
				return f.seriesErr(p.Label, "Y[%d] %s", i, b)
			}
		}
	}
	return nil
}

// style returns the figure's style, or the default.
func (f *Figure) style() *Style {
	if f.Style != nil {
		s := *f.Style
		return &s
	}
	s := DefaultStyle()
	return &s
}
