package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDecision = flag.Bool("update-decision", false, "rewrite testdata/decision/none.golden from the current code")

// decisionGoldenRuns are the runs whose outputs engine.decision_time: none must leave as they
// were before the key existed: event-driven with queue-less DRF and cycle-driven FIFO.
var decisionGoldenRuns = [][]string{
	{"policy.name=drf", "engine.horizon_s=2000"},
	{"policy.name=fifo", "engine.cycle_s=5", "engine.horizon_s=2000"},
}

// outputDigests runs sets and returns one line per deterministic output: jobs.parquet,
// usage.parquet, config.yaml and summary.json's metrics and waits sections, each with its
// SHA-256.
func outputDigests(t *testing.T, sets ...string) string {
	t.Helper()
	o, err := Run(resolve(t, sets...))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := o.WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sum := func(name string, data []byte) {
		h := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %s\n", name, hex.EncodeToString(h[:]))
	}
	for _, f := range []string{JobsFile, UsageFile, ConfigFile} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sum(f, data)
	}
	raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sum("summary.json:metrics", doc["metrics"])
	sum("summary.json:waits", doc["waits"])
	var engine map[string]json.RawMessage
	if err := json.Unmarshal(doc["engine"], &engine); err != nil {
		t.Fatal(err)
	}
	if _, ok := engine["decision_time"]; ok {
		fmt.Fprintf(&b, "summary.json:engine has decision_time\n")
	}
	return b.String()
}

// TestDecisionTimeNoneKeepsOutputs: with engine.decision_time unset or none, the outputs are
// byte for byte those of schedlab before decision time existed (the golden digests were taken
// from main at 1be1e39, before the change); const with 0 s gives the same results.
func TestDecisionTimeNoneKeepsOutputs(t *testing.T) {
	var got strings.Builder
	for _, sets := range decisionGoldenRuns {
		d := outputDigests(t, sets...)
		fmt.Fprintf(&got, "# %s\n%s", strings.Join(sets, " "), d)
		if none := outputDigests(t, append(sets, "engine.decision_time=none")...); none != d {
			t.Errorf("%v: engine.decision_time=none changed the outputs:\n%s\nvs\n%s", sets, none, d)
		}
		zero := outputDigests(t, append(sets, "engine.decision_time=const", "engine.decision_time_s=0")...)
		if jobs := strings.SplitN(d, "\n", 2)[0]; !strings.HasPrefix(zero, jobs+"\n") {
			t.Errorf("%v: const 0 s changed jobs.parquet: %s vs %s", sets, strings.SplitN(zero, "\n", 2)[0], jobs)
		}
	}
	golden := filepath.Join("testdata", "decision", "none.golden")
	if *updateDecision {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("outputs differ from %s:\n%s", golden, got.String())
	}
}

// TestDecisionTimeConst: a constant decision time delays every plan, is charged once per call,
// is recorded in summary.json and config.yaml, and keeps the run deterministic.
func TestDecisionTimeConst(t *testing.T) {
	base := []string{"policy.name=fifo", "engine.horizon_s=2000"}
	none, err := Run(resolve(t, base...))
	if err != nil {
		t.Fatal(err)
	}
	doc := checkDeterministic(t, append(base, "engine.decision_time=const", "engine.decision_time_s=2")...)
	dt := doc.Engine.DecisionTime
	if dt == nil || dt.Mode != DecisionConst {
		t.Fatalf("summary.json engine.decision_time = %+v, want the const record", dt)
	}
	if want := 2 * float64(doc.Engine.SchedulingCalls); dt.ChargedS != want {
		t.Errorf("charged %g s over %d calls, want %g", dt.ChargedS, doc.Engine.SchedulingCalls, want)
	}
	if dt.DelayedCalls == 0 {
		t.Errorf("no call fell due while the scheduler was busy in a loaded run: %+v", dt)
	}
	if !doc.Provenance.Deterministic || doc.Provenance.NondeterministicWhy != "" {
		t.Errorf("const mode marked nondeterministic: %+v", doc.Provenance)
	}
	if doc.Provenance.Config["engine"].(map[string]any)["decision_time_s"] != 2.0 {
		t.Errorf("provenance config lacks decision_time_s: %v", doc.Provenance.Config["engine"])
	}
	// The first job's first task cannot start before its arrival plus the decision time.
	first := none.Result.Jobs[0]
	c := resolve(t, append(base, "engine.decision_time=const", "engine.decision_time_s=2")...)
	late, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := late.Result.Jobs[0].FirstStart; got != first.FirstStart+2_000_000 {
		t.Errorf("job 0 first start %d, want %d (2 s after %d)", got, first.FirstStart+2_000_000, first.FirstStart)
	}
}

// TestDecisionTimeMeasured: measured mode charges the calls' wall times (scaled), and the run
// says in its provenance that it is not deterministic.
func TestDecisionTimeMeasured(t *testing.T) {
	c := resolve(t, "policy.name=fifo", "engine.horizon_s=500", "engine.decision_time=measured", "engine.decision_time_scale=1000")
	o, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	p := o.Provenance()
	if p.Deterministic || p.NondeterministicWhy != measuredWhy {
		t.Errorf("provenance deterministic=%v why=%q, want false and %q", p.Deterministic, p.NondeterministicWhy, measuredWhy)
	}
	dt := o.Engine.DecisionTime
	if dt == nil || dt.Mode != DecisionMeasured || dt.ChargedS <= 0 {
		t.Errorf("decision record %+v, want measured with time charged", dt)
	}
}

func TestDecisionTimeConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"engine.decision_time=cosnt"}, `engine.decision_time: "cosnt" (valid: none, const, measured), did you mean const?`},
		{[]string{"engine.decision_time_s=0.5"}, "engine.decision_time_s: 0.5 is only used with engine.decision_time: const (it is none)"},
		{[]string{"engine.decision_time=const", "engine.decision_time_s=-1"}, "engine.decision_time_s: want a number ≥ 0, got -1"},
		{[]string{"engine.decision_time=measured", "engine.decision_time_scale=0"}, "engine.decision_time_scale: want a number > 0, got 0"},
		{[]string{"engine.decision_time=const", "engine.decision_time_scale=2"}, "engine.decision_time_scale: 2 is only used with engine.decision_time: measured (it is const)"},
		{[]string{"engine.decision_time="}, "engine.decision_time: empty value (omit the key to keep its default, none)"},
	} {
		err := resolveErr(tc.sets...)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want a config error ending in %q (one line, nothing after)", tc.sets, err, tc.want)
		}
	}
	// A spec checks each key alone: a decision-time key is valid there without its mode.
	if err := CheckValue("engine.decision_time_s", 0.5); err != nil {
		t.Errorf("CheckValue(engine.decision_time_s, 0.5) = %v, want nil", err)
	}
}
