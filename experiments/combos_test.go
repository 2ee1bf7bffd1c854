package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestMechanismCombosRefused: the mechanisms the engine refuses together (replay/combos.go) come
// back from Run as configuration errors (exit 2), naming both keys.
func TestMechanismCombosRefused(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string // "" = accepted
	}{
		{[]string{"engine.am=true", "engine.am_demand=0.1,0.1", "engine.failures_mttf_s=3600", "engine.failures_mttr_s=60"}, "engine.am) with the failure model (engine.failures_mttf_s)"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1", "engine.failures_mttf_s=3600", "engine.failures_mttr_s=60"}, "with the failure model (engine.failures_mttf_s)"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1", "engine.am=true", "engine.am_demand=0.1,0.1"}, "with application masters (engine.am)"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1"}, ""},
	} {
		_, err := Run(resolve(t, append([]string{"policy.name=fifo", "engine.horizon_s=600"}, tc.sets...)...))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want accepted", tc.sets, err)
		case tc.want != "" && (err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want a configuration error with %q", tc.sets, err, tc.want)
		}
	}
}
