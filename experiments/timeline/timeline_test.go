package timeline

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite golden files")

var testMeta = Meta{Dims: []string{"cpu", "mem"}, Capacity: []float64{4, 8}, Machines: []string{"a", "b"}, Queues: []string{"prod", "batch"}}

// sampleRows: a batch task preempted for a prod job, restarted later; a two-stage prod job.
func sampleRows() []Row {
	s := traces.FromSeconds
	return []Row{
		{Job: 0, JobID: 10, Queue: "batch", Stage: 0, Task: 0, Machine: 0, Ready: 0, Start: 0, End: s(5), Outcome: "preempted", WorkLost: s(5), Reason: "head of queue", EndWhy: "make room for 11", Demand: [traces.MaxDims]float64{2, 2}},
		{Job: 1, JobID: 11, Queue: "prod", Stage: 0, Task: 0, Machine: 0, Ready: s(4), Start: s(5), End: s(9), Outcome: "finished", Reason: "hard guarantee prod", Demand: [traces.MaxDims]float64{4, 1}},
		{Job: 1, JobID: 11, Queue: "prod", Stage: 1, Task: 0, Machine: 1, Ready: s(9), Start: s(9), End: s(12), Outcome: "finished", Reason: "hard guarantee prod", Demand: [traces.MaxDims]float64{1, 1}},
		{Job: 0, JobID: 10, Queue: "batch", Stage: 0, Task: 0, Machine: 0, Ready: s(5), Start: s(9), End: s(20), Outcome: "unfinished", Slowed: true, Reason: "head of queue", Demand: [traces.MaxDims]float64{2, 2}},
	}
}

func writeTasks(t testing.TB, meta Meta, rows []Row) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), TasksFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, meta)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		w.Write(&rows[i])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTasksRoundTrip writes more rows than one batch holds and reads them back with their
// metadata.
func TestTasksRoundTrip(t *testing.T) {
	base := sampleRows()
	var rows []Row
	for i := 0; len(rows) < BatchRows+100; i++ {
		for _, r := range base {
			r.Job += int32(2 * i)
			r.JobID += int64(2 * i)
			rows = append(rows, r)
		}
	}
	path := writeTasks(t, testMeta, rows)
	var got []Row
	var meta Meta
	err := Scan(path, func(m Meta) error { meta = m; return nil }, func(r *Row) error { got = append(got, *r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for i := range rows {
		if got[i] != rows[i] {
			t.Fatalf("row %d: got %+v, want %+v", i, got[i], rows[i])
		}
	}
	if strings.Join(meta.Dims, ",") != "cpu,mem" || meta.Capacity[1] != 8 || strings.Join(meta.Machines, ",") != "a,b" || meta.Pooled || strings.Join(meta.Queues, ",") != "prod,batch" {
		t.Errorf("meta %+v, want %+v", meta, testMeta)
	}
	sc := Schema(testMeta)
	for _, f := range sc.Fields() {
		if i := sc.Metadata().FindKey(ColumnKeyPrefix + f.Name); i < 0 || sc.Metadata().Values()[i] == "" {
			t.Errorf("column %s has no description", f.Name)
		}
	}
}

func TestScanRefusesOtherFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(p, []byte("not parquet"), 0o644)
	if err := Scan(p, nil, func(*Row) error { return nil }); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("got %v, want an error naming %s", err, p)
	}
}

// TestTraceFromTasks: the trace of the sample rows is valid and matches its golden file.
func TestTraceFromTasks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pooled bool
		win    Window
	}{{"machines", false, Window{}}, {"pooled", true, Window{}}, {"window", false, Window{From: traces.FromSeconds(10), To: traces.FromSeconds(15)}}} {
		t.Run(tc.name, func(t *testing.T) {
			meta := testMeta
			meta.Pooled = tc.pooled
			if tc.pooled {
				meta.Machines = []string{"pool"}
			}
			rows := sampleRows()
			if tc.pooled {
				for i := range rows {
					rows[i].Machine = 0
				}
			}
			var buf bytes.Buffer
			if err := FromTasks(writeTasks(t, meta, rows), &buf, tc.win); err != nil {
				t.Fatal(err)
			}
			if err := Validate(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			golden(t, filepath.Join("testdata", "trace-"+tc.name+".json"), buf.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking):\n%s", path, got)
	}
}

// TestValidateCatchesEachRule: every rule of Validate rejects a trace that breaks it.
func TestValidateCatchesEachRule(t *testing.T) {
	ok := `{"name":"x","ph":"i","ts":1,"pid":1,"tid":1}`
	for _, tc := range []struct{ name, events, want string }{
		{"valid", ok, ""},
		{"no ph", `{"name":"x","ts":1,"pid":1,"tid":1}`, "no ph"},
		{"string pid", `{"name":"x","ph":"i","ts":1,"pid":"1","tid":1}`, "pid and tid"},
		{"no name", `{"ph":"i","ts":1,"pid":1,"tid":1}`, "no name"},
		{"fractional ts", `{"name":"x","ph":"i","ts":1.5,"pid":1,"tid":1}`, "ts must be"},
		{"negative ts", `{"name":"x","ph":"i","ts":-1,"pid":1,"tid":1}`, "ts must be"},
		{"X without dur", `{"name":"x","ph":"X","ts":1,"pid":1,"tid":1}`, "dur"},
		{"X overlap", `{"name":"x","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},{"name":"y","ph":"X","ts":3,"dur":5,"pid":1,"tid":1}`, "overlap on pid 1 tid 1"},
		{"X nested and after", `{"name":"x","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},{"name":"y","ph":"X","ts":2,"dur":2,"pid":1,"tid":1},{"name":"z","ph":"X","ts":6,"dur":1,"pid":1,"tid":1}`, ""},
		{"E before B", `{"name":"x","ph":"B","ts":5,"pid":1,"tid":1},{"name":"x","ph":"E","ts":4,"pid":1,"tid":1}`, "matching earlier begin"},
		{"B never ends", `{"name":"x","ph":"B","ts":5,"pid":1,"tid":1}`, "never end"},
		{"async without id", `{"name":"x","cat":"c","ph":"b","ts":5,"pid":1,"tid":1}`, "cat and id"},
		{"async e without b", `{"name":"x","cat":"c","id":3,"ph":"e","ts":5,"pid":1,"tid":1}`, "without an earlier begin"},
		{"async b never ends", `{"name":"x","cat":"c","id":3,"ph":"b","ts":5,"pid":1,"tid":1}`, "never ends"},
		{"bad scope", `{"name":"x","ph":"i","s":"q","ts":1,"pid":1,"tid":1}`, "scope"},
		{"counter string", `{"name":"x","ph":"C","ts":1,"pid":1,"tid":0,"args":{"a":"1"}}`, "not a number"},
		{"counter empty", `{"name":"x","ph":"C","ts":1,"pid":1,"tid":0}`, "without args"},
		{"unknown metadata", `{"name":"colour","ph":"M","pid":1,"tid":0,"args":{}}`, "unknown metadata"},
		{"unknown phase", `{"name":"x","ph":"Z","ts":1,"pid":1,"tid":1}`, "unknown phase"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(strings.NewReader(`{"traceEvents":[` + tc.events + `]}`))
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if err := Validate(strings.NewReader(`[]`)); err == nil {
		t.Error("a bare array passed; schedlab writes the object form")
	}
}
