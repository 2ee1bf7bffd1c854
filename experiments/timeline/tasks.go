// Package timeline records what happened inside a run, task attempt by task attempt: the
// tasks.parquet table (Writer, Scan), a Chrome trace-event file for Perfetto and chrome://tracing
// (Trace, FromTasks) and a job's story told from them (Explain).
package timeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/internal/pqfile"
	"github.com/schedlab/schedlab/internal/safefs"
	"github.com/schedlab/schedlab/traces"
)

// TasksFile is the name of the task-attempt table in a run's output directory.
const TasksFile = "tasks.parquet"

// Row is one task attempt as tasks.parquet stores it.
type Row struct {
	Job      int32 // the job's index in the workload
	JobID    int64 // the job's ID in its trace
	Queue    string
	Class    string
	Stage    int32
	Task     int32
	Machine  int32
	Ready    traces.Time
	Start    traces.Time
	End      traces.Time
	Outcome  string // finished, preempted, killed, unfinished
	Slowed   bool
	WorkLost traces.Time
	Reason   string // why the policy started it
	EndWhy   string // why the policy preempted it
	Demand   [traces.MaxDims]float64
}

// Meta is what a reader of tasks.parquet needs besides its rows, kept in its key-value metadata.
type Meta struct {
	Dims     []string
	Capacity []float64 // per dimension, whole cluster
	Machines []string  // placement targets: machine names, or the single "pool"
	Pooled   bool
	Queues   []string
}

// Metadata keys of tasks.parquet besides the column descriptions.
const (
	metaDims     = "schedlab.tasks.dims"
	metaCapacity = "schedlab.tasks.capacity"
	metaMachines = "schedlab.tasks.machines"
	metaPooled   = "schedlab.tasks.pooled"
	metaQueues   = "schedlab.tasks.queues"
	// ColumnKeyPrefix starts each column's description (experiments.ColumnKeyPrefix).
	ColumnKeyPrefix = "schedlab.column."
)

// Columns documents tasks.parquet: name → description [unit]. DemandColumn adds one column per
// resource dimension.
var Columns = []struct{ Name, Doc string }{
	{"job", "position of the job in the workload, from 0"},
	{"job_id", "the job's ID in its trace"},
	{"queue", "the job's queue"},
	{"class", "the job's class"},
	{"stage", "the stage's index in its job"},
	{"task", "the task's index in its stage"},
	{"machine", "the machine's index (0, the pool, in pooled mode)"},
	{"ready_s", "when the task could have started: its stage's unlock (the job's arrival for a stage without parents) or its previous attempt's preemption [s]"},
	{"start_s", "when the attempt started [s]"},
	{"end_s", "when the attempt ended: finished, preempted, killed, or the end of the run [s]"},
	{"outcome", "how the attempt ended: finished, preempted, killed (a cluster event) or unfinished (running when the run stopped)"},
	{"slowed", "whether the attempt ran slowed (a soft-constrained job off its preferred resources)"},
	{"work_lost_s", "run time thrown away: a preempted attempt that restarts from zero [s]"},
	{"reason", "why the policy started the attempt; empty when it gave no reason"},
	{"end_reason", "why the policy preempted the attempt; empty otherwise"},
}

// DemandColumn names the column of a task's demand of resource dimension dim.
func DemandColumn(dim string) string { return "demand_" + dim }

const nFixed = 15

