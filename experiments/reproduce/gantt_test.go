package reproduce

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/traces"
)

const ganttSpec = `
title: Gantt
axes:
  - key: policy.name
    values: [fifo, drf]
  - key: workload.machines
    values: [10, 20]
seeds: [1, 2]
labels: {quick: {}, paper: {}}
figures:
  - {id: g, kind: gantt, y: tasks, where: {policy: drf, machines: 10}, x_range: [0, 50]}
  - {id: several, kind: gantt, y: tasks, where: {policy: drf}}
  - {id: missing, kind: gantt, y: tasks, where: {policy: fifo, machines: 20}}
`

// TestGanttFigure draws a gantt figure from the lowest seed's tasks.parquet and refuses a
// figure over several configurations or a cell without tasks.parquet.
func TestGanttFigure(t *testing.T) {
	d := synthData(t)
	spec, err := experiments.ParseSpec(fstest.MapFS{"g.yaml": {Data: []byte(ganttSpec)}}, "g.yaml", "", "gantt")
	if err != nil {
		t.Fatal(err)
	}
	d.spec = spec
	meta := timeline.Meta{Dims: []string{"cpu"}, Capacity: []float64{2}, Machines: []string{"m0", "m1"}, Queues: []string{"a", "b"}}
	for _, r := range d.t.Rows {
		if r.Axes[0] == "fifo" && r.Axes[1] == int64(20) {
			continue // the "missing" figure's cells
		}
		rows := []timeline.Row{
			{Queue: "a", Machine: 0, Start: 0, End: 30 * traces.Second, Outcome: "preempted"},
			{Queue: "b", Machine: 1, Start: 10 * traces.Second, End: traces.Time(r.Seed) * 40 * traces.Second, Outcome: "finished"},
		}
		err := sweep.WriteFileAtomic(filepath.Join(sweep.CellDir(d.cache, r.Key), timeline.TasksFile), func(w io.Writer) error {
			tw, err := timeline.NewWriter(w, meta)
			if err != nil {
				return err
			}
			for i := range rows {
				tw.Write(&rows[i])
			}
			return tw.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := d.build(&spec.Figures[0])
	if err != nil {
		t.Fatal(err)
	}
	f := b.fig
	if f.Kind.String() != "gantt" || len(f.Bars) != 2 || f.Bars[1].End != 40 || !f.Bars[0].Marked || strings.Join(f.Categories, ",") != "m0,m1" {
		t.Errorf("gantt of seed 1: %+v", f)
	}
	for i, want := range map[int]string{1: "a gantt figure needs where to select one configuration", 2: "has no tasks.parquet (set metrics.tasks: true"} {
		if _, err := d.build(&spec.Figures[i]); !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("figure %s: got %v, want %q", spec.Figures[i].ID, err, want)
		}
	}
}
