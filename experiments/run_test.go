package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/buildid"
	"github.com/schedlab/schedlab/traces"
)

func resolve(t testing.TB, sets ...string) Config {
	t.Helper()
	v := NewViper()
	if err := ApplySet(v, sets); err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRunIsDeterministic runs the embedded default workload twice, at GOMAXPROCS 1 and 2, and
// requires byte-identical jobs.parquet and identical metrics.
func TestRunIsDeterministic(t *testing.T) {
	for _, policy := range []string{"fifo", "drf"} {
		t.Run("policy="+policy, func(t *testing.T) {
			doc := checkDeterministic(t, "policy.name="+policy, "engine.horizon_s=2000")
			if doc.Metrics.Jobs != 399 || doc.Engine.Events == 0 || doc.Provenance.WorkloadHash == "" {
				t.Fatalf("summary lacks content: jobs=%d events=%d hash=%q", doc.Metrics.Jobs, doc.Engine.Events, doc.Provenance.WorkloadHash)
			}
		})
	}
}

// checkDeterministic runs the configuration given by sets at GOMAXPROCS 1 and 2, requires
// byte-identical jobs.parquet and identical metrics, and returns the second run's summary.
func checkDeterministic(t *testing.T, sets ...string) SummaryDoc {
	t.Helper()
	var parquet [][]byte
	var metrics []string
	var doc SummaryDoc
	for i, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		c := resolve(t, sets...)
		o, err := Run(c)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "run", string(rune('a'+i)))
		if err := o.WriteOutputs(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, JobsFile))
		if err != nil {
			t.Fatal(err)
		}
		parquet = append(parquet, b)
		raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		doc = SummaryDoc{}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		m, _ := json.Marshal(doc.Metrics)
		metrics = append(metrics, string(m))
	}
	if !bytes.Equal(parquet[0], parquet[1]) {
		t.Error("jobs.parquet differs between GOMAXPROCS=1 and 2")
	}
	if metrics[0] != metrics[1] {
		t.Errorf("metrics differ:\n%s\n%s", metrics[0], metrics[1])
	}
	return doc
}

func TestResolveRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string
		want string
	}{
		{"an unknown key is named with a suggestion", []string{"engine.cylce_s=3"}, `unknown config key "engine.cylce_s" in --set, did you mean engine.cycle_s?`},
		{"an empty number is rejected", []string{"engine.cycle_s="}, "engine.cycle_s: empty value"},
		{"an empty boolean is rejected", []string{"engine.oracle= "}, "engine.oracle: empty value"},
		{"an empty seed is rejected", []string{"seed="}, "seed: empty value"},
		{"an empty generator option is rejected", []string{"workload.cora.jobs="}, "workload.cora.jobs: empty value"},
		{"an empty shaping number is rejected", []string{"workload.window_start_s="}, "workload.window_start_s: empty value"},
		{"a shaping value out of range names its key", []string{"workload.sample=0"}, "workload.sample: want a fraction in (0, 1], got 0"},
		{"a shaping type error names its key", []string{"workload.scale_tasks=lots"}, "workload.scale_tasks: want a number"},
		{"a negative limit is rejected", []string{"limits.max_stage_tasks=-5"}, "limits.max_stage_tasks: want an integer ≥ 0"},
		{"a negative duration is rejected", []string{"engine.cycle_s=-1"}, "engine.cycle_s: want a number ≥ 0"},
		{"a non-boolean is rejected", []string{"engine.oracle=maybe"}, "engine.oracle: not a boolean"},
		{"a bad level lists the valid ones", []string{"policy.level=rack"}, "valid: job, queue"},
		{"a non-integer seed is rejected", []string{"seed=1.5"}, "seed: want an integer"},
		{"a malformed --set is rejected", []string{"policy.name"}, "want key=value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := NewViper()
			err := ApplySet(v, tc.sets)
			if err == nil {
				_, err = Resolve(v)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrConfig) {
				t.Fatalf("got %v, want a config error containing %q", err, tc.want)
			}
		})
	}
}

