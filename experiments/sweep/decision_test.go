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
			// The decision-time counters are cell metrics.
			for i := range r.Table.Rows {
				row := &r.Table.Rows[i]
				charged, calls := row.Metrics["engine.decision_time.charged_s"], row.Metrics["engine.scheduling_calls"]
				if _, ok := row.Metrics["engine.decision_time.delayed_calls"]; !ok || charged <= 0 {
					t.Errorf("cell %d: decision-time metrics %v", row.Cell, row.Metrics)
				}
				if !measured && charged != 0.5*calls {
					t.Errorf("cell %d: charged %g s over %g calls, want 0.5 s each", row.Cell, charged, calls)
				}
			}
		})
	}
}
