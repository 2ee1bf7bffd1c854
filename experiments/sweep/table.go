package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/pqfile"
)

// CellsFile is the name of the gathered results inside a sweep's output directory.
const CellsFile = "cells.parquet"

// Fixed columns of cells.parquet; the axis columns come between KeyColumn and SeedColumn and
// the metric columns, sorted by name, after SeedColumn.
const (
	IndexColumn = "cell"
	KeyColumn   = "key"
	SeedColumn  = "seed"
)

// Schema metadata keys of cells.parquet.
const (
	metaAxes  = "schedlab.axes"
	metaSpec  = "schedlab.spec"
	metaLabel = "schedlab.label"
)

// Row is one cell's results.
type Row struct {
	Cell int
	Key  string
	// Axes holds the axis values in Table.Axes order; nil for a null value (key unset).
	Axes []any
	Seed int64
	// Metrics maps metric names to values; a metric the cell lacks is absent.
	Metrics map[string]float64
}

// Table is the content of cells.parquet: one row per cell, in plan order.
type Table struct {
	Spec, Label string
	// Axes are the axis columns.
	Axes []Column
	// Metrics are the metric column names, sorted.
	Metrics []string
	Rows    []Row
}

// AxisIndex returns the position of an axis column, or -1.
func (t *Table) AxisIndex(key string) int {
	return slices.IndexFunc(t.Axes, func(c Column) bool { return c.Key == key })
}

// Value returns a row's value of an axis column, "seed", or a metric, formatted as
// experiments.FormatAxisValue does (a null axis value is "null"; metrics: shortest round-trip
// form); ok is false if absent.
func (t *Table) Value(r *Row, key string) (string, bool) {
	if key == SeedColumn {
		return strconv.FormatInt(r.Seed, 10), true
	}
	if i := t.AxisIndex(key); i >= 0 {
		return experiments.FormatAxisValue(r.Axes[i]), true
	}
	if m, ok := r.Metrics[key]; ok {
		return experiments.FormatValue(m), true
	}
	return "", false
}

// Metrics flattens a summary.json document into metric names and values: the replay summary's
// numeric fields by their JSON names (nested maps joined with ".", e.g. utilization.cpu,
// by_class.<class>.avg_jct_s; an empty map key is written "_"), the task waits as waits.<name>
// (waits.tasks.p95_s, waits.by_queue.<queue>.avg_s, waits.waited_jobs, …) and the engine's
// deterministic counters as engine.<name> (with engine.decision_time set, its counters as
// engine.decision_time.<name>). Wall-clock figures are left out: they are the only
// nondeterministic part of a run.
func Metrics(doc *experiments.SummaryDoc) (map[string]float64, error) {
	out := map[string]float64{}
	b, err := json.Marshal(doc.Metrics)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	flatten("", m, out)
	if b, err = json.Marshal(doc.Waits); err != nil {
		return nil, err
	}
	var w map[string]any
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	flatten("waits", w, out)
	out["engine.events"] = float64(doc.Engine.Events)
	out["engine.scheduling_calls"] = float64(doc.Engine.SchedulingCalls)
	out["engine.starts"] = float64(doc.Engine.Starts)
	out["engine.preemptions"] = float64(doc.Engine.Preemptions)
	if dt := doc.Engine.DecisionTime; dt != nil { // engine.decision_time set
		out["engine.decision_time.charged_s"] = dt.ChargedS
		out["engine.decision_time.delayed_calls"] = float64(dt.DelayedCalls)
		out["engine.decision_time.dropped_preempts"] = float64(dt.DroppedPreempts)
		out["engine.decision_time.dropped_starts"] = float64(dt.DroppedStarts)
	}
	return out, nil
}

func flatten(prefix string, v any, out map[string]float64) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "" {
				k = "_"
			}
			if prefix != "" {
				k = prefix + "." + k
			}
			flatten(k, e, out)
		}
	case float64:
		out[prefix] = x
	case bool:
		if x {
			out[prefix] = 1
		} else {
			out[prefix] = 0
		}
	}
}

// readSummary reads a cell's summary.json from its cache directory.
func readSummary(dir string) (*experiments.SummaryDoc, error) {
	b, err := os.ReadFile(filepath.Join(dir, experiments.SummaryFile))
	if err != nil {
		return nil, err
	}
	var doc experiments.SummaryDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, experiments.SummaryFile), err)
	}
	return &doc, nil
}

