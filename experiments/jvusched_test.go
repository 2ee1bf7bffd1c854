package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/internal/testutil"
)

// quickEXP1 is a small JamaisVu EXP1 run on SC256 (8 racks of 32 nodes, 2 GPU racks) under
// jvusched with JVuPredict estimates, fitted to the committed Google 2011 slice.
func quickEXP1(t *testing.T, sets ...string) Config {
	t.Helper()
	return resolve(t, append([]string{
		"workload.generator=jamaisvu", "workload.jamaisvu.trace=" + filepath.Join("jvu", "testdata", "google2011"),
		"workload.jamaisvu.jobs=120", "workload.jamaisvu.mix=EXP1", "policy.name=jvusched",
		"engine.cycle_s=5", "predict.name=jvupredict", "seed=3",
	}, sets...)...)
}

// TestQuickEXP1JVuSched runs EXP1 on SC256 to completion and checks the per-cycle records, the
// jvusched metrics, and that a second run gives identical results.
func TestQuickEXP1JVuSched(t *testing.T) {
	solvertest.Need(t)
	c := quickEXP1(t)
	o, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Workload.Cluster.Machines) != 256 || o.Summary.Completed != o.Summary.Jobs {
		t.Fatalf("%d machines, %d of %d jobs completed", len(o.Workload.Cluster.Machines), o.Summary.Completed, o.Summary.Jobs)
	}
	dir := t.TempDir()
	if err := o.WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	tbl, _ := testutil.ReadParquet(t, filepath.Join(dir, "cycles.parquet"))
	defer tbl.Release()
	if tbl.NumRows() == 0 {
		t.Fatal("no per-cycle records")
	}
	col := func(name string) int {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("cycles.parquet lacks column %s", name)
		}
		return idx[0]
	}
	for _, name := range []string{"t_s", "pending", "running", "rows", "cols", "integers", "wall_ms", "status", "gap", "preemptions"} {
		col(name)
	}
	optimal := 0
	st := tbl.Column(col("status")).Data().Chunks()
	for _, ch := range st {
		for i := 0; i < ch.Len(); i++ {
			if ch.(*array.String).Value(i) == "optimal" {
				optimal++
			}
		}
	}
	if optimal != int(tbl.NumRows()) {
		t.Errorf("%d of %d solves optimal", optimal, tbl.NumRows())
	}
	m := o.Report.Metrics
	if m["jvusched.solves"] != float64(tbl.NumRows()) || m["jvusched.fallbacks"] != 0 || m["jvusched.limit_incumbent"] != 0 {
		t.Errorf("metrics %v for %d records", m, tbl.NumRows())
	}
	if m["jvusched.estimate_increments"] == 0 {
		t.Errorf("JVuPredict estimates were never raised by the under-estimate handler: %v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Fatal(err)
	}
	o2, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	// Printed, as job records hold NaN utilities (never equal to themselves).
	if fmt.Sprintf("%+v", o.Result.Jobs) != fmt.Sprintf("%+v", o2.Result.Jobs) || !reflect.DeepEqual(o.Report.Metrics, o2.Report.Metrics) {
		t.Error("a second run with the same configuration differs")
	}
}
