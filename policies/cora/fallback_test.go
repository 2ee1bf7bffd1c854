package cora

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/replay"
	gencora "github.com/schedlab/schedlab/traces/generate/cora"
)

// failing is a ModelSolver whose every solve fails, or hits its time limit.
type failing struct{ limit bool }

func (f failing) Solve(context.Context, *solver.Model, solver.Options) (*solver.Result, error) {
	if f.limit {
		return &solver.Result{Status: solver.StatusLimit, HiGHSStatus: "time limit"}, nil
	}
	return nil, solver.ErrSolverFailed
}

// TestSolverFailuresFallBack: when the LP fails or times out at every event, the policy keeps
// the previous decision (FIFO order at first), counts every failure and timeout, records them in
// the event table, and the run still completes every job.
func TestSolverFailuresFallBack(t *testing.T) {
	o := gencora.Defaults()
	o.Jobs = 6
	w, err := gencora.Generate(o, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []bool{false, true} {
		pol, err := New(policies.Options{Params: map[string]any{"solver": "lp"}})
		if err != nil {
			t.Fatal(err)
		}
		c := pol.(*CORA)
		c.lp = failing{limit}
		e, err := replay.New(w, c, replay.Config{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range res.Jobs {
			if !j.Completed {
				t.Fatalf("job %d unfinished", j.Index)
			}
		}
		rep, err := c.Report(policies.ReportContext{})
		if err != nil {
			t.Fatal(err)
		}
		m := rep.Metrics
		if m["cora.events"] == 0 || m["cora.failures"] != m["cora.events"] || m["cora.fallbacks"] != m["cora.events"] {
			t.Errorf("limit=%v: metrics %v", limit, m)
		}
		if limit && m["cora.timeouts"] != m["cora.events"] {
			t.Errorf("timeouts %v of %v events", m["cora.timeouts"], m["cora.events"])
		}
		for _, col := range rep.Tables[0].Columns {
			if col.Name == "status" {
				want := map[bool]string{false: "failed", true: "timeout"}[limit]
				for _, s := range col.String {
					if s != want {
						t.Fatalf("limit=%v: status %q, want %q", limit, s, want)
					}
				}
			}
		}
	}
}

// TestParamErrors: every bad parameter is refused with a message naming it.
func TestParamErrors(t *testing.T) {
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"solver": "simplex"}, "policy.params.solver: want exact or lp, got simplex"},
		{map[string]any{"slot_s": 0}, "policy.params.slot_s: want seconds"},
		{map[string]any{"max_slots": 2.5}, "policy.params.max_slots: want a whole number"},
		{map[string]any{"lp_scale": "huge"}, "policy.params.lp_scale: want resolvable, no-underflow or a positive number"},
		{map[string]any{"time_limit_s": -1}, "policy.params.time_limit_s"},
		{map[string]any{"shadow": "maybe"}, "policy.params.shadow: want true or false"},
		{map[string]any{"rrh_alpha": "x"}, "rrh_alpha"},
		{map[string]any{"slots": 3}, "unknown parameter policy.params.slots (valid: solver, slot_s, max_slots"},
		{map[string]any{"max_lp_vars": 2.5}, "policy.params.max_lp_vars: want a whole number in [4, 1e9]"},
		{map[string]any{"max_lp_vars": 0}, "policy.params.max_lp_vars: want a whole number in [4, 1e9]"},
	} {
		if _, err := New(policies.Options{Params: tt.params}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.params, err, tt.want)
		}
	}
	c, err := New(policies.Options{Params: map[string]any{"solver": "lp", "slot_s": "10", "lp_scale": "no-underflow", "max_slots": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg := c.(*CORA).cfg; cfg.lpScale != ScaleNoUnderflow || cfg.slot != 10e6 || cfg.maxSlots != 0 {
		t.Errorf("config %+v", cfg)
	}
}

// TestDumpModels: with policies.Options.DumpModels (schedlab run --dump-models DIR) every LP the
// policy solves is written there.
func TestDumpModels(t *testing.T) {
	if _, err := solver.LocateWasm(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	o := gencora.Defaults()
	o.Jobs = 3
	w, err := gencora.Generate(o, rand.New(rand.NewPCG(6, 6)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pol, err := New(policies.Options{Params: map[string]any{"solver": "lp", "slot_s": 60}, DumpModels: dir})
	if err != nil {
		t.Fatal(err)
	}
	e, err := replay.New(w, pol, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	rep, _ := pol.(policies.Reporter).Report(policies.ReportContext{})
	files, _ := filepath.Glob(filepath.Join(dir, "cora_final-*.lp"))
	if len(files) == 0 || float64(len(files)) != rep.Metrics["cora.events"] {
		t.Fatalf("%d model files for %v events", len(files), rep.Metrics["cora.events"])
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(b), "convex_0_1_0") || !strings.Contains(string(b), "req_0_0") {
		t.Errorf("model file %s: %v\n%.300s", files[0], err, b)
	}
}
