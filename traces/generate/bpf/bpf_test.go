package bpf

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

const sec = traces.Second

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xb9f)) }

// fixture loads the five TPC-H queries of testdata (see testdata/SOURCE.md).
func fixture(t *testing.T) *traces.Workload {
	t.Helper()
	w, err := tpcdag.ReadFile("testdata/queries_tpch_5.txt", tpcdag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 5 {
		t.Fatalf("fixture has %d queries, want 5", len(w.Jobs))
	}
	return w
}

// tpch returns Defaults with the fixture and BoPF's TPC-H LQ duration scale of 1/2.
func tpch(t *testing.T, mod func(*Options)) Options {
	o := Defaults()
	o.Queries = fixture(t)
	o.LQDurationScale = 0.5
	if mod != nil {
		mod(&o)
	}
	return o
}

func stage(j *traces.Job, name string) *traces.Stage {
	for i := range j.Stages {
		if j.Stages[i].Name == name {
			return &j.Stages[i]
		}
	}
	return nil
}

func TestGenerateHandChecked(t *testing.T) {
	w, err := Generate(tpch(t, nil), rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 25+500 || !w.Cluster.Pooled || w.Cluster.Total() != traces.VecOf(40, 40) {
		t.Fatalf("%d jobs, pooled %v, capacity %s", len(w.Jobs), w.Cluster.Pooled, w.Cluster.Total().Format(2))
	}
	perQueue := map[string]int{}
	seen := map[string]bool{}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		perQueue[j.Queue]++
		if j.Class == ClassTQ {
			if j.Submit != 0 || j.Deadline != 0 || j.Priority != 0 {
				t.Errorf("TQ job %d: submit %d deadline %d priority %d", j.ID, j.Submit, j.Deadline, j.Priority)
			}
			continue
		}
		lq, burst, ok := BurstOf(j)
		if !ok || lq != 0 || j.Queue != "lq0" || j.Class != ClassLQ || j.Priority != 1 {
			t.Fatalf("LQ job %d: name %q queue %q class %q", j.ID, j.Name, j.Queue, j.Class)
		}
		if want := 100*sec + traces.Time(burst)*1000*sec; j.Submit != want {
			t.Errorf("burst %d submitted at %v s, want %v s", burst, traces.Seconds(j.Submit), traces.Seconds(want))
		}
		seen[j.Features.JobName] = true
		switch j.Features.JobName {
		case "TPC-H query6":
			// Map1: 68 tasks × 0.23 mem = 39.1% of 40 → ×2.5575 → 173 tasks (39.79 of 40 mem);
			// Reducer2: 1 → 2. Critical path (43 s + 2 s) × 0.5 = 22.5 s, one wave per stage.
			if m, r := stage(j, "Map1"), stage(j, "Reducer2"); m.Tasks != 173 || r.Tasks != 2 || m.Duration != 21500*traces.Millisecond {
				t.Errorf("query6: Map1 %d tasks of %v s, Reducer2 %d tasks", m.Tasks, traces.Seconds(m.Duration), r.Tasks)
			}
			if d := j.Deadline - j.Submit; d != 22500*traces.Millisecond {
				t.Errorf("query6: allowed time %v s, want 22.5 s", traces.Seconds(d))
			}
		case "TPC-H query22":
			// Map1: 67 tasks × 0.25 cpu = 41.875% of 40 → exactly 160 tasks = all 40 cpus.
			if m := stage(j, "Map1"); m.Tasks != 160 {
				t.Errorf("query22: Map1 %d tasks, want 160", m.Tasks)
			}
			if r := stage(j, "Reducer3"); r.Tasks != 66 {
				t.Errorf("query22: Reducer3 %d tasks, want 66 (28 × 2.388)", r.Tasks)
			}
			if d := j.Deadline - j.Submit; d != 20500*traces.Millisecond {
				t.Errorf("query22: allowed time %v s, want 20.5 s", traces.Seconds(d))
			}
		default:
			t.Errorf("LQ job from %q, whose scaled critical path is ≥ 30 s", j.Features.JobName)
		}
		for _, s := range j.Stages {
			if s.Estimate != s.Duration {
				t.Errorf("LQ job %d stage %s: estimate %d ≠ duration %d", j.ID, s.Name, s.Estimate, s.Duration)
			}
		}
	}
	if !seen["TPC-H query6"] || !seen["TPC-H query22"] {
		t.Errorf("25 bursts drew only %v", seen)
	}
	// 500 TQ jobs round-robin over 8 queues: 63 in tq0..tq3, 62 in tq4..tq7.
	for k := range 8 {
		want := 62
		if k < 4 {
			want = 63
		}
		if got := perQueue["tq"+string(rune('0'+k))]; got != want {
			t.Errorf("tq%d has %d jobs, want %d", k, got, want)
		}
	}
	if perQueue["lq0"] != 25 {
		t.Errorf("lq0 has %d jobs, want 25", perQueue["lq0"])
	}
	if !strings.HasPrefix(w.Source, "generate/bpf queries=") || !strings.Contains(w.Source, "lq_duration_scale=0.5") {
		t.Errorf("source %q", w.Source)
	}
}

func TestFillAndWaves(t *testing.T) {
	total := traces.VecOf(40, 40)
	tests := []struct {
		name       string
		stages     []traces.Stage
		fill       float64
		wantTasks  []int32
		wantAllowS float64
	}{
		{
			name: "widest stage fills cpu",
			stages: []traces.Stage{
				{Name: "a", Tasks: 10, Demand: traces.VecOf(0.5, 0.1), Duration: 10 * sec},
				{Name: "b", Tasks: 4, Demand: traces.VecOf(0.1, 0.1), Duration: 5 * sec, Parents: []int32{0}},
			},
			fill:       1, // peak 10×0.5/40 = 0.125 → ×8
			wantTasks:  []int32{80, 32},
			wantAllowS: 15,
		},
		{
			name: "double fill takes two waves",
			stages: []traces.Stage{
				{Name: "a", Tasks: 10, Demand: traces.VecOf(0.5, 0.1), Duration: 10 * sec},
				{Name: "b", Tasks: 4, Demand: traces.VecOf(0.1, 0.1), Duration: 5 * sec, Parents: []int32{0}},
			},
			fill:       2,
			wantTasks:  []int32{160, 64},
			wantAllowS: 25, // a: 160 tasks, 80 per wave → 2 waves; b: 64 × 0.1 fits
		},
		{
			name: "parallel stages, memory bottleneck, tiny stage keeps one task",
			stages: []traces.Stage{
				{Name: "a", Tasks: 20, Demand: traces.VecOf(0.1, 0.4), Duration: 3 * sec},
				{Name: "b", Tasks: 1, Demand: traces.VecOf(0.01, 0.01), Duration: 7 * sec},
			},
			fill:       0.5, // peak 20×0.4/40 = 0.2 → ×2.5
			wantTasks:  []int32{50, 2},
			wantAllowS: 7,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := traces.Job{Name: "q", Stages: tc.stages}
			if err := fill(&j, total, tc.fill); err != nil {
				t.Fatal(err)
			}
			for i, s := range j.Stages {
				if s.Tasks != tc.wantTasks[i] {
					t.Errorf("stage %s: %d tasks, want %d", s.Name, s.Tasks, tc.wantTasks[i])
				}
			}
			if got := shortestCompletion(&j, total) / float64(sec); got != tc.wantAllowS {
				t.Errorf("shortest completion %v s, want %v s", got, tc.wantAllowS)
			}
		})
	}
}

