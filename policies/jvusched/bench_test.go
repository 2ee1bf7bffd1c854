package jvusched_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/jvusched"
	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// timed wraps a policy and records the wall time of every Schedule call that solved a MILP
// (the whole cycle: building, solving, decoding).
type timed struct {
	policies.Policy
	solves func() int64
	cycles []time.Duration // wall
	cpu    []time.Duration // process CPU time (one goroutine with -cpu 1: the cycle's own)
}

func (t *timed) Schedule(v policies.View, p *policies.Plan) error {
	before := t.solves()
	t0, c0 := time.Now(), testutil.CPUTime()
	err := t.Policy.Schedule(v, p)
	if t.solves() > before {
		t.cycles = append(t.cycles, time.Since(t0))
		t.cpu = append(t.cpu, testutil.CPUTime()-c0)
	}
	return err
}

// cyclesTable returns the policy's per-solve table.
func cyclesTable(b testing.TB, p policies.Policy) map[string]policies.Column {
	rep, err := p.(policies.Reporter).Report(policies.ReportContext{})
	if err != nil {
		b.Fatal(err)
	}
	cols := map[string]policies.Column{}
	for _, c := range rep.Tables[0].Columns {
		cols[c.Name] = c
	}
	return cols
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Microseconds()) / 1000
	}
	return out
}

