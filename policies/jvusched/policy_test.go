package jvusched

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

const sec = traces.Second

// cluster4 is Fig. 6's cluster: m1, m2 GPU machines on rack r1; m3, m4 plain machines on r2.
func cluster4() traces.Cluster {
	node := traces.VecOf(1, 1)
	return traces.Cluster{Machines: []traces.Machine{
		{Name: "m1", Rack: "r1", GPU: true, Capacity: node},
		{Name: "m2", Rack: "r1", GPU: true, Capacity: node},
		{Name: "m3", Rack: "r2", Capacity: node},
		{Name: "m4", Rack: "r2", Capacity: node},
	}}
}

// gang is a single-stage job of k whole-machine tasks with true duration dur and estimate est.
func gang(submit traces.Time, k int32, dur, est traces.Time) traces.Job {
	return traces.Job{Submit: submit, Class: "be", Queue: "be", Stages: []traces.Stage{{
		Name: "tasks", Tasks: k, Demand: traces.VecOf(1, 1), Duration: dur, Estimate: est,
	}}}
}

func slo(j traces.Job, deadline traces.Time) traces.Job {
	j.Class, j.Queue, j.Priority, j.Deadline = "slo", "slo", 1, deadline
	return j
}

func placed(j traces.Job, p traces.Placement) traces.Job { j.Placement = p; return j }

// run replays w under jvusched with the given params and engine settings.
func run(t *testing.T, w *traces.Workload, params map[string]any, cfg replay.Config) (*replay.Result, *Policy) {
	t.Helper()
	solvertest.Need(t)
	for i := range w.Jobs {
		w.Jobs[i].ID = int64(i)
	}
	if w.Dims == nil {
		w.Dims = []string{"cpu", "mem"}
	}
	pol, err := New(policies.Options{Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cycle == 0 {
		cfg.Cycle = 5 * sec
	}
	e, err := replay.New(w, pol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res, pol.(*Policy)
}

func finishes(res *replay.Result) []traces.Time {
	out := make([]traces.Time, len(res.Jobs))
	for i, j := range res.Jobs {
		out[i] = j.Finish
	}
	return out
}

// TestFig6 replays JamaisVu's §4.1.3 example: best-effort job 0 (2 tasks, 20 s) starts at 0;
// SLO jobs 1 (MPI: both tasks on one rack) and 2 (GPU) arrive at 10 with deadline 35, 20 s on
// preferred resources and 30 s elsewhere. Only preempting job 0 meets both deadlines: with p the
// MILP does, and both finish at 30; without p job 2 waits for the GPU machines and misses.
func TestFig6(t *testing.T) {
	soft := func(kind string) traces.Placement {
		return traces.Placement{Kind: kind, Slowdown: 1.5}
	}
	workload := func() *traces.Workload {
		return &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{
			gang(0, 2, 20*sec, 20*sec),
			slo(placed(gang(10*sec, 2, 20*sec, 20*sec), soft(traces.PlacementRack)), 35*sec),
			slo(placed(gang(10*sec, 2, 20*sec, 20*sec), soft(traces.PlacementGPU)), 35*sec),
		}}
	}
	res, pol := run(t, workload(), nil, replay.Config{})
	if got, want := finishes(res), []traces.Time{50 * sec, 30 * sec, 30 * sec}; !reflect.DeepEqual(got, want) {
		t.Errorf("with p: finishes %v, want %v", got, want)
	}
	if res.Jobs[0].Preemptions != 2 || pol.stats.preempted != 1 {
		t.Errorf("with p: job 0 preempted %d tasks, %d kills; want 2, 1", res.Jobs[0].Preemptions, pol.stats.preempted)
	}
	if res.Jobs[1].SlowedStarts+res.Jobs[2].SlowedStarts != 0 {
		t.Errorf("with p: SLO jobs slowed")
	}
	res, _ = run(t, workload(), map[string]any{"flags": "u+o"}, replay.Config{})
	if res.Jobs[2].Finish <= 35*sec || res.Jobs[0].Preemptions != 0 {
		t.Errorf("without p: job 2 finished at %d, job 0 preempted %d times; want a miss and no preemption", res.Jobs[2].Finish, res.Jobs[0].Preemptions)
	}
}

// TestUnderEstimateBackoff checks flag u's two back-offs on a job estimated at 10 s that runs
// 60 s, with 5 s cycles: incby1 raises the estimate by one cycle at each late cycle (10 times
// from 10 s to 55 s); expinc by 1, 2, 4, 8 cycles (at 10, 15, 25 and 45 s).
func TestUnderEstimateBackoff(t *testing.T) {
	for _, tt := range []struct {
		backoff string
		want    int64
	}{{BackoffIncBy1, 10}, {BackoffExpInc, 4}} {
		w := &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 60*sec, 10*sec)}}
		_, pol := run(t, w, map[string]any{"backoff": tt.backoff}, replay.Config{})
		if pol.stats.increments != tt.want {
			t.Errorf("%s: %d increments, want %d", tt.backoff, pol.stats.increments, tt.want)
		}
	}
	w := &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 60*sec, 10*sec)}}
	if _, pol := run(t, w, map[string]any{"flags": "p+o"}, replay.Config{}); pol.stats.increments != 0 {
		t.Errorf("without u: %d increments", pol.stats.increments)
	}
}

