package rrh_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/policies/rrh"
	"github.com/schedlab/schedlab/traces"
)

func sigmoid(p, mu, target float64) *traces.Utility {
	return &traces.Utility{Kind: traces.UtilitySigmoid, Priority: p, Decay: mu, Target: traces.FromSeconds(target)}
}

func TestDecay(t *testing.T) {
	for _, tt := range []struct {
		u    *traces.Utility
		want float64
	}{
		{sigmoid(4, 5, 0), 5}, // p·μ/4
		{sigmoid(2, 0, 0), 0}, // flat
		{&traces.Utility{Kind: traces.UtilityLinear, Priority: 9, Slope: -0.8}, 0.8},
		{&traces.Utility{Kind: traces.UtilityConstant, Priority: 3}, 0},
		{nil, 0},
	} {
		if got := rrh.Decay(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Decay(%+v) = %v, want %v", tt.u, got, tt.want)
		}
	}
	// The sigmoid's slope at its target is −p·μ/4: check against a numeric derivative.
	u := sigmoid(3, 0.7, 100)
	h := traces.Millisecond
	num := (u.Value(0, u.Target+h) - u.Value(0, u.Target-h)) / traces.Seconds(2*h)
	if math.Abs(num+rrh.Decay(u)) > 1e-6 {
		t.Errorf("numeric slope %v, Decay %v", num, rrh.Decay(u))
	}
}

// TestRewards checks the formula on hand-computed values: two jobs on 10 containers, 100 and 50
// container-seconds of work (RPT 10 s and 5 s).
func TestRewards(t *testing.T) {
	jobs := []jobwork.Job{
		{Work: [traces.MaxDims]float64{100}, Utility: sigmoid(4, 2, 1000)},  // decay 2
		{Work: [traces.MaxDims]float64{50}, Utility: sigmoid(1, 0.4, 1000)}, // decay 0.1
		{Utility: sigmoid(1, 1, 1000)},                                      // no work left
	}
	capacity := traces.VecOf(10)
	prm := rrh.Params{Alpha: 0.5, Discount: 0.01}
	r := rrh.Rewards(0, capacity, jobs, prm)
	gain0 := jobs[0].Utility.Value(0, traces.FromSeconds(10))
	gain1 := jobs[1].Utility.Value(0, traces.FromSeconds(5))
	want0 := (0.5*gain0/math.Pow(1.01, 10) - 0.5*10*(0.1+0.25)) / 10
	want1 := (0.5*gain1/math.Pow(1.01, 5) - 0.5*5*(2+0.25)) / 5
	if math.Abs(r[0]-want0) > 1e-12 || math.Abs(r[1]-want1) > 1e-12 || !math.IsInf(r[2], 1) {
		t.Errorf("rewards %v, want %v %v +Inf", r, want0, want1)
	}
	if got := rrh.Rank(0, capacity, jobs, prm); !slices.Equal(got, []int{2, 0, 1}) {
		t.Errorf("rank %v, want [2 0 1]: the finishing job, then the steep one", got)
	}
	// α = 1: reward is the discounted gain per second of processing.
	if got := rrh.Rank(0, capacity, jobs[:2], rrh.Params{Alpha: 1}); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("α=1 rank %v, want [0 1] (gain/RPT 4/10 against 1/5)", got)
	}
}

// TestPolicyServesInRewardOrder: the steep job takes the cluster first.
func TestPolicyServesInRewardOrder(t *testing.T) {
	p, err := rrh.New(policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := policytest.New(traces.VecOf(4, 100))
	for i, u := range []*traces.Utility{sigmoid(3, 0.05, 500), sigmoid(3, 5, 500)} {
		if _, err := f.AddJob(traces.Job{ID: int64(i), Name: "j", Queue: "q", Utility: u, Stages: []traces.Stage{
			{Name: "m", Tasks: 6, Demand: traces.VecOf(1), Duration: 10 * traces.Second, Estimate: 10 * traces.Second}}}); err != nil {
			t.Fatal(err)
		}
	}
	f.Advance(0)
	plan, err := f.Step(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Starts) != 1 || plan.Starts[0].Job != 1 || plan.Starts[0].Count != 4 {
		t.Errorf("plan %+v, want all 4 containers to the steep job 1", plan.Starts)
	}
}

func TestParams(t *testing.T) {
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"alpha": 1.5}, "alpha: want a weight in [0, 1]"},
		{map[string]any{"alpha": "x"}, "alpha: want a weight in [0, 1], got x"},
		{map[string]any{"discount_per_s": -1}, "discount_per_s"},
		{map[string]any{"beta": 1}, "unknown parameter policy.params.beta (valid: alpha, discount_per_s)"},
	} {
		if _, err := rrh.New(policies.Options{Params: tt.params}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.params, err, tt.want)
		}
	}
	if _, err := rrh.New(policies.Options{Params: map[string]any{"alpha": "0.3", "discount_per_s": 0}}); err != nil {
		t.Errorf("valid params: %v", err)
	}
}
