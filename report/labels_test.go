package report

import (
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestAxisLabelsStayInside: axis labels longer than the data area (or than the whole figure)
// are drawn inside the figure — moved inward, and set smaller when longer than the figure —
// where they used to be centred on the data area and cut at the figure's edge.
func TestAxisLabelsStayInside(t *testing.T) {
	for _, tc := range []struct{ name, x, y string }{
		{"short", "x", "y"},
		{"beside the data area", "Estimate bias b (%), estimate = runtime × (1 + b/100)", "SLO jobs missing their deadline (fraction)"},
		{"longer than the figure", "an x label far longer than any figure of the default size could ever hold on one line of text",
			"a y label far longer than any figure of the default size could ever hold on one line of text, rotated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewLines("long", "", tc.x, tc.y, Series{Label: "s", X: []float64{1, 2}, Samples: [][]float64{{1}, {2}}})
			st := f.style()
			b, err := f.build(st)
			if err != nil {
				t.Fatal(err)
			}
			var rec recorder.Canvas
			dc := draw.NewCanvas(&rec, st.Width, st.Height)
			f.draw(dc, b, st)

			// The x label is drawn unrotated: its recorded start and width must lie in the figure.
			area := draw.Crop(dc, outerPad, -outerPad, outerPad, -outerPad)
			xs, ys := f.labelStyles(area, st)
			fs, _ := drawnText(t, &rec, tc.x)
			if w := xs.Width(tc.x); fs.Point.X < 0 || fs.Point.X+w > st.Width+vg.Points(0.01) {
				t.Errorf("x label spans [%.1f, %.1f] pt; the figure is %.1f pt wide", fs.Point.X, fs.Point.X+w, st.Width)
			}
			// The y label is drawn rotated by π/2 about the origin: its recorded start X runs
			// along the figure's height.
			fs, before := drawnText(t, &rec, tc.y)
			if r, ok := before.(*recorder.Rotate); !ok || r.Angle != math.Pi/2 {
				t.Fatalf("y label not drawn right after a rotation by π/2: %T", before)
			}
			if h := ys.Width(tc.y); fs.Point.X < 0 || fs.Point.X+h > st.Height+vg.Points(0.01) {
				t.Errorf("y label spans [%.1f, %.1f] pt; the figure is %.1f pt tall", fs.Point.X, fs.Point.X+h, st.Height)
			}
			if tc.name == "short" && (xs.Font.Size != st.LabelSize || ys.Font.Size != st.LabelSize) {
				t.Errorf("short labels set at %v/%v pt, want the style's %v", xs.Font.Size, ys.Font.Size, st.LabelSize)
			}
		})
	}
}

// drawnText returns the recorded drawing of s and the action recorded just before it.
func drawnText(t *testing.T, rec *recorder.Canvas, s string) (*recorder.FillString, recorder.Action) {
	t.Helper()
	for i, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok && fs.String == s {
			var before recorder.Action
			if i > 0 {
				before = rec.Actions[i-1]
			}
			return fs, before
		}
	}
	t.Fatalf("label %q not drawn", s)
	return nil, nil
}
