package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureRegion: a ratio claim (= 0.47 ± 25%) along two settings, every verdict and a row the
// claim could not be judged at.
func fixtureRegion() *Figure {
	return NewRegion("fig-region", "", "CORA / FIFO sum − 1", "Setting",
		[]string{"held", "not significant", "not held"},
		[]Mark{{Label: "paper 0.47", X: 0.47}}, &Range{Min: 0.3525, Max: 0.5875},
		RegionRow{Label: "base", Value: 0.025, Lo: 0.005, Hi: 0.044, Verdict: 2},
		RegionRow{Label: "task_startup_s=5", Value: 0.06, Lo: 0.03, Hi: 0.09, Verdict: 2},
		RegionRow{Label: "task_startup_s=10", Value: 0.3, Lo: 0.1, Hi: 0.5, Verdict: 1},
		RegionRow{Label: "contention_slope=0.5", Value: 0.45, Lo: 0.4, Hi: 0.5, Verdict: 0},
		RegionRow{Label: "straggler_p=0.1", Value: math.NaN(), Verdict: 1},
	)
}

// TestRegionGolden compares the region fixture with testdata/region.svg (`go test ./report
// -run Region -update` rewrites it).
func TestRegionGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := fixtureRegion().Encode(&buf, "svg"); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	golden := filepath.Join("testdata", "region.svg")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run `go test ./report -run Region -update` to create it)", err)
	}
	if msg := compareSVG(want, got); msg != "" {
		gotPath := filepath.Join("testdata", "region.got.svg")
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Fatalf("region differs from golden: %s\nwrote %s", msg, gotPath)
	}
	if *pngDir != "" {
		if err := fixtureRegion().Render(filepath.Join(*pngDir, "region.png")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegionLayout checks what the figure plots: the first row on top, every row labelled,
// the legend naming only the verdicts drawn and the named mark, and the x range holding every
// interval, mark and band.
func TestRegionLayout(t *testing.T) {
	f := fixtureRegion()
	f.Regions[3].Verdict = 1 // no row held any more: no "held" entry
	st := f.style()
	b, err := f.build(st)
	if err != nil {
		t.Fatal(err)
	}
	ticks := b.p.Y.Tick.Marker.Ticks(b.p.Y.Min, b.p.Y.Max)
	if len(ticks) != 5 || ticks[0].Label != "base" || ticks[0].Value != 4 || ticks[4].Label != "straggler_p=0.1" || ticks[4].Value != 0 {
		t.Errorf("row ticks %+v", ticks)
	}
	var names []string
	for _, e := range b.legend {
		names = append(names, e.label)
	}
	if got := strings.Join(names, "|"); got != "not significant|not held|paper 0.47" {
		t.Errorf("legend %q", got)
	}
	if b.p.X.Min > 0.005 || b.p.X.Max < 0.5875 {
		t.Errorf("x range [%v, %v] misses the data", b.p.X.Min, b.p.X.Max)
	}
}

// TestRegionInvalid checks bad rows are errors naming the figure.
func TestRegionInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(f *Figure)
		want string
	}{
		{"no rows", func(f *Figure) { f.Regions = nil }, "no rows"},
		{"verdict", func(f *Figure) { f.Regions[0].Verdict = 3 }, "verdict 3 of 3"},
		{"outside", func(f *Figure) { f.Regions[0].Value = 1 }, "outside its interval"},
		{"inf", func(f *Figure) { f.Regions[1].Hi = math.Inf(1) }, "value"},
		{"mark", func(f *Figure) { f.RegionMarks[0].X = math.NaN() }, "mark X"},
		{"band", func(f *Figure) { f.RegionBand = &Range{Min: 1, Max: 0} }, "band"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fixtureRegion()
			tc.edit(f)
			err := f.Encode(&bytes.Buffer{}, "svg")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fig-region") {
				t.Errorf("got %v, want ErrInvalid with %q", err, tc.want)
			}
		})
	}
}
