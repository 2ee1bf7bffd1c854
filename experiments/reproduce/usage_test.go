package reproduce

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

const usageSpec = `
title: Usage
axes:
  - key: policy.name
    values: [fifo, drf]
  - key: workload.machines
    values: [10, 20]
seeds: [1, 2]
labels: {quick: {}, paper: {}}
figures:
  - {id: stacked, kind: stacked, y: usage.mem, where: {policy: drf, machines: 10}}
  - {id: line, kind: line, y: usage.cpu, where: {policy: drf, machines: 10}, x_range: [60, 1000]}
  - {id: misaligned, kind: stacked, y: usage.cpu, where: {policy: fifo, machines: 20}}
  - {id: several, kind: stacked, y: usage.cpu, where: {policy: drf}}
  - {id: nodim, kind: stacked, y: usage.gpu, where: {policy: drf, machines: 10}}
  - {id: lq, kind: cdf, y: job.jct_s, series: policy, where: {machines: 10}, job_where: {class: lq}}
  - {id: lqbox, kind: box, x: policy, y: job.jct_s, job_where: {class: [lq], queue: b}}
`

// usageData is synthData's table with usage.parquet in every cell (queues a and b, two 60 s
// windows; cpu of a's first window is 0.1 × seed; fifo/20's seed 2 starts 30 s later) and jobs
// of classes lq (the first two) and tq.
func usageData(t *testing.T) *data {
	t.Helper()
	d := synthData(t)
	spec, err := experiments.ParseSpec(fstest.MapFS{"u.yaml": {Data: []byte(usageSpec)}}, "u.yaml", "", "usage")
	if err != nil {
		t.Fatal(err)
	}
	d.spec = spec
	for _, r := range d.t.Rows {
		res := &replay.Result{Queues: []string{"a", "b"}, Dims: []string{"cpu", "mem"}, UsageWindow: 60 * traces.Second,
			Usage: [][][traces.MaxDims]float64{
				{{0.1 * float64(r.Seed), 0.2}, {0.3, 0.4}},
				{{0.5, 0.1}}, // b's series is one window short: padded with 0
			}}
		if r.Axes[0] == "fifo" && r.Axes[1] == int64(20) && r.Seed == 2 {
			res.Start = 30 * traces.Second
		}
		dir := sweep.CellDir(d.cache, r.Key)
		if err := sweep.WriteFileAtomic(filepath.Join(dir, experiments.UsageFile), func(w io.Writer) error { return experiments.WriteUsage(w, res) }); err != nil {
			t.Fatal(err)
		}
		var jobs []replay.JobRecord
		for j := range 5 {
			class, queue := "tq", "a"
			if j < 2 {
				class = "lq"
			}
			if j == 1 {
				queue = "b"
			}
			jobs = append(jobs, replay.JobRecord{Index: int32(j), Class: class, Queue: queue, Completed: true, FirstStart: 0,
				Finish: traces.FromSeconds(float64(j + 1)), Tasks: 1, Finished: 1, Utility: math.NaN()})
		}
		if err := sweep.WriteFileAtomic(filepath.Join(dir, experiments.JobsFile), func(w io.Writer) error { return experiments.WriteJobs(w, jobs) }); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestUsageFigures(t *testing.T) {
	d := usageData(t)
	fig := func(id string) *experiments.Figure {
		for i := range d.spec.Figures {
			if d.spec.Figures[i].ID == id {
				return &d.spec.Figures[i]
			}
		}
		t.Fatalf("no figure %s", id)
		return nil
	}
	b, err := d.build(fig("stacked"))
	if err != nil {
		t.Fatal(err)
	}
	f := b.fig
	if len(f.T) != 2 || f.T[0] != 0 || f.T[1] != 60 || len(f.Layers) != 2 || f.Layers[0].Label != "a" || f.Layers[1].Label != "b" {
		t.Fatalf("stacked figure: t=%v layers=%+v", f.T, f.Layers)
	}
	if y := f.Layers[0].Y; !near(y[0], 0.2) || !near(y[1], 0.4) || !near(f.Layers[1].Y[1], 0) || f.XLabel != "Time [s]" {
		t.Errorf("mem layers = %+v, x label %q", f.Layers, f.XLabel)
	}
	if len(b.notes) != 1 || b.notes[0] != "mean over 2 seeds" {
		t.Errorf("notes = %v", b.notes)
	}
	// Lines keep the seeds as samples; x_range drops the first window.
	b, err = d.build(fig("line"))
	if err != nil {
		t.Fatal(err)
	}
	if s := b.fig.Series[0]; len(s.X) != 1 || s.X[0] != 60 || len(s.Samples[0]) != 2 {
		t.Errorf("line series = %+v", s)
	}
	// Seeds whose windows differ: the first seed only.
	b, err = d.build(fig("misaligned"))
	if err != nil {
		t.Fatal(err)
	}
	if !near(b.fig.Layers[0].Y[0], 0.1) || len(b.notes) != 1 || !strings.Contains(b.notes[0], "seed 1 only") {
		t.Errorf("misaligned: layers %+v notes %v", b.fig.Layers, b.notes)
	}
	for id, want := range map[string]string{
		"several": "u.yaml:14: figure several: a usage figure needs where to select one configuration; it matches several (workload.machines ∈ {10, 20})",
		"nodim":   "u.yaml:15: figure nodim: y usage.gpu: not a resource dimension",
	} {
		_, err := d.build(fig(id))
		if err == nil || !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error\n  %v\nwant it to contain\n  %s", id, err, want)
		}
	}
	// job_where keeps the two lq jobs of each of the two seeds' cells.
	b, err = d.build(fig("lq"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range b.fig.Dists {
		if len(ds.Values) != 4 || ds.Values[0] != 1 || ds.Values[1] != 2 {
			t.Errorf("lq %s values = %v, want 1, 2 per cell", ds.Label, ds.Values)
		}
	}
	if len(b.notes) != 1 || b.notes[0] != "jobs with class ∈ {lq}" {
		t.Errorf("lq notes = %v", b.notes)
	}
	b, err = d.build(fig("lqbox"))
	if err != nil {
		t.Fatal(err)
	}
	if s := b.fig.Groups[0].Samples[0]; len(s) != 4 || s[0] != 2 {
		t.Errorf("lq queue b samples = %v, want job 1 of each of 4 cells", s)
	}
}
