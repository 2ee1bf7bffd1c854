package baseline_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
)

var factories = []struct {
	name string
	new  policies.Factory
}{
	{baseline.FIFOName, baseline.NewFIFO},
	{baseline.FairName, baseline.NewFair},
	{baseline.DRFName, baseline.NewDRF},
	{baseline.SPName, baseline.NewSP},
	{baseline.EDFName, baseline.NewEDF},
	{baseline.SRPTName, baseline.NewSRPT},
}

func TestFactoriesNameTheirPolicies(t *testing.T) {
	for _, f := range factories {
		t.Run(f.name+" builds a policy named "+f.name, func(t *testing.T) {
			p := newPolicy(t, f.new, policies.Options{Level: baseline.LevelQueue})
			if p.Name() != f.name {
				t.Errorf("Name() = %q", p.Name())
			}
		})
	}
}

func TestFactoriesRejectAnUnknownLevel(t *testing.T) {
	for _, f := range factories {
		t.Run(f.name+" rejects level \"node\" and names the valid levels", func(t *testing.T) {
			_, err := f.new(policies.Options{Level: "node"})
			if err == nil || !strings.Contains(err.Error(), `"node"`) || !strings.Contains(err.Error(), "job, queue") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestFactoriesValidateParams(t *testing.T) {
	tests := []struct {
		name    string
		factory policies.Factory
		opts    policies.Options
		want    string // substring of the error; "" for success
	}{
		{"fifo rejects any parameter", baseline.NewFIFO, policies.Options{Params: map[string]any{"weights": map[string]any{}}}, "takes none"},
		{"edf rejects any parameter", baseline.NewEDF, policies.Options{Params: map[string]any{"x": 1}}, "policy.params.x"},
		{"fair rejects an unknown parameter and lists the known ones", baseline.NewFair, policies.Options{Params: map[string]any{"preempt": true}}, "valid: weights"},
		{"drf accepts queue weights as a map of numbers", baseline.NewDRF, policies.Options{Level: "queue", Params: map[string]any{"weights": map[string]any{"a": 2, "b": 0.5}}}, ""},
		{"drf accepts queue weights as a map of floats", baseline.NewDRF, policies.Options{Params: map[string]any{"weights": map[string]float64{"a": 2}}}, ""},
		{"drf rejects a weight of zero", baseline.NewDRF, policies.Options{Params: map[string]any{"weights": map[string]any{"a": 0}}}, "weights.a"},
		{"drf rejects a negative weight", baseline.NewDRF, policies.Options{Params: map[string]any{"weights": map[string]int{"a": -1}}}, "weights.a"},
		{"drf rejects a weight that is not a number", baseline.NewDRF, policies.Options{Params: map[string]any{"weights": map[string]any{"b": 1, "a": "heavy"}}}, "weights.a"},
		{"drf rejects weights that are not a map", baseline.NewDRF, policies.Options{Params: map[string]any{"weights": []float64{1}}}, "want a map"},
		{"sp accepts preempt and weights", baseline.NewSP, policies.Options{Params: map[string]any{"preempt": true, "weights": map[string]any{"a": 1}}}, ""},
		{"sp rejects a preempt that is not a boolean", baseline.NewSP, policies.Options{Params: map[string]any{"preempt": "yes"}}, "want true or false"},
		{"sp rejects a class listed twice", baseline.NewSP, policies.Options{ClassOrder: []string{"slo", "be", "slo"}}, `"slo" twice`},
		{"drf ignores a class order it does not use", baseline.NewDRF, policies.Options{ClassOrder: []string{"x", "x"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.factory(tt.opts)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("err = %v, want success", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
