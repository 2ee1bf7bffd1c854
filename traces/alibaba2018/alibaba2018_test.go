package alibaba2018

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

func dump(w *traces.Workload, st *Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "workload %q dims=%v machines=%d capacity=%s jobs=%d tasks=%d hash=%s\n",
		w.Name, w.Dims, len(w.Cluster.Machines), w.Cluster.Machines[0].Capacity.Format(len(w.Dims)), len(w.Jobs), w.Tasks(), w.Hash())
	fmt.Fprintf(&b, "stats %+v\n", *st)
	for _, j := range w.Jobs {
		fmt.Fprintf(&b, "job id=%d name=%q submit=%d queue=%q features=%+v stages=%d\n", j.ID, j.Name, j.Submit, j.Queue, j.Features, len(j.Stages))
		for i, s := range j.Stages {
			fmt.Fprintf(&b, "  stage %d %q tasks=%d dur=%d est=%d demand=%s parents=%v\n",
				i, s.Name, s.Tasks, s.Duration, s.Estimate, s.Demand.Format(len(w.Dims)), s.Parents)
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
	for _, file := range []string{"alibaba_random_50_dags.csv", "alibaba_set_0_cut.csv"} {
		t.Run(file, func(t *testing.T) {
			w, st, err := ReadFileStats(filepath.Join("testdata", file), Options{Machines: 10})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, strings.TrimSuffix(file, ".csv"), dump(w, st))
		})
	}
}

func TestMapping(t *testing.T) {
	w, st, err := ReadFileStats("testdata/alibaba_set_0_cut.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Cluster.Machines) != DefaultMachines || w.Cluster.Machines[0].Capacity != traces.VecOf(96, 100) {
		t.Errorf("cluster: %d machines of %v", len(w.Cluster.Machines), w.Cluster.Machines[0].Capacity.Format(2))
	}
	// j_2212004 (Running) and j_2938303 (Waiting, nan values) are skipped.
	if st.Rows != 63 || st.Jobs != 4 || st.SkippedJobs != 2 || st.SkippedRows != 25 || st.Skipped[ReasonStatus] != 2 || st.TruncatedNames != 1 {
		t.Errorf("stats = %+v", *st)
	}
	byName := map[string]*traces.Job{}
	for i := range w.Jobs {
		byName[w.Jobs[i].Name] = &w.Jobs[i]
	}
	// M2,1,j_2594644,,Terminated,336788,336788,100,0.3
	// R4_3,1,j_2594644,,Terminated,336788,336788,100,0.39
	// J3_1_2,3,j_2594644,,Terminated,336788,336789,100,0.59
	// M1,1,j_2594644,,Terminated,336788,336788,100,0.3
	j := byName["j_2594644"]
	if j == nil || j.ID != 2594644 || j.Submit != 336788*traces.Second || len(j.Stages) != 4 {
		t.Fatalf("j_2594644 = %+v", j)
	}
	want := []struct {
		name    string
		tasks   int32
		dur     traces.Time
		demand  traces.Vec
		parents []int32
	}{
		{"M2", 1, MinTaskDuration, traces.VecOf(1, 0.3), nil},
		{"R4_3", 1, MinTaskDuration, traces.VecOf(1, 0.39), []int32{2}},
		{"J3_1_2", 3, traces.Second, traces.VecOf(1, 0.59), []int32{3, 0}},
		{"M1", 1, MinTaskDuration, traces.VecOf(1, 0.3), nil},
	}
	for i, ws := range want {
		s := j.Stages[i]
		if s.Name != ws.name || s.Tasks != ws.tasks || s.Duration != ws.dur || s.Estimate != ws.dur || s.Demand != ws.demand || !slices.Equal(s.Parents, ws.parents) {
			t.Errorf("stage %d = %+v, want %+v", i, s, ws)
		}
	}
	// R4_2_Stg9 waits for task 2 (R2_1_Stg8); the _Stg suffix is not a parent.
	j = byName["j_2417472"]
	if j == nil || j.Stages[0].Name != "R4_2_Stg9" || !slices.Equal(j.Stages[0].Parents, []int32{1}) {
		t.Errorf("j_2417472 = %+v", j)
	}
}

