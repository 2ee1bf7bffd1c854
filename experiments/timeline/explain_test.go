package timeline_test

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/traces"
)

var updateExplain = flag.Lookup("update")

// explainScenario: two machines of 2 cpus under strict priority with preemption. Batch job 100
// fills both machines at t=0; prod job 200 (higher class) arrives at t=10 and preempts it; batch
// job 300 arrives at t=12 and waits behind both.
func explainScenario(t *testing.T) string {
	t.Helper()
	w := &traces.Workload{
		Name: "explain", Dims: []string{"cpu"}, Cluster: traces.Uniform(2, traces.VecOf(2), 0),
		Jobs: []traces.Job{
			{ID: 100, Queue: "batch", Class: "be", Submit: 0, Stages: []traces.Stage{{Name: "m", Tasks: 4, Demand: traces.VecOf(1), Duration: 30 * traces.Second, Estimate: 30 * traces.Second}}},
			{ID: 200, Queue: "prod", Class: "slo", Submit: 10 * traces.Second, Stages: []traces.Stage{
				{Name: "a", Tasks: 2, Demand: traces.VecOf(1), Duration: 20 * traces.Second, Estimate: 20 * traces.Second},
				{Name: "b", Tasks: 1, Demand: traces.VecOf(2), Duration: 5 * traces.Second, Estimate: 5 * traces.Second, Parents: []int32{0}},
			}},
			{ID: 300, Queue: "batch", Class: "be", Submit: 12 * traces.Second, Stages: []traces.Stage{{Name: "m", Tasks: 2, Demand: traces.VecOf(1), Duration: 10 * traces.Second, Estimate: 10 * traces.Second}}},
		},
	}
	v := experiments.NewViper()
	if err := experiments.ApplySet(v, []string{"policy.name=sp", "policy.class_order=slo,be", "policy.params.preempt=true", "metrics.tasks=true", "metrics.usage_window_s=0"}); err != nil {
		t.Fatal(err)
	}
	c, err := experiments.Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	o, err := experiments.RunWorkload(c, w)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	dir := filepath.Join(t.TempDir(), "run")
	if err := o.PublishOutputs(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExplainGolden tells each job's story in the scenario.
func TestExplainGolden(t *testing.T) {
	dir := explainScenario(t)
	var buf bytes.Buffer
	for _, id := range []int64{100, 200, 300} {
		if err := timeline.Explain(&buf, dir, id, 0); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
	}
	golden := filepath.Join("testdata", "explain.txt")
	if updateExplain != nil && updateExplain.Value.String() == "true" {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("explain differs from %s (-update after checking):\n%s", golden, buf.String())
	}
	if err := timeline.Explain(&buf, dir, 999, 0); !errors.Is(err, timeline.ErrNoJob) {
		t.Errorf("job 999: got %v, want ErrNoJob", err)
	}
	// The run's trace, derived from its tasks.parquet, is valid.
	var tr bytes.Buffer
	if err := timeline.FromTasks(filepath.Join(dir, timeline.TasksFile), &tr, timeline.Window{}); err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(&tr); err != nil {
		t.Error(err)
	}
}

// TestFiguresGolden draws the scenario's Gantt figure and waiting-task series as SVG.
func TestFiguresGolden(t *testing.T) {
	tasks := filepath.Join(explainScenario(t), timeline.TasksFile)
	g, err := timeline.Gantt(tasks, timeline.Window{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := timeline.QueueLengths(tasks, timeline.Window{}, 61)
	if err != nil {
		t.Fatal(err)
	}
	win, err := timeline.Gantt(tasks, timeline.Window{From: 20 * traces.Second, To: 45 * traces.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(win.Bars) >= len(g.Bars) || len(g.Categories) != 4 {
		t.Errorf("window kept %d of %d bars; %d rows (want 2 machines × 2 slots)", len(win.Bars), len(g.Bars), len(g.Categories))
	}
	for name, f := range map[string]interface {
		Encode(w io.Writer, format string) error
	}{"gantt": g, "queue-lengths": q, "gantt-window": win} {
		var buf bytes.Buffer
		if err := f.Encode(&buf, "svg"); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name+".svg")
		if updateExplain != nil && updateExplain.Value.String() == "true" {
			os.WriteFile(path, buf.Bytes(), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			os.WriteFile(path+".got", buf.Bytes(), 0o644)
			t.Errorf("%s differs from its golden file (see %s.got; -update after checking)", path, path)
		}
	}
}
