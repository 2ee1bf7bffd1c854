package reproduce

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/internal/pqfile"
	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/report/stats"
)

// data gives figures and claims access to a sweep's cells and their per-job outputs.
type data struct {
	spec  *experiments.Spec
	t     *sweep.Table
	cache string
	// uncached holds the cells whose results were not deterministic (sweep.UncachedDir).
	uncached string
	// labels are the spec at its other labels: a claim that refers to their cells is not
	// evaluable at this one.
	labels []*experiments.Spec

	mu   sync.Mutex
	jobs map[string][]float64 // key + "\x00" + column → values
}

// cellDir is the directory of a cell's outputs: the cache, or for a nondeterministic cell the
// sweep's uncached/ directory (sweep.FindCell, as the sweep's own table finds them); the cache's
// when neither holds it, for the caller's error to name.
func (d *data) cellDir(key string) string {
	if dir, ok := sweep.FindCell([]string{d.cache, d.uncached}, key); ok {
		return dir
	}
	return sweep.CellDir(d.cache, key)
}

// TableMetricPrefix marks a column of a table that the policy wrote into each cell through
// policies.Reporter (<name>.parquet beside jobs.parquet): "table.<name>.<column>" stands for
// every row's value, like job.<column> for jobs.parquet (e.g. table.cora_events.wall_ms).
const TableMetricPrefix = "table."