// TestUnderEstimatePreemptsEarlier: a best-effort job estimated at 10 s runs 100 s on the only
// machine; an SLO job (10 s, deadline 70) arrives at 20. Without u the scheduler keeps expecting
// the late job to end within the cycle and preempts it only when waiting longer would miss the
// deadline; with u (expinc) the growing estimate makes it preempt sooner. Both meet the deadline.
func TestUnderEstimatePreemptsEarlier(t *testing.T) {
	preemptedAt := func(flags string) (traces.Time, *replay.Result) {
		w := &traces.Workload{Cluster: traces.Cluster{Machines: cluster4().Machines[:2]}, Jobs: []traces.Job{
			gang(0, 2, 100*sec, 10*sec),
			slo(gang(20*sec, 2, 10*sec, 10*sec), 70*sec),
		}}
		var at traces.Time = -1
		res, _ := run(t, w, map[string]any{"flags": flags}, replay.Config{Log: func(l replay.LogEntry) {
			if l.Kind == replay.KindPreempt && at < 0 {
				at = l.T
			}
		}})
		return at, res
	}
	without, r1 := preemptedAt("p+o")
	with, r2 := preemptedAt("p+u+o")
	t.Logf("preempted at %d s with u, %d s without", with/sec, without/sec)
	if without < 0 || with < 0 || with >= without {
		t.Errorf("preempted at %d s with u and %d s without; want earlier with u", with/sec, without/sec)
	}
	for _, r := range []*replay.Result{r1, r2} {
		if !r.Jobs[1].DeadlineMet() {
			t.Errorf("SLO job finished at %d s, deadline 70 s", r.Jobs[1].Finish/sec)
		}
	}
}

// TestOverEstimate: an SLO job estimated at 100 s that runs 30 s with deadline 60 looks hopeless
// without o, and with late_slo=drop is never started; with o its value decays linearly past the
// deadline instead, so it runs and meets its deadline.
func TestOverEstimate(t *testing.T) {
	for _, tt := range []struct {
		flags string
		met   bool
	}{{"p+u", false}, {"p+u+o", true}} {
		w := &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{slo(gang(0, 1, 30*sec, 100*sec), 60*sec)}}
		res, pol := run(t, w, map[string]any{"flags": tt.flags, "late_slo": LateDrop}, replay.Config{})
		if res.Jobs[0].DeadlineMet() != tt.met {
			t.Errorf("%s: deadline met %v, want %v (finish %d)", tt.flags, res.Jobs[0].DeadlineMet(), tt.met, res.Jobs[0].Finish)
		}
		if want := int64(1); !tt.met && pol.stats.late != want {
			t.Errorf("%s: %d late SLO jobs, want %d", tt.flags, pol.stats.late, want)
		}
	}
}

// TestGreedyVersusGlobal: on two machines, SLO job 0 (one task, 10 s, lax deadline 100) and SLO
// job 1 (two tasks, 10 s, deadline 10) arrive together. The global MILP runs job 1 first and
// job 0 after: both meet their deadlines. Greedy mode solves job 0 alone first (FCFS), starts it
// at once, and job 1 can no longer finish by 10 (preempting job 0 gains nothing: equal value).
func TestGreedyVersusGlobal(t *testing.T) {
	for _, tt := range []struct {
		mode string
		met  []bool
	}{{ModeGlobal, []bool{true, true}}, {ModeGreedy, []bool{true, false}}} {
		w := &traces.Workload{Cluster: traces.Cluster{Machines: cluster4().Machines[:2]}, Jobs: []traces.Job{
			slo(gang(0, 1, 10*sec, 10*sec), 100*sec),
			slo(gang(0, 2, 10*sec, 10*sec), 10*sec),
		}}
		res, _ := run(t, w, map[string]any{"mode": tt.mode}, replay.Config{})
		got := []bool{res.Jobs[0].DeadlineMet(), res.Jobs[1].DeadlineMet()}
		if !reflect.DeepEqual(got, tt.met) {
			t.Errorf("%s: deadlines met %v, want %v (finishes %v)", tt.mode, got, tt.met, finishes(res))
		}
	}
}

