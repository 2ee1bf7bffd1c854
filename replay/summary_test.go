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
