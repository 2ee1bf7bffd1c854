package jvusched

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// TestTimeLimitMakesRunNondeterministic: a solve stopped by a limit while the wall-clock time
// limit is set may have been stopped by it, so the run says it is nondeterministic (experiments
// then mark its provenance and the sweep cache does not keep it); a run whose solves all closed,
// one whose solver failed, and one where only the node limit could have stopped a solve are
// deterministic.
func TestTimeLimitMakesRunNondeterministic(t *testing.T) {
	for _, tt := range []struct {
		name      string
		fake      *fakeSolver
		timeLimit time.Duration
		maxNodes  int64
		want      bool
	}{
		{"optimal", &fakeSolver{status: solver.StatusOptimal}, 10 * time.Second, 0, false},
		{"incumbent at the time limit", &fakeSolver{status: solver.StatusFeasible}, 10 * time.Second, 0, true},
		{"no solution at the time limit", &fakeSolver{status: solver.StatusLimit}, 10 * time.Second, 0, true},
		{"either limit", &fakeSolver{status: solver.StatusFeasible}, 10 * time.Second, 100, true},
		{"node limit only", &fakeSolver{status: solver.StatusFeasible}, 0, 100, false},
		{"solver error", &fakeSolver{err: errors.Join(solver.ErrSolverFailed)}, 10 * time.Second, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			solvertest.Need(t)
			tt.fake.real = solver.DefaultPool()
			prm := Defaults()
			prm.TimeLimit, prm.MaxNodes = tt.timeLimit, tt.maxNodes
			pol := newPolicy(prm, "", tt.fake)
			w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 10*sec, 10*sec)}}
			e, err := replay.New(w, pol, replay.Config{Cycle: 5 * sec})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(); err != nil {
				t.Fatal(err)
			}
			why := pol.NondeterministicReason()
			if (why != "") != tt.want {
				t.Fatalf("reason %q, want nondeterministic %v (%d limited, %d fallbacks)", why, tt.want, pol.stats.limitIncumbent, pol.stats.fallbacks)
			}
			if tt.want && !strings.Contains(why, "time_limit_s") {
				t.Errorf("reason %q does not name time_limit_s", why)
			}
		})
	}
}