func TestOptionsVariants(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*Options)
		check func(t *testing.T, w *traces.Workload)
	}{
		{
			name: "several staggered LQs and no TQs",
			mod:  func(o *Options) { o.LQs, o.TQs, o.Bursts, o.StaggerS, o.PeriodS, o.FirstBurstS = 3, 0, 2, 50, 150, 50 },
			check: func(t *testing.T, w *traces.Workload) {
				want := map[string][]traces.Time{"lq0": {50 * sec, 200 * sec}, "lq1": {100 * sec, 250 * sec}, "lq2": {150 * sec, 300 * sec}}
				got := map[string][]traces.Time{}
				for _, j := range w.Jobs {
					got[j.Queue] = append(got[j.Queue], j.Submit)
				}
				for q, ts := range want {
					if len(got[q]) != 2 || got[q][0] != ts[0] || got[q][1] != ts[1] {
						t.Errorf("%s arrivals %v, want %v", q, got[q], ts)
					}
				}
				if len(w.Jobs) != 6 {
					t.Errorf("%d jobs, want 6", len(w.Jobs))
				}
			},
		},
		{
			name: "only TQs, scaled",
			mod:  func(o *Options) { o.LQs, o.TQs, o.TQJobs, o.TQTaskScale, o.TQDurationScale = 0, 2, 10, 2, 0.5 },
			check: func(t *testing.T, w *traces.Workload) {
				if len(w.Jobs) != 10 {
					t.Fatalf("%d jobs, want 10", len(w.Jobs))
				}
				queries := map[string]*traces.Job{}
				for i := range fixture(t).Jobs {
					q := &fixture(t).Jobs[i]
					queries[q.Name] = q
				}
				for _, j := range w.Jobs {
					q := queries[j.Features.JobName]
					for si, s := range j.Stages {
						if s.Tasks != 2*q.Stages[si].Tasks || s.Duration != q.Stages[si].Duration/2 {
							t.Fatalf("job %d stage %s: %d tasks of %d µs from %d of %d", j.ID, s.Name, s.Tasks, s.Duration, q.Stages[si].Tasks, q.Stages[si].Duration)
						}
					}
				}
			},
		},
		{
			// BoPF's simulator: a fixed task multiplier instead of filling the bottleneck, and
			// only queries with fewer than lq_max_tasks tasks (query22 has 225, query6 69).
			name: "BoPF sizing: task multiplier and task bound",
			mod:  func(o *Options) { o.TQs, o.Bursts, o.LQTaskScale, o.LQMaxTasks, o.LQFill = 0, 6, 2.4, 100, 7 },
			check: func(t *testing.T, w *traces.Workload) {
				for i := range w.Jobs {
					j := &w.Jobs[i]
					m, r := stage(j, "Map1"), stage(j, "Reducer2")
					if j.Features.JobName != "TPC-H query6" || m == nil || r == nil || m.Tasks != 163 || r.Tasks != 2 {
						t.Fatalf("%s: want query6 with 163 (68 × 2.4) Map1 and 2 (1 × 2.4) Reducer2 tasks", j.Name)
					}
					// Map1: 163 × 0.23 mem = 37.49 of 40 fits one wave of 21.5 s; Reducer2 1 s.
					if d := j.Deadline - j.Submit; d != 22500*traces.Millisecond {
						t.Errorf("%s: allowed %v s, want 22.5 s", j.Name, traces.Seconds(d))
					}
				}
			},
		},
		{
			name: "LQ task bound keeps both queries under it",
			mod:  func(o *Options) { o.TQs, o.Bursts, o.LQTaskScale, o.LQMaxTasks = 0, 40, 1, 226 },
			check: func(t *testing.T, w *traces.Workload) {
				seen := map[string]bool{}
				for _, j := range w.Jobs {
					seen[j.Features.JobName] = true
				}
				if !seen["TPC-H query6"] || !seen["TPC-H query22"] || len(seen) != 2 {
					t.Errorf("LQ queries %v, want query6 and query22", seen)
				}
			},
		},
		{
			name: "LQ slack stretches the allowed time",
			mod:  func(o *Options) { o.TQs, o.LQSlackPercent, o.Bursts = 0, 100, 10 },
			check: func(t *testing.T, w *traces.Workload) {
				for _, j := range w.Jobs {
					want := map[string]traces.Time{"TPC-H query6": 45 * sec, "TPC-H query22": 41 * sec}[j.Features.JobName]
					if d := j.Deadline - j.Submit; d != want {
						t.Errorf("%s: allowed %v s, want %v s", j.Features.JobName, traces.Seconds(d), traces.Seconds(want))
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Generate(tpch(t, tc.mod), rng(2))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, w)
		})
	}
}

