package compare

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"github.com/schedlab/schedlab/experiments/sweep/sweeptest"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

var update = flag.Bool("update", false, "rewrite golden files")

func dataset(src string, groups map[string][]map[string]float64) *Dataset {
	d := &Dataset{Source: src, GroupKeys: []string{"policy.name"}}
	for _, g := range []string{"fifo", "drf", "srpt"} {
		for i, m := range groups[g] {
			d.Samples = append(d.Samples, Sample{Group: map[string]string{"policy.name": g}, Seed: int64(i + 1), Metrics: m})
		}
	}
	return d
}

func seeds(metric string, vals ...float64) []map[string]float64 {
	var out []map[string]float64
	for _, v := range vals {
		out = append(out, map[string]float64{metric: v})
	}
	return out
}

func TestMetricDirection(t *testing.T) {
	for m, want := range map[string]Direction{
		"avg_jct_s": LowerIsBetter, "p99_jct_s": LowerIsBetter, "by_queue.q1.avg_jct_s": LowerIsBetter,
		"makespan_s": LowerIsBetter, "slo_miss_rate": LowerIsBetter, "preemptions": LowerIsBetter,
		"utilization.cpu": HigherIsBetter, "be_goodput_task_hours": HigherIsBetter, "min_utility": HigherIsBetter,
		"waits.tasks.p95_s": LowerIsBetter, "waits.by_queue.q1.avg_s": LowerIsBetter, "waits.waited_jobs": LowerIsBetter, "waits.tasks.starts": Neutral,
		"jobs": Neutral, "engine.events": Neutral, "queue_dominant_share.q1": Neutral, "engine.preemptions": Neutral,
	} {
		if got := MetricDirection(m); got != want {
			t.Errorf("MetricDirection(%s) = %v, want %v", m, got, want)
		}
	}
}

func TestMinMWp(t *testing.T) {
	for _, tt := range []struct {
		n1, n2 int
		want   float64
	}{{1, 1, 1}, {2, 2, 1.0 / 3}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}} {
		if got := minMWp(tt.n1, tt.n2); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("minMWp(%d,%d) = %v, want %v", tt.n1, tt.n2, got, tt.want)
		}
	}
}

func TestCompareVerdicts(t *testing.T) {
	tests := []struct {
		name      string
		base, new []float64
		metric    string
		opts      Options
		verdict   string
		test      string
	}{
		{"an unchanged rerun is the same", []float64{100, 100, 100}, []float64{100, 100, 100}, "avg_jct_s", Options{}, VerdictSame, TestBootstrap},
		{"a deterministic 10% JCT increase is a regression", []float64{100, 100, 100}, []float64{110, 110, 110}, "avg_jct_s", Options{}, VerdictRegression, TestBootstrap},
		{"a JCT decrease is better", []float64{100, 101, 99}, []float64{80, 81, 79}, "avg_jct_s", Options{}, VerdictBetter, TestBootstrap},
		{"a small significant worsening within the threshold is worse", []float64{100, 100, 100}, []float64{101, 101, 101}, "avg_jct_s", Options{}, VerdictWorse, TestBootstrap},
		{"noise that overlaps is not significant", []float64{90, 110, 100}, []float64{95, 112, 99}, "avg_jct_s", Options{}, VerdictSame, TestBootstrap},
		{"lower utilization is a regression", []float64{0.9, 0.9}, []float64{0.8, 0.8}, "utilization.cpu", Options{}, VerdictRegression, TestBootstrap},
		{"a neutral metric only changes", []float64{10, 10}, []float64{12, 12}, "engine.events", Options{Metrics: []string{"engine.*"}}, VerdictChanged, TestBootstrap},
		{"Mann-Whitney with enough seeds", []float64{100, 101, 102, 103, 104}, []float64{120, 121, 122, 123, 124}, "avg_jct_s", Options{}, VerdictRegression, TestMW},
		{"Mann-Whitney on overlapping samples", []float64{100, 110, 102, 108, 104}, []float64{101, 109, 103, 107, 105}, "avg_jct_s", Options{}, VerdictSame, TestMW},
		{"forced Mann-Whitney cannot reach alpha with 3 seeds", []float64{100, 101, 102}, []float64{110, 111, 112}, "avg_jct_s", Options{Test: TestMW}, VerdictSame, TestMW},
		{"single runs compare exactly", []float64{100}, []float64{103}, "avg_jct_s", Options{}, VerdictRegression, "exact"},
		{"a larger threshold tolerates the change", []float64{100, 100}, []float64{110, 110}, "avg_jct_s", Options{Threshold: 0.2}, VerdictWorse, TestBootstrap},
		{"a zero base with a nonzero new value is a regression", []float64{0, 0}, []float64{0.1, 0.1}, "slo_miss_rate", Options{}, VerdictRegression, TestBootstrap},
		{"zero on both sides is the same", []float64{0, 0}, []float64{0, 0}, "slo_miss_rate", Options{Metrics: []string{"slo_miss_rate"}}, VerdictSame, TestBootstrap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := dataset("base", map[string][]map[string]float64{"fifo": seeds(tt.metric, tt.base...)})
			n := dataset("new", map[string][]map[string]float64{"fifo": seeds(tt.metric, tt.new...)})
			res, err := Compare(b, n, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 1 {
				t.Fatalf("rows = %+v", res.Rows)
			}
			r := res.Rows[0]
			if r.Verdict != tt.verdict || r.Test != tt.test {
				t.Errorf("verdict %s (test %s, p %v, rel %v), want %s (test %s)", r.Verdict, r.Test, r.P, r.Rel, tt.verdict, tt.test)
			}
			if (r.Verdict == VerdictRegression) != (res.Regressions == 1) {
				t.Errorf("regressions = %d", res.Regressions)
			}
		})
	}
}

