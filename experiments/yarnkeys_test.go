package experiments

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"maps"
)

// yarnDefaults sets every YARN mechanic key explicitly to its default.
var yarnDefaults = []string{
	"engine.heartbeat_s=0", "engine.containers_per_heartbeat=1", "engine.am=false", "engine.am_demand=",
	"engine.am_startup_s=0", "engine.am_setup_s=0", "engine.am_teardown_s=0", "engine.max_am_share=0",
	"engine.reservations=false", "engine.slowstart=1",
}

// runFiles runs the configuration given by sets and returns its jobs.parquet and config.yaml.
func runFiles(t *testing.T, sets ...string) (*Outcome, []byte, []byte) {
	t.Helper()
	o, err := Run(resolve(t, sets...))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := o.WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	jobs, err := os.ReadFile(filepath.Join(dir, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return o, jobs, cfg
}

// TestYarnKeysDefaultIsInert: the mechanics' keys set to their defaults give the same
// jobs.parquet, config.yaml and metrics as leaving them out, and config.yaml's engine section
// keeps exactly the keys it had before the mechanics (so sweep cache keys do not move).
func TestYarnKeysDefaultIsInert(t *testing.T) {
	base := []string{"policy.name=drf", "engine.horizon_s=1500"}
	o1, jobs1, cfg1 := runFiles(t, base...)
	o2, jobs2, cfg2 := runFiles(t, append(base, yarnDefaults...)...)
	if !bytes.Equal(jobs1, jobs2) || !bytes.Equal(cfg1, cfg2) || o1.Summary.AvgJCT != o2.Summary.AvgJCT || o1.Result.Stats != o2.Result.Stats {
		t.Error("the YARN keys at their defaults changed the run's outputs")
	}
	engine := slices.Sorted(maps.Keys(resolve(t, yarnDefaults...).Map()["engine"].(map[string]any)))
	if want := []string{"cycle_s", "horizon_s", "oracle", "preempt_delay_s", "preempt_keeps_work"}; !slices.Equal(engine, want) {
		t.Errorf("config.yaml engine keys %v, want %v", engine, want)
	}
}

// TestYarnKeysOn: the keys reach the engine: every job's row has its AM start, the AM's
// start-up and setup before its first task and its teardown before its finish, and
// config.yaml records the keys that were set.
func TestYarnKeysOn(t *testing.T) {
	on, _, cfg := runFiles(t, "policy.name=srpt", "engine.horizon_s=1500", "engine.heartbeat_s=1", "engine.am=true", "engine.am_demand=0.01, 0.01",
		"engine.am_startup_s=8", "engine.am_setup_s=3", "engine.am_teardown_s=2", "engine.max_am_share=0.5", "engine.slowstart=0.25", "engine.reservations=true")
	completed := 0
	for _, j := range on.Result.Jobs {
		if j.FirstStart >= 0 && (j.AMStart < j.Submit || j.FirstStart < j.AMStart+11_000_000) {
			t.Fatalf("job %d: submit %d, AM %d, first task %d: want the AM's 11 s before the first task", j.Index, j.Submit, j.AMStart, j.FirstStart)
		}
		if j.Completed {
			completed++
			if j.Finish < j.FirstStart+2_000_000 {
				t.Fatalf("job %d: first task %d, finish %d: want the AM's 2 s teardown", j.Index, j.FirstStart, j.Finish)
			}
		}
	}
	if completed < 10 {
		t.Errorf("%d jobs completed, want at least 10", completed)
	}
	for _, want := range []string{"heartbeat_s: 1", "am: true", "am_demand: 0.01,0.01", "max_am_share: 0.5", "slowstart: 0.25", "reservations: true"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}
}

// TestYarnKeysRefused: bad values are configuration errors naming the key.
func TestYarnKeysRefused(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"engine.heartbeat_s=-1", "engine.heartbeat_s: want a number ≥ 0"},
		{"engine.heartbeat_s=1e300", "engine.heartbeat_s: want seconds in [0, 1e+09]"},
		{"engine.containers_per_heartbeat=-2", "engine.containers_per_heartbeat: want an integer in [0, 2147483647]"},
		{"engine.containers_per_heartbeat=1.5", "engine.containers_per_heartbeat: want an integer, got 1.5"},
		{"engine.max_am_share=1.5", "engine.max_am_share: want a fraction in [0, 1]"},
		{"engine.slowstart=NaN", "engine.slowstart: want a fraction in [0, 1]"},
		{"engine.am=yes please", "engine.am: not a boolean"},
		{"engine.am_demand=1,x", `engine.am_demand: amount 2: want a number ≥ 0, got "x"`},
		{"engine.am_demand=1,2,3,4,5,6,7", "engine.am_demand: 7 amounts, at most 6 dimensions"},
		{"engine.am=true", "engine.am_demand: empty, but engine.am is on"},
		{"engine.am_setup=3", `unknown config key "engine.am_setup" in --set, did you mean engine.am_setup_s?`},
	} {
		err := resolveErr(tc.set)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a config error containing %q", tc.set, err, tc.want)
		}
	}
}
