package decima

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func dump(w *traces.Workload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "workload %q dims=%v machines=%d capacity=%s jobs=%d tasks=%d hash=%s\n",
		w.Name, w.Dims, len(w.Cluster.Machines), w.Cluster.Machines[0].Capacity.Format(len(w.Dims)), len(w.Jobs), w.Tasks(), w.Hash())
	for _, j := range w.Jobs {
		fmt.Fprintf(&b, "job id=%d name=%q submit=%d queue=%q features=%+v stages=%d\n", j.ID, j.Name, j.Submit, j.Queue, j.Features, len(j.Stages))
		for i, s := range j.Stages {
			fmt.Fprintf(&b, "  stage %d %q tasks=%d dur=%d est=%d demand=%s parents=%v taskdurs=%v\n",
				i, s.Name, s.Tasks, s.Duration, s.Estimate, s.Demand.Format(len(w.Dims)), s.Parents, s.TaskDurations)
		}
	}
	return b.String()
}

// checkGolden compares got with testdata/golden/<name>.golden (see testutil.Golden).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name+".golden"), []byte(got), *update)
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"executors=100", Options{}},
		{"executors=10_cores=4", Options{Executors: 10, CoresPerMachine: 4}},
		{"executors=3_arrivals=seed1", Options{Executors: 3, Rand: rand.New(rand.NewPCG(1, 2))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := ReadFile("testdata/tpch_2g_cut.json", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "tpch_2g_cut_"+tc.name, dump(w))
		})
	}
}