// values returns a metric's values over rows: one per cell for a cell metric, every job's
// (non-null) value for a job.<column>, every row's (non-null, non-NaN) value of a policy table's
// column for table.<name>.<column>.
func (d *data) values(fig *experiments.Figure, rows []sweep.Row, metric string) ([]float64, error) {
	var out []float64
	if rest, ok := strings.CutPrefix(metric, TableMetricPrefix); ok {
		name, col, ok := strings.Cut(rest, ".")
		if !ok || name == "" || col == "" {
			return nil, d.unknownMetric(fig, metric)
		}
		for i := range rows {
			v, err := d.tableColumn(rows[i].Key, name, col)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	}
	col, isJob := strings.CutPrefix(metric, experiments.JobMetricPrefix)
	for i := range rows {
		if isJob {
			var jw map[string][]string
			if fig != nil {
				jw = fig.JobWhere
			}
			v, err := d.jobColumn(rows[i].Key, col, jw)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
			continue
		}
		v, ok := rows[i].Metrics[metric]
		if !ok {
			if !slices.Contains(d.t.Metrics, metric) {
				return nil, d.unknownMetric(fig, metric)
			}
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *data) unknownMetric(fig *experiments.Figure, metric string) error {
	var near []string
	for _, m := range d.t.Metrics {
		if !strings.HasPrefix(m, "by_class.") && !strings.HasPrefix(m, "by_queue.") {
			near = append(near, m)
		}
	}
	where := d.spec.File
	if fig != nil {
		where = fig.YPos.String()
	}
	return fmt.Errorf("%w: %s: unknown metric %q (cell metrics: %s, by_class.*, by_queue.*; per-job: job.<column of jobs.parquet>; per row of a policy's table: table.<name>.<column>)",
		experiments.ErrConfig, where, metric, strings.Join(near, ", "))
}

// jobColumn reads one numeric column of a cell's jobs.parquet (nulls skipped), keeping only the
// rows whose string columns match jobWhere (column → accepted values; nil keeps every row).
func (d *data) jobColumn(key, col string, jobWhere map[string][]string) ([]float64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.jobs == nil {
		d.jobs = map[string][]float64{}
	}
	ck := key + "\x00" + col
	fcols := slices.Sorted(maps.Keys(jobWhere))
	for _, c := range fcols {
		ck += "\x00" + c + "=" + strings.Join(jobWhere[c], "\x01")
	}
	if v, ok := d.jobs[ck]; ok {
		return v, nil
	}
	path := filepath.Join(d.cellDir(key), experiments.JobsFile)
	var keep []bool
	for _, c := range fcols {
		strs, err := readStrings(path, c)
		if err != nil {
			return nil, err
		}
		if keep == nil {
			keep = make([]bool, len(strs))
			for i := range keep {
				keep[i] = true
			}
		}
		for i, v := range strs {
			keep[i] = keep[i] && slices.Contains(jobWhere[c], v)
		}
	}
	v, err := readColumnRows(path, col, keep)
	if err != nil {
		return nil, err
	}
	d.jobs[ck] = v
	return v, nil
}

// tableColumn reads one numeric column of the policy table <name>.parquet in a cell (nulls and
// NaNs skipped).
func (d *data) tableColumn(key, name, col string) ([]float64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.jobs == nil {
		d.jobs = map[string][]float64{}
	}
	ck := key + "\x00table\x00" + name + "\x00" + col
	if v, ok := d.jobs[ck]; ok {
		return v, nil
	}
	path := filepath.Join(d.cellDir(key), name+".parquet")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: cell %s has no policy table %q (%v)", experiments.ErrConfig, key[:min(12, len(key))], name, err)
	}
	v, err := readColumn(path, col)
	if err != nil {
		return nil, err
	}
	v = slices.DeleteFunc(v, math.IsNaN)
	d.jobs[ck] = v
	return v, nil
}

// readChunks reads one column of a Parquet file.
func readChunks(path, col string) (*arrow.Chunked, error) {
	pf, err := pqfile.Open(path, pqarrow.ArrowReadProperties{})
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	sc, err := pf.Schema()
	if err != nil {
		return nil, err
	}
	idx := sc.FieldIndices(col)
	if len(idx) != 1 {
		var names []string
		for _, fd := range sc.Fields() {
			names = append(names, fd.Name)
		}
		return nil, fmt.Errorf("%w: %s: no column %q (columns: %s)", experiments.ErrConfig, path, col, strings.Join(names, ", "))
	}
	return pf.ColumnChunks(idx[0])
}

// readStrings reads a string column of a Parquet file (a null reads as "null").
func readStrings(path, col string) ([]string, error) {
	chunked, err := readChunks(path, col)
	if err != nil {
		return nil, err
	}
	defer chunked.Release()
	var out []string
	for _, a := range chunked.Chunks() {
		x, ok := a.(*array.String)
		if !ok {
			return nil, fmt.Errorf("%w: %s: column %q is %s, not a string", experiments.ErrConfig, path, col, a.DataType())
		}
		for i := 0; i < x.Len(); i++ {
			if x.IsNull(i) {
				out = append(out, experiments.NullValue)
			} else {
				out = append(out, x.Value(i))
			}
		}
	}
	return out, nil
}

func readColumn(path, col string) ([]float64, error) { return readColumnRows(path, col, nil) }

// readColumnRows reads a numeric column of a Parquet file, skipping nulls and, when keep is not
// nil, the rows i with !keep[i].
func readColumnRows(path, col string, keep []bool) ([]float64, error) {
	chunked, err := readChunks(path, col)
	if err != nil {
		return nil, err
	}
	defer chunked.Release()
	row := -1
	var out []float64
	for _, a := range chunked.Chunks() {
		for i := 0; i < a.Len(); i++ {
			row++
			if a.IsNull(i) || (keep != nil && (row >= len(keep) || !keep[row])) {
				continue
			}
			switch x := a.(type) {
			case *array.Float64:
				out = append(out, x.Value(i))
			case *array.Int64:
				out = append(out, float64(x.Value(i)))
			case *array.Int32:
				out = append(out, float64(x.Value(i)))
			case *array.Boolean:
				if x.Value(i) {
					out = append(out, 1)
				} else {
					out = append(out, 0)
				}
			default:
				return nil, fmt.Errorf("%w: %s: column %q is %s, not numeric", experiments.ErrConfig, path, col, a.DataType())
			}
		}
	}
	return out, nil
}

// rowsWhere returns the rows whose value of key is v.
func (d *data) rowsWhere(rows []sweep.Row, key, v string) []sweep.Row {
	if key == "" {
		return rows
	}
	return d.t.FilterRows(rows, map[string][]string{key: {v}})
}

// pooled lists the axes a figure pools over: varying among its rows but neither x nor series,
// nor determined by them (an axis zipped with the policy, say).
func (d *data) pooled(fig *experiments.Figure, rows []sweep.Row) []string {
	var out []string
	for _, c := range d.t.Axes {
		if c.Key == fig.X || c.Key == fig.Series {
			continue
		}
		vals := d.t.Distinct(rows, c.Key)
		if len(vals) <= 1 {
			continue
		}
		determined := true
		first := map[string]string{}
		for i := range rows {
			xv, _ := d.t.Value(&rows[i], fig.X)
			sv, _ := d.t.Value(&rows[i], fig.Series)
			g := xv + "\x00" + sv
			v, _ := d.t.Value(&rows[i], c.Key)
			if prev, ok := first[g]; ok && prev != v {
				determined = false
				break
			}
			first[g] = v
		}
		if !determined {
			out = append(out, c.Key+" ∈ {"+strings.Join(vals, ", ")+"}")
		}
	}
	return out
}

// axisLabel labels an axis with a metric's human name and unit ("avg JCT [s]"; the spec's
// names may rename it).
func (d *data) axisLabel(metric string) string {
	return report.Label(d.spec.Names.MetricParts(metric))
}

// seriesLabel names a series value: the value's human name for strings, key=value for numbers.
func (d *data) seriesLabel(key, v string) string {
	if key == "" {
		return ""
	}
	if i := d.t.AxisIndex(key); i >= 0 && d.t.Axes[i].Type == sweep.TypeString {
		return d.spec.Names.Value(v)
	}
	return d.spec.Names.Key(key) + "=" + v
}

// curveLabel names the curve of a cdf or ccdf figure for its i-th metric and series value s:
// the legend's entry (or, with several metrics, the metric's name) and the series label, either
// alone when the other is empty; the metric itself for a lone curve.
func (d *data) curveLabel(fig *experiments.Figure, i int, s string) string {
	var name string
	switch {
	case len(fig.Legend) > i:
		name = fig.Legend[i]
	case len(fig.Y) > 1:
		name = d.spec.Names.Metric(fig.Y[i])
	}
	sl := d.seriesLabel(fig.Series, s)
	switch {
	case name == "" && sl == "":
		return d.spec.Names.Metric(fig.Y[i])
	case name == "":
		return sl
	case sl == "":
		return name
	}
	return name + ", " + sl
}

// distributionLabel is the x label of a cdf or ccdf figure: its metric's axis label, or "value"
// with the unit the metrics share.
func (d *data) distributionLabel(ys []string) string {
	if len(ys) == 1 {
		return d.axisLabel(ys[0])
	}
	_, u := d.spec.Names.MetricParts(ys[0])
	for _, y := range ys[1:] {
		if _, uy := d.spec.Names.MetricParts(y); uy != u {
			u = ""
			break
		}
	}
	return report.Label("value", u)
}

// built is a rendered figure or table.
type built struct {
	fig   *report.Figure
	table *report.Table
	notes []string
}

// build turns a spec figure into a report figure or table.
func (d *data) build(fig *experiments.Figure) (*built, error) {
	rows := d.t.FilterRows(d.t.Rows, fig.Where)
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s: figure %s: no cells match where %v", experiments.ErrConfig, fig.Pos, fig.ID, fig.Where)
	}
	if fig.IsUsage() {
		return d.buildUsage(fig, rows)
	}
	if fig.Kind == experiments.KindGantt {
		return d.buildGantt(fig, rows)
	}
	b := &built{}
	if len(fig.JobWhere) > 0 {
		var fs []string
		for _, c := range slices.Sorted(maps.Keys(fig.JobWhere)) {
			fs = append(fs, c+" ∈ {"+strings.Join(fig.JobWhere[c], ", ")+"}")
		}
		b.notes = append(b.notes, "jobs with "+strings.Join(fs, ", "))
	}
	if p := d.pooled(fig, rows); len(p) > 0 {
		b.notes = append(b.notes, "pooled over "+strings.Join(p, "; "))
	}
	series := []string{""}
	if fig.Series != "" {
		series = d.t.Distinct(rows, fig.Series)
	}
	y := fig.Y[0]
	xLabel, yLabel := fig.XLabel, fig.YLabel
	names := d.spec.Names
	if xLabel == "" {
		xLabel = names.Key(fig.X)
	}
	if yLabel == "" {
		yLabel = d.axisLabel(y)
	}
	errNoCells := func(parts ...string) error {
		return fmt.Errorf("%w: %s: figure %s: no cells with %s", experiments.ErrConfig, fig.Pos, fig.ID, strings.Join(parts, ", "))
	}
	switch fig.Kind {
	case experiments.KindBars, experiments.KindBox:
		cats := d.t.Distinct(rows, fig.X)
		shown := make([]string, len(cats))
		for i, c := range cats {
			shown[i] = names.Value(c)
		}
		var groups []report.CategorySeries
		for _, s := range series {
			srows := d.rowsWhere(rows, fig.Series, s)
			cs := report.CategorySeries{Label: d.seriesLabel(fig.Series, s)}
			if cs.Label == "" {
				cs.Label = names.Metric(y)
			}
			for _, c := range cats {
				v, err := d.values(fig, d.rowsWhere(srows, fig.X, c), y)
				if err != nil {
					return nil, err
				}
				if len(v) == 0 {
					return nil, errNoCells(fig.X+"="+c, fig.Series+"="+s, y)
				}
				cs.Samples = append(cs.Samples, v)
			}
			groups = append(groups, cs)
		}
		if fig.Kind == experiments.KindBars {
			b.fig = report.NewBars(fig.ID, fig.Title, xLabel, yLabel, shown, groups...)
		} else {
			b.fig = report.NewBoxes(fig.ID, fig.Title, xLabel, yLabel, shown, groups...)
		}
	case experiments.KindLine:
		var ls []report.Series
		for _, s := range series {
			srows := d.rowsWhere(rows, fig.Series, s)
			se := report.Series{Label: d.seriesLabel(fig.Series, s)}
			if se.Label == "" {
				se.Label = names.Metric(y)
			}
			for _, xv := range d.t.Distinct(srows, fig.X) {
				x, err := strconv.ParseFloat(xv, 64)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: figure %s: x value %q is not a number", experiments.ErrConfig, fig.Pos, fig.ID, xv)
				}
				v, err := d.values(fig, d.rowsWhere(srows, fig.X, xv), y)
				if err != nil {
					return nil, err
				}
				if len(v) == 0 {
					continue
				}
				se.X = append(se.X, x)
				se.Samples = append(se.Samples, v)
			}
			ls = append(ls, se)
		}
		b.fig = report.NewLines(fig.ID, fig.Title, xLabel, yLabel, ls...)
	case experiments.KindCDF, experiments.KindCCDF:
		// One curve per metric of y and value of the series.
		var ds []report.Distribution
		for i, m := range fig.Y {
			for _, s := range series {
				v, err := d.values(fig, d.rowsWhere(rows, fig.Series, s), m)
				if err != nil {
					return nil, err
				}
				if fig.LogX {
					v = slices.DeleteFunc(v, func(x float64) bool { return x <= 0 })
				}
				if len(v) == 0 {
					return nil, errNoCells(fig.Series+"="+s, m)
				}
				ds = append(ds, report.Distribution{Label: d.curveLabel(fig, i, s), Values: v})
			}
		}
		xl := fig.XLabel
		if xl == "" {
			xl = d.distributionLabel(fig.Y)
		}
		yl := fig.YLabel
		if fig.Kind == experiments.KindCDF {
			if yl == "" {
				yl = "CDF"
			}
			b.fig = report.NewCDF(fig.ID, fig.Title, xl, yl, ds...)
		} else {
			if yl == "" {
				yl = "CCDF"
			}
			b.fig = report.NewCCDF(fig.ID, fig.Title, xl, yl, ds...)
		}
	case experiments.KindStacked:
		xs := d.t.Distinct(rows, fig.X)
		var ts []float64
		for _, xv := range xs {
			x, err := strconv.ParseFloat(xv, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: figure %s: x value %q is not a number", experiments.ErrConfig, fig.Pos, fig.ID, xv)
			}
			ts = append(ts, x)
		}
		order := make([]int, len(ts))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmpF(ts[a], ts[b]) })
		var layers []report.Layer
		for _, s := range series {
			srows := d.rowsWhere(rows, fig.Series, s)
			l := report.Layer{Label: d.seriesLabel(fig.Series, s)}
			if l.Label == "" {
				l.Label = names.Metric(y)
			}
			for _, i := range order {
				v, err := d.values(fig, d.rowsWhere(srows, fig.X, xs[i]), y)
				if err != nil {
					return nil, err
				}
				l.Y = append(l.Y, mean(v))
			}
			layers = append(layers, l)
		}
		sorted := make([]float64, len(ts))
		for j, i := range order {
			sorted[j] = ts[i]
		}
		b.fig = report.NewStackedArea(fig.ID, fig.Title, xLabel, yLabel, sorted, layers...)
	case experiments.KindScatter:
		var ps []report.Points
		for _, s := range series {
			srows := d.rowsWhere(rows, fig.Series, s)
			pt := report.Points{Label: d.seriesLabel(fig.Series, s)}
			if pt.Label == "" {
				pt.Label = names.Metric(y)
			}
			for i := range srows {
				xv, ok := d.t.Value(&srows[i], fig.X)
				if !ok {
					return nil, d.unknownMetric(fig, fig.X)
				}
				x, err := strconv.ParseFloat(xv, 64)
				yv, ok := srows[i].Metrics[y]
				if err != nil || !ok {
					continue
				}
				pt.X = append(pt.X, x)
				pt.Y = append(pt.Y, yv)
			}
			ps = append(ps, pt)
		}
		if fig.XLabel == "" {
			xLabel = d.axisLabel(fig.X)
		}
		b.fig = report.NewScatter(fig.ID, fig.Title, xLabel, yLabel, ps...)
	case experiments.KindTable:
		cols := []string{xLabel}
		if fig.Series != "" {
			cols = append(cols, names.Key(fig.Series))
		}
		for _, m := range fig.Y {
			cols = append(cols, names.Metric(m))
		}
		t := report.NewTable(fig.ID, fig.Title, cols...)
		t.Align = []report.Align{report.AlignLeft}
		if fig.Series != "" {
			t.Align = append(t.Align, report.AlignLeft)
		}
		for _, xv := range d.t.Distinct(rows, fig.X) {
			xrows := d.rowsWhere(rows, fig.X, xv)
			for _, s := range series {
				srows := d.rowsWhere(xrows, fig.Series, s)
				if len(srows) == 0 {
					continue
				}
				cells := []string{names.Value(xv)}
				if fig.Series != "" {
					cells = append(cells, names.Value(s))
				}
				for _, m := range fig.Y {
					v, err := d.values(fig, srows, m)
					if err != nil {
						return nil, err
					}
					if len(v) == 0 {
						cells = append(cells, "n/a")
						continue
					}
					cells = append(cells, report.FormatSamplesIn(v, stats.DomainOf(m)))
				}
				t.AddRow(cells...)
			}
		}
		b.table = t
	default:
		return nil, fmt.Errorf("%w: %s: figure %s: unknown kind %q", experiments.ErrConfig, fig.Pos, fig.ID, fig.Kind)
	}
	if b.fig != nil {
		b.fig.LogX, b.fig.LogY = fig.LogX, fig.LogY
		b.fig.YDomain = yDomain(fig.Y)
		if err := b.fig.Validate(); err != nil {
			return nil, fmt.Errorf("%s: figure %s: %w", fig.Pos, fig.ID, err)
		}
	}
	return b, nil
}

// yDomain is the domain of a figure's y metrics (stats.DomainOf), Signed when they differ.
func yDomain(ys []string) stats.Domain {
	if len(ys) == 0 {
		return stats.Signed
	}
	d := stats.DomainOf(ys[0])
	for _, y := range ys[1:] {
		if stats.DomainOf(y) != d {
			return stats.Signed
		}
	}
	return d
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Mean(xs)
}
