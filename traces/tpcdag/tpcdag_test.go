package tpcdag

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// dump renders every field of a workload the replay reads, one line per job and stage.
func dump(w *traces.Workload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "workload %q dims=%v machines=%d capacity=%s jobs=%d tasks=%d hash=%s\n",
		w.Name, w.Dims, len(w.Cluster.Machines), w.Cluster.Machines[0].Capacity.Format(len(w.Dims)), len(w.Jobs), w.Tasks(), w.Hash())
	for _, j := range w.Jobs {
		fmt.Fprintf(&b, "job id=%d name=%q submit=%d queue=%q class=%q weight=%g features=%+v stages=%d\n",
			j.ID, j.Name, j.Submit, j.Queue, j.Class, j.Weight, j.Features, len(j.Stages))
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
	tests := []struct {
		file string
		o    Options
	}{
		{"queries_tpch_3.txt", Options{}},
		{"queries_tpch_3.txt", Options{Dims: 6, Machines: 3}},
		{"queries_tpch_FB_distr_3.txt", Options{}},
		{"jobs_input_1_8_40_TPC_H_cut.txt", Options{}},
		{"queries_bb_query7.txt", Options{LastStageWins: true}},
		{"synthetic_features.txt", Options{}},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s_dims=%d_machines=%d", strings.TrimSuffix(tc.file, ".txt"), tc.o.Dims, tc.o.Machines)
		t.Run(name, func(t *testing.T) {
			w, err := ReadFile(filepath.Join("testdata", tc.file), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name, dump(w))
		})
	}
}