func TestNoLQCandidates(t *testing.T) {
	o := tpch(t, func(o *Options) { o.LQDurationScale = 1 })
	_, err := Generate(o, rng(1))
	if err == nil || !strings.Contains(err.Error(), "Options.LQMaxCriticalPathS") || !strings.Contains(err.Error(), "the shortest is 41 s") {
		t.Errorf("got %v, want an error naming LQMaxCriticalPathS and the shortest critical path 41 s", err)
	}
}

func TestDeterminismAndStreams(t *testing.T) {
	gen := func(o Options, seed uint64) *traces.Workload {
		w, err := Generate(o, rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b, c := gen(tpch(t, nil), 5), gen(tpch(t, nil), 5), gen(tpch(t, nil), 6)
	if a.Hash() != b.Hash() {
		t.Error("same seed, different workloads")
	}
	if a.Hash() == c.Hash() {
		t.Error("different seeds, same workload")
	}
	// Changing the TQs must not change which queries the LQ bursts draw.
	d := gen(tpch(t, func(o *Options) { o.TQs, o.TQJobs = 3, 40 }), 5)
	lqs := func(w *traces.Workload) []string {
		var out []string
		for _, j := range w.Jobs {
			if j.Class == ClassLQ {
				out = append(out, j.Name)
			}
		}
		return out
	}
	if x, y := lqs(a), lqs(d); strings.Join(x, ",") != strings.Join(y, ",") {
		t.Error("changing the TQs changed the LQ bursts")
	}
}

func TestBurstOf(t *testing.T) {
	tests := []struct {
		name      string
		lq, burst int
		ok        bool
	}{
		{"lq0/burst3/TPC-H query6", 0, 3, true},
		{"lq12/burst0/a/b", 12, 0, true},
		{"tq0/TPC-H query6", 0, 0, false},
		{"lq0/burstx/q", 0, 0, false},
		{"lq-1/burst2/q", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		lq, burst, ok := BurstOf(&traces.Job{Name: tc.name})
		if lq != tc.lq || burst != tc.burst || ok != tc.ok {
			t.Errorf("BurstOf(%q) = %d, %d, %v; want %d, %d, %v", tc.name, lq, burst, ok, tc.lq, tc.burst, tc.ok)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*Options)
		field string
	}{
		{"valid", func(*Options) {}, ""},
		{"nil queries", func(o *Options) { o.Queries = nil }, "Queries"},
		{"no queries", func(o *Options) { o.Queries = &traces.Workload{Dims: []string{"cpu"}} }, "Queries"},
		{"invalid queries", func(o *Options) { o.Queries.Jobs[0].Stages[0].Tasks = 0 }, "Queries"},
		{"negative LQs", func(o *Options) { o.LQs = -1 }, "LQs"},
		{"no queues", func(o *Options) { o.LQs, o.TQs = 0, 0 }, "LQs"},
		{"negative TQs", func(o *Options) { o.TQs = -2 }, "TQs"},
		{"no bursts", func(o *Options) { o.Bursts = 0 }, "Bursts"},
		{"zero period", func(o *Options) { o.PeriodS = 0 }, "PeriodS"},
		{"negative first burst", func(o *Options) { o.FirstBurstS = -1 }, "FirstBurstS"},
		{"NaN stagger", func(o *Options) { o.StaggerS = math.NaN() }, "StaggerS"},
		{"zero LQ threshold", func(o *Options) { o.LQMaxCriticalPathS = 0 }, "LQMaxCriticalPathS"},
		{"zero duration scale", func(o *Options) { o.LQDurationScale = 0 }, "LQDurationScale"},
		{"zero fill", func(o *Options) { o.LQFill = 0 }, "LQFill"},
		{"negative LQ task scale", func(o *Options) { o.LQTaskScale = -1 }, "LQTaskScale"},
		{"negative LQ task bound", func(o *Options) { o.LQMaxTasks = -1 }, "LQMaxTasks"},
		{"slack -100", func(o *Options) { o.LQSlackPercent = -100 }, "LQSlackPercent"},
		{"fewer TQ jobs than TQs", func(o *Options) { o.TQJobs = 7 }, "TQJobs"},
		{"zero TQ task scale", func(o *Options) { o.TQTaskScale = 0 }, "TQTaskScale"},
		{"infinite TQ duration scale", func(o *Options) { o.TQDurationScale = math.Inf(1) }, "TQDurationScale"},
		{"no machines", func(o *Options) { o.Machines = 0 }, "Machines"},
		{"bursts beyond the time range", func(o *Options) { o.Bursts, o.PeriodS = 1_000_000, 1e6 }, "Bursts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tpch(t, tc.mod)
			err := o.Validate()
			if tc.field == "" {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "bpf: Options."+tc.field+":") {
				t.Errorf("got %v, want an error naming %s", err, tc.field)
			}
			if _, gerr := Generate(o, rng(1)); gerr == nil {
				t.Error("Generate accepted invalid options")
			}
		})
	}
	if _, err := Generate(tpch(t, nil), nil); err == nil {
		t.Error("Generate accepted a nil *rand.Rand")
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Name] || k.Doc == "" {
			t.Errorf("key %q duplicated or undocumented", k.Name)
		}
		seen[k.Name] = true
	}
	if len(keys) != 22 { // one per Options field; "queries" is the path behind Options.Queries
		t.Errorf("%d keys, want 22", len(keys))
	}
}

// sharedQueries is where the full query files live when the shared trace data is present.
const sharedQueries = "../../../../shared/data/tpc-dags/workload"

// TestSharedDataWorkloads generates the paper-scale workload from each full query file.
func TestSharedDataWorkloads(t *testing.T) {
	if _, err := os.Stat(sharedQueries); err != nil {
		t.Skipf("shared trace data not found at %s (a fresh clone has none): %v", sharedQueries, err)
	}
	for _, tc := range []struct {
		file    string
		durScal float64
	}{
		{"queries_bb.txt", 1},
		{"queries_tpcds_new.txt", 1},
		{"queries_tpch.txt", 0.5},
	} {
		t.Run(tc.file, func(t *testing.T) {
			q, err := tpcdag.ReadFile(filepath.Join(sharedQueries, tc.file), tpcdag.Options{LastStageWins: true})
			if err != nil {
				t.Fatal(err)
			}
			o := Defaults()
			o.Queries, o.LQDurationScale = q, tc.durScal
			w, err := Generate(o, rng(1))
			if err != nil {
				t.Fatal(err)
			}
			lq := 0
			total := w.Cluster.Total()
			for i := range w.Jobs {
				j := &w.Jobs[i]
				if j.Class != ClassLQ {
					continue
				}
				lq++
				if cp := j.CriticalPath(false); cp >= 30*sec || j.Deadline-j.Submit != cp {
					t.Errorf("%s: critical path %v s, allowed %v s", j.Name, traces.Seconds(cp), traces.Seconds(j.Deadline-j.Submit))
				}
				var peak float64
				for _, s := range j.Stages {
					peak = max(peak, share(s.Tasks, s.Demand, total))
				}
				if peak > 1 || peak < 0.95 {
					t.Errorf("%s: widest stage demands %.3f of its bottleneck, want ≈ 1", j.Name, peak)
				}
			}
			if lq != 25 || len(w.Jobs) != 525 {
				t.Errorf("%d LQ jobs of %d, want 25 of 525", lq, len(w.Jobs))
			}
		})
	}
}
