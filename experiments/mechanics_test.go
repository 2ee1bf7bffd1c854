package experiments

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/replay"
)

// TestMechanicsDefaultsAreInert: with every mechanics key at its default the engine gets no
// mechanic, config.yaml's engine section (and with it the sweep cache key) has only the keys it
// had before them, and a run with the defaults set explicitly is the run without them.
func TestMechanicsDefaultsAreInert(t *testing.T) {
	c := resolve(t)
	if c.Engine.Mechanics != mechanicsDefaults {
		t.Fatalf("defaults resolve to %+v, want %+v", c.Engine.Mechanics, mechanicsDefaults)
	}
	ec := c.EngineConfig()
	if ec.Durations != nil || ec.Holding.Startup != 0 || ec.Holding.Release != 0 || ec.Variance.Sigma != 0 || ec.Variance.StragglerP != 0 {
		t.Errorf("default engine config has a mechanic on: %+v", ec)
	}
	engine := c.Map()["engine"].(map[string]any)
	var keys []string
	for k := range engine {
		keys = append(keys, k)
	}
	if len(keys) != 5 {
		t.Errorf("config.yaml engine section has %v, want only cycle_s, preempt_delay_s, preempt_keeps_work, horizon_s, oracle", keys)
	}
	explicit := resolve(t, "engine.task_startup_s=0", "engine.task_release_s=0", "engine.holding_dist=const", "engine.holding_cv=0",
		"engine.duration_sigma=0", "engine.straggler_p=0", "engine.straggler_factor=1", "engine.duration_model=none", "engine.contention_slope=0")
	if !reflect.DeepEqual(explicit.Map(), c.Map()) {
		t.Errorf("explicit defaults change config.yaml:\n%v\n%v", explicit.Map(), c.Map())
	}
	a, err := Run(resolve(t, "policy.name=drf", "engine.horizon_s=3000"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(resolve(t, "policy.name=drf", "engine.horizon_s=3000", "engine.holding_dist=const", "engine.straggler_factor=1", "engine.duration_model=contention"))
	if err != nil {
		t.Fatal(err)
	}
	if !sameJobs(a, b) || !reflect.DeepEqual(a.Summary, b.Summary) {
		t.Error("a run with the mechanics at their inert values (contention with slope 0 included) differs from the default run")
	}
}

// TestMechanicsChangeRuns: each mechanic, set, reaches the engine and changes the run; config.yaml
// records it.
func TestMechanicsChangeRuns(t *testing.T) {
	base, err := Run(resolve(t, "policy.name=fifo", "engine.horizon_s=3000"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sets := range [][]string{
		{"engine.task_startup_s=5"},
		{"engine.task_release_s=5", "engine.holding_dist=exp"},
		{"engine.task_startup_s=2", "engine.holding_dist=lognormal", "engine.holding_cv=0.5"},
		{"engine.duration_sigma=0.5"},
		{"engine.straggler_p=0.1", "engine.straggler_factor=3"},
		{"engine.duration_model=contention", "engine.contention_slope=0.5"},
	} {
		c := resolve(t, append([]string{"policy.name=fifo", "engine.horizon_s=3000"}, sets...)...)
		o, err := Run(c)
		if err != nil {
			t.Fatalf("%v: %v", sets, err)
		}
		if reflect.DeepEqual(o.Summary, base.Summary) {
			t.Errorf("%v: the run is unchanged", sets)
		}
		engine := c.Map()["engine"].(map[string]any)
		for _, s := range sets {
			k, _, _ := strings.Cut(strings.TrimPrefix(s, "engine."), "=")
			if _, ok := engine[k]; !ok {
				t.Errorf("%v: config.yaml lacks %s", sets, k)
			}
		}
	}
}

// TestMechanicsRejectBadValues: out-of-range and inconsistent values are configuration errors
// naming the key.
func TestMechanicsRejectBadValues(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"engine.holding_dist=lognormall"}, `engine.holding_dist: unknown value "lognormall" (valid: const, exp, lognormal), did you mean lognormal?`},
		{[]string{"engine.duration_model=decim"}, `engine.duration_model: unknown value "decim"`},
		{[]string{"engine.task_startup_s=-1"}, "engine.task_startup_s: want a number in [0, 1e+09]"},
		{[]string{"engine.straggler_p=1.5"}, "engine.straggler_p: want a number in [0, 1]"},
		{[]string{"engine.straggler_factor=0"}, "engine.straggler_factor: want a number in [1e-06, 1e+06]"},
		{[]string{"engine.duration_sigma=NaN"}, "engine.duration_sigma: want a number"},
		{[]string{"engine.holding_dist=exp", "engine.holding_cv=0.5"}, "engine.holding_dist exp has a coefficient of variation of 1"},
		{[]string{"engine.holding_dist=lognormal"}, "engine.holding_dist lognormal needs a coefficient of variation > 0"},
		{[]string{"engine.contention_slope=1"}, "engine.contention_slope: 1 has no effect unless engine.duration_model is contention"},
		{[]string{"engine.task_release_s=x"}, "engine.task_release_s: want a number"},
	} {
		err := resolveErr(tc.sets...)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want a config error containing %q", tc.sets, err, tc.want)
		}
	}
	// Decima's model needs Decima's generator.
	_, err := Run(resolve(t, "engine.duration_model=decima", "engine.horizon_s=10"))
	if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "decima needs workload.generator decima") {
		t.Errorf("decima model on tpch-fb: got %v", err)
	}
}

// TestDecimaModelRuns: on Decima's generator the decima model draws durations at run time: the
// run differs from the static trace's, is deterministic, and every job completes.
func TestDecimaModelRuns(t *testing.T) {
	if _, err := os.Stat("../../shared/data/decima-tpch/tpch_2g.json"); err != nil {
		t.Skip("no ../shared/data/decima-tpch")
	}
	sets := []string{"policy.name=fair", "workload.generator=decima", "workload.decima.dir=../../shared/data/decima-tpch",
		"workload.decima.sizes=2g,5g", "workload.decima.init_jobs=5", "workload.decima.stream_jobs=15"}
	static, err := Run(resolve(t, sets...))
	if err != nil {
		t.Fatal(err)
	}
	var runs []*Outcome
	for range 2 {
		o, err := Run(resolve(t, append(sets, "engine.duration_model=decima")...))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, o)
	}
	if s := runs[0].Summary; s.Completed != s.Jobs || s.Jobs != 20 {
		t.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
	}
	if !sameJobs(runs[0], runs[1]) {
		t.Error("decima model: two runs differ")
	}
	if reflect.DeepEqual(runs[0].Summary, static.Summary) {
		t.Error("decima model: same result as the static trace")
	}
	t.Logf("avg JCT: static %.2f s, decima model %.2f s", static.Summary.AvgJCT, runs[0].Summary.AvgJCT)
	var _ replay.ExecutorModel = decimaModel{}
}

// sameJobs compares two runs' job records as text (a NaN utility is never DeepEqual to itself).
func sameJobs(a, b *Outcome) bool {
	return fmt.Sprintf("%+v", a.Result.Jobs) == fmt.Sprintf("%+v", b.Result.Jobs)
}