// schema builds the Arrow schema of a table.
func (t *Table) schema() *arrow.Schema {
	fields := []arrow.Field{
		{Name: IndexColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: KeyColumn, Type: arrow.BinaryTypes.String},
	}
	for i, c := range t.Axes {
		// A column is nullable only if it holds a null, so specs without nulls keep their bytes.
		nullable := slices.ContainsFunc(t.Rows, func(r Row) bool { return r.Axes[i] == nil })
		fields = append(fields, arrow.Field{Name: c.Key, Type: arrowType(c.Type), Nullable: nullable})
	}
	fields = append(fields, arrow.Field{Name: SeedColumn, Type: arrow.PrimitiveTypes.Int64})
	for _, m := range t.Metrics {
		typ := arrow.DataType(arrow.PrimitiveTypes.Float64)
		if t.countColumn(m) {
			typ = arrow.PrimitiveTypes.Int64
		}
		fields = append(fields, arrow.Field{Name: m, Type: typ, Nullable: true})
	}
	axes, _ := json.Marshal(t.Axes)
	md := arrow.NewMetadata([]string{metaAxes, metaLabel, metaSpec}, []string{string(axes), t.Label, t.Spec})
	return arrow.NewSchema(fields, &md)
}

func arrowType(typ string) arrow.DataType {
	switch typ {
	case TypeInt64:
		return arrow.PrimitiveTypes.Int64
	case TypeFloat64:
		return arrow.PrimitiveTypes.Float64
	case TypeBool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.BinaryTypes.String
}

// Write encodes the table as Parquet (Snappy; identical tables give identical bytes).
func (t *Table) Write(w io.Writer) error {
	sc := t.schema()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for _, r := range t.Rows {
		b.Field(0).(*array.Int64Builder).Append(int64(r.Cell))
		b.Field(1).(*array.StringBuilder).Append(r.Key)
		for i, c := range t.Axes {
			fb := b.Field(2 + i)
			if r.Axes[i] == nil {
				fb.AppendNull()
				continue
			}
			switch c.Type {
			case TypeInt64:
				fb.(*array.Int64Builder).Append(r.Axes[i].(int64))
			case TypeFloat64:
				fb.(*array.Float64Builder).Append(r.Axes[i].(float64))
			case TypeBool:
				fb.(*array.BooleanBuilder).Append(r.Axes[i].(bool))
			default:
				fb.(*array.StringBuilder).Append(experiments.FormatValue(r.Axes[i]))
			}
		}
		b.Field(2 + len(t.Axes)).(*array.Int64Builder).Append(r.Seed)
		for j, m := range t.Metrics {
			v, ok := r.Metrics[m]
			switch fb := b.Field(3 + len(t.Axes) + j).(type) {
			case *array.Int64Builder:
				if ok {
					fb.Append(int64(v))
				} else {
					fb.AppendNull()
				}
			case *array.Float64Builder:
				if ok {
					fb.Append(v)
				} else {
					fb.AppendNull()
				}
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("schedlab "+experiments.Version),
		parquet.WithDictionaryDefault(true),
	)
	fw, err := pqarrow.NewFileWriter(sc, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// ReadTable reads a cells.parquet file.
func ReadTable(path string) (*Table, error) {
	pf, err := pqfile.Open(path, pqarrow.ArrowReadProperties{})
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	tbl, err := pf.Table()
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	sc := tbl.Schema()
	t := &Table{}
	full, err := pf.Schema()
	if err != nil {
		return nil, err
	}
	md := full.Metadata()
	if i := md.FindKey(metaAxes); i >= 0 {
		if err := json.Unmarshal([]byte(md.Values()[i]), &t.Axes); err != nil {
			return nil, fmt.Errorf("%s: schema metadata %s: %w", path, metaAxes, err)
		}
	} else {
		return nil, fmt.Errorf("%s: not a schedlab cells.parquet (no %s metadata)", path, metaAxes)
	}
	if i := md.FindKey(metaSpec); i >= 0 {
		t.Spec = md.Values()[i]
	}
	if i := md.FindKey(metaLabel); i >= 0 {
		t.Label = md.Values()[i]
	}
	n := int(tbl.NumRows())
	t.Rows = make([]Row, n)
	for i := range t.Rows {
		t.Rows[i].Axes = make([]any, len(t.Axes))
		t.Rows[i].Metrics = map[string]float64{}
	}
	col := func(name string) (arrow.Array, error) {
		a, err := pqfile.Column(tbl, name)
		if errors.Is(err, pqfile.ErrNoColumn) {
			return nil, fmt.Errorf("%s: column %q missing", path, name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return a, nil
	}
	for _, fd := range sc.Fields() {
		a, err := col(fd.Name)
		if err != nil {
			return nil, err
		}
		ai := slices.IndexFunc(t.Axes, func(c Column) bool { return c.Key == fd.Name })
		for i := 0; i < n; i++ {
			r := &t.Rows[i]
			switch {
			case fd.Name == IndexColumn:
				r.Cell = int(a.(*array.Int64).Value(i))
			case fd.Name == KeyColumn:
				r.Key = a.(*array.String).Value(i)
			case fd.Name == SeedColumn:
				r.Seed = a.(*array.Int64).Value(i)
			case ai >= 0 && a.IsNull(i):
				r.Axes[ai] = nil
			case ai >= 0:
				switch x := a.(type) {
				case *array.Int64:
					r.Axes[ai] = x.Value(i)
				case *array.Float64:
					r.Axes[ai] = x.Value(i)
				case *array.Boolean:
					r.Axes[ai] = x.Value(i)
				case *array.String:
					r.Axes[ai] = x.Value(i)
				default:
					a.Release()
					return nil, fmt.Errorf("%s: axis column %q has type %s", path, fd.Name, fd.Type)
				}
			default:
				switch x := a.(type) {
				case *array.Float64:
					if x.IsValid(i) {
						r.Metrics[fd.Name] = x.Value(i)
					}
				case *array.Int64: // a count (countColumn)
					if x.IsValid(i) {
						r.Metrics[fd.Name] = float64(x.Value(i))
					}
				default:
					a.Release()
					return nil, fmt.Errorf("%s: metric column %q has type %s, want double or int64", path, fd.Name, fd.Type)
				}
			}
		}
		if ai < 0 && fd.Name != IndexColumn && fd.Name != KeyColumn && fd.Name != SeedColumn {
			t.Metrics = append(t.Metrics, fd.Name)
		}
		a.Release()
	}
	sort.Strings(t.Metrics)
	return t, nil
}

// metricNames returns the union of the rows' metric names, sorted.
func metricNames(rows []Row) []string {
	set := map[string]bool{}
	for _, r := range rows {
		for m := range r.Metrics {
			set[m] = true
		}
	}
	names := make([]string, 0, len(set))
	for m := range set {
		names = append(names, m)
	}
	slices.Sort(names)
	return names
}

// finite reports whether x is a usable number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// FilterRows returns the rows whose formatted values match: each key's value must be one of
// the listed values.
func (t *Table) FilterRows(rows []Row, where map[string][]string) []Row {
	if len(where) == 0 {
		return rows
	}
	var out []Row
outer:
	for i := range rows {
		for k, vals := range where {
			v, ok := t.Value(&rows[i], k)
			if !ok || !slices.Contains(vals, v) {
				continue outer
			}
		}
		out = append(out, rows[i])
	}
	return out
}

// Distinct returns the distinct formatted values of key over rows, in first-appearance order
// (plan order follows the spec's axis value order).
func (t *Table) Distinct(rows []Row, key string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range rows {
		v, ok := t.Value(&rows[i], key)
		if ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// describeRow names a row by its axis values, e.g. "policy.name=drf workload.machines=50".
func (t *Table) describeRow(r *Row) string {
	parts := make([]string, len(t.Axes))
	for i, c := range t.Axes {
		parts[i] = c.Key + "=" + experiments.FormatAxisValue(r.Axes[i])
	}
	return strings.Join(parts, " ")
}

// countNames are the metrics that count things (jobs, tasks, events), by their last dotted part:
// cells.parquet stores them as int64, not double.
var countNames = map[string]bool{
	"jobs": true, "completed": true, "unfinished": true, "slo_jobs": true, "utility_jobs": true,
	"targets": true, "missed_targets": true, "preemptions": true, "tasks": true,
	"events": true, "scheduling_calls": true, "starts": true, "waited_jobs": true, "failures": true, "fallbacks": true, "timeouts": true, "size_limited": true,
}

// countColumn reports whether metric m is stored as int64: a count by name (countNames, the
// admission classes admissions.*, names ending in _count) whose every value in the table is a
// whole number within int64's exact range. A count that is not whole (a mean over seeds) stays a
// double, so nothing is rounded.
func (t *Table) countColumn(m string) bool {
	leaf := m[strings.LastIndexByte(m, '.')+1:]
	if !countNames[leaf] && !strings.HasPrefix(m, "admissions.") && !strings.HasSuffix(leaf, "_count") {
		return false
	}
	for _, r := range t.Rows {
		if v, ok := r.Metrics[m]; ok && (v != math.Trunc(v) || math.Abs(v) > 1<<53) {
			return false
		}
	}
	return true
}