func intsF(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// exp1 generates the jamaisvu EXP1 workload on SC256 from the shared Google trace.
func exp1(b *testing.B, jobs int) *traces.Workload {
	dir := testutil.SharedData(b, "google2011")
	v := experiments.NewViper()
	v.Set("workload.generator", "jamaisvu")
	v.Set("workload.jamaisvu.trace", dir)
	v.Set("workload.jamaisvu.jobs", jobs)
	c, err := experiments.Resolve(v)
	if err != nil {
		b.Fatal(err)
	}
	w, err := experiments.LoadWorkload(c.Workload)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// jvDump, when set, makes BenchmarkEXP1 write every solve's problem (milp's text form) into the
// directory, and solves.tsv there: one line per solve (name, pending, cols, rows, cycle CPU ms),
// the input of BenchmarkDumpedMILPs.
var jvDump = flag.String("jvdump", "", "BenchmarkEXP1: dump every solve's problem and solves.tsv into this directory")

// BenchmarkEXP1 replays JamaisVu's EXP1 (load 0.9, SC256, 5 s cycles) under jvusched with
// JVuPredict estimates and reports the MILP cycle times (build + solve + decode of every cycle
// that solved one), how much faster than simulated time the whole run is, and the MILP sizes.
//
//	go test -run '^$' -bench BenchmarkEXP1 -benchtime 1x -cpu 1 ./policies/jvusched/
func BenchmarkEXP1(b *testing.B) {
	solvertest.Need(b)
	for _, tt := range []struct {
		jobs  int
		extra []string
	}{
		{1000, nil},
		{1000, []string{"policy.params.mode=greedy"}},
		{1000, []string{"policy.params.plan_ahead_s=30"}},
		{1000, []string{"policy.params.plan_ahead_s=120"}},
		{1000, []string{"policy.params.plan_ahead_s=240"}},
		{3000, nil},
	} {
		name := fmt.Sprintf("jobs=%d", tt.jobs)
		params := map[string]any{}
		for _, s := range tt.extra {
			k, val, _ := cutParam(s)
			params[k] = val
			name += "/" + k + "=" + val
		}
		b.Run(name, func(b *testing.B) {
			w := exp1(b, tt.jobs)
			for range b.N {
				pol, err := jvusched.New(policies.Options{Params: params, DumpModels: *jvDump})
				if err != nil {
					b.Fatal(err)
				}
				tp := &timed{Policy: pol, solves: pol.(*jvusched.Policy).Solves}
				pr, err := predict.New(predict.JVuName, predict.Options{}, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				e, err := replay.New(w, tp, replay.Config{Cycle: 5 * traces.Second, Estimator: pr})
				if err != nil {
					b.Fatal(err)
				}
				t0, c0 := time.Now(), testutil.CPUTime()
				res, err := e.Run()
				wall, cpu := time.Since(t0), testutil.CPUTime()-c0
				if err != nil {
					b.Fatal(err)
				}
				cols := cyclesTable(b, pol)
				cyc, cyccpu := ms(tp.cycles), ms(tp.cpu)
				b.ReportMetric(quantile(cyc, 0.5), "cycle-p50-ms")
				b.ReportMetric(quantile(cyc, 0.99), "cycle-p99-ms")
				b.ReportMetric(quantile(cyc, 1), "cycle-max-ms")
				b.ReportMetric(quantile(cyccpu, 0.5), "cycle-cpu-p50-ms")
				b.ReportMetric(quantile(cyccpu, 0.99), "cycle-cpu-p99-ms")
				b.ReportMetric(traces.Seconds(res.End-res.Start)/cpu.Seconds(), "sim-speedup-cpu")
				b.ReportMetric(quantile(cols["wall_ms"].Float64, 0.5), "solve-p50-ms")
				b.ReportMetric(float64(len(cyc)), "solves")
				b.ReportMetric(traces.Seconds(res.End-res.Start)/wall.Seconds(), "sim-speedup")
				b.ReportMetric(quantile(intsF(cols["cols"].Int64), 0.5), "cols-p50")
				b.ReportMetric(quantile(intsF(cols["cols"].Int64), 1), "cols-max")
				b.ReportMetric(quantile(intsF(cols["rows"].Int64), 1), "rows-max")
				b.ReportMetric(quantile(intsF(cols["pending"].Int64), 1), "pending-max")
				logByPending(b, cols, tp.cpu)
				if *jvDump != "" {
					writeSolveIndex(b, *jvDump, cols, tp.cpu)
				}
			}
		})
	}
}

// logByPending logs, per number of pending jobs, the solves' median MILP size and cycle CPU time.
func logByPending(b *testing.B, cols map[string]policies.Column, cpu []time.Duration) {
	by := map[int64][]int{}
	for i, n := range cols["pending"].Int64 {
		by[min(n, 16)] = append(by[min(n, 16)], i)
	}
	for n := int64(1); n <= 16; n++ {
		idx := by[n]
		if len(idx) == 0 {
			continue
		}
		var cs, rs, is, ts []float64
		for _, i := range idx {
			cs = append(cs, float64(cols["cols"].Int64[i]))
			rs = append(rs, float64(cols["rows"].Int64[i]))
			is = append(is, float64(cols["binaries"].Int64[i]+cols["integers"].Int64[i]))
			if len(cpu) == len(cols["pending"].Int64) { // one solve per cycle (global mode)
				ts = append(ts, float64(cpu[i].Microseconds())/1000)
			}
		}
		b.Logf("pending=%d%s solves=%d cols-p50=%.0f rows-p50=%.0f integers-p50=%.0f cycle-cpu-p50-ms=%.2f cycle-cpu-max-ms=%.1f",
			n, map[bool]string{true: "+", false: ""}[n == 16], len(idx), quantile(cs, .5), quantile(rs, .5), quantile(is, .5), quantile(ts, .5), quantile(ts, 1))
	}
}

// writeSolveIndex writes DIR/solves.tsv: per solve its problem's file name, pending jobs, columns,
// rows and (global mode, one solve per cycle) the cycle's CPU milliseconds.
func writeSolveIndex(b *testing.B, dir string, cols map[string]policies.Column, cpu []time.Duration) {
	var sb []byte
	sb = append(sb, "problem\tpending\tcols\trows\tcycle_cpu_ms\n"...)
	for i, call := range cols["call"].Int64 {
		c := -1.0
		if len(cpu) == len(cols["call"].Int64) {
			c = float64(cpu[i].Microseconds()) / 1000
		}
		sb = fmt.Appendf(sb, "jvusched_c%06d_s%d.problem\t%d\t%d\t%d\t%.2f\n", call, cols["solve"].Int64[i],
			cols["pending"].Int64[i], cols["cols"].Int64[i], cols["rows"].Int64[i], c)
	}
	if err := os.WriteFile(filepath.Join(dir, "solves.tsv"), sb, 0o644); err != nil {
		b.Fatal(err)
	}
}

func cutParam(s string) (string, string, bool) {
	const prefix = "policy.params."
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[len(prefix):i], s[i+1:], true
		}
	}
	return s, "", false
}

// backlog builds SC256 (8 racks of 32 machines, racks 0–1 with GPUs) with 192 one-task jobs
// running from t=0 (a quarter of the machines free) and, at t=1 s, pending EXP1-like jobs: half
// best effort, a quarter hard- and a quarter soft-constrained SLO jobs (gpu or rack, slowdown
// 1.5), 1–8 tasks, 30–1,800 s, deadline slack 20–80 %.
func backlog(pending int, seed uint64) *traces.Workload {
	r := rand.New(rand.NewPCG(seed, 99))
	w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(256, traces.VecOf(4, 16), 32)}
	for m := range 64 {
		w.Cluster.Machines[m].GPU = true
	}
	node := traces.VecOf(4, 16)
	job := func(submit traces.Time, k int32, d traces.Time) traces.Job {
		return traces.Job{Submit: submit, Queue: "be", Class: "be", Stages: []traces.Stage{{Name: "tasks", Tasks: k, Demand: node, Duration: d, Estimate: d}}}
	}
	for range 192 {
		w.Jobs = append(w.Jobs, job(0, 1, traces.Time(600+r.IntN(3000))*traces.Second))
	}
	for i := range pending {
		j := job(traces.Second, int32(1+r.IntN(8)), traces.Time(30+r.IntN(1770))*traces.Second)
		switch i % 4 {
		case 1, 2:
			d := j.Stages[0].Duration
			j.Queue, j.Class, j.Priority = "slo", "slo", 1
			j.Deadline = j.Submit + d + d*traces.Time(20+r.IntN(61))/100
			j.Placement = traces.Placement{Kind: []string{traces.PlacementGPU, traces.PlacementRack}[r.IntN(2)], Hard: i%4 == 1}
			if !j.Placement.Hard {
				j.Placement.Slowdown = 1.5
			}
		}
		w.Jobs = append(w.Jobs, j)
	}
	for i := range w.Jobs {
		w.Jobs[i].ID = int64(i)
	}
	return w
}