// TestHardConstraintWaits: a hard GPU job waits for the GPU machines although the others are
// free (the engine would reject anything else); a soft one with a lax deadline waits too, as
// the slowdown would cost more than waiting — here its slack allows it.
func TestHardConstraintWaits(t *testing.T) {
	w := &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{
		slo(gang(0, 2, 20*sec, 20*sec), 100*sec),
		slo(placed(gang(5*sec, 2, 10*sec, 10*sec), traces.Placement{Kind: traces.PlacementGPU, Hard: true}), 100*sec),
	}}
	res, _ := run(t, w, nil, replay.Config{})
	if res.Jobs[1].FirstStart < 20*sec || !res.Jobs[1].DeadlineMet() {
		t.Errorf("hard GPU job started at %d s, finished at %d s; want after 20 s, by 100 s", res.Jobs[1].FirstStart/sec, res.Jobs[1].Finish/sec)
	}
}

// TestPreemptionDelay: with a preemption delay the freed machines come back only after it, so
// the SLO job that needed them starts then (not in the cycle of the preemption).
func TestPreemptionDelay(t *testing.T) {
	w := &traces.Workload{Cluster: traces.Cluster{Machines: cluster4().Machines[:2]}, Jobs: []traces.Job{
		gang(0, 2, 100*sec, 100*sec),
		slo(gang(20*sec, 2, 10*sec, 10*sec), 60*sec),
	}}
	res, _ := run(t, w, nil, replay.Config{PreemptDelay: 10 * sec})
	if res.Jobs[0].Preemptions != 2 || res.Jobs[1].FirstStart != 30*sec || !res.Jobs[1].DeadlineMet() {
		t.Errorf("preemptions %d, SLO start %d s, finish %d s; want 2, 30 s, ≤ 60 s", res.Jobs[0].Preemptions, res.Jobs[1].FirstStart/sec, res.Jobs[1].Finish/sec)
	}
}

// fakeSolver returns a canned outcome, to exercise the limit and failure paths.
type fakeSolver struct {
	status solver.Status
	err    error
	real   solver.ModelSolver
}

func (f *fakeSolver) Solve(ctx context.Context, m *solver.Model, o solver.Options) (*solver.Result, error) {
	if f.err != nil {
		return nil, f.err
	}
	res, err := f.real.Solve(ctx, m, o)
	if err != nil {
		return nil, err
	}
	if f.status == solver.StatusLimit {
		return &solver.Result{Status: solver.StatusLimit}, nil
	}
	res.Status = f.status
	return res, nil
}

// TestLimitsAndFallbacks: a solve stopped by a limit with an incumbent uses it (counted); one
// with no solution, or a solver error, starts nothing new (counted as a fallback).
func TestLimitsAndFallbacks(t *testing.T) {
	solvertest.Need(t)
	for _, tt := range []struct {
		name               string
		fake               *fakeSolver
		limited, fallbacks bool
		completed          bool
	}{
		{"incumbent", &fakeSolver{status: solver.StatusFeasible}, true, false, true},
		{"no solution", &fakeSolver{status: solver.StatusLimit}, false, true, false},
		{"error", &fakeSolver{err: errors.Join(solver.ErrSolverFailed)}, false, true, false},
	} {
		tt.fake.real = solver.DefaultPool()
		prm := Defaults()
		pol := newPolicy(prm, "", tt.fake)
		w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 10*sec, 10*sec)}}
		e, err := replay.New(w, pol, replay.Config{Cycle: 5 * sec})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		if res.Jobs[0].Completed != tt.completed || (pol.stats.limitIncumbent > 0) != tt.limited || (pol.stats.fallbacks > 0) != tt.fallbacks {
			t.Errorf("%s: completed %v, %d limited, %d fallbacks", tt.name, res.Jobs[0].Completed, pol.stats.limitIncumbent, pol.stats.fallbacks)
		}
		rep, err := pol.Report(policies.ReportContext{})
		if err != nil || rep.Validate() != nil {
			t.Fatalf("%s: report: %v %v", tt.name, err, rep.Validate())
		}
		if got := rep.Metrics["jvusched.fallbacks"]; got != float64(pol.stats.fallbacks) {
			t.Errorf("%s: metric fallbacks %v", tt.name, got)
		}
	}
}

