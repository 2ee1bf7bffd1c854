package sweep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/schedlab/schedlab/internal/testutil"
)

// TestCountsAreIntegers: cells.parquet stores counts (jobs, preemptions, admissions.*) as int64
// and measures as double; a count that is not whole stays a double; reading gives the values
// back.
func TestCountsAreIntegers(t *testing.T) {
	tb := &Table{Spec: "s", Label: "quick",
		Metrics: []string{"admissions.H", "avg_jct_s", "by_queue.q1.jobs", "jobs", "preemptions"},
		Rows: []Row{
			{Cell: 0, Key: "k0", Seed: 1, Metrics: map[string]float64{"admissions.H": 2, "avg_jct_s": 12.5, "by_queue.q1.jobs": 3, "jobs": 12, "preemptions": 0.5}},
			{Cell: 1, Key: "k1", Seed: 2, Metrics: map[string]float64{"avg_jct_s": 10, "jobs": 12, "preemptions": 1}},
		}}
	path := filepath.Join(t.TempDir(), CellsFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]arrow.DataType{
		"admissions.H": arrow.PrimitiveTypes.Int64, "by_queue.q1.jobs": arrow.PrimitiveTypes.Int64,
		"jobs": arrow.PrimitiveTypes.Int64, "avg_jct_s": arrow.PrimitiveTypes.Float64,
		"preemptions": arrow.PrimitiveTypes.Float64, // 0.5 is not a whole count
	}
	tbl, _ := testutil.ReadParquet(t, path)
	defer tbl.Release()
	sc := tbl.Schema()
	for name, typ := range want {
		idx := sc.FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %q", name)
		}
		if got := sc.Field(idx[0]).Type; !arrow.TypeEqual(got, typ) {
			t.Errorf("column %q is %s, want %s", name, got, typ)
		}
	}
	back, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range tb.Rows {
		for m, v := range r.Metrics {
			if got, ok := back.Rows[i].Metrics[m]; !ok || got != v {
				t.Errorf("row %d %s = %v (present %v), want %v", i, m, got, ok, v)
			}
		}
		if _, ok := back.Rows[i].Metrics["admissions.H"]; ok != (i == 0) {
			t.Errorf("row %d: admissions.H presence %v", i, ok)
		}
	}
}
