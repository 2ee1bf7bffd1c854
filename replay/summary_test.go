package replay

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestUtilitySummary checks the per-class and time-sensitive utility statistics: min and sum
// over jobs with a utility, Δ quartiles over completed jobs with a target, and missed targets
// counting late and unfinished jobs.
func TestUtilitySummary(t *testing.T) {
	s := traces.Second
	jobs := []JobRecord{
		{Class: "critical", Completed: true, Finish: 90 * s, Target: 100 * s, Utility: 3, TimedUtility: true},
		{Class: "critical", Completed: true, Finish: 130 * s, Target: 100 * s, Utility: 0, TimedUtility: true},
		{Class: "critical", Completed: false, Finish: -1, Target: 100 * s, Utility: 0, TimedUtility: true},
		{Class: "sensitive", Completed: true, Finish: 80 * s, Target: 100 * s, Utility: 2, TimedUtility: true},
		{Class: "insensitive", Completed: true, Finish: 500 * s, Target: 100 * s, Utility: 1.5},
		{Class: "none", Completed: true, Finish: 10 * s, Utility: math.NaN()},
	}
	sum := Summarize(&Result{Jobs: jobs})
	crit := sum.UtilityByClass["critical"]
	if crit.Jobs != 3 || crit.MinUtility != 0 || crit.SumUtility != 3 || crit.Targets != 3 || crit.MissedTargets != 2 {
		t.Errorf("critical = %+v", crit)
	}
	if crit.P25Delta != 0 || crit.P50Delta != 10 || crit.P75Delta != 20 || crit.MaxDelta != 30 {
		t.Errorf("critical Δ quartiles = %v %v %v max %v, want 0 10 20 max 30", crit.P25Delta, crit.P50Delta, crit.P75Delta, crit.MaxDelta)
	}
	if _, ok := sum.UtilityByClass["none"]; ok {
		t.Errorf("a class without utilities has a utility group")
	}
	if ts := sum.TimedUtility; ts.Jobs != 4 || ts.SumUtility != 5 || ts.MissedTargets != 2 {
		t.Errorf("time-sensitive = %+v", ts)
	}
	if sum.UtilityJobs != 5 || sum.SumUtility != 6.5 {
		t.Errorf("overall utility jobs %d sum %v", sum.UtilityJobs, sum.SumUtility)
	}
}

// TestSummaryRunTime checks avg_run_s (first task start to finish) against avg_jct_s (submit to
// finish) on hand-built records: queueing before the first start counts in the JCT only, and
// unfinished jobs count in neither.
func TestSummaryRunTime(t *testing.T) {
	s := traces.Second
	r := &Result{
		Queues: []string{"q"},
		Jobs: []JobRecord{
			{Queue: "q", Class: "tq", Submit: 0, FirstStart: 40 * s, Finish: 100 * s, Completed: true},
			{Queue: "q", Class: "tq", Submit: 10 * s, FirstStart: 10 * s, Finish: 30 * s, Completed: true},
			{Queue: "q", Class: "tq", Submit: 0, FirstStart: 50 * s, Finish: -1},
			{Queue: "q", Class: "lq", Submit: 5 * s, FirstStart: 6 * s, Finish: 9 * s, Completed: true},
		},
		QueueShareIntegral: []float64{0},
		End:                100 * s,
	}
	sum := Summarize(r)
	tq := sum.ByClass["tq"]
	if tq.Completed != 2 || tq.AvgJCT != 60 || tq.AvgRun != 40 {
		t.Errorf("tq: %d completed, avg JCT %v, avg run %v; want 2, 60 ((100+20)/2), 40 ((60+20)/2)", tq.Completed, tq.AvgJCT, tq.AvgRun)
	}
	if lq := sum.ByClass["lq"]; lq.AvgRun != 3 || lq.AvgJCT != 4 {
		t.Errorf("lq: avg run %v, avg JCT %v; want 3 and 4", lq.AvgRun, lq.AvgJCT)
	}
	if math.Abs(sum.AvgRun-(60+20+3)/3.0) > 1e-12 {
		t.Errorf("overall avg run %v, want %v", sum.AvgRun, (60+20+3)/3.0)
	}
}