// Schema is the Arrow schema of tasks.parquet for meta, with the column descriptions and meta in
// its key-value metadata.
func Schema(meta Meta) *arrow.Schema {
	f64, i32 := arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32
	str := arrow.BinaryTypes.String
	types := []arrow.DataType{i32, arrow.PrimitiveTypes.Int64, str, str, i32, i32, i32, f64, f64, f64, str, arrow.FixedWidthTypes.Boolean, f64, str, str}
	var fields []arrow.Field
	var keys, vals []string
	for i, c := range Columns {
		fields = append(fields, arrow.Field{Name: c.Name, Type: types[i]})
		keys, vals = append(keys, ColumnKeyPrefix+c.Name), append(vals, c.Doc)
	}
	for _, d := range meta.Dims {
		fields = append(fields, arrow.Field{Name: DemandColumn(d), Type: f64})
		keys, vals = append(keys, ColumnKeyPrefix+DemandColumn(d)), append(vals, "the task's demand of "+d+" [units]")
	}
	caps := make([]string, len(meta.Capacity))
	for i, c := range meta.Capacity {
		caps[i] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	keys = append(keys, metaDims, metaCapacity, metaMachines, metaPooled, metaQueues)
	vals = append(vals, strings.Join(meta.Dims, "\x1f"), strings.Join(caps, "\x1f"), strings.Join(meta.Machines, "\x1f"),
		strconv.FormatBool(meta.Pooled), strings.Join(meta.Queues, "\x1f"))
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// BatchRows is how many rows a Writer holds before it writes them out as one row group: memory
// stays bounded whatever the run's size.
const BatchRows = 1 << 16

// Writer streams rows into tasks.parquet, BatchRows at a time.
type Writer struct {
	meta   Meta
	schema *arrow.Schema
	b      *array.RecordBuilder
	w      *pqarrow.FileWriter
	n      int
	err    error
}

// NewWriter starts a tasks.parquet on f. Bytes are deterministic for identical rows.
func NewWriter(f io.Writer, meta Meta) (*Writer, error) {
	schema := Schema(meta)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("schedlab"),
		parquet.WithDictionaryDefault(false),
	)
	w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	return &Writer{meta: meta, schema: schema, b: array.NewRecordBuilder(memory.NewGoAllocator(), schema), w: w}, nil
}

// Write appends one row; an error is kept and returned by Close.
func (w *Writer) Write(r *Row) {
	if w.err != nil {
		return
	}
	b := w.b
	secs := traces.Seconds
	b.Field(0).(*array.Int32Builder).Append(r.Job)
	b.Field(1).(*array.Int64Builder).Append(r.JobID)
	b.Field(2).(*array.StringBuilder).Append(r.Queue)
	b.Field(3).(*array.StringBuilder).Append(r.Class)
	b.Field(4).(*array.Int32Builder).Append(r.Stage)
	b.Field(5).(*array.Int32Builder).Append(r.Task)
	b.Field(6).(*array.Int32Builder).Append(r.Machine)
	b.Field(7).(*array.Float64Builder).Append(secs(r.Ready))
	b.Field(8).(*array.Float64Builder).Append(secs(r.Start))
	b.Field(9).(*array.Float64Builder).Append(secs(r.End))
	b.Field(10).(*array.StringBuilder).Append(r.Outcome)
	b.Field(11).(*array.BooleanBuilder).Append(r.Slowed)
	b.Field(12).(*array.Float64Builder).Append(secs(r.WorkLost))
	b.Field(13).(*array.StringBuilder).Append(r.Reason)
	b.Field(14).(*array.StringBuilder).Append(r.EndWhy)
	for d := range w.meta.Dims {
		b.Field(nFixed + d).(*array.Float64Builder).Append(r.Demand[d])
	}
	if w.n++; w.n == BatchRows {
		w.flush()
	}
}

func (w *Writer) flush() {
	if w.n == 0 || w.err != nil {
		return
	}
	rec := w.b.NewRecord()
	defer rec.Release()
	w.err = w.w.Write(rec)
	w.n = 0
}

// Close writes the last rows and the file's footer.
func (w *Writer) Close() error {
	w.flush()
	defer w.b.Release()
	if err := w.w.Close(); w.err == nil {
		w.err = err
	}
	return w.err
}

// ErrNotTasks reports a file that is not a tasks.parquet.
var ErrNotTasks = errors.New("not a schedlab tasks.parquet")

// Scan reads tasks.parquet at path, calling fn with each row in file order (the Row is reused)
// after returning its Meta to start. It reads one row group at a time. A corrupt file is an
// error naming path, never a panic (the Parquet reader panics on some damage).
func Scan(path string, start func(Meta) error, fn func(*Row) error) error {
	err := safefs.Recover(func() error { return scan(path, start, fn) })
	if err != nil && !strings.HasPrefix(err.Error(), path) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return err
}

func scan(path string, start func(Meta) error, fn func(*Row) error) error {
	pf, err := pqfile.Open(path, pqarrow.ArrowReadProperties{BatchSize: 4096})
	if err != nil {
		return err
	}
	defer pf.Close()
	sc, err := pf.Schema()
	if err != nil {
		return err
	}
	kv := pf.Parquet.MetaData().KeyValueMetadata()
	md := arrow.NewMetadata(kv.Keys(), kv.Values())
	meta, err := readMeta(md)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !sameFields(sc, Schema(meta)) {
		return fmt.Errorf("%s: %w: its columns are %s", path, ErrNotTasks, colNames(sc))
	}
	if start != nil {
		if err := start(meta); err != nil {
			return err
		}
	}
	rr, err := pf.Arrow.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	var row Row
	for rr.Next() {
		rec := rr.Record()
		if err := scanRecord(rec, len(meta.Dims), &row, fn); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func colNames(sc *arrow.Schema) string {
	var names []string
	for _, f := range sc.Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func sameFields(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.Fields() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return false
		}
	}
	return true
}

func readMeta(md arrow.Metadata) (Meta, error) {
	get := func(k string) (string, bool) {
		i := md.FindKey(k)
		if i < 0 {
			return "", false
		}
		return md.Values()[i], true
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, "\x1f")
	}
	var m Meta
	dims, ok := get(metaDims)
	if !ok {
		return m, fmt.Errorf("%w: no %s metadata", ErrNotTasks, metaDims)
	}
	m.Dims = split(dims)
	caps, _ := get(metaCapacity)
	for _, c := range split(caps) {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			return m, fmt.Errorf("%w: capacity %q", ErrNotTasks, c)
		}
		m.Capacity = append(m.Capacity, v)
	}
	if len(m.Capacity) != len(m.Dims) || len(m.Dims) > traces.MaxDims {
		return m, fmt.Errorf("%w: %d dimensions, %d capacities", ErrNotTasks, len(m.Dims), len(m.Capacity))
	}
	mach, _ := get(metaMachines)
	m.Machines = split(mach)
	pooled, _ := get(metaPooled)
	m.Pooled = pooled == "true"
	q, _ := get(metaQueues)
	m.Queues = split(q)
	return m, nil
}

func scanRecord(rec arrow.Record, dims int, r *Row, fn func(*Row) error) error {
	c := rec.Columns()
	i32 := func(k int) *array.Int32 { return c[k].(*array.Int32) }
	f64 := func(k int) *array.Float64 { return c[k].(*array.Float64) }
	s := func(k int) *array.String { return c[k].(*array.String) }
	t := func(k, i int) traces.Time { return traces.FromSeconds(f64(k).Value(i)) }
	for i := 0; i < int(rec.NumRows()); i++ {
		*r = Row{
			Job: i32(0).Value(i), JobID: c[1].(*array.Int64).Value(i), Queue: s(2).Value(i), Class: s(3).Value(i),
			Stage: i32(4).Value(i), Task: i32(5).Value(i), Machine: i32(6).Value(i),
			Ready: t(7, i), Start: t(8, i), End: t(9, i), Outcome: s(10).Value(i),
			Slowed: c[11].(*array.Boolean).Value(i), WorkLost: t(12, i), Reason: s(13).Value(i), EndWhy: s(14).Value(i),
		}
		for d := 0; d < dims; d++ {
			r.Demand[d] = f64(nFixed + d).Value(i)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