// BenchmarkMILPSize measures one global cycle with many pending jobs (backlog) for each
// plan-ahead window, with and without best-effort plan-ahead: the MILP's size and the cycle's
// time, to show how both scale.
//
//	go test -run '^$' -bench BenchmarkMILPSize -benchtime 3x -cpu 1 ./policies/jvusched/
func BenchmarkMILPSize(b *testing.B) {
	solvertest.Need(b)
	for _, be := range []bool{true, false} {
		for _, pending := range []int{10, 40, 160} {
			for _, window := range []int{30, 60, 120} {
				params := map[string]any{"plan_ahead_s": window, "be_plan_ahead": be}
				b.Run(fmt.Sprintf("be_plan_ahead=%v/pending=%d/plan_ahead_s=%d", be, pending, window), func(b *testing.B) {
					w := backlog(pending, 1)
					var cyc, cyccpu []float64
					var cols map[string]policies.Column
					for range b.N {
						pol, err := jvusched.New(policies.Options{Params: params})
						if err != nil {
							b.Fatal(err)
						}
						tp := &timed{Policy: pol, solves: pol.(*jvusched.Policy).Solves}
						e, err := replay.New(w, tp, replay.Config{Cycle: 5 * traces.Second, Horizon: 6 * traces.Second})
						if err != nil {
							b.Fatal(err)
						}
						if _, err := e.Run(); err != nil {
							b.Fatal(err)
						}
						cols = cyclesTable(b, pol)
						cyc = append(cyc, ms(tp.cycles[len(tp.cycles)-1:])...)
						cyccpu = append(cyccpu, ms(tp.cpu[len(tp.cpu)-1:])...)
					}
					last := len(cols["cols"].Int64) - 1
					b.ReportMetric(quantile(cyc, 0.5), "cycle-ms")
					b.ReportMetric(quantile(cyccpu, 0.5), "cycle-cpu-ms")
					b.ReportMetric(cols["solver_ms"].Float64[last], "solver-ms")
					b.ReportMetric(float64(cols["considered"].Int64[last]), "jobs")
					b.ReportMetric(float64(cols["leaves"].Int64[last]), "leaves")
					b.ReportMetric(float64(cols["cols"].Int64[last]), "cols")
					b.ReportMetric(float64(cols["rows"].Int64[last]), "rows")
					b.ReportMetric(float64(cols["binaries"].Int64[last]+cols["integers"].Int64[last]), "integers")
					b.ReportMetric(float64(cols["nonzeros"].Int64[last]), "nonzeros")
					b.ReportMetric(float64(cols["partitions"].Int64[last]), "partitions")
					if s := cols["status"].String[last]; s != "optimal" {
						b.Logf("status %s", s)
					}
				})
			}
		}
	}
}
