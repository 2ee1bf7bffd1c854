package report

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// TestEdgeCases renders unusual but valid inputs in every format; none
// may fail or panic.
func TestEdgeCases(t *testing.T) {
	logLines := NewLines("loglines", "", "x", "y [s]",
		Series{Label: "wide band", X: []float64{1, 10}, Samples: [][]float64{{0.1, 5, 9}, {1, 50, 100}}})
	logLines.LogX, logLines.LogY = true, true

	single := NewLines("single", "", "x", "y", Series{Label: "one", X: []float64{3}, Samples: [][]float64{{7}}})
	singleLog := NewLines("single-log", "", "x", "y", Series{Label: "one", X: []float64{3}, Samples: [][]float64{{7}}})
	singleLog.LogX, singleLog.LogY = true, true

	unsorted := NewLines("unsorted", "", "x", "y", Series{Label: "u", X: []float64{3, 1, 2, 2}, Samples: [][]float64{{3, 4}, {1, 2}, {2}, {2.5, 2.6}}})

	zeros := NewBars("zeros", "", "x", "y", []string{"a"}, CategorySeries{Label: "z", Samples: [][]float64{{0, 0}}})
	negative := NewBars("negative", "", "x", "y", []string{"a", "b"}, CategorySeries{Label: "n", Samples: [][]float64{{-1, -2}, {3, 4}}})

	var many []CategorySeries
	var cats []string
	for i := range 12 {
		cats = append(cats, fmt.Sprintf("very long category name %d", i))
	}
	for s := range 10 {
		cs := CategorySeries{Label: fmt.Sprintf("scheduler number %d", s)}
		for c := range cats {
			cs.Samples = append(cs.Samples, []float64{float64(s + c), float64(s + c + 1)})
		}
		many = append(many, cs)
	}
	crowded := NewBars("crowded", "A title that is rather long for a single column figure", "x", "y", cats, many...)

	constCDF := NewCDF("const", "", "x", "CDF", Distribution{Label: "c", Values: []float64{5, 5, 5}})
	ccdfLin := NewCCDF("ccdf-lin", "", "x", "CCDF", Distribution{Label: "c", Values: []float64{1, 2, 3}})

	flat := NewStackedArea("flat", "", "t [s]", "y", []float64{0, 1}, Layer{Label: "a", Y: []float64{0, 0}})
	huge := NewScatter("huge", "", "x", "y", Points{Label: "p", X: []float64{1e17, 1e17 + 1}, Y: []float64{1e300, -1e300}})
	tiny := NewScatter("tiny", "", "x", "y", Points{Label: "p", X: []float64{1e-12, 2e-12}, Y: []float64{-5e-9, 5e-9}})
	nolabel := NewScatter("nolabel", "", "x", "y", Points{X: []float64{1}, Y: []float64{1}})
	ranged := fixtureLines()
	ranged.XRange = &Range{Min: 3, Max: 5} // clips data
	ranged.YRange = &Range{Min: 50, Max: 60}
	forced := fixtureCDF()
	forced.Legend = LegendTopLeft // covers data, as asked
	none := fixtureCDF()
	none.Legend = LegendNone
	above := fixtureCDF()
	above.Legend = LegendAbove
	custom := fixtureLines()
	st := DefaultStyle()
	st.Width, st.Height = 7*72, 3*72
	st.GridColor = nil
	st.Palette, st.Glyphs, st.Dashes = nil, nil, nil
	custom.Style = &st

	figs := []*Figure{logLines, single, singleLog, unsorted, zeros, negative, crowded, constCDF, ccdfLin, flat, huge, tiny, nolabel, ranged, forced, none, above, custom}
	for i, f := range figs {
		if f.Style == nil {
			// Low resolution keeps the race-enabled run fast; the PNG
			// path itself is the same.
			s := DefaultStyle()
			s.DPI = 40
			f.Style = &s
		}
		for _, format := range []string{"svg", "png", "pdf"} {
			if format == "pdf" && i%4 != 0 {
				continue // PDF shares all drawing code with PNG and SVG
			}
			var buf bytes.Buffer
			if err := f.Encode(&buf, format); err != nil {
				t.Errorf("%s.%s: %v", f.ID, format, err)
			} else if buf.Len() == 0 {
				t.Errorf("%s.%s: empty output", f.ID, format)
			}
		}
	}
	if got := legendPlacement(t, forced); got != LegendTopLeft {
		t.Errorf("forced legend at %v", got)
	}
	if got := legendPlacement(t, none); got != LegendNone {
		t.Errorf("LegendNone gave %v", got)
	}
	if got := legendPlacement(t, nolabel); got != LegendNone {
		t.Errorf("unlabelled series gave legend %v", got)
	}
	if got := legendPlacement(t, above); got != LegendAbove {
		t.Errorf("LegendAbove gave %v", got)
	}
}

func TestLinearTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string
	}{
		{-0.02, 1.02, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{24, 186, []string{"50", "100", "150"}},
		{0, 390, []string{"0", "100", "200", "300"}},
		{-3, 3, []string{"-3", "-2", "-1", "0", "1", "2", "3"}},
		{0, 4e6, []string{"0", "1e6", "2e6", "3e6", "4e6"}},
		{1e18, 1e18 + 100, nil},
		{1, 1, nil},
	}
	for _, tc := range tests {
		var got []string
		for _, tk := range (linearTicks{target: 5}).Ticks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ticks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) (labelled []string, minor int) {
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label == "" {
				minor++
			} else {
				labelled = append(labelled, tk.Label)
			}
		}
		return
	}
	if got, minor := labels(0.8, 1200); fmt.Sprint(got) != "[1 10 100 1000]" || minor != 26 {
		t.Errorf("0.8..1200: %v (%d minor)", got, minor)
	}
	if got, _ := labels(0.09, 1.1); fmt.Sprint(got) != "[0.1 0.2 0.5 1]" {
		t.Errorf("0.09..1.1: %v", got)
	}
	if got, _ := labels(3e5, 2e7); fmt.Sprint(got) != "[500000 1e6 2e6 5e6 1e7 2e7]" {
		t.Errorf("3e5..2e7: %v", got)
	}
	if got := (logTicks{}).Ticks(-1, 10); got != nil {
		t.Errorf("non-positive range: %v", got)
	}
	if v := (logScale{}).Normalize(1, 100, 10); math.Abs(v-0.5) > 1e-12 {
		t.Errorf("logScale(10) = %v", v)
	}
	if v := (logScale{}).Normalize(1, 100, 0); !math.IsNaN(v) {
		t.Errorf("logScale(0) = %v, want NaN", v)
	}
}

func TestMarkerIndices(t *testing.T) {
	if got := markerIndices(4, 8, 0); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("few points: %v", got)
	}
	got := markerIndices(100, 8, 1)
	if len(got) != 8 {
		t.Errorf("many points: %v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] || got[i] >= 100 {
			t.Errorf("indices not increasing in range: %v", got)
		}
	}
	if markerIndices(10, 0, 0) != nil {
		t.Error("limit 0 should give no markers")
	}
}

func TestSegmentHitsRect(t *testing.T) {
	tests := []struct {
		x0, y0, x1, y1 float64
		want           bool
	}{
		{-1, 0.5, 2, 0.5, true},    // crosses horizontally
		{0.5, 0.5, 0.6, 0.6, true}, // inside
		{-1, -1, -0.5, 2, false},   // left of the box
		{-1, 2, 2, 2, false},       // above
		{-1, 0, 1, 2, true},        // diagonal through the corner region
		{2, -1, 3, 0, false},       // diagonal missing
	}
	for _, tc := range tests {
		if got := segmentHitsRect(tc.x0, tc.y0, tc.x1, tc.y1, 0, 0, 1, 1); got != tc.want {
			t.Errorf("segment %v: got %v", tc, got)
		}
	}
}

// TestConcurrentRender renders figures from several goroutines at once;
// run with -race to check that rendering shares no mutable state.
func TestConcurrentRender(t *testing.T) {
	fxs := fixtures()
	errs := make(chan error, len(fxs))
	for _, fx := range fxs {
		go func() {
			var buf bytes.Buffer
			errs <- fx.fig().Encode(&buf, "svg")
		}()
	}
	for range fxs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
