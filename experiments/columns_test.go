package experiments

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// columnDocs reads the column descriptions of a Parquet file's key-value metadata.
func columnDocs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	out := map[string]string{}
	kv := pf.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		if name, ok := strings.CutPrefix(k, ColumnKeyPrefix); ok {
			out[name] = kv.Values()[i]
		}
	}
	return out
}

// TestOutputColumnsAreDocumented: jobs.parquet, usage.parquet and a policy's table describe
// every column, with its unit, in the file's key-value metadata.
func TestOutputColumnsAreDocumented(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, w func(f *bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := w(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jobs := []replay.JobRecord{{Index: 0, ID: 7, Completed: true, Finish: traces.FromSeconds(3), FirstStart: 0, Tasks: 2, Finished: 2, Utility: math.NaN()}}
	res := &replay.Result{Dims: []string{"cpu", "mem"}, Queues: []string{"a"}, Usage: [][][traces.MaxDims]float64{{{0.5, 0.25}}}, UsageWindow: traces.FromSeconds(10)}
	tbl := &policies.Table{Name: "cycles", Columns: []policies.Column{{Name: "t_s", Float64: []float64{1}}, {Name: "solves", Int64: []int64{1}}}}
	for _, tc := range []struct {
		file string
		w    func(f *bytes.Buffer) error
		want map[string]string // column → a substring of its description
	}{
		{JobsFile, func(f *bytes.Buffer) error { return WriteJobs(f, jobs) }, map[string]string{"jct_s": "finish − submit; null while unfinished [s]", "tasks": "[tasks]", "name": "name"}},
		{UsageFile, func(f *bytes.Buffer) error { return WriteUsage(f, res) }, map[string]string{"window_start_s": "[s]", "cpu": "allocation of cpu", "mem": "[fraction]"}},
		{"cycles.parquet", func(f *bytes.Buffer) error { return writeReportTable(f, tbl) }, map[string]string{"t_s": "cycles table [s]", "solves": "solves"}},
	} {
		p := write(tc.file, tc.w)
		docs := columnDocs(t, p)
		got, _ := testutil.ReadParquet(t, p)
		if n := int(got.NumCols()); len(docs) != n {
			t.Errorf("%s: %d column descriptions for %d columns: %v", tc.file, len(docs), n, docs)
		}
		for i := range int(got.NumCols()) {
			if name := got.Schema().Field(i).Name; docs[name] == "" {
				t.Errorf("%s: column %s undocumented", tc.file, name)
			}
		}
		for col, want := range tc.want {
			if !strings.Contains(docs[col], want) {
				t.Errorf("%s: column %s described %q, want %q in it", tc.file, col, docs[col], want)
			}
		}
		got.Release()
	}
}

// TestPredictionsWithoutHistoryAreNull: a job the predictor had nothing for has a null
// predicted_s and rel_error in predictions.parquet (not 0 and −1), a job without a positive
// actual runtime a null rel_error; the profile's metrics still count the first at −100%.
func TestPredictionsWithoutHistoryAreNull(t *testing.T) {
	l := &predictionLog{ids: []int64{1, 2, 3}, pred: []traces.Time{0, traces.FromSeconds(12), traces.FromSeconds(4)},
		truth: []traces.Time{traces.FromSeconds(10), traces.FromSeconds(10), 0}}
	rep := l.report()
	if rep.Metrics["predict.under_2x"] != 0.5 || rep.Metrics["predict.jobs"] != 2 {
		t.Errorf("metrics %v", rep.Metrics)
	}
	p := filepath.Join(t.TempDir(), "predictions.parquet")
	var b bytes.Buffer
	if err := writeReportTable(&b, &rep.Tables[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl, _ := testutil.ReadParquet(t, p)
	defer tbl.Release()
	col := func(name string) *array.Float64 {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %s", name)
		}
		return tbl.Column(idx[0]).Data().Chunk(0).(*array.Float64)
	}
	ps, re := col("predicted_s"), col("rel_error")
	if !ps.IsNull(0) || !re.IsNull(0) {
		t.Errorf("no history: predicted_s null %v, rel_error null %v; want both null (values %v, %v)", ps.IsNull(0), re.IsNull(0), ps.Value(0), re.Value(0))
	}
	if ps.IsNull(1) || ps.Value(1) != 12 || re.IsNull(1) || math.Abs(re.Value(1)-0.2) > 1e-12 {
		t.Errorf("row 2: predicted %v, rel_error %v", ps.Value(1), re.Value(1))
	}
	if ps.IsNull(2) || !re.IsNull(2) {
		t.Errorf("row 3 (actual 0): predicted null %v, rel_error null %v", ps.IsNull(2), re.IsNull(2))
	}
	if d := columnDocs(t, p); !strings.Contains(d["predicted_s"], "null when it had no history") {
		t.Errorf("predicted_s described %q", d["predicted_s"])
	}
}