func TestParseTaskName(t *testing.T) {
	tests := []struct {
		in        string
		num       int64
		parents   []int64
		truncated bool
		err       bool
	}{
		{"M1", 1, nil, false, false},
		{"R4_1_2_3", 4, []int64{1, 2, 3}, false, false},
		{"J3_1", 3, []int64{1}, false, false},
		{"R4_2_Stg9", 4, []int64{2}, false, false},
		{"L5_Stg12", 5, nil, false, false},
		{"J30_4_5_", 30, []int64{4, 5}, true, false},
		{"task_Nzg3ODAwNDgzMTAzNTc4ODM0Mw==", -1, nil, false, false},
		{"MergeTask", 0, nil, false, true},
		{"42", 0, nil, false, true},
		{"R4_x", 0, nil, false, true},
		{"R4__2", 0, nil, false, true},
		{"R4_StgX", 0, nil, false, true},
		{"M99999999999", 0, nil, false, true},
		{"R2_-1", 0, nil, false, true},
	}
	for _, tc := range tests {
		got, err := parseTaskName(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("parseTaskName(%q) err = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && (got.num != tc.num || !slices.Equal(got.parents, tc.parents) || got.truncated != tc.truncated) {
			t.Errorf("parseTaskName(%q) = %+v", tc.in, got)
		}
	}
}

const hdr = "task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem\n"

func TestSkipped(t *testing.T) {
	in := hdr +
		"M1,1,j_1,,Terminated,10,20,100,0.5\n" +
		"M1,1,j_2,,Failed,10,20,100,0.5\n" +
		"M1,nan,j_3,,Terminated,10,20,100,0.5\n" +
		"M1,1,j_4,,Terminated,0,20,100,0.5\n" +
		"M1,1,j_5,,Terminated,30,20,100,0.5\n" +
		"M1,0,j_6,,Terminated,10,20,100,0.5\n" +
		"M1,1,j_7,,Terminated,10,20,0,0\n" +
		"M1,1,j_8,,Terminated,10,20,9700,0.5\n" +
		"R2_1,1,j_9,,Terminated,10,20,100,0.5\n" +
		"M1,2,j_10,,Terminated,10,20,50,\n" +
		"M1,12846.0,j_11,,Terminated,157213,157295,100.0,0.3\n"
	w, st, err := Parse(strings.NewReader(in), "skip.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 2 || w.Jobs[0].ID != 1 || w.Jobs[1].ID != 11 || w.Jobs[1].Stages[0].Tasks != 12846 {
		t.Errorf("jobs = %+v", w.Jobs)
	}
	want := map[string]int{ReasonStatus: 1, ReasonMissing: 2, ReasonOutsideWindow: 1, ReasonEndBeforeStart: 1,
		ReasonNoInstances: 1, ReasonZeroDemand: 1, ReasonTooBig: 1, ReasonMissingParent: 1}
	if fmt.Sprint(st.Skipped) != fmt.Sprint(want) || st.SkippedJobs != 9 || st.SkippedRows != 9 || st.Rows != 11 {
		t.Errorf("stats = %+v\nwant skipped %v", *st, want)
	}
	// Everything skipped: an error that says why.
	_, _, err = Parse(strings.NewReader(hdr+"M1,1,j_2,,Failed,10,20,100,0.5\n"), "none.csv", Options{})
	if err == nil || !strings.Contains(err.Error(), "no usable jobs: 1 skipped (status not Terminated: 1)") {
		t.Errorf("all skipped: err = %v", err)
	}
}

func TestCorrupt(t *testing.T) {
	ok := "M1,1,j_1,,Terminated,10,20,100,0.5\n"
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty file", "", 1, "file", "no rows"},
		{"header only", hdr, 1, "file", "no rows"},
		{"unexpected header", "task_name,instance_num,task_type,job_name,status,start_time,end_time,plan_cpu,plan_mem\n" + ok, 1, "header", "column 3"},
		{"too few fields", ok + "M2_1,1,j_1,,Terminated,10,20,100\n", 2, "row", "want 9 fields"},
		{"too many fields", hdr + "M1,1,j_1,,Terminated,10,20,100,0.5,7\n", 2, "row", "want 9 fields"},
		{"quote left open", ok + "M2,1,j_1,\"x,Terminated,10,20,100,0.5\n", 2, "task_type", "unterminated quote"},
		{"quote left open in the last field", ok + "M2,1,j_1,,Terminated,10,20,100,\"0.5", 2, "plan_mem", "unterminated quote"},
		{"bare quote", ok + "M2,1,j_1,x\"y\",Terminated,10,20,100,0.5\n", 2, "row", "column"},
		{"empty task name", ",1,j_1,,Terminated,10,20,100,0.5\n", 1, "task_name", "empty"},
		{"bad job name", "M1,1,job1,,Terminated,10,20,100,0.5\n", 1, "job_name", "j_<n>"},
		{"empty status", "M1,1,j_1,,,10,20,100,0.5\n", 1, "status", "empty"},
		{"non-numeric instances", "M1,many,j_1,,Terminated,10,20,100,0.5\n", 1, "instance_num", "integer"},
		{"fractional instances", "M1,1.5,j_1,,Terminated,10,20,100,0.5\n", 1, "instance_num", "integer"},
		{"overflowing instances", "M1,1e12,j_1,,Terminated,10,20,100,0.5\n", 1, "instance_num", "integer"},
		{"negative start", "M1,1,j_1,,Terminated,-10,20,100,0.5\n", 1, "start_time", "outside"},
		{"overflowing end", "M1,1,j_1,,Terminated,10,1e15,100,0.5\n", 1, "end_time", "outside"},
		{"non-numeric end", "M1,1,j_1,,Terminated,10,later,100,0.5\n", 1, "end_time", "whole seconds"},
		{"negative cpu", "M1,1,j_1,,Terminated,10,20,-100,0.5\n", 1, "plan_cpu", "outside"},
		{"non-numeric mem", "M1,1,j_1,,Terminated,10,20,100,lots\n", 1, "plan_mem", "want a number"},
		{"bad task name", "Merge,1,j_1,,Terminated,10,20,100,0.5\n", 1, "task_name", "<letters><number>"},
		{"bad parent", "M1,1,j_1,,Terminated,10,20,100,0.5\nR2_one,1,j_1,,Terminated,10,20,100,0.5\n", 2, "task_name", "not a task number"},
		{"duplicate task number", ok + "R1_2,1,j_1,,Terminated,10,20,100,0.5\n", 2, "task_name", "task number 1 used twice"},
		{"self dependency", "R1_1,1,j_1,,Terminated,10,20,100,0.5\n", 1, "task_name", "depends on itself"},
		{"cycle", "R1_2,1,j_1,,Terminated,10,20,100,0.5\nR2_1,1,j_1,,Terminated,10,20,100,0.5\n", 1, "task_name", "dependency cycle"},
		{"job not contiguous", ok + "M1,1,j_2,,Terminated,10,20,100,0.5\nM2,1,j_1,,Terminated,10,20,100,0.5\n", 3, "job_name", "not contiguous"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _, err := Parse(strings.NewReader(tc.in), "bad.csv", Options{})
			if err == nil {
				t.Fatalf("no error; %d jobs", len(w.Jobs))
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *SyntaxError", err, err)
			}
			if se.File != "bad.csv" || se.Line != tc.line || se.Field != tc.field || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %v\nwant bad.csv:%d: %s: ...%s...", err, tc.line, tc.field, tc.msg)
			}
		})
	}
	if _, _, err := Parse(strings.NewReader(ok), "ok.csv", Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{Machines: -1}, {CoresPerMachine: -1}} {
		if _, err := ReadFile("testdata/alibaba_set_0_cut.csv", o); err == nil || !strings.HasPrefix(err.Error(), "alibaba2018: Options.") {
			t.Errorf("%+v: err = %v", o, err)
		}
	}
	if _, err := ReadFile("testdata/missing.csv", Options{}); err == nil || !strings.HasPrefix(err.Error(), "alibaba2018: ") {
		t.Errorf("missing file: err = %v", err)
	}
	// A smaller machine turns the 8-core tasks' demand into a skip reason, not an error.
	_, st, err := ReadFileStats("testdata/alibaba_random_50_dags.csv", Options{CoresPerMachine: 1, Machines: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Jobs != 49 {
		t.Errorf("1-core machines: %d jobs kept (%+v)", st.Jobs, *st)
	}
}

func TestSharedData(t *testing.T) {
	dir := testutil.SharedData(t, "alibaba2018/erdos_dag_subsets")
	tests := []struct {
		file                 string
		rows                 int64
		jobs, skipped        int
		stages, tasks, zeros int64
	}{
		{"alibaba_random_50_dags.csv", 197, 49, 1, 195, 31213, 4},
		{"alibaba_set_0_6600_dags.csv", 25196, 6535, 65, 24729, 3051810, 1589},
		{"alibaba_straight_chain_7K_dags_minLen4_set1.csv", 32906, 6902, 98, 32498, 1743795, 2587},
		{"medium_filtered.csv", 22409, 3690, 0, 22409, 242068, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			w, st, err := ReadFileStats(filepath.Join(dir, tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Rows != tc.rows || len(w.Jobs) != tc.jobs || st.SkippedJobs != tc.skipped || st.Tasks != tc.stages || w.Tasks() != tc.tasks || st.ZeroDurations != tc.zeros {
				t.Errorf("rows/jobs/skipped/stages/tasks/zero = %d/%d/%d/%d/%d/%d, want %d/%d/%d/%d/%d/%d",
					st.Rows, len(w.Jobs), st.SkippedJobs, st.Tasks, w.Tasks(), st.ZeroDurations, tc.rows, tc.jobs, tc.skipped, tc.stages, tc.tasks, tc.zeros)
			}
			if st.Rows != st.Tasks+st.SkippedRows {
				t.Errorf("rows %d != kept %d + skipped %d", st.Rows, st.Tasks, st.SkippedRows)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/alibaba_random_50_dags.csv")
	if err != nil {
		b.Fatal(err)
	}
	for _, machines := range []int{10, DefaultMachines} {
		b.Run(fmt.Sprintf("machines=%d", machines), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := Parse(bytes.NewReader(data), "bench.csv", Options{Machines: machines}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(197*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