func TestMapping(t *testing.T) {
	w, err := ReadFile("testdata/tpch_2g_cut.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "tpch_2g_cut" || !slices.Equal(w.Dims, []string{"cpu"}) || len(w.Cluster.Machines) != 100 || w.Cluster.Total() != traces.VecOf(100) {
		t.Fatalf("workload %q dims %v machines %d", w.Name, w.Dims, len(w.Cluster.Machines))
	}
	// IDs carry the input size ("2g_cut" counts as 2g): 2000 + query.
	if got := []int64{w.Jobs[0].ID, w.Jobs[1].ID, w.Jobs[2].ID, w.Jobs[3].ID}; !slices.Equal(got, []int64{2001, 2006, 2014, 2015}) {
		t.Fatalf("job ids = %v", got)
	}
	q6 := w.Jobs[1]
	if q6.Name != "TPC-H query6 2g_cut" || q6.Features.LogicalJobName != "TPC-H query6" || q6.Submit != 0 {
		t.Errorf("q6 = %q %+v submit %d", q6.Name, q6.Features, q6.Submit)
	}
	// q6 stage 0 is a root of 12 tasks: its job gathers 12 executors, each new to the job, so every
	// task is a warm-up task, after the 2 s an executor takes to move to the job. 12 executors map
	// to decima-sim's data point 20 (it draws 20 four times in five), which q6 never ran with: the
	// largest measured key, 13, is used.
	s := q6.Stages[0]
	want := []traces.Time{3655, 3631, 3800, 3585, 3546, 4233, 3737, 3552, 3599, 3547, 2608, 3944}
	for i := range want {
		want[i] = (want[i] + 2000) * traces.Millisecond
	}
	if s.Name != "stage0" || s.Tasks != 12 || !slices.Equal(s.TaskDurations, want) || s.Demand != traces.VecOf(1) {
		t.Errorf("q6 stage 0 = %+v", s)
	}
	var sum traces.Time
	for _, d := range want {
		sum += d
	}
	if s.Duration != (sum+6)/12 || s.Estimate != s.Duration {
		t.Errorf("q6 stage 0 mean = %d, want %d", s.Duration, (sum+6)/12)
	}
	if p := q6.Stages[1].Parents; !slices.Equal(p, []int32{0}) {
		t.Errorf("q6 stage 1 parents = %v", p)
	}
	// Every stage gets one duration per task, even where a list is shorter (q15 node 6: 2 tasks,
	// one first-wave duration measured with 100 executors).
	n6 := w.Jobs[3].Stages[6]
	if n6.Tasks != 2 || len(n6.TaskDurations) != 2 {
		t.Errorf("q15 node 6 = %+v", n6)
	}
	w2, err := ReadFile("testdata/tpch_2g_cut.json", Options{Executors: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(w2.Cluster.Machines) != 20 {
		t.Errorf("machines = %d, want 20", len(w2.Cluster.Machines))
	}
}

// q15 of the test file: node 0 (12 tasks) feeds node 1 (200 tasks), whose key-100 measurement
// lists 100 first-wave durations, 88 of them also as fresh (warm-up) durations, and 100 rest-wave
// durations; with 20 executors, 20 first-wave (8 fresh) and 180 rest-wave.
func q15node1(t *testing.T, o Options) (traces.Stage, nodeJSON) {
	t.Helper()
	w, err := ReadFile("testdata/tpch_2g_cut.json", o)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/tpch_2g_cut.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs map[string]queryJSON
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	return w.Jobs[3].Stages[1], qs["q15"].Nodes[1]
}

// ms converts measured durations to the reader's µs.
func ms(xs []float64) []traces.Time {
	out := make([]traces.Time, len(xs))
	for i, x := range xs {
		out[i] = max(MinTaskDuration, traces.Time(math.Round(x*1000)))
	}
	return out
}

// multiset counts durations.
func multiset(xs []traces.Time) map[traces.Time]int {
	m := map[traces.Time]int{}
	for _, x := range xs {
		m[x]++
	}
	return m
}

func TestWarmUpIsNotAnOrdinaryTask(t *testing.T) {
	s, nd := q15node1(t, Options{NoMovingDelay: true})
	if s.Tasks != 200 || len(s.TaskDurations) != 200 {
		t.Fatalf("q15 node 1: %d tasks, %d durations", s.Tasks, len(s.TaskDurations))
	}
	// The job held 12 executors for node 0; 88 more join for node 1 (100 = the cap): 88 warm-up
	// tasks (the whole fresh list), 12 first-wave tasks (the first wave without the fresh values)
	// and 100 rest-wave tasks (the whole rest list), in that order.
	fresh, first, rest := ms(nd.Fresh["100"]), ms(nd.First["100"]), ms(nd.Rest["100"])
	if len(fresh) != 88 || len(first) != 100 || len(rest) != 100 {
		t.Fatalf("fixture changed: %d fresh, %d first, %d rest", len(fresh), len(first), len(rest))
	}
	if !slices.Equal(s.TaskDurations[:88], fresh) || !slices.Equal(s.TaskDurations[100:], rest) {
		t.Errorf("warm-up or rest-wave tasks differ from the measured lists")
	}
	clean := multiset(first)
	for d, n := range multiset(fresh) {
		clean[d] -= n
	}
	for d, n := range multiset(s.TaskDurations[88:100]) {
		if clean[d] < n {
			t.Errorf("first-wave task of %v µs is not in the first wave less the warm-ups", d)
		}
	}
	// Without warm-up, no fresh duration is replayed: the 100 first tasks of executors draw from
	// the 12 cleaned first-wave durations.
	nw, _ := q15node1(t, Options{NoWarmUp: true, NoMovingDelay: true})
	for _, d := range nw.TaskDurations[:100] {
		if clean[d] == 0 {
			t.Fatalf("NoWarmUp replayed %v µs, not a cleaned first-wave duration", d)
		}
	}
	// The moving delay lengthens exactly the 88 tasks of executors joining the job, by 2 s each.
	mv, _ := q15node1(t, Options{})
	for i := range mv.TaskDurations {
		want := s.TaskDurations[i]
		if i < 88 {
			want += 2 * traces.Second
		}
		if mv.TaskDurations[i] != want {
			t.Fatalf("task %d: %v µs with the moving delay, %v without", i, mv.TaskDurations[i], s.TaskDurations[i])
		}
	}
	// The former reader replayed first_wave + rest_wave: 88 warm-ups as ordinary tasks.
	var warm, all float64
	for _, d := range fresh {
		warm += float64(d)
	}
	for _, d := range slices.Concat(first, rest) {
		all += float64(d)
	}
	t.Logf("q15 node 1, key 100: warm-up tasks are %.1f%% of first_wave+rest_wave task time", 100*warm/all)
}

func TestKeyFollowsJobExecutors(t *testing.T) {
	// A job capped at 20 executors holds 12 for node 0 and 20 for node 1: key 20, 8 warm-ups
	// (fresh list of key 20), 12 first-wave and 180 rest-wave tasks.
	s, nd := q15node1(t, Options{JobExecutors: 20, NoMovingDelay: true})
	if !slices.Equal(s.TaskDurations[:8], ms(nd.Fresh["20"])) || !slices.Equal(s.TaskDurations[20:], ms(nd.Rest["20"])) {
		t.Errorf("JobExecutors=20: durations not from key 20")
	}
	// KeyFixed with JobExecutors 60 uses key 60 for node 1 as well as the others.
	f, nd := q15node1(t, Options{JobExecutors: 60, Key: KeyFixed})
	if !slices.Equal(f.TaskDurations[60:], ms(nd.Rest["60"])) {
		t.Errorf("KeyFixed with 60: rest-wave durations not from key 60")
	}
	// The cluster size alone does not change a job's measurement when its cap is given.
	a, _ := q15node1(t, Options{Executors: 100, JobExecutors: 20})
	b, _ := q15node1(t, Options{Executors: 20})
	if !slices.Equal(a.TaskDurations, b.TaskDurations) {
		t.Error("Executors=100 JobExecutors=20 differs from Executors=20")
	}
}

func TestDecimaKey(t *testing.T) {
	m := measurements{first: map[int][]float64{2: nil, 5: nil, 10: nil, 20: nil, 40: nil, 50: nil, 60: nil, 80: nil, 100: nil}}
	m.keys = []int{2, 5, 10, 20, 40, 50, 60, 80, 100}
	for e, want := range map[int]int{1: 5, 5: 5, 6: 10, 7: 10, 8: 5, 10: 10, 12: 20, 15: 10, 19: 10, 45: 40, 44: 50, 100: 100, 150: 100} {
		if got := m.decimaKey(e); got != want {
			t.Errorf("decimaKey(%d) = %d, want %d", e, got, want)
		}
	}
	small := measurements{first: map[int][]float64{2: nil, 5: nil, 10: nil, 13: nil}, keys: []int{2, 5, 10, 13}}
	for e, want := range map[int]int{3: 5, 10: 10, 12: 13, 100: 13} {
		if got := small.decimaKey(e); got != want {
			t.Errorf("decimaKey(%d) on keys 2,5,10,13 = %d, want %d", e, got, want)
		}
	}
	for e, want := range map[int]int{1: 2, 7: 5, 10: 10, 100: 13} {
		if got := small.fixedKey(e); got != want {
			t.Errorf("fixedKey(%d) = %d, want %d", e, got, want)
		}
	}
}

func TestIDsDistinctAcrossSizes(t *testing.T) {
	data, err := os.ReadFile("testdata/tpch_2g_cut.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []traces.Job
	for _, name := range []string{"tpch_2g.json", "tpch_5g.json", "tpch_100g.json"} {
		w, err := Parse(bytes.NewReader(data), name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, w.Jobs...)
	}
	seen := map[int64]string{}
	for _, j := range all {
		if prev, dup := seen[j.ID]; dup {
			t.Fatalf("id %d of %q already used by %q", j.ID, j.Name, prev)
		}
		seen[j.ID] = j.Name
	}
	if _, ok := seen[100015]; !ok {
		t.Errorf("100g query15 is not id 100015: %v", seen)
	}
	w, err := Parse(bytes.NewReader(data), "custom.json", Options{})
	if err != nil || w.Jobs[0].ID != 1 {
		t.Errorf("a file name without a size keeps the query number: %v", err)
	}
}

func TestArrivals(t *testing.T) {
	a, err := ReadFile("testdata/tpch_2g_cut.json", Options{Rand: rand.New(rand.NewPCG(7, 7))})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile("testdata/tpch_2g_cut.json", Options{Rand: rand.New(rand.NewPCG(7, 7))})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Error("same seed gave different workloads")
	}
	if a.Jobs[0].Submit != 0 || a.Jobs[3].Submit <= a.Jobs[2].Submit {
		t.Errorf("submits = %d %d %d %d", a.Jobs[0].Submit, a.Jobs[1].Submit, a.Jobs[2].Submit, a.Jobs[3].Submit)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{Executors: -1}, {CoresPerMachine: -2}, {Machines: -1}, {MeanInterarrival: -5}, {JobExecutors: -3}, {Key: "nearest"}} {
		if _, err := ReadFile("testdata/tpch_2g_cut.json", o); err == nil || !strings.HasPrefix(err.Error(), "decima: Options.") {
			t.Errorf("%+v: err = %v", o, err)
		}
	}
	if _, err := ReadFile("testdata/missing.json", Options{}); err == nil || !strings.HasPrefix(err.Error(), "decima: ") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestCorrupt(t *testing.T) {
	node := func(i int, tasks string, durs string) string {
		return fmt.Sprintf(`{"node":%d,"num_tasks":%s,"first_wave":{"2":%s},"rest_wave":{"2":[]},"fresh_durations":{"2":[]}}`, i, tasks, durs)
	}
	query := func(key, q, edges string, nodes ...string) string {
		return fmt.Sprintf(`"%s":{"query":%s,"num_nodes":%d,"edges_parent_child":%s,"stage_id_to_node_idx":{},"nodes":[%s]}`, key, q, len(nodes), edges, strings.Join(nodes, ","))
	}
	good := query("q1", "1", "[[0,1]]", node(0, "1", "[100]"), node(1, "2", "[10,20]"))
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty file", "", 1, "file", "empty file"},
		{"not an object", "[1,2]", 1, "file", "JSON object"},
		{"empty object", "{}", 1, "file", "no queries"},
		{"truncated", "{" + good[:len(good)-40], 1, "q1", "unexpected end of file"},
		{"unterminated string", "{\n" + strings.Replace(good, `"num_nodes"`, `"num_nodes`, 1) + "\n}", 2, "q1", "invalid JSON"},
		{"unterminated string at the end", "{\n" + good + ",\n\"q2", 3, "file", "unexpected end of file"},
		{"invalid json", "{" + strings.Replace(good, `"query":1`, `"query":1,,`, 1) + "}", 1, "q1", "invalid JSON"},
		{"bad key", `{"x1":{}}`, 1, "key", "q<N>, got \"x1\""},
		{"duplicate key", "{" + good + "," + good + "}", 1, "key", "duplicate query key \"q1\""},
		{"duplicate query number", "{" + good + "," + strings.Replace(good, `"q1"`, `"q01"`, 1) + "}", 1, "key", "already given"},
		{"query mismatch", "{" + query("q1", "2", "[]", node(0, "1", "[1]")) + "}", 1, "q1.query", "different"},
		{"num_nodes mismatch", "{" + strings.Replace(good, `"num_nodes":2`, `"num_nodes":3`, 1) + "}", 1, "q1.num_nodes", "different"},
		{"no nodes", "{" + query("q1", "1", "[]") + "}", 1, "q1.nodes", "no stages"},
		{"string task count", "{" + query("q1", "1", "[]", node(0, `"12"`, "[1]")) + "}", 1, "q1.nodes.num_tasks", "want int64"},
		{"zero tasks", "{" + query("q1", "1", "[]", node(0, "0", "[1]")) + "}", 1, "q1.nodes[0].num_tasks", "1.."},
		{"node out of order", "{" + query("q1", "1", "[]", node(1, "1", "[1]")) + "}", 1, "q1.nodes[0].node", "position"},
		{"negative duration", "{" + query("q1", "1", "[]", node(0, "1", "[-5]")) + "}", 1, "q1.nodes[0].first_wave.2[0]", "outside"},
		{"overflowing duration", "{" + query("q1", "1", "[]", node(0, "1", "[1e300]")) + "}", 1, "q1.nodes[0].first_wave.2[0]", "outside"},
		{"non-numeric duration", "{" + query("q1", "1", "[]", node(0, "1", `["5"]`)) + "}", 1, "q1.nodes.first_wave", "want float64"},
		{"no durations", "{" + query("q1", "1", "[]", node(0, "1", "[]")) + "}", 1, "q1.nodes[0].first_wave.2", "no task durations"},
		{"bad executor key", "{" + strings.Replace(query("q1", "1", "[]", node(0, "1", "[1]")), `"first_wave":{"2"`, `"first_wave":{"two"`, 1) + "}", 1, "q1.nodes[0].first_wave.two", "executor count"},
		{"edge to unknown node", "{" + query("q1", "1", "[[0,5]]", node(0, "1", "[1]")) + "}", 1, "q1.edges_parent_child[0]", "unknown node"},
		{"edge with 3 ends", "{" + query("q1", "1", "[[0,1,2]]", node(0, "1", "[1]"), node(1, "1", "[1]")) + "}", 1, "q1.edges_parent_child[0]", "[parent, child]"},
		{"self edge", "{" + query("q1", "1", "[[0,0]]", node(0, "1", "[1]")) + "}", 1, "q1.edges_parent_child[0]", "itself"},
		{"cycle", "{" + query("q1", "1", "[[0,1],[1,0]]", node(0, "1", "[1]"), node(1, "1", "[1]")) + "}", 1, "q1.edges_parent_child", "cycle"},
		{"stage id out of range", "{" + strings.Replace(good, `"stage_id_to_node_idx":{}`, `"stage_id_to_node_idx":{"7":9}`, 1) + "}", 1, "q1.stage_id_to_node_idx.7", "out of range"},
		{"unknown field", "{" + strings.Replace(good, `"query":1`, `"query":1,"queries":2`, 1) + "}", 1, "q1", "unknown field \"queries\""},
		{"trailing data", "{" + good + "} {}", 1, "file", "data after"},
		{"error on line 3", "{\n" + good + ",\n" + `"q2":{"query":"two"}` + "}", 3, "q2.query", "want int64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Parse(strings.NewReader(tc.in), "bad.json", Options{})
			if err == nil {
				t.Fatalf("no error; %d jobs", len(w.Jobs))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SyntaxError", err, err)
			}
			if se.File != "bad.json" || se.Line != tc.line || se.Field != tc.field || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %v\nwant bad.json:%d:..: %s: ...%s...", err, tc.line, tc.field, tc.msg)
			}
		})
	}
	if _, err := Parse(strings.NewReader("{"+good+"}"), "ok.json", Options{}); err != nil {
		t.Fatal(err)
	}
}

