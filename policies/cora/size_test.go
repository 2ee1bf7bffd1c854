package cora

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/replay"
	gencora "github.com/schedlab/schedlab/traces/generate/cora"
)

// counting is a ModelSolver that counts the models it is asked to solve and fails them.
type counting struct{ solves *int }

func (c counting) Solve(context.Context, *solver.Model, solver.Options) (*solver.Result, error) {
	*c.solves++
	return nil, solver.ErrSolverFailed
}

// TestLPSizeIsBoundedBeforeBuilding: an event whose FINAL LP would pass policy.params.max_lp_vars
// is a recorded failure (status size_limit, cora.size_limited) decided before the LP is built or
// solved; the previous decision stays and every job still completes. Backlogged LP runs grew to
// 3.9 GB before.
func TestLPSizeIsBoundedBeforeBuilding(t *testing.T) {
	o := gencora.Defaults()
	o.Jobs = 6
	w, err := gencora.Generate(o, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := New(policies.Options{Params: map[string]any{"solver": "lp", "max_lp_vars": 4}})
	if err != nil {
		t.Fatal(err)
	}
	c := pol.(*CORA)
	solves := 0
	c.lp = counting{&solves}
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
	// Only the LPs of one job in one slot (4 variables) are within the limit and reach the solver.
	m := rep.Metrics
	limited := int(m["cora.size_limited"])
	if limited == 0 || limited < int(m["cora.events"])/2 || m["cora.failures"] != m["cora.events"] || solves != int(m["cora.events"])-limited {
		t.Errorf("metrics %v, %d LPs solved: want the LPs over 4 variables size-limited and never solved", m, solves)
	}
	var status, errs []string
	for _, col := range rep.Tables[0].Columns {
		switch col.Name {
		case "status":
			status = col.String
		case "error":
			errs = col.String
		}
	}
	n := 0
	for i, s := range status {
		if s == statusSizeLimit {
			n++
			if !strings.Contains(errs[i], "variables (4 × ") || !strings.Contains(errs[i], "over policy.params.max_lp_vars=4") {
				t.Errorf("event %d: error %q, want it to name the size and the limit", i, errs[i])
			}
		}
	}
	if n != limited {
		t.Errorf("%d events with status %s, %d counted", n, statusSizeLimit, limited)
	}
}

// TestProblemSlotsAreBounded: a problem of more than MaxProblemSlots slots (max_slots = 0 on a
// backlog) is refused for either solver before the solver allocates for its slots.
func TestProblemSlotsAreBounded(t *testing.T) {
	prob := &Problem{Capacity: []int64{40}, Work: [][]int64{{40 * (MaxProblemSlots + 1)}}, Slots: MaxProblemSlots + 1}
	for _, s := range []string{SolverExact, SolverLP} {
		pol, err := New(policies.Options{Params: map[string]any{"solver": s, "max_slots": 0}})
		if err != nil {
			t.Fatal(err)
		}
		err = pol.(*CORA).checkSize(prob)
		if err == nil || !strings.Contains(err.Error(), "4194305 slots, over the bound of 4194304") {
			t.Errorf("%s: got %v, want the slots refused", s, err)
		}
	}
	prob.Slots, prob.Work[0][0] = 256, 40*256
	for _, s := range []string{SolverExact, SolverLP} {
		pol, _ := New(policies.Options{Params: map[string]any{"solver": s}})
		if err := pol.(*CORA).checkSize(prob); err != nil {
			t.Errorf("%s: a 256-slot problem: %v", s, err)
		}
	}
}

// TestActivity: during a solve the policy says what it solves, for progress lines.
func TestActivity(t *testing.T) {
	p := &CORA{}
	if got := p.Activity(); got != "" {
		t.Errorf("idle: %q", got)
	}
	p.solvingExact.Store(25600)
	if got, want := p.Activity(), "solving CORA exactly over 25,600 job-slots"; got != want {
		t.Errorf("exact: %q, want %q", got, want)
	}
	p.solvingLP.Store(1024000)
	if got, want := p.Activity(), "solving a 1,024,000-variable LP (FINAL)"; got != want {
		t.Errorf("lp: %q, want %q", got, want)
	}
}
