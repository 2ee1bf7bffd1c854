package stats

import (
	"math"
	"testing"
)

func TestDomainOf(t *testing.T) {
	for _, tc := range []struct {
		metric string
		want   Domain
	}{
		{"avg_jct_s", NonNegative}, {"job.jct_s", NonNegative}, {"table.cycles.wall_ms", NonNegative},
		{"be_goodput_task_hours", NonNegative}, {"completed", NonNegative}, {"by_queue.q1.jobs", NonNegative},
		{"slo_miss_rate", Fraction}, {"by_class.slo.slo_miss_rate", Fraction}, {"utilization.cpu", Fraction},
		{"utilization", Fraction}, {"queue_dominant_share.batch-1", Fraction},
		{"timed_utility.p50_delta_s", Signed}, {"min_utility", Signed}, {"job.rel_error", Signed},
		{"speedup", Ratio}, {"jct_ratio", Ratio}, {"", Signed}, {"some_metric", Signed},
		{"cora.shadow.fifo.positive", Fraction}, {"cora.shadow.fair.share_rel_gain_18", Fraction},
		{"cora.shadow.fair.mean_gain", Signed}, {"cora.shadow.fair.rel_gain_q35", Signed}, {"cora.events", NonNegative},
		{"jvusched.milp.max_rows", NonNegative}, {"predict.within_2x", Fraction}, {"predict.no_prediction", Fraction},
		{"predict.median_rel_error", Signed}, {"by_class.slo.jobs", NonNegative}, {"late_slo_jobs", NonNegative},
	} {
		if got := DomainOf(tc.metric); got != tc.want {
			t.Errorf("DomainOf(%q) = %v, want %v", tc.metric, got, tc.want)
		}
	}
}

// TestDomainMeanCI: intervals of bounded quantities stay in their domain (the report showed an
// SLO miss rate's error bar reaching −0.33 and a goodput's −85), and a ratio's interval is on
// the log scale: positive, wider above than below.
func TestDomainMeanCI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		xs     []float64
		d      Domain
		lo, hi float64 // want; NaN: the Student-t bound
	}{
		{"fraction low", []float64{0, 0, 0.5}, Fraction, 0, math.NaN()},
		{"fraction high", []float64{1, 1, 0.9}, Fraction, math.NaN(), 1},
		{"non-negative", []float64{0, 2, 300}, NonNegative, 0, math.NaN()},
		{"signed is not clipped", []float64{0, 2, 300}, Signed, math.NaN(), math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tci, _ := MeanCI(tc.xs, 0.95)
			got, err := DomainMeanCI(tc.xs, 0.95, tc.d)
			if err != nil {
				t.Fatal(err)
			}
			wantLo, wantHi := tc.lo, tc.hi
			if math.IsNaN(wantLo) {
				wantLo = tci.Lo
			}
			if math.IsNaN(wantHi) {
				wantHi = tci.Hi
			}
			if got.Estimate != tci.Estimate || got.Lo != wantLo || got.Hi != wantHi {
				t.Errorf("DomainMeanCI = %v, want [%v, %v] (Student t %v)", got, wantLo, wantHi, tci)
			}
		})
	}
	xs := []float64{0.2, 1, 5}
	got, err := DomainMeanCI(xs, 0.95, Ratio)
	if err != nil {
		t.Fatal(err)
	}
	tci, _ := MeanCI(xs, 0.95)
	if !(tci.Lo < 0) || !(got.Lo > 0) || !(got.Lo < got.Estimate && got.Estimate < got.Hi) || got.Hi-got.Estimate <= got.Estimate-got.Lo || got.Symmetric() {
		t.Errorf("ratio interval %v (Student t %v): want positive and wider above", got, tci)
	}
	// Log scale: the bounds are the mean times and divided by the same factor.
	if f1, f2 := got.Hi/got.Estimate, got.Estimate/got.Lo; math.Abs(f1-f2) > 1e-12 {
		t.Errorf("ratio interval factors %v and %v differ", f1, f2)
	}
	one, _ := DomainMeanCI([]float64{3}, 0.95, Fraction)
	if !math.IsNaN(one.Lo) || !math.IsNaN(one.Hi) {
		t.Errorf("one value: %v, want no interval", one)
	}
}