// TestDumpModels: --dump-models gets every model as LP and, by default, its problem text.
func TestDumpModels(t *testing.T) {
	solvertest.Need(t)
	dir := t.TempDir()
	pol, err := New(policies.Options{DumpModels: dir})
	if err != nil {
		t.Fatal(err)
	}
	w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 10*sec, 10*sec)}}
	e, _ := replay.New(w, pol, replay.Config{Cycle: 5 * sec})
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	lp, _ := filepath.Glob(filepath.Join(dir, "jvusched_c*_s0-*.lp"))
	prob, _ := filepath.Glob(filepath.Join(dir, "jvusched_c*_s0.problem"))
	if len(lp) != 1 || len(prob) != 1 {
		t.Fatalf("dumped %v and %v", lp, prob)
	}
	b, _ := os.ReadFile(prob[0])
	if !strings.Contains(string(b), "nck[j0.any@0]({*}, 1, 0, 10, 1)") {
		t.Errorf("problem dump lacks the job's option:\n%s", b)
	}
}

func TestParams(t *testing.T) {
	p, err := ParseParams(map[string]any{"flags": "pu", "backoff": "incby1", "mode": "greedy", "plan_ahead_s": "30",
		"quantum_s": 10, "time_limit_s": 2.5, "max_nodes": 1000, "warm_start": "true", "slo_value": 500,
		"epsilon": 0.1, "o_decay": 2, "late_slo": "drop", "max_pending": 50, "dump_problems": false, "be_plan_ahead": "false",
		"be_value": "node", "be_kill_growth": 2.5})
	if err != nil {
		t.Fatal(err)
	}
	if p.Flags() != "p+u" || p.Backoff != BackoffIncBy1 || p.Mode != ModeGreedy || p.PlanAhead != 30*sec || p.Quantum != 10*sec ||
		p.TimeLimit.Seconds() != 2.5 || p.MaxNodes != 1000 || !p.WarmStart || p.SLOValue != 500 || p.Epsilon != 0.1 ||
		p.OverDecay != 2 || p.LateSLO != LateDrop || p.MaxPending != 50 || p.DumpProblems || p.BEPlanAhead ||
		p.BEValue != BEPerNode || p.BEKillGrowth != 2.5 {
		t.Errorf("parsed %+v", p)
	}
	for flags, want := range map[string]string{"base": "base", "": "base", "p": "p", "p+u+o": "p+u+o", "po": "p+o", "uo": "u+o"} {
		if p, err := ParseParams(map[string]any{"flags": flags}); err != nil || p.Flags() != want {
			t.Errorf("flags %q: %v %v", flags, p.Flags(), err)
		}
	}
	for _, bad := range []map[string]any{
		{"flags": "pq"}, {"backoff": "fast"}, {"mode": "both"}, {"quantum_s": 0}, {"plan_ahead_s": -1},
		{"max_nodes": 1.5}, {"warm_start": "maybe"}, {"slo_value": 0.5}, {"epsilon": 1}, {"late_slo": "keep"}, {"nope": 1},
		{"max_milp_vars": 0}, {"max_milp_rows": 2.5}, {"max_milp_nonzeros": "many"},
		{"be_value": "task"}, {"be_kill_growth": -1},
	} {
		if _, err := ParseParams(bad); err == nil || !strings.Contains(err.Error(), "policy.params.") {
			t.Errorf("%v: got %v, want an error naming the key", bad, err)
		}
	}
	if len(Keys()) != 20 {
		t.Errorf("%d documented keys", len(Keys()))
	}
}

func TestRejectsPooledAndMultiStage(t *testing.T) {
	solvertest.Need(t)
	pooled := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: traces.Cluster{Machines: cluster4().Machines, Pooled: true},
		Jobs: []traces.Job{gang(0, 1, sec, sec)}}
	dag := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, sec, sec)}}
	dag.Jobs[0].Stages = append(dag.Jobs[0].Stages, traces.Stage{Name: "b", Tasks: 1, Demand: traces.VecOf(1, 1), Duration: sec, Estimate: sec, Parents: []int32{0}})
	for name, w := range map[string]*traces.Workload{"pooled mode": pooled, "stages": dag} {
		pol, _ := New(policies.Options{})
		e, err := replay.New(w, pol, replay.Config{Cycle: 5 * sec})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// TestMaxPendingAndBEStarts: max_pending caps the jobs one global MILP considers (the second
// best-effort job waits a cycle), and be_plan_ahead=false offers best-effort jobs a start now
// only (one option instead of one per slice).
func TestMaxPendingAndBEStarts(t *testing.T) {
	w := func() *traces.Workload {
		return &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{gang(0, 1, 10*sec, 10*sec), gang(0, 1, 10*sec, 10*sec)}}
	}
	res, _ := run(t, w(), map[string]any{"max_pending": 1}, replay.Config{})
	if res.Jobs[0].FirstStart != 0 || res.Jobs[1].FirstStart != 5*sec {
		t.Errorf("max_pending 1: starts %d, %d; want 0, 5 s", res.Jobs[0].FirstStart, res.Jobs[1].FirstStart)
	}
	for _, tt := range []struct {
		ahead  bool
		leaves int64
	}{{true, 2 * 12}, {false, 2}} {
		_, pol := run(t, w(), map[string]any{"be_plan_ahead": tt.ahead}, replay.Config{})
		if got := pol.rec.rows[0].leaves; got != tt.leaves {
			t.Errorf("be_plan_ahead %v: %d leaves, want %d", tt.ahead, got, tt.leaves)
		}
	}
}