// endlessString is `{"q1":{"query":"` and then x forever, counting the bytes read.
type endlessString struct{ read int64 }

func (e *endlessString) Read(p []byte) (int, error) {
	const head = `{"q1":{"query":"`
	n := 0
	if e.read == 0 {
		n = copy(p, head)
	}
	for i := n; i < len(p); i++ {
		p[i] = 'x'
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestEndlessInputIsRefused: a string that never ends (the JSON decoder holds it whole) is an
// error at MaxFileBytes, not an out-of-memory death.
func TestEndlessInputIsRefused(t *testing.T) {
	in := &endlessString{}
	_, err := Parse(in, "endless.json", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != "endless.json" || !strings.Contains(se.Msg, "larger than 67108864 bytes") {
		t.Fatalf("err = %v, want a *SyntaxError naming the file and the size limit", err)
	}
	if in.read > MaxFileBytes+1<<20 {
		t.Errorf("read %d bytes", in.read)
	}
}

// TestSharedData reads every input size and checks stage, edge and task counts against
// summary.csv (written when the .npy files were converted).
func TestSharedData(t *testing.T) {
	dir := testutil.SharedData(t, "decima-tpch")
	raw, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ stages, edges, tasks int }
	want := map[string]row{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		var size string
		var q int
		var r row
		if _, err := fmt.Sscanf(strings.ReplaceAll(line, ",", " "), "%s %d %d %d %d", &size, &q, &r.stages, &r.edges, &r.tasks); err != nil {
			t.Fatalf("summary.csv %q: %v", line, err)
		}
		want[fmt.Sprintf("%s/%d", size, q)] = r
	}
	for _, size := range []string{"2g", "5g", "10g", "20g", "50g", "80g", "100g"} {
		w, err := ReadFile(filepath.Join(dir, "tpch_"+size+".json"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != 22 {
			t.Errorf("%s: %d jobs, want 22", size, len(w.Jobs))
		}
		var stages, tasks, lists int
		for _, j := range w.Jobs {
			r := want[fmt.Sprintf("%s/%d", size, j.ID%1000)]
			edges := 0
			for _, s := range j.Stages {
				edges += len(s.Parents)
				if s.TaskDurations != nil {
					lists++
				}
			}
			if len(j.Stages) != r.stages || edges != r.edges || int(j.Tasks()) != r.tasks {
				t.Errorf("%s job %d: stages/edges/tasks = %d/%d/%d, summary.csv says %d/%d/%d", size, j.ID, len(j.Stages), edges, j.Tasks(), r.stages, r.edges, r.tasks)
			}
			stages += len(j.Stages)
			tasks += int(j.Tasks())
		}
		t.Logf("%s: 22 jobs, %d stages (%d with per-task durations), %d tasks", size, stages, lists, tasks)
	}
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/tpch_2g_cut.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []int{10, 100} {
		b.Run(fmt.Sprintf("executors=%d", e), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(data), "tpch_2g_cut.json", Options{Executors: e}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
