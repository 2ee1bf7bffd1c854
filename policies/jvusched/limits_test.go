package jvusched

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// TestPlanSlicesAreBounded: a plan-ahead window of more than MaxPlanSlices slices is refused
// when the policy is built, naming the keys and the bound (plan_ahead_s=327680 and quantum_s=0.001
// with plan_ahead_s=65 passed and ran out of memory at the first cycles).
func TestPlanSlicesAreBounded(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		cycle  traces.Time
		want   string // "" = accepted
	}{
		{map[string]any{"plan_ahead_s": 327680}, 5 * sec, "policy.params.plan_ahead_s=327680 with time slices of 5 s (engine.cycle_s, as policy.params.quantum_s is unset) makes 65536 slices, over the bound of 4096"},
		{map[string]any{"plan_ahead_s": 65, "quantum_s": 0.001}, 5 * sec, "policy.params.plan_ahead_s=65 with time slices of 0.001 s (policy.params.quantum_s) makes 65000 slices, over the bound of 4096"},
		{map[string]any{"plan_ahead_s": 327680}, 0, "time slices of 5 s (the default, as policy.params.quantum_s and engine.cycle_s are unset) makes 65536 slices"},
		{map[string]any{}, traces.Second / 1000, "policy.params.plan_ahead_s=60 with time slices of 0.001 s (engine.cycle_s, as policy.params.quantum_s is unset) makes 60000 slices"},
		{map[string]any{"plan_ahead_s": 20480}, 5 * sec, ""},
		{map[string]any{"plan_ahead_s": 20481}, 5 * sec, "makes 4097 slices"},
		{map[string]any{}, 5 * sec, ""},
	} {
		_, err := New(policies.Options{Params: tc.params, Cycle: tc.cycle})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v, cycle %v: %v, want it accepted", tc.params, tc.cycle, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v, cycle %v: got %v, want an error containing %q", tc.params, tc.cycle, err, tc.want)
		}
	}
}

// TestSizeLimits: a global MILP over max_milp_vars is recorded (status size_limit, a fallback)
// and retried with half the jobs, which then run; every job still completes. In greedy mode a
// job whose own MILP is over the limits is not started that cycle; the run goes on.
func TestSizeLimits(t *testing.T) {
	w := func() *traces.Workload {
		return &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{
			gang(0, 1, 10*sec, 10*sec), gang(0, 1, 10*sec, 10*sec), gang(0, 1, 10*sec, 10*sec), gang(0, 1, 10*sec, 10*sec),
		}}
	}
	// Unlimited: one MILP of 4 jobs × 12 start slices at the first cycle.
	res, pol := run(t, w(), map[string]any{}, replay.Config{})
	full := pol.rec.rows[0]
	if full.considered != 4 || full.status == statusSizeLimit || pol.stats.sizeLimited != 0 {
		t.Fatalf("unlimited: first MILP %+v, %d size-limited", full, pol.stats.sizeLimited)
	}
	base := finishes(res)
	// Limited to fewer variables than the 4-job model has, more than a 2-job one.
	res, pol = run(t, w(), map[string]any{"max_milp_vars": full.cols - 1}, replay.Config{})
	r0, r1 := pol.rec.rows[0], pol.rec.rows[1]
	if r0.status != statusSizeLimit || !r0.fallback || r0.considered != 4 || r1.call != r0.call || r1.considered != 2 || r1.status != "optimal" {
		t.Errorf("limited: rows %+v and %+v; want a size_limit fallback for 4 jobs, then 2 solved", r0, r1)
	}
	for i, j := range res.Jobs {
		if !j.Completed {
			t.Errorf("limited: job %d did not complete (finishes %v, unlimited %v)", i, finishes(res), base)
		}
	}
	rep, err := pol.Report(policies.ReportContext{})
	if err != nil || rep.Metrics["jvusched.size_limited"] < 1 || rep.Metrics["jvusched.size_limited"] > rep.Metrics["jvusched.fallbacks"] {
		t.Errorf("limited: metrics %v (%v)", rep.Metrics, err)
	}
	// Greedy, with limits no job's MILP fits: nothing starts, every attempt is recorded.
	res, pol = run(t, w(), map[string]any{"mode": ModeGreedy, "max_milp_nonzeros": 3}, replay.Config{Horizon: 30 * sec})
	if pol.stats.sizeLimited == 0 || pol.stats.sizeLimited != pol.stats.fallbacks || int64(len(pol.rec.rows)) != pol.stats.solves {
		t.Errorf("greedy: %d size-limited, %d fallbacks, %d rows, %d solves", pol.stats.sizeLimited, pol.stats.fallbacks, len(pol.rec.rows), pol.stats.solves)
	}
	for i, j := range res.Jobs {
		if j.FirstStart >= 0 {
			t.Errorf("greedy: job %d started at %d although no MILP fits", i, j.FirstStart)
		}
	}
}

// TestActivity: during a solve the policy says what it solves, for progress lines; between
// solves nothing.
func TestActivity(t *testing.T) {
	p := &Policy{}
	if got := p.Activity(); got != "" {
		t.Errorf("idle: %q", got)
	}
	p.solving.Store(12000)
	if got, want := p.Activity(), "solving a 12,000-variable MILP"; got != want {
		t.Errorf("solving: %q, want %q", got, want)
	}
}