// TestRandomWorkloads replays random small workloads — 16 machines in 4 racks, the first two
// with GPUs; gang jobs of 1–4 tasks, a third each best effort, hard- and soft-constrained SLO;
// estimates off by up to 3× either way — under every mode and several flag sets, with and
// without a preemption delay. Every plan must be valid (the engine checks, with its invariants
// under -tags invariants) and every job must finish (unless late SLO jobs are dropped). Solves
// are capped at 1 s: contended gangs on a small partition can take seconds to prove optimal,
// and a limited solve must still give a valid plan (its incumbent, or no change that cycle).
func TestRandomWorkloads(t *testing.T) {
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		w := &traces.Workload{Cluster: traces.Uniform(16, traces.VecOf(1, 1), 4)}
		for m := range 8 {
			w.Cluster.Machines[m].GPU = true
		}
		var at traces.Time
		for i := range 24 {
			at += traces.Time(r.IntN(20)) * sec
			d := traces.Time(5+r.IntN(120)) * sec
			est := traces.Time(float64(d) * (0.33 + 2.67*r.Float64()))
			j := gang(at, int32(1+r.IntN(4)), d, est)
			if i%3 > 0 {
				j = slo(j, at+d+d*traces.Time(r.IntN(100))/100)
				j.Placement = traces.Placement{Kind: []string{traces.PlacementGPU, traces.PlacementRack}[r.IntN(2)], Hard: i%3 == 1}
				if !j.Placement.Hard {
					j.Placement.Slowdown = 1.5
				}
			}
			w.Jobs = append(w.Jobs, j)
		}
		for i, params := range []map[string]any{
			{}, {"mode": ModeGreedy}, {"flags": "base"}, {"flags": "pu", "backoff": BackoffIncBy1, "late_slo": LateDrop},
			{"be_plan_ahead": false, "max_pending": 3, "plan_ahead_s": 30},
		} {
			params["time_limit_s"] = 1
			delays := []traces.Time{0}
			if i < 2 {
				delays = append(delays, 7*sec)
			}
			for _, delay := range delays {
				wc := *w
				wc.Jobs = append([]traces.Job(nil), w.Jobs...)
				res, pol := run(t, &wc, params, replay.Config{PreemptDelay: delay})
				// A fallback is allowed only where the 1 s limit stopped a solve before any
				// solution (on a loaded host a solve HiGHS normally proves in milliseconds can
				// run out of wall time); one for any other reason is a failure.
				for _, row := range pol.rec.rows {
					if row.fallback && !row.limit {
						t.Errorf("seed %d %v delay %d: t=%d fallback with status %s", seed, params, delay, row.t, row.status)
					}
				}
				for _, jr := range res.Jobs {
					if !jr.Completed && !(params["late_slo"] == LateDrop && jr.Deadline > 0) {
						t.Errorf("seed %d %v delay %d: job %d unfinished", seed, params, delay, jr.Index)
					}
				}
			}
		}
	}
}

// TestUnschedulable: a hard GPU gang larger than the GPU machines never starts and is counted;
// the rest of the workload runs.
func TestUnschedulable(t *testing.T) {
	w := &traces.Workload{Cluster: cluster4(), Jobs: []traces.Job{
		slo(placed(gang(0, 3, 10*sec, 10*sec), traces.Placement{Kind: traces.PlacementGPU, Hard: true}), 100*sec),
		gang(0, 4, 10*sec, 10*sec),
	}}
	res, pol := run(t, w, nil, replay.Config{})
	if res.Jobs[0].Completed || !res.Jobs[1].Completed || pol.stats.unschedulable != 1 || pol.stats.late != 0 {
		t.Errorf("completed %v %v, %d unschedulable, %d late", res.Jobs[0].Completed, res.Jobs[1].Completed, pol.stats.unschedulable, pol.stats.late)
	}
}