func TestMapping(t *testing.T) {
	w, err := ReadFile("testdata/queries_tpch_3.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.Dims, []string{"cpu", "mem"}; !slices.Equal(got, want) {
		t.Errorf("dims = %v, want %v", got, want)
	}
	if n := len(w.Cluster.Machines); n != 25 {
		t.Errorf("machines = %d, want 25", n)
	}
	if len(w.Jobs) != 3 {
		t.Fatalf("jobs = %d, want 3", len(w.Jobs))
	}
	j := w.Jobs[0]
	if j.ID != 0 || j.Name != "TPC-H query10" || j.Submit != 0 || j.Queue != "default" || j.Class != "" {
		t.Errorf("job 0 = id %d name %q submit %d queue %q class %q", j.ID, j.Name, j.Submit, j.Queue, j.Class)
	}
	if len(j.Stages) != 8 {
		t.Fatalf("stages = %d, want 8", len(j.Stages))
	}
	// "Reducer3 30 0.19 0.17 0.31 0.25 0.03 0.25 48", waits for Reducer2, Map8 and Map7.
	s := j.Stages[0]
	if s.Name != "Reducer3" || s.Tasks != 48 || s.Duration != 30*traces.Second || s.Estimate != s.Duration || s.Demand != traces.VecOf(0.19, 0.17) {
		t.Errorf("stage 0 = %+v", s)
	}
	var parents []string
	for _, p := range s.Parents {
		parents = append(parents, j.Stages[p].Name)
	}
	if want := []string{"Reducer2", "Map8", "Map7"}; !slices.Equal(parents, want) {
		t.Errorf("Reducer3 parents = %v, want %v", parents, want)
	}
	if cp := j.CriticalPath(false); cp != (14+131+30+149+41)*traces.Second {
		t.Errorf("critical path = %d, want Map6→Reducer2→Reducer3→Reducer4→Reducer5 = 365 s", cp)
	}

	w6, err := ReadFile("testdata/queries_tpch_3.txt", Options{Dims: 6, Machines: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := w6.Jobs[0].Stages[0].Demand; got != traces.VecOf(0.19, 0.17, 0.31, 0.25, 0.03, 0.25) {
		t.Errorf("6-dim demand = %v", got.Format(6))
	}
	if len(w6.Cluster.Machines) != 4 || w6.Cluster.Total() != traces.VecOf(4, 4, 4, 4, 4, 4) {
		t.Errorf("cluster total = %v", w6.Cluster.Total().Format(6))
	}
}

func TestSyntheticFeatures(t *testing.T) {
	w, err := ReadFile("testdata/synthetic_features.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 {
		t.Fatalf("jobs = %d, want 2", len(w.Jobs))
	}
	// Sorted by submit: dag 7 (3 s, after "# 1" then "# 2: ..." comments) before dag 42 (12.5 s).
	a, b := w.Jobs[0], w.Jobs[1]
	if a.ID != 7 || a.Name != "TPC-DS query99" || a.Submit != 3*traces.Second || a.Class != "tq" {
		t.Errorf("first job = id %d name %q submit %d class %q", a.ID, a.Name, a.Submit, a.Class)
	}
	if b.ID != 42 || b.Submit != 12_500_000 || b.Queue != "interactive7" || b.Class != "lq" {
		t.Errorf("second job = id %d submit %d queue %q class %q", b.ID, b.Submit, b.Queue, b.Class)
	}
	st := b.Stages
	if st[0].Duration != MinTaskDuration || st[2].Duration != MinTaskDuration {
		t.Errorf("zero / sub-ms durations = %d, %d, want MinTaskDuration", st[0].Duration, st[2].Duration)
	}
	if st[1].Tasks != 3 || st[1].Duration != 1_500_000 || st[1].Demand != traces.VecOf(0.1, 0.2) {
		t.Errorf("stage with @t = %+v", st[1])
	}
	if !slices.Equal(st[2].Parents, []int32{0}) {
		t.Errorf("repeated edge A→C gives parents %v, want [0]", st[2].Parents)
	}
	// Two resource fields are not enough for six dimensions.
	_, err = ReadFile("testdata/synthetic_features.txt", Options{Dims: 6})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 6 || se.Field != "demand" {
		t.Errorf("Dims=6 on a 2-demand stage: err = %v, want a demand error on line 6", err)
	}
}

func TestLastStageWins(t *testing.T) {
	_, err := ReadFile("testdata/queries_bb_query7.txt", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Field != "stageName" || se.Line != 14 {
		t.Fatalf("duplicate stage: err = %v, want stageName error on line 14", err)
	}
	w, err := ReadFile("testdata/queries_bb_query7.txt", Options{LastStageWins: true})
	if err != nil {
		t.Fatal(err)
	}
	// The Carbyne simulator's own re-export of this DAG (queries_bb_FB_distr.txt, lines 1-23 of
	// its first query7) — the later definitions win.
	const fb = `# 19: BIG_BENCH query7
11 16 0
Reducer5 2.0 0.24 0.17 0.0 0.05 0.0 0.0 14
Map1 3.0 0.23 0.23 0.0 0.12 0.01 0.0 1
Reducer4 25.0 0.17 0.17 0.02 0.06 0.02 0.06 192
Map10 3.0 0.22 0.23 0.0 0.04 0.01 0.0 1
Reducer6 2.0 0.23 0.17 0.0 0.04 0.01 0.0 1
Map8 8.0 0.25 0.23 0.0 0.04 0.01 0.02 100
Map9 4.0 0.21 0.23 0.0 0.03 0.11 0.0 1
Map4 4.0 0.23 0.23 0.0 0.08 0.08 0.0 1
Reducer3 11.0 0.24 0.17 0.0 0.13 0.01 0.0 1
Reducer2 2.0 0.22 0.17 0.0 0.04 0.01 0.0 2
Map7 8.0 0.23 0.23 0.0 0.04 0.01 0.0 1
9
Reducer5 Reducer6 ata
Map1 Reducer2 ata
Map10 Reducer4 ata
Reducer4 Reducer5 ata
Reducer2 Reducer3 ata
Map9 Reducer3 ata
Map8 Reducer3 ata
Reducer3 Reducer4 ata
Map7 Reducer2 ata
`
	ref, err := Parse(strings.NewReader(fb), "fb", Options{})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		name  string
		tasks int32
		dur   traces.Time
		dem   traces.Vec
	}
	shape := func(j traces.Job) map[key][]string {
		m := map[key][]string{}
		for _, s := range j.Stages {
			var ps []string
			for _, p := range s.Parents {
				ps = append(ps, j.Stages[p].Name)
			}
			slices.Sort(ps)
			m[key{s.Name, s.Tasks, s.Duration, s.Demand}] = ps
		}
		return m
	}
	got, want := shape(w.Jobs[0]), shape(ref.Jobs[0])
	if len(got) != 11 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("LastStageWins DAG differs from the simulator's re-export:\n got %v\nwant %v", got, want)
	}
}

func TestClassOf(t *testing.T) {
	for q, want := range map[string]string{
		"bursty0": "lq", "interactive": "lq", "interactive01": "lq",
		"batch": "tq", "batch7": "tq", "batch01": "tq",
		"default": "", "": "", "queue1": "", "Batch0": "",
	} {
		if got := ClassOf(q); got != want {
			t.Errorf("ClassOf(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestOptions(t *testing.T) {
	in := "1 0\nS 1 0.5 0.5 1\n0\n"
	for _, o := range []Options{{Dims: 1}, {Dims: 7}, {Dims: -1}, {Machines: -3}} {
		if _, err := Parse(strings.NewReader(in), "x", o); err == nil || !strings.HasPrefix(err.Error(), "tpcdag: Options.") {
			t.Errorf("Options %+v: err = %v, want an Options error", o, err)
		}
	}
	if _, err := ReadFile("testdata/does-not-exist.txt", Options{}); err == nil || !strings.HasPrefix(err.Error(), "tpcdag: ") {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestCorrupt feeds broken inputs and checks the error names the line and field.
func TestCorrupt(t *testing.T) {
	const ok = "# 0: q\n2 0 5 batch0\nA 10 0.5 0.5 2\nB 20 0.25 0.25 1\n1\nA B ata\n"
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty file", "", 1, "file", "no DAGs"},
		{"only comments", "# 0\n# 1\n\n", 3, "file", "no DAGs"},
		{"truncated in stages", "# 0\n3 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n", 5, "stage", "unexpected end of file"},
		{"truncated before edge count", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n", 4, "numEdges", "unexpected end of file"},
		{"truncated in edges", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n2\nA B ata\n", 6, "edge", "unexpected end of file"},
		{"next dag inside stages", "3 0\nA 1 0.1 0.1 1\n# 1\n1 1\nA 1 0.1 0.1 1\n0\n", 3, "stage", "comment inside dag 0"},
		{"more stages than numStages", "1 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n0\n", 3, "numEdges", "more stage lines"},
		{"header with one field", "7\nA 1 0.1 0.1 1\n0\n", 1, "header", "got 1 fields"},
		{"header with six fields", "1 0 0 q 1 9\nA 1 0.1 0.1 1\n0\n", 1, "header", "got 6 fields"},
		{"unexpected csv header", "task_name,instance_num,job_name\nM1,1,j_1\n", 1, "header", "got 1 fields"},
		{"non-numeric numStages", "two 0\n", 1, "numStages", "non-negative integer"},
		{"zero numStages", "0 0\n0\n", 1, "numStages", "at least 1"},
		{"negative dagId", "1 -4\nA 1 0.1 0.1 1\n0\n", 1, "dagId", "non-negative integer"},
		{"overflowing dagId", "1 99999999999999999999\nA 1 0.1 0.1 1\n0\n", 1, "dagId", "non-negative integer"},
		{"duplicate dagId", ok + "1 0\nC 1 0.1 0.1 1\n0\n", 7, "dagId", "duplicate dagId 0 (first used on line 2)"},
		{"negative arrival", "1 0 -5\nA 1 0.1 0.1 1\n0\n", 1, "arrival", "negative"},
		{"overflowing arrival", "1 0 1e300\nA 1 0.1 0.1 1\n0\n", 1, "arrival", "larger than"},
		{"NaN arrival", "1 0 NaN\nA 1 0.1 0.1 1\n0\n", 1, "arrival", "want a number"},
		{"bad sessionId", "1 0 0 q s1\nA 1 0.1 0.1 1\n0\n", 1, "sessionId", "integer"},
		{"stage with too few fields", "1 0\nA 1 5\n0\n", 2, "stage", "at least 4 fields"},
		{"non-numeric duration", "1 0\nA ten 0.1 0.1 1\n0\n", 2, "taskDuration", "want a number"},
		{"negative duration", "1 0\nA -1 0.1 0.1 1\n0\n", 2, "taskDuration", "negative"},
		{"overflowing duration", "1 0\nA 1e12 0.1 0.1 1\n0\n", 2, "taskDuration", "larger than"},
		{"infinite duration", "1 0\nA +Inf 0.1 0.1 1\n0\n", 2, "taskDuration", "want a number"},
		{"non-numeric demand", "1 0\nA 1 0.1 lots 1\n0\n", 2, "r2", "want a number"},
		{"quoted demand", "1 0\nA 1 \"0.1\" 0.1 1\n0\n", 2, "r1", "want a number, got \"\\\"0.1\\\"\""},
		{"negative demand", "1 0\nA 1 -0.1 0.1 1\n0\n", 2, "r1", "outside [0, 1]"},
		{"demand above one machine", "1 0\nA 1 1.5 0.1 1\n0\n", 2, "r1", "outside [0, 1]"},
		{"zero demand", "1 0\nA 1 0 0 0.5 1\n0\n", 2, "demand", "all 2 kept dimensions (cpu, mem) are zero"},
		{"too many demand fields", "1 0\nA 1 0.1 0.1 0.1 0.1 0.1 0.1 11 1\n0\n", 2, "demand", "7 fields"},
		{"one demand field", "1 0\nA 1 0.1 1\n0\n", 2, "demand", "Options.Dims = 2"},
		{"bad stage arrival", "1 0\nA 1 0.1 0.1 @x 1\n0\n", 2, "stageArrival", "want a number"},
		{"zero tasks", "1 0\nA 1 0.1 0.1 0\n0\n", 2, "numTasks", "at least 1"},
		{"fractional tasks", "1 0\nA 1 0.1 0.1 2.5\n0\n", 2, "numTasks", "non-negative integer"},
		{"too many tasks", "1 0\nA 1 0.1 0.1 3000000000\n0\n", 2, "numTasks", "larger than"},
		{"duplicate stage name", "2 0\nA 1 0.1 0.1 1\nA 2 0.1 0.1 1\n0\n", 3, "stageName", "duplicate stage \"A\" in dag 0 (first on line 2)"},
		{"bad edge count", "1 0\nA 1 0.1 0.1 1\nx\n", 3, "numEdges", "non-negative integer"},
		{"negative edge count", "1 0\nA 1 0.1 0.1 1\n-1\n", 3, "numEdges", "negative"},
		{"edge with two fields", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n1\nA B\n", 5, "edge", "3 fields"},
		{"unknown comm pattern", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n1\nA B xyz\n", 5, "commPattern", "ata or scg"},
		{"edge from unknown stage", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n1\nZ B ata\n", 5, "src", "unknown stage \"Z\""},
		{"edge to unknown stage", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n1\nA Z ata\n", 5, "dst", "unknown stage \"Z\""},
		{"self edge", "2 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\n1\nA A ata\n", 5, "edge", "depends on itself"},
		{"cycle", "3 0\nA 1 0.1 0.1 1\nB 1 0.1 0.1 1\nC 1 0.1 0.1 1\n3\nA B ata\nB C ata\nC B ata\n", 1, "edges", "dependency cycle"},
		{"line too long", "1 0\nA 1 0.1 0.1 " + strings.Repeat("1", MaxLineBytes) + "\n0\n", 2, "line", "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Parse(strings.NewReader(tc.in), "bad.txt", Options{})
			if err == nil {
				t.Fatalf("no error; parsed %d jobs", len(w.Jobs))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SyntaxError", err, err)
			}
			if se.File != "bad.txt" || se.Line != tc.line || se.Field != tc.field || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %v\nwant bad.txt:%d: %s: ...%s...", err, tc.line, tc.field, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("tpcdag: bad.txt:%d: %s: ", tc.line, tc.field)) {
				t.Errorf("message %q lacks the tpcdag: file:line: field: prefix", err)
			}
		})
	}
	// The valid base input parses.
	if _, err := Parse(strings.NewReader(ok), "ok.txt", Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestCycleStageOnCycle(t *testing.T) {
	// D hangs off the cycle B⇄C; the reported stage must be on the cycle itself.
	st := []traces.Stage{{Name: "A"}, {Name: "B", Parents: []int32{0, 2}}, {Name: "C", Parents: []int32{1}}, {Name: "D", Parents: []int32{2}}}
	if c := cycleStage(st); c != 1 && c != 2 {
		t.Errorf("cycleStage = %d, want 1 or 2", c)
	}
	if c := cycleStage(st[:1]); c != -1 {
		t.Errorf("acyclic: cycleStage = %d", c)
	}
}

func TestSharedData(t *testing.T) {
	dir := testutil.SharedData(t, "tpc-dags")
	tests := []struct {
		file                string
		o                   Options
		jobs, stages, tasks int64
		lq, tq              int
	}{
		{"workload/queries_tpch.txt", Options{}, 17, 132, 3772, 0, 0},
		{"workload/queries_tpcds_new.txt", Options{Dims: 6}, 41, 431, 9902, 0, 0},
		{"workload/queries_bb.txt", Options{LastStageWins: true}, 21, 189, 15111, 0, 0},
		{"workload/queries_tpch_FB_distr.txt", Options{}, 399, 3160, 91304, 0, 0},
		{"workload/queries_tpcds_FB_distr_new.txt", Options{}, 399, 4220, 97413, 0, 0},
		{"workload/queries_bb_FB_distr.txt", Options{}, 399, 3678, 307755, 0, 0},
		{"workload/queries_tpch_no_distr.txt", Options{}, 5000, 39151, 1116460, 0, 0},
		{"input_bopf_2017-01-26/jobs_input_1_8_40_TPC_H.txt", Options{}, 649, 4776, 171615, 150, 499},
		{"input_bopf_2017-01-26/jobs_input_1_1_40_BB_mov.txt", Options{}, 104, 955, 100418, 0, 0},
		{"workload/tpch_query20_stage_good.txt", Options{Dims: 6}, 1, 12, 283, 0, 0},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			w, err := ReadFile(filepath.Join(dir, tc.file), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var stages int64
			lq, tq := 0, 0
			for _, j := range w.Jobs {
				stages += int64(len(j.Stages))
				switch j.Class {
				case "lq":
					lq++
				case "tq":
					tq++
				}
			}
			if int64(len(w.Jobs)) != tc.jobs || stages != tc.stages || w.Tasks() != tc.tasks {
				t.Errorf("jobs/stages/tasks = %d/%d/%d, want %d/%d/%d", len(w.Jobs), stages, w.Tasks(), tc.jobs, tc.stages, tc.tasks)
			}
			if tc.lq+tc.tq > 0 && (lq != tc.lq || tq != tc.tq) {
				t.Errorf("lq/tq jobs = %d/%d, want %d/%d", lq, tq, tc.lq, tc.tq)
			}
		})
	}
	// The FB arrivals are exactly the 399 times of workload/FBdistribution.txt (0..1330 s).
	w, err := ReadFile(filepath.Join(dir, "workload/queries_tpch_FB_distr.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "workload/FBdistribution.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var fb []traces.Time
	for _, f := range strings.Fields(string(raw)) {
		s, err := seconds(f)
		if err != nil {
			t.Fatal(err)
		}
		fb = append(fb, s)
	}
	slices.Sort(fb)
	var got []traces.Time
	for _, j := range w.Jobs {
		got = append(got, j.Submit)
	}
	if !slices.Equal(got, fb) {
		t.Errorf("submit times differ from FBdistribution.txt (%d vs %d values, last %d vs %d)", len(got), len(fb), got[len(got)-1], fb[len(fb)-1])
	}
	// Known defects of the real data are reported, not misread.
	for file, field := range map[string]string{
		"workload/queries_bb.txt":                                                "stageName",
		"workload/tpcds_query64_stage_good.txt":                                  "demand",
		"input_bopf_2017-01-26/dags-input-multiple-batches.txt":                  "dagId",
		"input_bopf_2017-01-26/dags-input-multiple-interactives.txt":             "dagId",
		"input_bopf_2017-01-26/dags-input-multiple-batches-long-interactive.txt": "dagId",
	} {
		_, err := ReadFile(filepath.Join(dir, file), Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Field != field {
			t.Errorf("%s: err = %v, want a %s error", file, err, field)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for _, file := range []string{"queries_tpch_FB_distr_3.txt", "jobs_input_1_8_40_TPC_H_cut.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("file="+strings.TrimSuffix(file, ".txt"), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var stages int
			for b.Loop() {
				w, err := Parse(bytes.NewReader(data), file, Options{})
				if err != nil {
					b.Fatal(err)
				}
				stages = 0
				for _, j := range w.Jobs {
					stages += len(j.Stages)
				}
			}
			b.ReportMetric(float64(stages)*float64(b.N)/b.Elapsed().Seconds(), "stages/s")
		})
	}
}
