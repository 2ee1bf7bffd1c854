package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/report/stats"
)

// usageSeries is one cell's usage of one resource dimension: per queue (in queue-index order),
// the value of each window starting at T.
type usageSeries struct {
	queues []string
	t      []float64
	v      [][]float64 // [queue][window]
}

// readUsage reads one dimension of a cell's usage.parquet.
func (d *data) readUsage(fig *experiments.Figure, key, dim string) (*usageSeries, error) {
	path := filepath.Join(d.cellDir(key), experiments.UsageFile)
	qs, err := readStrings(path, experiments.UsageQueueColumn)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: figure %s: cell %s has no %s (metrics.usage_window_s is 0, or the cell was cached before usage.parquet existed)", experiments.ErrConfig, fig.Pos, fig.ID, key, experiments.UsageFile)
	}
	if err != nil {
		return nil, err
	}
	ts, err := readColumn(path, experiments.UsageWindowStartColumn)
	if err != nil {
		return nil, err
	}
	vs, err := readColumn(path, dim)
	if errors.Is(err, experiments.ErrConfig) {
		msg := strings.TrimPrefix(err.Error(), experiments.ErrConfig.Error()+": ")
		return nil, fmt.Errorf("%w: %s: figure %s: y usage.%s: not a resource dimension of the cell (%s)", experiments.ErrConfig, fig.YPos, fig.ID, dim, msg)
	}
	if err != nil {
		return nil, err
	}
	if len(ts) != len(qs) || len(vs) != len(qs) {
		return nil, fmt.Errorf("%s: columns of different lengths", path)
	}
	u := &usageSeries{}
	for i, q := range qs {
		if len(u.queues) == 0 || u.queues[len(u.queues)-1] != q {
			u.queues = append(u.queues, q)
			u.v = append(u.v, nil)
		}
		qi := len(u.queues) - 1
		if qi == 0 {
			u.t = append(u.t, ts[i])
		}
		u.v[qi] = append(u.v[qi], vs[i])
	}
	return u, nil
}

func (u *usageSeries) aligned(o *usageSeries) bool {
	return slices.Equal(u.queues, o.queues) && slices.Equal(u.t, o.t)
}

// buildUsage draws a usage figure (y usage.<dim>): the where filter must leave one
// configuration; its seeds are averaged window by window when their windows and queues align,
// else the first seed is drawn.
func (d *data) buildUsage(fig *experiments.Figure, rows []sweep.Row) (*built, error) {
	var vary []string
	for _, c := range d.t.Axes {
		if vals := d.t.Distinct(rows, c.Key); len(vals) > 1 {
			vary = append(vary, c.Key+" ∈ {"+strings.Join(vals, ", ")+"}")
		}
	}
	if len(vary) > 0 {
		return nil, fmt.Errorf("%w: %s: figure %s: a usage figure needs where to select one configuration; it matches several (%s)",
			experiments.ErrConfig, fig.Pos, fig.ID, strings.Join(vary, "; "))
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b sweep.Row) int { return cmpF(float64(a.Seed), float64(b.Seed)) })
	dim := strings.TrimPrefix(fig.Y[0], experiments.UsageMetricPrefix)
	var series []*usageSeries
	for i := range rows {
		u, err := d.readUsage(fig, rows[i].Key, dim)
		if err != nil {
			return nil, err
		}
		series = append(series, u)
	}
	b := &built{}
	first := series[0]
	if len(series) > 1 {
		all := true
		for _, u := range series[1:] {
			all = all && first.aligned(u)
		}
		if all {
			b.notes = append(b.notes, fmt.Sprintf("mean over %d seeds", len(series)))
		} else {
			series = series[:1]
			b.notes = append(b.notes, fmt.Sprintf("seed %d only (the seeds' windows or queues differ)", rows[0].Seed))
		}
	}
	var keep []int
	for w, t := range first.t {
		if len(fig.XRange) == 2 && (t < fig.XRange[0] || t > fig.XRange[1]) {
			continue
		}
		keep = append(keep, w)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w: %s: figure %s: no usage windows in x_range %v", experiments.ErrConfig, fig.Pos, fig.ID, fig.XRange)
	}
	xs := make([]float64, len(keep))
	for j, w := range keep {
		xs[j] = first.t[w]
	}
	xLabel, yLabel := fig.XLabel, fig.YLabel
	if xLabel == "" {
		xLabel = "Time [s]"
	}
	if yLabel == "" {
		yLabel = d.spec.Names.Dim(dim) + " usage (fraction of capacity)"
	}
	switch fig.Kind {
	case experiments.KindStacked:
		var layers []report.Layer
		for q, name := range first.queues {
			l := report.Layer{Label: d.spec.Names.Value(name)}
			for _, w := range keep {
				var sum float64
				for _, u := range series {
					sum += u.v[q][w]
				}
				l.Y = append(l.Y, sum/float64(len(series)))
			}
			layers = append(layers, l)
		}
		b.fig = report.NewStackedArea(fig.ID, fig.Title, xLabel, yLabel, xs, layers...)
	default: // line
		var ls []report.Series
		for q, name := range first.queues {
			se := report.Series{Label: d.spec.Names.Value(name), X: xs}
			for _, w := range keep {
				var smp []float64
				for _, u := range series {
					smp = append(smp, u.v[q][w])
				}
				se.Samples = append(se.Samples, smp)
			}
			ls = append(ls, se)
		}
		b.fig = report.NewLines(fig.ID, fig.Title, xLabel, yLabel, ls...)
		b.fig.YDomain = stats.Fraction // usage is a fraction of capacity
	}
	b.fig.LogX, b.fig.LogY = fig.LogX, fig.LogY
	if err := b.fig.Validate(); err != nil {
		return nil, fmt.Errorf("%s: figure %s: %w", fig.Pos, fig.ID, err)
	}
	return b, nil
}
