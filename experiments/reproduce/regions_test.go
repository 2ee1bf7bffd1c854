package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/claim"
)

// TestShortPoints checks the region figures' row names.
func TestShortPoints(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"base", "engine.task_startup_s=5", "engine.straggler_p=0.05,engine.straggler_factor=8", "engine.straggler_p=0.02,engine.straggler_factor=8"},
			[]string{"base", "task_startup_s=5", "straggler_p=0.05", "straggler_p=0.02"}},
		{[]string{"base", "engine.duration_model=contention,engine.contention_slope=0.1", "engine.duration_model=contention,engine.contention_slope=0.3"},
			[]string{"base", "contention_slope=0.1", "contention_slope=0.3"}},
		{[]string{"base", "a.x=1", "b.x=1"}, []string{"base", "a.x=1", "b.x=1"}}, // x=1 twice: in full
	} {
		if got := shortPoints(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("shortPoints(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDrawRegions draws a claim judged at three points — held, not held, not evaluable — and
// checks the figure's files, its rows and the table of plotted points.
func TestDrawRegions(t *testing.T) {
	test := claim.Test{Op: ">", Threshold: 1, Bound: 1.05, Quote: math.NaN()}
	group := func(v, lo, hi float64, verdict claim.Verdict) GroupResult {
		return GroupResult{Outcome: &claim.Outcome{Effect: claim.EffectRatio, Estimate: claim.Estimate{Value: v, Lo: lo, Hi: hi}, Test: test, Verdict: verdict}}
	}
	s := &Sensitivity{
		Points: []string{"base", "engine.task_startup_s=5", "engine.task_startup_s=10"},
		Claims: []SensitivityClaim{{Figure: "ratios", Text: "CORA above FIFO", Results: []ClaimResult{
			{Verdict: claim.Held, Groups: []GroupResult{group(1.2, 1.1, 1.3, claim.Held)}},
			{Verdict: claim.NotHeld, Groups: []GroupResult{group(0.9, 0.85, 0.95, claim.NotHeld)}},
			{Verdict: claim.NotEvaluable},
		}}},
	}
	s.Claims[0].Verdicts = []claim.Verdict{claim.Held, claim.NotHeld, claim.NotEvaluable}
	f := s.regionFigure("ratios-region-1", &s.Claims[0])
	if f == nil || len(f.Regions) != 3 || f.Regions[1].Label != "task_startup_s=5" || f.Regions[1].Verdict != 2 || !math.IsNaN(f.Regions[2].Value) || f.Regions[2].Verdict != 3 {
		t.Fatalf("region figure %+v", f)
	}
	if len(f.RegionMarks) != 2 || f.RegionMarks[0].X != 1 || f.RegionMarks[1].X != 1.05 || f.RegionBand != nil {
		t.Errorf("marks %+v band %v: want the threshold 1 and the margin bound 1.05", f.RegionMarks, f.RegionBand)
	}
	out := t.TempDir()
	dir := filepath.Join(out, "s", FiguresDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.drawRegions(dir, out, []string{"svg"}); err != nil {
		t.Fatal(err)
	}
	if c := s.Claims[0]; len(c.Files) != 1 || c.Files[0] != "s/"+FiguresDir+"/ratios-region-1.svg" || len(c.SVG) == 0 {
		t.Errorf("files %v, %d SVG bytes", c.Files, len(c.SVG))
	}
	csv, err := os.ReadFile(filepath.Join(dir, "regions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ratios,CORA above FIFO,base,,ratio,1.2,1.1,1.3,1,held", "engine.task_startup_s=5,,ratio,0.9,0.85,0.95,1,not held"} {
		if !strings.Contains(string(csv), want) {
			t.Errorf("regions.csv lacks %q:\n%s", want, csv)
		}
	}
}
