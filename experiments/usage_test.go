package experiments

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
)

// usageWorkload: one machine (10 cpu, 10 mem); queue a runs a 100 s task of (5, 2), queue b a
// 50 s task of (2, 5), both submitted at 0 and started at once.
func usageWorkload() *traces.Workload {
	job := func(id int64, q string, cpu, mem float64, dur traces.Time) traces.Job {
		return traces.Job{ID: id, Name: q, Queue: q, Class: "tq", Stages: []traces.Stage{{
			Name: "s", Tasks: 1, Demand: traces.VecOf(cpu, mem), Duration: dur, Estimate: dur,
		}}}
	}
	return &traces.Workload{
		Name: "usage", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(1, traces.VecOf(10, 10), 0),
		Jobs: []traces.Job{job(1, "a", 5, 2, 100*traces.Second), job(2, "b", 2, 5, 50*traces.Second)},
	}
}

func readUsage(t *testing.T, path string) (names []string, queues []string, cols [][]float64) {
	t.Helper()
	tbl, createdBy := testutil.ReadParquet(t, path)
	defer tbl.Release()
	if createdBy != "schedlab "+Version {
		t.Errorf("created_by %q", createdBy)
	}
	for i := 0; i < int(tbl.NumCols()); i++ {
		c := tbl.Column(i)
		names = append(names, c.Name())
		var vals []float64
		for _, a := range c.Data().Chunks() {
			for j := 0; j < a.Len(); j++ {
				switch x := a.(type) {
				case *array.String:
					queues = append(queues, x.Value(j))
				case *array.Float64:
					vals = append(vals, x.Value(j))
				default:
					t.Fatalf("column %s is %s", c.Name(), a.DataType())
				}
			}
		}
		if i > 0 {
			cols = append(cols, vals)
		}
	}
	return names, queues, cols
}

// TestUsageIsWritten runs a tiny workload with 60 s windows and checks usage.parquet's content:
// both queues over both windows of the 100 s run, as fractions of capacity.
func TestUsageIsWritten(t *testing.T) {
	c := resolve(t, "policy.name=fifo", "engine.cycle_s=0", "metrics.usage_window_s=60")
	o, err := RunWorkload(c, usageWorkload())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := o.WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	names, queues, cols := readUsage(t, filepath.Join(dir, UsageFile))
	if want := []string{"queue", "window_start_s", "cpu", "mem"}; !slices.Equal(names, want) {
		t.Fatalf("columns %v, want %v", names, want)
	}
	if want := []string{"a", "a", "b", "b"}; !slices.Equal(queues, want) {
		t.Fatalf("queues %v, want %v", queues, want)
	}
	want := [][]float64{
		{0, 60, 0, 60},                         // window_start_s
		{0.5, 0.5 * 40 / 60, 0.2 * 50 / 60, 0}, // cpu
		{0.2, 0.2 * 40 / 60, 0.5 * 50 / 60, 0}, // mem
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(cols[i][j]-want[i][j]) > 1e-9 {
				t.Errorf("%s[%d] = %v, want %v", names[i+1], j, cols[i][j], want[i][j])
			}
		}
	}
	// Deterministic bytes; no file when the series is disabled.
	var b1, b2 bytes.Buffer
	if err := WriteUsage(&b1, o.Result); err != nil {
		t.Fatal(err)
	}
	if err := WriteUsage(&b2, o.Result); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Error("usage.parquet bytes differ between writes")
	}
	c = resolve(t, "policy.name=fifo", "engine.cycle_s=0", "metrics.usage_window_s=0")
	o, err = RunWorkload(c, usageWorkload())
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := o.WriteOutputs(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, UsageFile)); !os.IsNotExist(err) {
		t.Errorf("usage.parquet written with the series disabled (stat: %v)", err)
	}
}
