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
		fmt.Fprintf(jobs, "%+v\n", j)
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
