package sweep

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/buildid"
)

var update = flag.Bool("update", false, "rewrite golden files")

const tinySpec = "testdata/tiny.yaml"

func loadTiny(t testing.TB) *experiments.Spec {
	t.Helper()
	s, err := experiments.LoadSpec(tinySpec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func plan(t testing.TB, label string, sets ...string) *Plan {
	t.Helper()
	p, err := NewPlan(loadTiny(t), label, sets)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runSweep(t testing.TB, p *Plan, o Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPlanEnumeratesTheProductInOrder(t *testing.T) {
	p := plan(t, "paper")
	if len(p.Cells) != 3*2*2 {
		t.Fatalf("%d cells, want 12", len(p.Cells))
	}
	want := []string{
		"policy.name=fifo workload.machines=3 engine.cycle_s=0 seed=1",
		"policy.name=fifo workload.machines=3 engine.cycle_s=0 seed=2",
		"policy.name=fifo workload.machines=6 engine.cycle_s=2.5 seed=1",
		"policy.name=fifo workload.machines=6 engine.cycle_s=2.5 seed=2",
		"policy.name=drf workload.machines=3 engine.cycle_s=0 seed=1",
	}
	for i, w := range want {
		if got := p.Describe(&p.Cells[i]); got != w {
			t.Errorf("cell %d = %q, want %q", i, got, w)
		}
	}
	if got := p.Describe(&p.Cells[11]); got != "policy.name=srpt workload.machines=6 engine.cycle_s=2.5 seed=2" {
		t.Errorf("last cell = %q", got)
	}
	cols := []Column{{"policy.name", TypeString}, {"workload.machines", TypeInt64}, {"engine.cycle_s", TypeFloat64}}
	if !slices.Equal(p.Columns, cols) {
		t.Errorf("columns = %v, want %v", p.Columns, cols)
	}
	keys := map[string]bool{}
	for i, c := range p.Cells {
		if c.Index != i || keys[c.Key] || len(c.Key) != 64 {
			t.Errorf("cell %d: index %d key %q (duplicate %v)", i, c.Index, c.Key, keys[c.Key])
		}
		keys[c.Key] = true
		if c.Config.Seed != c.Seed || c.Config.Workload.Name != "testdata/tiny-tpch.txt" {
			t.Errorf("cell %d config = %+v", i, c.Config)
		}
	}
	if p.Cells[2].Config.Engine.CycleS != 2.5 || p.Cells[2].Config.Workload.Machines != 6 {
		t.Errorf("zipped values not applied together: %+v", p.Cells[2].Config)
	}
	// Planning is deterministic.
	if q := plan(t, "paper"); q.Hash() != p.Hash() {
		t.Errorf("plan hash differs between two plans of the same spec")
	}
	if q := plan(t, "quick"); len(q.Cells) != 8 || q.Hash() == p.Hash() {
		t.Errorf("quick plan: %d cells, same hash %v", len(q.Cells), q.Hash() == p.Hash())
	}
}

func TestPlanSets(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		cells int
		err   string
	}{
		{"a set of an axis keeps that value", []string{"policy.name=drf"}, 4, ""},
		{"a set of a zipped axis keeps that step of the group", []string{"engine.cycle_s=2.5"}, 6, ""},
		{"a set of a base key overrides it", []string{"engine.preempt_delay_s=1"}, 12, ""},
		{"a set of the seed runs one seed", []string{"seed=42"}, 6, ""},
		{"an axis value not swept is an error", []string{"policy.name=edf"}, 0, "not among its values (fifo, drf, srpt)"},
		{"an unknown key is an error", []string{"engine.nope=1"}, 0, "unknown config key"},
		{"a malformed set is an error", []string{"novalue"}, 0, "want key=value"},
		{"a bad value is an error", []string{"engine.cycle_s=-1"}, 0, "engine.cycle_s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPlan(loadTiny(t), "paper", tt.sets)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, experiments.ErrConfig) {
					t.Fatalf("error = %v, want config error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Cells) != tt.cells {
				t.Errorf("%d cells, want %d", len(p.Cells), tt.cells)
			}
		})
	}
	p := plan(t, "paper", "engine.preempt_delay_s=1")
	if p.Cells[0].Config.Engine.PreemptDelayS != 1 || p.Cells[0].Key == plan(t, "paper").Cells[0].Key {
		t.Errorf("base override not applied or not in the cell key")
	}
}

func TestCellKeyDependsOnConfigWorkloadAndVersion(t *testing.T) {
	p := plan(t, "quick")
	c := p.Cells[0].Config
	k := CellKey(c, "w1")
	if CellKey(c, "w1") != k {
		t.Fatal("CellKey not deterministic")
	}
	if CellKey(c, "w2") == k {
		t.Error("workload hash not in key")
	}
	c2 := c
	c2.Seed++
	if CellKey(c2, "w1") == k {
		t.Error("seed not in key")
	}
	c2 = c
	c2.Engine.Oracle = !c2.Engine.Oracle
	if CellKey(c2, "w1") == k {
		t.Error("engine config not in key")
	}
	restore := buildid.Override(buildid.ID{Binary: "another build"})
	other := CellKey(c, "w1")
	restore()
	if other == k || other[:configPrefix] != k[:configPrefix] {
		t.Errorf("another build's key %s: want it different from %s, with the same configuration prefix", other, k)
	}
}

func TestShardsPartitionTheCells(t *testing.T) {
	p := plan(t, "paper")
	for n := 1; n <= 7; n++ {
		seen := map[int]int{}
		for i := range n {
			for _, c := range p.ShardCells(Shard{Index: i, Count: n}) {
				seen[c.Index]++
			}
		}
		for _, c := range p.Cells {
			if seen[c.Index] != 1 {
				t.Errorf("n=%d: cell %d in %d shards", n, c.Index, seen[c.Index])
			}
		}
		if len(seen) != len(p.Cells) {
			t.Errorf("n=%d: union has %d cells, want %d", n, len(seen), len(p.Cells))
		}
	}
	for _, bad := range []string{"2/2", "-1/3", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	if s, err := ParseShard("1/3"); err != nil || s != (Shard{1, 3}) || s.String() != "1/3" {
		t.Errorf("ParseShard(1/3) = %v, %v", s, err)
	}
}

func TestSweepWritesCellsAndResumesFromCache(t *testing.T) {
	p := plan(t, "quick")
	dir := t.TempDir()
	r := runSweep(t, p, Options{Out: dir, Parallel: 2})
	if r.Ran != len(p.Cells) || r.Cached != 0 {
		t.Errorf("first run: ran %d cached %d", r.Ran, r.Cached)
	}
	first := readFile(t, filepath.Join(dir, CellsFile))
	tb, err := ReadTable(filepath.Join(dir, CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != len(p.Cells) || tb.Spec != "tiny" || tb.Label != "quick" {
		t.Fatalf("table: %d rows spec %q label %q", len(tb.Rows), tb.Spec, tb.Label)
	}
	for i, row := range tb.Rows {
		c := p.Cells[i]
		if row.Cell != i || row.Key != c.Key || row.Seed != c.Seed || !slices.Equal(row.Axes, c.Values) {
			t.Errorf("row %d = %+v, want cell %+v", i, row, c)
		}
		if row.Metrics["jobs"] != 12 || row.Metrics["avg_jct_s"] <= 0 {
			t.Errorf("row %d metrics: jobs %v avg_jct_s %v", i, row.Metrics["jobs"], row.Metrics["avg_jct_s"])
		}
	}
	for _, m := range []string{"avg_jct_s", "utilization.cpu", "engine.events", "by_queue.default.avg_jct_s"} {
		if !slices.Contains(tb.Metrics, m) {
			t.Errorf("metric %s missing from %v", m, tb.Metrics)
		}
	}
	if slices.Contains(tb.Metrics, "engine.wall_s") {
		t.Errorf("wall time must not be a metric (it is nondeterministic)")
	}
	// A second run finds everything cached and writes identical bytes.
	r = runSweep(t, p, Options{Out: dir, Parallel: 2})
	if r.Ran != 0 || r.Cached != len(p.Cells) {
		t.Errorf("second run: ran %d cached %d", r.Ran, r.Cached)
	}
	if !bytes.Equal(first, readFile(t, filepath.Join(dir, CellsFile))) {
		t.Errorf("cells.parquet changed on a fully cached rerun")
	}
	// A removed cell is recomputed, nothing else; a half-written temp dir is ignored and removed.
	os.RemoveAll(CellDir(filepath.Join(dir, CacheDir), p.Cells[3].Key))
	tmp := filepath.Join(dir, CacheDir, ".tmp-deadbeef-1")
	os.MkdirAll(tmp, 0o755)
	os.WriteFile(filepath.Join(tmp, experiments.SummaryFile), []byte("{trunc"), 0o644)
	r = runSweep(t, p, Options{Out: dir, Parallel: 2})
	if r.Ran != 1 {
		t.Errorf("after removing one cell: ran %d", r.Ran)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temp dir not cleaned: %v", err)
	}
	if !bytes.Equal(first, readFile(t, filepath.Join(dir, CellsFile))) {
		t.Errorf("cells.parquet differs after recomputing a cell")
	}
	m, err := ReadManifest(dir)
	if err != nil || m.PlanHash != p.Hash() || len(m.Cells) != len(p.Cells) || m.Shard != "all" {
		t.Errorf("manifest = %+v, %v", m, err)
	}
}

func TestParallelismDoesNotChangeResults(t *testing.T) {
	p := plan(t, "quick")
	var outs [][]byte
	for _, workers := range []int{1, 3} {
		dir := t.TempDir()
		runSweep(t, p, Options{Out: dir, Parallel: workers})
		outs = append(outs, readFile(t, filepath.Join(dir, CellsFile)))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("cells.parquet differs between 1 and 3 workers")
	}
}

func TestDroppedWorkloadsAreReloaded(t *testing.T) {
	var outs [][]byte
	for _, keep := range []int{8, 0} {
		keepWorkloads = keep
		p := plan(t, "quick", "policy.name=srpt", "workload.estimates=noise", "workload.estimate_std=50")
		for _, lw := range p.workloads {
			if (lw.w != nil) != (keep > 0) {
				t.Errorf("keep=%d: workload kept = %v", keep, lw.w != nil)
			}
		}
		dir := t.TempDir()
		runSweep(t, p, Options{Out: dir, Parallel: 2})
		for _, lw := range p.workloads {
			if lw.w != nil {
				t.Errorf("keep=%d: a workload is still loaded after the sweep", keep)
			}
		}
		outs = append(outs, readFile(t, filepath.Join(dir, CellsFile)))
	}
	keepWorkloads = 8
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("reloading workloads changed the results")
	}
}

func TestShardsGatherToTheWholeSweep(t *testing.T) {
	p := plan(t, "quick")
	whole := t.TempDir()
	runSweep(t, p, Options{Out: whole, Parallel: 2})
	base := t.TempDir()
	var dirs []string
	total := 0
	for i := range 3 {
		d := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		r := runSweep(t, p, Options{Out: d, Parallel: 1, Shard: Shard{Index: i, Count: 3}})
		total += len(r.Table.Rows)
		for _, row := range r.Table.Rows {
			if got := p.Assignment(3)[row.Cell]; got != i {
				t.Errorf("shard %d ran cell %d, assigned to shard %d", i, row.Cell, got)
			}
		}
		dirs = append(dirs, d)
	}
	if total != len(p.Cells) {
		t.Errorf("shards hold %d cells, want %d", total, len(p.Cells))
	}
	out := filepath.Join(base, "gathered")
	if _, err := Gather(out, dirs[:2], GatherOptions{}); err == nil || !strings.Contains(err.Error(), "have no results") {
		t.Errorf("gathering 2 of 3 shards: error = %v, want missing cells", err)
	}
	tb, err := Gather(out, dirs, GatherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != len(p.Cells) {
		t.Errorf("gathered %d rows", len(tb.Rows))
	}
	if !bytes.Equal(readFile(t, filepath.Join(whole, CellsFile)), readFile(t, filepath.Join(out, CellsFile))) {
		t.Errorf("gathered cells.parquet differs from the unsharded sweep's")
	}
	// A shard of another sweep is refused.
	other := filepath.Join(base, "other")
	runSweep(t, plan(t, "quick", "policy.name=srpt"), Options{Out: other, Parallel: 1})
	if _, err := Gather(filepath.Join(base, "g2"), []string{dirs[0], other}, GatherOptions{}); err == nil || !strings.Contains(err.Error(), "different sweep") {
		t.Errorf("mixing sweeps: error = %v", err)
	}
}

func TestCellErrorsNameTheCell(t *testing.T) {
	p := plan(t, "quick", "policy.params.no_such_param=1")
	_, err := Run(context.Background(), p, Options{Out: t.TempDir(), Parallel: 2})
	if err == nil {
		t.Fatal("no error for a policy parameter the policies reject")
	}
	if !strings.Contains(err.Error(), "cell 0 (policy.name=fifo workload.machines=3 engine.cycle_s=0 seed=1)") {
		t.Errorf("error does not name the first failing cell: %v", err)
	}
}

func TestCancelStopsTheSweep(t *testing.T) {
	p := plan(t, "paper")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, p, Options{Out: t.TempDir(), Parallel: 2})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if r != nil && r.Ran == len(p.Cells) {
		t.Errorf("a cancelled sweep ran every cell")
	}
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(Options{Progress: &buf, ProgressEvery: 10 * time.Second}, 10, 2, "")
	p.now = func() time.Time { return now }
	p.start, p.lastDraw = now, now
	for i := range 8 {
		now = now.Add(3 * time.Second)
		p.done(i != 5)
	}
	p.finish()
	want := `sweep: 10 cells, 2 cached, 8 to run
sweep: 6/10 cells (2 cached), 60%, elapsed 12s, ETA 12s
sweep: 10/10 cells (2 cached, 1 failed), 100%, elapsed 24s, ETA 0s
`
	if got := buf.String(); got != want {
		t.Errorf("progress lines:\n%s\nwant:\n%s", got, want)
	}
	buf.Reset()
	p = newProgress(Options{Progress: &buf, Terminal: true}, 4, 0, "")
	for range 4 {
		p.done(true)
	}
	p.finish()
	if got := buf.String(); !strings.Contains(got, "\r\x1b[K") || !strings.Contains(got, "4/4 cells") || !strings.Contains(got, "ETA") || !strings.HasSuffix(got, "\n") {
		t.Errorf("terminal progress = %q", got)
	}
	if IsTerminal(&buf) {
		t.Errorf("a buffer is not a terminal")
	}
}

// TestProgressWhileNoCellFinishes: a sweep whose cells run long still prints a line every
// interval (the 180-240 s backlog cells left sweeps silent).
func TestProgressWhileNoCellFinishes(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(Options{Progress: &buf, ProgressEvery: 5 * time.Millisecond}, 3, 0, "")
	time.Sleep(100 * time.Millisecond)
	p.finish()
	if got := buf.String(); !strings.Contains(got, "sweep: 0/3 cells (0 cached), 0%, elapsed ") {
		t.Errorf("no line while no cell finished:\n%s", got)
	}
}

func TestMetricsFlatten(t *testing.T) {
	doc := &experiments.SummaryDoc{}
	doc.Metrics.AvgJCT = 3
	doc.Metrics.Utilization = map[string]float64{"cpu": 0.5}
	doc.Metrics.ByClass = nil
	doc.Engine.Events = 7
	doc.Engine.WallSeconds = 1.23
	m, err := Metrics(doc)
	if err != nil {
		t.Fatal(err)
	}
	if m["avg_jct_s"] != 3 || m["utilization.cpu"] != 0.5 || m["engine.events"] != 7 {
		t.Errorf("metrics = %v", m)
	}
	if _, ok := m["engine.wall_s"]; ok {
		t.Errorf("wall time flattened")
	}
}

// TestWaitsAreCellMetrics: summary.json's task waits become cell metrics (waits.*), so sweeps,
// compare and claims can use them.
func TestWaitsAreCellMetrics(t *testing.T) {
	doc := &experiments.SummaryDoc{}
	doc.Waits = experiments.Waits{WaitedJobs: 4, WaitedTasks: 9, UnstartedTasks: 1,
		Tasks:   experiments.WaitGroup{Starts: 20, Waited: 9, Avg: 1.5, P50: 1, P95: 6, P99: 7, Max: 8},
		ByQueue: map[string]experiments.WaitGroup{"q1": {Starts: 20, P95: 6}}, Warning: "ignored"}
	m, err := Metrics(doc)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{
		"waits.waited_jobs": 4, "waits.waited_tasks": 9, "waits.unstarted_tasks": 1, "waits.tasks.starts": 20,
		"waits.tasks.avg_s": 1.5, "waits.tasks.p95_s": 6, "waits.tasks.max_s": 8, "waits.by_queue.q1.p95_s": 6,
	} {
		if got, ok := m[k]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	// And in a real sweep's table.
	dir := t.TempDir()
	r := runSweep(t, plan(t, "quick", "policy.name=fifo"), Options{Out: dir})
	if !slices.Contains(r.Table.Metrics, "waits.tasks.p95_s") || r.Table.Rows[0].Metrics["waits.tasks.starts"] <= 0 {
		t.Errorf("cells.parquet lacks the waits: %v", r.Table.Metrics)
	}
}

func TestReadTableRejectsOtherParquet(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "jobs.parquet")
	err := WriteFileAtomic(f, func(w io.Writer) error { return experiments.WriteJobs(w, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTable(f); err == nil || !strings.Contains(err.Error(), "not a schedlab cells.parquet") {
		t.Errorf("error = %v", err)
	}
	if _, err := ReadTable(filepath.Join(dir, "missing.parquet")); err == nil {
		t.Errorf("missing file: no error")
	}
}

// TestNullAxisValuesLeaveTheKeyUnset sweeps a zipped group with null values: a null cell gets
// the base (or default) value, its column is null in cells.parquet and matches "null" in
// filters, and repeated values inside the zip are fine.
func TestNullAxisValuesLeaveTheKeyUnset(t *testing.T) {
	wl, err := filepath.Abs("testdata/tiny-tpch.txt")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "nulls.yaml")
	body := "base: {workload: {name: " + wl + ", machines: 3}}\naxes:\n  - zip:\n" +
		"      - {key: policy.name, values: [fifo, drf, drf]}\n" +
		"      - {key: engine.cycle_s, values: [null, null, 2.5]}\n" +
		"seeds: [1]\nlabels: {quick: {}, paper: {}}\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := experiments.LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(s, "quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := experiments.Resolve(experiments.NewViper())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cells) != 3 || p.Columns[1] != (Column{Key: "engine.cycle_s", Type: TypeFloat64}) {
		t.Fatalf("plan: %d cells, columns %v", len(p.Cells), p.Columns)
	}
	for i, want := range []float64{def.Engine.CycleS, def.Engine.CycleS, 2.5} {
		if got := p.Cells[i].Config.Engine.CycleS; got != want {
			t.Errorf("cell %d: cycle_s %v, want %v", i, got, want)
		}
	}
	if p.Cells[0].Values[1] != nil || p.Cells[0].Key == p.Cells[1].Key {
		t.Errorf("cells 0 and 1: values %v %v, keys equal %v", p.Cells[0].Values, p.Cells[1].Values, p.Cells[0].Key == p.Cells[1].Key)
	}
	if got := p.Describe(&p.Cells[1]); got != "policy.name=drf engine.cycle_s=null seed=1" {
		t.Errorf("describe = %q", got)
	}
	dir := t.TempDir()
	runSweep(t, p, Options{Out: dir, Parallel: 2})
	tb, err := ReadTable(filepath.Join(dir, CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range tb.Rows {
		if !slices.Equal(row.Axes, p.Cells[i].Values) {
			t.Errorf("row %d axes = %#v, want %#v", i, row.Axes, p.Cells[i].Values)
		}
	}
	if rows := tb.FilterRows(tb.Rows, map[string][]string{"engine.cycle_s": {experiments.NullValue}}); len(rows) != 2 || rows[1].Cell != 1 {
		t.Errorf("cycle_s=null selects %d rows", len(rows))
	}
	if got := tb.Distinct(tb.Rows, "engine.cycle_s"); !slices.Equal(got, []string{"null", "2.5"}) {
		t.Errorf("distinct = %v", got)
	}
	// Gathering from sweep.json (as shards do) restores the nulls; --set selects them.
	gdir := t.TempDir()
	if _, err := Gather(gdir, []string{dir}, GatherOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, CellsFile)), readFile(t, filepath.Join(gdir, CellsFile))) {
		t.Errorf("gathered cells.parquet differs from the sweep's")
	}
	q, err := NewPlan(s, "quick", []string{"engine.cycle_s=null"})
	if err != nil || len(q.Cells) != 2 || q.Cells[1].Values[0] != "drf" {
		t.Errorf("--set engine.cycle_s=null: %v, %v", q, err)
	}
}