func TestCompareIsDeterministic(t *testing.T) {
	b := dataset("base", map[string][]map[string]float64{"fifo": seeds("avg_jct_s", 100, 120, 90), "drf": seeds("avg_jct_s", 50, 55, 52)})
	n := dataset("new", map[string][]map[string]float64{"fifo": seeds("avg_jct_s", 130, 140, 125), "srpt": seeds("avg_jct_s", 1, 2, 3)})
	var outs []string
	for range 2 {
		res, err := Compare(b, n, Options{AllowMismatch: true})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		res.WriteText(&buf)
		outs = append(outs, buf.String())
		if len(res.OnlyBase) != 1 || res.OnlyBase[0] != "policy.name=drf" || len(res.OnlyNew) != 1 {
			t.Errorf("only base %v only new %v", res.OnlyBase, res.OnlyNew)
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("two comparisons of the same data differ")
	}
}

func TestCompareErrors(t *testing.T) {
	b := dataset("base", map[string][]map[string]float64{"fifo": seeds("avg_jct_s", 1)})
	n := dataset("new", map[string][]map[string]float64{"drf": seeds("avg_jct_s", 1)})
	if _, err := Compare(b, n, Options{}); err == nil || !errors.Is(err, experiments.ErrConfig) {
		t.Errorf("disjoint groups: error = %v", err)
	}
	for _, o := range []Options{{Alpha: 2}, {Threshold: -1}, {Test: "t"}, {Metrics: []string{"["}}} {
		if _, err := Compare(b, b, o); err == nil || !errors.Is(err, experiments.ErrConfig) {
			t.Errorf("options %+v: error = %v", o, err)
		}
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Errorf("empty dir: no error")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Errorf("missing dir: no error")
	}
}

// TestCompareSweepsAndRuns loads real sweep and run outputs: a sweep against its unchanged rerun
// passes, and against a rerun whose jobs all finished later (an injected regression) fails.
func TestCompareSweepsAndRuns(t *testing.T) {
	spec, err := experiments.LoadSpec("testdata/gate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(sets ...string) string {
		p, err := sweep.NewPlan(spec, "quick", sets)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := sweep.Run(context.Background(), p, sweep.Options{Out: dir, Parallel: 2}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	base, same, slow := run(), run(), run()
	sweeptest.SlowDown(t, slow, 1.3)
	load := func(p string) *Dataset {
		d, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	res, err := Compare(load(base), load(same), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Regressions != 0 {
		var b bytes.Buffer
		res.WriteText(&b)
		t.Errorf("unchanged rerun has regressions:\n%s", b.String())
	}
	for _, r := range res.Rows {
		if r.Verdict != VerdictSame {
			t.Errorf("unchanged rerun: %s %s is %s", r.Group, r.Metric, r.Verdict)
		}
	}
	if strings.Join(res.GroupKeys, ",") != "policy.name" {
		t.Errorf("group keys = %v", res.GroupKeys)
	}
	res, err = Compare(load(base), load(slow), Options{Metrics: []string{"avg_jct_s"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Regressions == 0 {
		var b bytes.Buffer
		res.WriteText(&b)
		t.Errorf("injected regression not flagged:\n%s", b.String())
	}

	// Run outputs: a directory of runs, one per seed.
	runs := t.TempDir()
	for _, seed := range []int64{1, 2} {
		v := experiments.NewViper()
		v.Set("workload.name", "../sweep/testdata/tiny-tpch.txt")
		v.Set("workload.machines", 3)
		v.Set("seed", seed)
		c, err := experiments.Resolve(v)
		if err != nil {
			t.Fatal(err)
		}
		o, err := experiments.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.WriteOutputs(filepath.Join(runs, "seed"+string(rune('0'+seed)))); err != nil {
			t.Fatal(err)
		}
	}
	d := load(runs)
	if len(d.Samples) != 2 || len(d.GroupKeys) != 1 || d.GroupKeys[0] != "policy.name" || d.Samples[0].Group["policy.name"] != "fifo" {
		t.Errorf("runs dataset = %+v", d)
	}
	one := load(filepath.Join(runs, "seed1"))
	if len(one.Samples) != 1 {
		t.Errorf("single run: %d samples", len(one.Samples))
	}
	res, err = Compare(one, one, Options{})
	if err != nil || res.Regressions != 0 || res.Rows[0].Test != "exact" {
		t.Errorf("run vs itself: %+v, %v", res, err)
	}
}

func TestWriteGolden(t *testing.T) {
	b := dataset("base/cells.parquet", map[string][]map[string]float64{
		"fifo": {{"avg_jct_s": 100, "utilization.cpu": 0.8, "jobs": 10}, {"avg_jct_s": 102, "utilization.cpu": 0.8, "jobs": 10}, {"avg_jct_s": 98, "utilization.cpu": 0.8, "jobs": 10}},
		"srpt": {{"avg_jct_s": 50, "utilization.cpu": 0.7}, {"avg_jct_s": 50, "utilization.cpu": 0.7}, {"avg_jct_s": 50, "utilization.cpu": 0.7}},
	})
	n := dataset("new/cells.parquet", map[string][]map[string]float64{
		"fifo": {{"avg_jct_s": 90, "utilization.cpu": 0.8}, {"avg_jct_s": 91, "utilization.cpu": 0.8}, {"avg_jct_s": 89, "utilization.cpu": 0.8}},
		"srpt": {{"avg_jct_s": 60, "utilization.cpu": 0.65}, {"avg_jct_s": 60, "utilization.cpu": 0.65}, {"avg_jct_s": 60, "utilization.cpu": 0.65}},
	})
	res, err := Compare(b, n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"compare.txt", func(w *bytes.Buffer) error { return res.WriteText(w) }},
		{"compare.md", func(w *bytes.Buffer) error { return res.WriteMarkdown(w) }},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", f.name+".golden")
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(path, buf.Bytes(), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			os.WriteFile(path+".got", buf.Bytes(), 0o644)
			t.Errorf("%s differs from the golden file (wrote .got)", f.name)
		}
	}
}

// sweepOut runs a spec's sweep into a temporary directory.
func sweepOut(t *testing.T, specFile, label string, sets ...string) string {
	t.Helper()
	spec, err := experiments.LoadSpec(specFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.NewPlan(spec, label, sets)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sweep.Run(context.Background(), p, sweep.Options{Out: dir, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustLoad(t *testing.T, p string) *Dataset {
	t.Helper()
	d, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCompareRefusesMismatches: result sets of different labels, specs, seeds or configurations
// are refused with one line naming the difference, unless AllowMismatch.
func TestCompareRefusesMismatches(t *testing.T) {
	tinyWorkload := "workload.name=../sweep/testdata/tiny-tpch.txt"
	quick := sweepOut(t, "../sweep/testdata/tiny.yaml", "quick", tinyWorkload)
	paper := sweepOut(t, "../sweep/testdata/tiny.yaml", "paper", tinyWorkload)
	fixed := sweepOut(t, "testdata/fixed.yaml", "quick")
	oneSeed := sweepOut(t, "testdata/fixed.yaml", "quick", "seed=1")
	for _, tc := range []struct {
		name      string
		base, new string
		want      string
	}{
		{"quick against paper", quick, paper, `labels differ: "quick" in base, "paper" in new`},
		{"two specs", quick, fixed, `specs differ: "tiny" in base, "fixed" in new`},
		{"other seeds", fixed, oneSeed, "--set overrides differ: none in base, [seed=1] in new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(mustLoad(t, tc.base), mustLoad(t, tc.new), Options{})
			if err == nil || !errors.Is(err, experiments.ErrConfig) || !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error = %v; want one line with %q", err, tc.want)
			}
		})
	}
	// Seeds alone: the same sweep with its seeds given differently.
	b, n := mustLoad(t, fixed), mustLoad(t, fixed)
	n.Sets, n.Samples = b.Sets, n.Samples[:1]
	if _, err := Compare(b, n, Options{}); err == nil || !strings.Contains(err.Error(), "seeds differ: [1, 2] in base, [1] in new") {
		t.Errorf("seeds: error = %v", err)
	}
	// Workloads: same everything but the workload's content.
	b, n = mustLoad(t, fixed), mustLoad(t, fixed)
	for i := range n.Samples {
		n.Samples[i].WorkloadHash = "ffffffffffffffff"
	}
	if _, err := Compare(b, n, Options{}); err == nil || !strings.Contains(err.Error(), "workload hashes differ") {
		t.Errorf("workloads: error = %v", err)
	}
}

// TestAllowMismatchComparesOnlySharedConfigurations: with AllowMismatch, a sweep whose cluster
// settings are an axis against one that fixes them in its base compares the configurations both
// have, each on its own (not pooled), and lists the others.
func TestAllowMismatchComparesOnlySharedConfigurations(t *testing.T) {
	tiny := sweepOut(t, "../sweep/testdata/tiny.yaml", "quick", "workload.name=../sweep/testdata/tiny-tpch.txt")
	fixed := sweepOut(t, "testdata/fixed.yaml", "quick")
	res, err := Compare(mustLoad(t, tiny), mustLoad(t, fixed), Options{AllowMismatch: true, Metrics: []string{"avg_jct_s"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.WriteText(&buf)
	if got := strings.Join(res.GroupKeys, ","); got != "policy.name,workload.machines,engine.cycle_s" {
		t.Errorf("group keys %s, want the policy and both cluster settings", got)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("%d rows, want fifo and srpt on 3 machines:\n%s", len(res.Rows), buf.String())
	}
	for _, r := range res.Rows {
		if len(r.Base) != 2 || len(r.New) != 2 || !strings.Contains(r.Group, "workload.machines=3 engine.cycle_s=0") {
			t.Errorf("%s: %d+%d samples, want 2+2 of the 3-machine setting", r.Group, len(r.Base), len(r.New))
		}
		if r.Verdict != VerdictSame {
			t.Errorf("%s: the same configuration compares %s", r.Group, r.Verdict)
		}
	}
	want := []string{"policy.name=fifo workload.machines=6 engine.cycle_s=2.5", "policy.name=srpt workload.machines=6 engine.cycle_s=2.5"}
	if !slices.Equal(res.OnlyBase, want) || len(res.OnlyNew) != 0 {
		t.Errorf("only in base %q, only in new %q; want %q", res.OnlyBase, res.OnlyNew, want)
	}
	if !strings.Contains(buf.String(), "only in base: policy.name=fifo workload.machines=6 engine.cycle_s=2.5") {
		t.Errorf("the unmatched configurations are not listed:\n%s", buf.String())
	}
}