func TestEmptyValuesWhereTheyMeanSomething(t *testing.T) {
	c := resolve(t, "predict.name=", "workload.generator=", "policy.class_order=", "workload.class_rules=")
	if c.Predict.Name != "" || c.Workload.Generator != "" || len(c.Policy.ClassOrder) != 0 {
		t.Fatalf("got %+v", c)
	}
	t.Setenv("SCHEDLAB_ENGINE_HORIZON_S", "")
	if _, err := Resolve(NewViper()); err == nil || !strings.Contains(err.Error(), "engine.horizon_s: empty value") {
		t.Fatalf("an empty SCHEDLAB_ENGINE_HORIZON_S: got %v, want it rejected", err)
	}
}

func TestUnknownPolicyListsValidOnes(t *testing.T) {
	c := resolve(t, "policy.name=lottery")
	_, err := Run(c)
	if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "fifo") || !strings.Contains(err.Error(), "drf") {
		t.Fatalf("got %v, want a config error listing the policies", err)
	}
}

func TestEnvironmentOverridesDefault(t *testing.T) {
	t.Setenv("SCHEDLAB_POLICY_NAME", "srpt")
	if c := resolve(t); c.Policy.Name != "srpt" {
		t.Fatalf("policy.name = %q, want srpt from SCHEDLAB_POLICY_NAME", c.Policy.Name)
	}
}

// TestPredictorsDriveEstimates checks the predict.* keys: a noiseless noisy predictor equals the
// workload's own (true) estimates, noise changes SRPT's schedule reproducibly per seed, and
// JVuPredict runs online.
func TestPredictorsDriveEstimates(t *testing.T) {
	avg := func(sets ...string) float64 {
		t.Helper()
		o, err := Run(resolve(t, append([]string{"policy.name=srpt", "engine.horizon_s=1500"}, sets...)...))
		if err != nil {
			t.Fatal(err)
		}
		return o.Summary.AvgJCT
	}
	base := avg()
	if got := avg("predict.name=noisy"); got != base {
		t.Errorf("noiseless predictor: avg JCT %v, want the workload estimates' %v", got, base)
	}
	n1, n1again, n2 := avg("predict.name=noisy", "predict.noise_std=80"), avg("predict.name=noisy", "predict.noise_std=80"), avg("predict.name=noisy", "predict.noise_std=80", "seed=2")
	if n1 != n1again {
		t.Errorf("same seed, different results: %v vs %v", n1, n1again)
	}
	if n1 == base || n1 == n2 {
		t.Errorf("noise had no effect: base %v, seed 1 %v, seed 2 %v", base, n1, n2)
	}
	if got := avg("predict.name=jvupredict"); got <= 0 {
		t.Errorf("jvupredict run: avg JCT %v", got)
	}
	_, err := Run(resolve(t, "predict.name=crystal-ball"))
	if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "jvupredict") {
		t.Errorf("unknown predictor: %v, want a config error listing the valid ones", err)
	}
}

// TestNestedPolicyParams checks that nested policy parameters reach the policy as nested maps
// (viper flattens them into dotted keys), here DRF's per-queue weights.
func TestNestedPolicyParams(t *testing.T) {
	c := resolve(t, "policy.name=drf", "policy.level=queue", "policy.params.weights.default=2")
	w, ok := c.Policy.Params["weights"].(map[string]any)
	if !ok || w["default"] != "2" {
		t.Fatalf("params = %#v, want weights: {default: 2}", c.Policy.Params)
	}
	if _, err := NewPolicy(c); err != nil {
		t.Fatalf("drf rejected nested weights: %v", err)
	}
}

func TestProvenanceRecordsBuildAndDeterminism(t *testing.T) {
	id := buildid.ID{Revision: "abc", Modified: true, Binary: "0123"}
	defer buildid.Override(id)()
	o := &Outcome{Config: Config{Seed: 3}, Workload: &traces.Workload{Name: "w"}}
	p := o.Provenance()
	if p.Build != id || !p.Deterministic || p.NondeterministicWhy != "" {
		t.Errorf("provenance %+v, want build %+v and deterministic", p, id)
	}
	o.Nondeterministic = "solve hit its time limit"
	if p := o.Provenance(); p.Deterministic || p.NondeterministicWhy != o.Nondeterministic {
		t.Errorf("provenance %+v of a nondeterministic run", p)
	}
}
