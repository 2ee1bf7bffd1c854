package replay_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/builtin"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// inertCases are the runs whose event logs and results testdata/inert.golden pins: the engine as
// it was before the execution mechanics (holding.go, durations.go) existed. Preemption (sp with
// params.preempt), the preemption delay and kept work are on in some, so every path a mechanic
// hooks into is exercised.
var inertCases = []struct {
	name, policy string
	machines     int
	cfg          replay.Config
	params       map[string]any
}{
	{"fifo/machines8", "fifo", 8, replay.Config{}, nil},
	{"drf/pooled", "drf", 0, replay.Config{}, nil},
	{"fair/machines8/cycle", "fair", 8, replay.Config{Cycle: 5 * traces.Second}, nil},
	{"sp/machines8/preempt", "sp", 8, replay.Config{PreemptDelay: 2 * traces.Second, PreemptKeepsWork: true}, map[string]any{"preempt": true}},
	{"srpt/machines8/soft", "srpt", -8, replay.Config{}, nil},
}

// inertDigest replays one case and returns a line with the SHA-256 of its event log and of its
// per-job results, and its summary.
func inertDigest(t *testing.T, name, policy string, machines int, cfg replay.Config, params map[string]any) string {
	t.Helper()
	w := syntheticWorkload(3000, 64, max(machines, -machines), 7)
	for j := range w.Jobs {
		w.Jobs[j].Class = []string{"lq", "tq"}[j%2]
		if machines < 0 {
			w.Jobs[j].Placement = traces.Placement{Kind: traces.PlacementGPU, Slowdown: 1.5}
		}
	}
	if machines < 0 {
		for m := range w.Cluster.Machines {
			w.Cluster.Machines[m].GPU = m%2 == 0
		}
	}
	p, err := newPolicyOpts(policy, policies.Options{Level: "job", ClassOrder: []string{"lq", "tq"}, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	logHash := sha256.New()
	cfg.Log = func(l replay.LogEntry) { fmt.Fprintln(logHash, l) }
	e, err := replay.New(w, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	jobs := sha256.New()
	for _, j := range res.Jobs {
		// AMStart (the YARN mechanics' AM placement, -1 without one) came after the golden's
		// engine; a record without an AM prints as that engine's did.
		fmt.Fprintln(jobs, strings.Replace(fmt.Sprintf("%+v", j), " AMStart:-1", "", 1))
	}
	s := replay.Summarize(res)
	return fmt.Sprintf("%s events=%d starts=%d preemptions=%d log=%x jobs=%x avg_jct_s=%g makespan_s=%g utilization=%v",
		name, res.Stats.Events, res.Stats.Starts, res.Stats.Preemptions, logHash.Sum(nil)[:12], jobs.Sum(nil)[:12], s.AvgJCT, s.Makespan, s.Utilization)
}

// TestDefaultIsInert: with every execution mechanic at its default the engine's event logs and
// results are byte-identical to the engine's before the mechanics existed (testdata/inert.golden,
// written by that engine).
func TestDefaultIsInert(t *testing.T) {
	var got strings.Builder
	for _, c := range inertCases {
		fmt.Fprintln(&got, inertDigest(t, c.name, c.policy, c.machines, c.cfg, c.params))
	}
	// Every mechanic set explicitly to its inert value: the same bytes. A contention model with
	// slope 0 (f = 1) runs the mechanics' code path and must not change a duration either.
	var explicit, slope0 strings.Builder
	for _, c := range inertCases {
		cfg := c.cfg
		cfg.Seed = 99
		cfg.Holding = replay.Holding{Dist: replay.HoldConst}
		cfg.Variance = replay.Variance{StragglerFactor: 1}
		fmt.Fprintln(&explicit, inertDigest(t, c.name, c.policy, c.machines, cfg, c.params))
		cfg.Durations = replay.Contention{Slope: 0}
		fmt.Fprintln(&slope0, inertDigest(t, c.name, c.policy, c.machines, cfg, c.params))
	}
	if explicit.String() != got.String() || slope0.String() != got.String() {
		t.Errorf("explicit inert settings change the run:\ndefault:\n%sexplicit:\n%scontention slope 0:\n%s", got.String(), explicit.String(), slope0.String())
	}
	const golden = "testdata/inert.golden"
	if flag.Lookup("update").Value.String() == "true" { // the -update flag of scenario_test.go
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("default run differs from the pre-mechanics engine:\ngot:\n%swant:\n%s", got.String(), want)
	}
}

func newPolicyOpts(name string, o policies.Options) (policies.Policy, error) {
	return builtin.Registry().New(name, o)
}

// taskDurations replays w under policy with cfg and returns how long each task attempt that was
// never preempted ran from start to finish, by task.
func taskDurations(t *testing.T, w *traces.Workload, policy string, cfg replay.Config) (map[[3]int32]traces.Time, *replay.Engine) {
	t.Helper()
	p, err := newPolicyOpts(policy, policies.Options{Level: "job"})
	if err != nil {
		t.Fatal(err)
	}
	started := map[[3]int32]traces.Time{}
	out := map[[3]int32]traces.Time{}
	cfg.Log = func(l replay.LogEntry) {
		k := [3]int32{l.Job, l.Stage, l.Task}
		switch l.Kind {
		case replay.KindStart:
			started[k] = l.T
		case replay.KindFinish:
			out[k] = l.T - started[k]
		}
	}
	e, err := replay.New(w, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return out, e
}

// TestVarianceIsPolicyIndependent: on one seed, fifo and drf start tasks in different orders and
// at different times, yet every task runs exactly as long under both (holds, spread and
// stragglers are drawn per task), and differently from the workload's durations; estimates,
// which policies see, keep the workload's values.
func TestVarianceIsPolicyIndependent(t *testing.T) {
	w := syntheticWorkload(2000, 64, 8, 3)
	cfg := replay.Config{Seed: 42, Variance: replay.Variance{Sigma: 0.8, StragglerP: 0.05, StragglerFactor: 4},
		Holding: replay.Holding{Startup: traces.Second, Dist: replay.HoldExp}}
	a, ea := taskDurations(t, w, "fifo", cfg)
	b, _ := taskDurations(t, w, "drf", cfg)
	if len(a) != 2000 || len(b) != 2000 {
		t.Fatalf("%d and %d tasks finished, want 2000", len(a), len(b))
	}
	changed := 0
	for k, d := range a {
		if b[k] != d {
			t.Fatalf("task %v: %d µs under fifo, %d under drf", k, d, b[k])
		}
		if d != w.Jobs[k[0]].Stages[k[1]].TaskDuration(k[2])+traces.Second {
			changed++
		}
	}
	if changed < 1900 {
		t.Errorf("only %d of 2000 task durations differ from the workload's", changed)
	}
	for j := range w.Jobs {
		for s, st := range ea.Job(policies.JobID(j)).Stages {
			if st.Estimate != w.Jobs[j].Stages[s].Estimate {
				t.Fatalf("job %d stage %d: estimate %d, workload says %d", j, s, st.Estimate, w.Jobs[j].Stages[s].Estimate)
			}
		}
	}
	// Another seed draws other durations.
	cfg.Seed = 43
	c, _ := taskDurations(t, w, "fifo", cfg)
	same := 0
	for k, d := range a {
		if c[k] == d {
			same++
		}
	}
	if same > 100 {
		t.Errorf("seeds 42 and 43 give %d equal task durations of 2000", same)
	}
}
