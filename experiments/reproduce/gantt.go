package reproduce

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/traces"
)

// buildGantt draws a gantt figure: the schedule of one configuration's lowest seed, from its
// cell's tasks.parquet, over x_range when given.
func (d *data) buildGantt(fig *experiments.Figure, rows []sweep.Row) (*built, error) {
	var vary []string
	for _, c := range d.t.Axes {
		if vals := d.t.Distinct(rows, c.Key); len(vals) > 1 {
			vary = append(vary, c.Key+" ∈ {"+strings.Join(vals, ", ")+"}")
		}
	}
	if len(vary) > 0 {
		return nil, fmt.Errorf("%w: %s: figure %s: a gantt figure needs where to select one configuration; it matches several (%s)",
			experiments.ErrConfig, fig.Pos, fig.ID, strings.Join(vary, "; "))
	}
	row := slices.MinFunc(rows, func(a, b sweep.Row) int { return cmpF(float64(a.Seed), float64(b.Seed)) })
	path := filepath.Join(d.cellDir(row.Key), timeline.TasksFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: figure %s: cell %s has no %s (set metrics.tasks: true in the spec's base)", experiments.ErrConfig, fig.Pos, fig.ID, row.Key, timeline.TasksFile)
	}
	var win timeline.Window
	if len(fig.XRange) == 2 {
		win = timeline.Window{From: traces.FromSeconds(fig.XRange[0]), To: traces.FromSeconds(fig.XRange[1])}
	}
	g, err := timeline.Gantt(path, win)
	if err != nil {
		return nil, err
	}
	g.ID, g.Title = fig.ID, fig.Title
	if fig.XLabel != "" {
		g.XLabel = fig.XLabel
	}
	if fig.YLabel != "" {
		g.YLabel = fig.YLabel
	}
	for i, q := range g.GanttGroups {
		g.GanttGroups[i] = d.spec.Names.Value(q)
	}
	b := &built{fig: g}
	if len(rows) > 1 {
		b.notes = append(b.notes, fmt.Sprintf("seed %d of %d", row.Seed, len(rows)))
	}
	return b, nil
}
