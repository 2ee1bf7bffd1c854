package sweep

import (
	"path/filepath"
	"testing"
)

// TestMeasuredDecisionTimeIsNeverCached: a sweep in engine.decision_time: measured mode charges
// wall time to the simulated clock, so its cells are kept out of the cache and computed again by
// the next sweep; in const mode they are cached as usual.
func TestMeasuredDecisionTimeIsNeverCached(t *testing.T) {
	for _, tc := range []struct {
		sets   []string
		second string
	}{
		{[]string{"engine.decision_time=measured", "engine.decision_time_scale=100"}, "8 cells (8 run: 8 not cached as nondeterministic, 0 cached)"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=0.5"}, "8 cells (0 run, 8 cached)"},
	} {
		t.Run(tc.sets[0], func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			p := plan(t, "quick", tc.sets...)
			r := runSweep(t, p, Options{Out: out, Parallel: 2})
			if r.Ran != len(p.Cells) {
				t.Fatalf("first sweep ran %d of %d cells", r.Ran, len(p.Cells))
			}
			measured := tc.sets[0] == "engine.decision_time=measured"
			for _, c := range p.Cells {
				if in := cached(filepath.Join(out, CacheDir), c.Key); in == measured {
					t.Errorf("cell %d: in the cache %v", c.Index, in)
				}
			}
			r = runSweep(t, p, Options{Out: out, Parallel: 2})
			if got := r.Counts(); got != tc.second {
				t.Errorf("second sweep: %s, want %s", got, tc.second)
			}
		})
	}
}
