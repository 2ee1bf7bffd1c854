package report

import (
	"image/color"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Style is the visual style shared by every figure. The zero value is not
// useful; start from DefaultStyle and change fields as needed.
//
// Series i of a figure uses Palette[i], Glyphs[i] and Dashes[i] (each
// wrapping around), so the same series index looks the same in every kind
// of figure.
type Style struct {
	// Width and Height are the figure size. The default, 3.3in × 2.4in,
	// fits one column of a two-column paper at 100% scale.
	Width, Height vg.Length
	// DPI is the resolution of PNG output.
	DPI int
	// Font selects the typeface; its Size is ignored in favour of the
	// sizes below.
	Font font.Font
	// TitleSize, LabelSize, TickSize and LegendSize are the font sizes of
	// the title, the axis labels, the tick labels and the legend.
	TitleSize, LabelSize, TickSize, LegendSize font.Length
	// LineWidth is the width of data lines.
	LineWidth vg.Length
	// AxisWidth is the width of axis lines, ticks and outlines.
	AxisWidth vg.Length
	// TickLength is the length of major tick marks.
	TickLength vg.Length
	// GridColor is the colour of the light grid lines drawn at major
	// ticks; nil disables the grid.
	GridColor color.Color
	// MarkerRadius is the radius of data markers.
	MarkerRadius vg.Length
	// MaxMarkers bounds the number of markers drawn along one line; lines
	// with more points get markers on an evenly spaced subset.
	MaxMarkers int
	// Palette holds the series colours.
	Palette []color.Color
	// Glyphs holds the series marker shapes.
	Glyphs []draw.GlyphDrawer
	// Dashes holds the series dash patterns (nil is a solid line).
	Dashes [][]vg.Length
	// BandAlpha is the opacity (0–1) of confidence bands.
	BandAlpha float64
	// BoxAlpha is the opacity (0–1) of box-plot fills.
	BoxAlpha float64
}

// Okabe–Ito colours (Okabe & Ito, "Color Universal Design", 2002), a
// palette that stays distinguishable under the common forms of colour
// blindness.
var (
	okabeBlack         = color.NRGBA{0x00, 0x00, 0x00, 0xff}
	okabeOrange        = color.NRGBA{0xe6, 0x9f, 0x00, 0xff}
	okabeSkyBlue       = color.NRGBA{0x56, 0xb4, 0xe9, 0xff}
	okabeBluishGreen   = color.NRGBA{0x00, 0x9e, 0x73, 0xff}
	okabeYellow        = color.NRGBA{0xf0, 0xe4, 0x42, 0xff}
	okabeBlue          = color.NRGBA{0x00, 0x72, 0xb2, 0xff}
	okabeVermillion    = color.NRGBA{0xd5, 0x5e, 0x00, 0xff}
	okabeReddishPurple = color.NRGBA{0xcc, 0x79, 0xa7, 0xff}
)

// OkabeIto returns the eight Okabe–Ito colours, ordered so that the first
// few are the most distinct on white paper (yellow, the weakest on white,
// comes last).
func OkabeIto() []color.Color {
	return []color.Color{
		okabeBlue, okabeVermillion, okabeBluishGreen, okabeReddishPurple,
		okabeOrange, okabeSkyBlue, okabeBlack, okabeYellow,
	}
}

// DefaultStyle returns the house style: 3.3in × 2.4in, Liberation Sans at
// 8–9 pt, 1 pt lines, Okabe–Ito colours, and distinct filled and hollow
// markers and dash patterns so series stay apart in greyscale print.
func DefaultStyle() Style {
	return Style{
		Width:        3.3 * vg.Inch,
		Height:       2.4 * vg.Inch,
		DPI:          300,
		Font:         font.Font{Typeface: "Liberation", Variant: "Sans"},
		TitleSize:    9,
		LabelSize:    9,
		TickSize:     8,
		LegendSize:   8,
		LineWidth:    vg.Points(1),
		AxisWidth:    vg.Points(0.6),
		TickLength:   vg.Points(3),
		GridColor:    color.Gray{Y: 0xe0},
		MarkerRadius: vg.Points(2.2),
		MaxMarkers:   8,
		Palette:      OkabeIto(),
		Glyphs: []draw.GlyphDrawer{
			draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
			draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
		},
		Dashes: [][]vg.Length{
			nil,
			{vg.Points(4), vg.Points(2)},
			{vg.Points(1), vg.Points(1.5)},
			{vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
			{vg.Points(2), vg.Points(2)},
			{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)},
		},
		BandAlpha: 0.2,
		BoxAlpha:  0.3,
	}
}

// Color returns the colour of series i.
func (s *Style) Color(i int) color.Color {
	if len(s.Palette) == 0 {
		return color.Black
	}
	return s.Palette[i%len(s.Palette)]
}

// Glyph returns the marker shape of series i.
func (s *Style) Glyph(i int) draw.GlyphDrawer {
	if len(s.Glyphs) == 0 {
		return draw.CircleGlyph{}
	}
	return s.Glyphs[i%len(s.Glyphs)]
}

// Dash returns the dash pattern of series i (nil for solid).
func (s *Style) Dash(i int) []vg.Length {
	if len(s.Dashes) == 0 {
		return nil
	}
	return s.Dashes[i%len(s.Dashes)]
}

// font returns the style's font at the given size.
func (s *Style) font(size font.Length) font.Font {
	return font.From(s.Font, size)
}

// withAlpha returns c with its opacity multiplied by a (0–1).
func withAlpha(c color.Color, a float64) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = uint8(float64(n.A)*clamp01(a) + 0.5)
	return n
}

// lighten mixes c with white; f=0 is c, f=1 is white.
func lighten(c color.Color, f float64) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	f = clamp01(f)
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.NRGBA{mix(n.R), mix(n.G), mix(n.B), n.A}
}

func clamp01(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}
