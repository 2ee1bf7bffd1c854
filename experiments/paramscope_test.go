package experiments

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestScopedParams: policy.params_for.<policy>.* reaches runs of that policy only, overrides
// policy.params.*, and a scope naming no policy is a configuration error with a suggestion.
func TestScopedParams(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  map[string]any
		want map[string]any // policy.params after Resolve; nil: an error containing err
		err  string
	}{
		{"dropped for another policy", map[string]any{"policy.name": "sp", "policy.params_for.jvusched.be_value": "node"}, map[string]any{}, ""},
		{"applied to its policy", map[string]any{"policy.name": "jvusched", "policy.params_for.jvusched.be_value": "node"},
			map[string]any{"be_value": "node"}, ""},
		{"overrides the unscoped key", map[string]any{"policy.name": "jvusched", "policy.params.epsilon": 0.1, "policy.params_for.jvusched.epsilon": 0.2},
			map[string]any{"epsilon": 0.2}, ""},
		{"nested parameter", map[string]any{"policy.name": "bpf", "policy.params_for.bpf.queues.q.start_s": 5},
			map[string]any{"queues": map[string]any{"q": map[string]any{"start_s": 5}}}, ""},
		{"null leaves it unset", map[string]any{"policy.name": "jvusched", "policy.params_for.jvusched.be_value": nil}, map[string]any{}, ""},
		{"unknown policy", map[string]any{"policy.name": "sp", "policy.params_for.jvsched.be_value": "node"}, nil,
			`policy.params_for.jvsched.be_value: unknown policy "jvsched" in the scope, did you mean jvusched?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := NewViper()
			for k, x := range tt.set {
				v.Set(k, x)
			}
			c, err := Resolve(v)
			if tt.want == nil {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want a configuration error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Policy.Params, tt.want) {
				t.Errorf("params %v, want %v", c.Policy.Params, tt.want)
			}
		})
	}
	if err := CheckKeys([]string{"policy.params_for.jvusched.be_value"}, "test"); err != nil {
		t.Errorf("a scoped key is not a known key: %v", err)
	}
	if err := CheckValue("policy.params_for.prio.x", 1); err == nil || !strings.Contains(err.Error(), `unknown policy "prio"`) {
		t.Errorf("CheckValue of a scope naming no policy: %v", err)
	}
	err := CheckParamScopes("f.yaml", []string{"policy.params_for.jvusched.be_value"}, []string{"sp", "fifo", "sp"})
	if err == nil || !strings.Contains(err.Error(), "f.yaml: policy.params_for.jvusched.be_value: no cell runs policy jvusched") ||
		!strings.Contains(err.Error(), "the cells run fifo, sp") {
		t.Errorf("a scope no cell runs: %v", err)
	}
	if err := CheckParamScopes("f.yaml", []string{"policy.params_for.sp.preempt", "engine.cycle_s"}, []string{"sp"}); err != nil {
		t.Errorf("a scope a cell runs: %v", err)
	}
}
