package bpf

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestTestbedScenario: three LQs with their own first arrivals and periods, N jobs each, and 20
// TQ jobs in waves of 8 every 160 s (ccra's multi-LQ runs: 8, 8 and 4 jobs at 0, 160, 320 s).
func TestTestbedScenario(t *testing.T) {
	o := tpch(t, func(o *Options) {
		o.LQs, o.TQs, o.Bursts, o.TQJobs = 3, 1, 10, 20
		o.LQFirstS, o.LQPeriodsS = "250, 300, 350", "150,110,60"
		o.TQWaveJobs, o.TQWaveGapS = 8, 160
		o.Unpooled = true
	})
	w, err := Generate(o, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if w.Cluster.Pooled || len(w.Cluster.Machines) != 40 {
		t.Errorf("unpooled: pooled=%v machines=%d", w.Cluster.Pooled, len(w.Cluster.Machines))
	}
	got := map[string][]float64{}
	for i := range w.Jobs {
		got[w.Jobs[i].Queue] = append(got[w.Jobs[i].Queue], traces.Seconds(w.Jobs[i].Submit))
	}
	for q, first := range map[string]float64{"lq0": 250, "lq1": 300, "lq2": 350} {
		period := map[string]float64{"lq0": 150, "lq1": 110, "lq2": 60}[q]
		if len(got[q]) != 10 {
			t.Fatalf("%s: %d jobs, want 10", q, len(got[q]))
		}
		for n, s := range got[q] {
			if want := first + float64(n)*period; s != want {
				t.Errorf("%s job %d at %v s, want %v", q, n, s, want)
			}
		}
	}
	waves := map[float64]int{}
	for _, s := range got["tq0"] {
		waves[s]++
	}
	if len(got["tq0"]) != 20 || waves[0] != 8 || waves[160] != 8 || waves[320] != 4 {
		t.Errorf("TQ waves %v, want 8 at 0, 8 at 160, 4 at 320", waves)
	}
	if !strings.Contains(w.Source, `lq_periods_s="150,110,60"`) || !strings.Contains(w.Source, "tq_wave_jobs=8 tq_wave_gap_s=160 unpooled=true") {
		t.Errorf("Source does not record the scenario options: %s", w.Source)
	}
}

// TestScenarioDefaultsUnchanged: without the new options the source string names none of them,
// so existing workloads (and their hashes) are unchanged.
func TestScenarioDefaultsUnchanged(t *testing.T) {
	w, err := Generate(tpch(t, nil), rng(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"lq_periods_s", "lq_first_s", "tq_wave", "unpooled"} {
		if strings.Contains(w.Source, k) {
			t.Errorf("Source mentions %s: %s", k, w.Source)
		}
	}
	for i := range w.Jobs {
		if w.Jobs[i].Class == ClassTQ && w.Jobs[i].Submit != 0 {
			t.Fatalf("TQ job at %v without waves", w.Jobs[i].Submit)
		}
	}
}

func TestScenarioOptionErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.LQs, o.LQPeriodsS = 3, "150,110" }, "Options.LQPeriodsS: \"150,110\" lists 2 values; want one per LQ (3)"},
		{func(o *Options) { o.LQPeriodsS = "0" }, "Options.LQPeriodsS: value 1, \"0\": want seconds in (0, 1e9]"},
		{func(o *Options) { o.LQFirstS = "x" }, "Options.LQFirstS: value 1, \"x\""},
		{func(o *Options) { o.TQWaveJobs = -1 }, "Options.TQWaveJobs: want 0"},
		{func(o *Options) { o.TQWaveJobs, o.TQWaveGapS = 1, 1e9 }, "Options.TQWaveGapS: the last TQ wave"},
	} {
		err := tpch(t, c.mod).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
