package experiments

import (
	"errors"
	"strings"
	"testing"
)

func TestMechanismCombosRefused(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string // "" = accepted
	}{
		{[]string{"engine.am=true", "engine.am_demand=1,1", "engine.failures_mttf_s=3600", "engine.failures_mttr_s=60"}, "engine.am with engine.failures_mttf_s"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1", "engine.trace_evictions=replay"}, "engine.decision_time=const with engine.trace_evictions=replay"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1", "engine.failures_mttf_s=3600", "engine.failures_mttr_s=60"}, "with engine.failures_mttf_s"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1", "engine.am=true", "engine.am_demand=1,1"}, "with engine.am"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=1"}, ""},
		{[]string{"engine.am=true", "engine.am_demand=1,1", "engine.trace_evictions=replay"}, ""},
	} {
		err := resolveErr(tc.sets...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want accepted", tc.sets, err)
		case tc.want != "" && (err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want a configuration error with %q", tc.sets, err, tc.want)
		}
	}
}
