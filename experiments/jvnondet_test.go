package experiments

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/solvertest"
)

// TestJVuSchedTimeLimitIsNondeterministic: a jvusched run whose solves the wall-clock time limit
// stops (time_limit_s of a nanosecond) has provenance deterministic: false with jvusched's
// reason, so sweeps never cache it; the same run with the default limit, which these small
// MILPs never reach, is deterministic.
func TestJVuSchedTimeLimitIsNondeterministic(t *testing.T) {
	solvertest.Need(t)
	for _, tt := range []struct {
		limit string
		want  bool
	}{{"1e-9", false}, {"10", true}} {
		o, err := Run(quickEXP1(t, "workload.jamaisvu.jobs=20", "policy.params.time_limit_s="+tt.limit))
		if err != nil {
			t.Fatal(err)
		}
		p := o.Provenance()
		if p.Deterministic != tt.want || (p.NondeterministicWhy != "") == tt.want {
			t.Errorf("time_limit_s=%s: deterministic %v (%q), want %v", tt.limit, p.Deterministic, p.NondeterministicWhy, tt.want)
		}
		if !tt.want && !strings.Contains(p.NondeterministicWhy, "time_limit_s") {
			t.Errorf("time_limit_s=%s: reason %q does not name time_limit_s", tt.limit, p.NondeterministicWhy)
		}
	}
}
