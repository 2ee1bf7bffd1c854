package claim

import (
	"strings"
	"testing"
)

// TestMaxClaimOnPooledValues: a claim on a maximum is judged on the largest value of every
// seed pooled, not on the mean of the per-seed maxima, whose interval over two seeds reaches
// far beyond the threshold ("max < 5000 ms" was not significant although the pooled max was
// 1378 ms).
func TestMaxClaimOnPooledValues(t *testing.T) {
	src := sweep([]float64{10, 1378}, []float64{900, 950}, 0)
	out := evaluate(t, src, "max(policy=a t_s) < 5000", Options{})
	if out.Verdict != Held || out.Estimate.Value != 1378 || !out.Estimate.Exact || !strings.Contains(out.Estimate.Method, "pooled") {
		t.Errorf("max claim: %v, estimate %+v, reason %q", out.Verdict, out.Estimate, out.Reason)
	}
	out = evaluate(t, src, "min(policy=a t_s) > 20", Options{})
	if out.Verdict != NotHeld || out.Estimate.Value != 10 || !out.Estimate.Exact {
		t.Errorf("min claim: %v, estimate %+v", out.Verdict, out.Estimate)
	}
	// A comparison of two maxima: the pooled maxima, 1378 against 950.
	out = evaluate(t, src, "max(policy=b t_s) < max(policy=a t_s)", Options{})
	if out.Verdict != Held || out.Estimate.Value != 950.0/1378 || !out.Estimate.Exact {
		t.Errorf("max vs max: %v, estimate %+v", out.Verdict, out.Estimate)
	}
	e, err := ParseExpr("max(policy=a t_s)")
	if err != nil {
		t.Fatal(err)
	}
	if est, err := Measure(e, src, nil); err != nil || est.Value != 1378 || !est.Exact {
		t.Errorf("Measure max = %+v, %v", est, err)
	}
	// A mean is still measured over seeds.
	if out := evaluate(t, src, "policy=a t_s < 5000", Options{}); out.Estimate.Exact || out.Estimate.Value != 694 {
		t.Errorf("mean claim: estimate %+v", out.Estimate)
	}
}

// TestValueIntervalsStayInTheDomain: the interval of a measured metric stays in its domain — a
// fraction in [0, 1], a time at or above 0 — where Student's t over three seeds went below 0.
func TestValueIntervalsStayInTheDomain(t *testing.T) {
	var cs cells
	for i, v := range []float64{0, 0, 0.5} {
		cs = append(cs, cell{"a", int64(i + 1), map[string]float64{"slo_miss_rate": v, "goodput_task_hours": 170 * v, "delta_s": v}})
	}
	for _, tc := range []struct {
		metric string
		lo     float64
		t      bool // the Student-t bound, below 0
	}{{"slo_miss_rate", 0, false}, {"goodput_task_hours", 0, false}, {"delta_s", 0, true}} {
		e, err := ParseExpr("policy=a " + tc.metric)
		if err != nil {
			t.Fatal(err)
		}
		est, err := Measure(e, cs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.t && !(est.Lo < 0) || !tc.t && est.Lo != tc.lo || !(est.Hi > est.Value) {
			t.Errorf("%s: %+v", tc.metric, est)
		}
	}
	e, _ := ParseExpr("policy=a slo_miss_rate")
	if est, _ := Measure(e, cs, nil); est.Hi > 1 {
		t.Errorf("slo_miss_rate upper bound %v above 1", est.Hi)
	}
}
