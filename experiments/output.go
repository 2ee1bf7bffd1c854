package experiments

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/internal/buildid"
	"github.com/schedlab/schedlab/internal/safefs"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Output file names inside a run's --out directory.
const (
	JobsFile    = "jobs.parquet"
	SummaryFile = "summary.json"
	ConfigFile  = "config.yaml"
	// UsageFile holds the per-queue resource-usage series; it is written whenever the series is
	// enabled (metrics.usage_window_s > 0).
	UsageFile = "usage.parquet"
)

// Fixed columns of usage.parquet; one float64 column per resource dimension, named by the
// dimension (cpu, mem, ...), follows them.
const (
	UsageQueueColumn       = "queue"
	UsageWindowStartColumn = "window_start_s"
)

// JobsSchema is the Arrow schema of jobs.parquet: one row per job. Times are seconds (float64)
// relative to the trace's clock; unfinished jobs have null finish and jct. target_s is the
// target completion time a job is judged against (its utility's target, else its deadline) and
// delta_s = finish − target (CORA's Δ); both null when absent. The file's key-value metadata
// describes each column with its unit (ColumnKeyPrefix).
var JobsSchema = withColumnDocs([]arrow.Field{
	{Name: "index", Type: arrow.PrimitiveTypes.Int32},
	{Name: "job_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "queue", Type: arrow.BinaryTypes.String},
	{Name: "class", Type: arrow.BinaryTypes.String},
	{Name: "priority", Type: arrow.PrimitiveTypes.Int32},
	{Name: "submit_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "start_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "finish_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "jct_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "completed", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "deadline_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "deadline_met", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "utility", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "tasks", Type: arrow.PrimitiveTypes.Int64},
	{Name: "finished_tasks", Type: arrow.PrimitiveTypes.Int64},
	{Name: "work_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "preemptions", Type: arrow.PrimitiveTypes.Int32},
	{Name: "target_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "delta_s", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "slowed_starts", Type: arrow.PrimitiveTypes.Int32},
}, func(name string) ColumnDoc { return jobsColumns[name] })

// Provenance says exactly what produced a result.
type Provenance struct {
	Config          map[string]any `json:"config"`
	Seed            int64          `json:"seed"`
	Workload        string         `json:"workload"`
	WorkloadSource  string         `json:"workload_source"`
	WorkloadHash    string         `json:"workload_hash"`
	SchedlabVersion string         `json:"schedlab_version"`
	// Build identifies the binary that computed the result (VCS revision, dirty flag, the
	// executable's SHA-256).
	Build buildid.ID `json:"build"`
	// Deterministic is false when the result depends on more than the configuration and seed
	// (a solve cut short by a wall-clock limit, say); NondeterministicWhy says why. Sweeps never
	// cache such a result.
	Deterministic       bool   `json:"deterministic"`
	NondeterministicWhy string `json:"nondeterministic_why,omitempty"`
}

// SummaryDoc is the content of summary.json.
type SummaryDoc struct {
	Metrics RunMetrics `json:"metrics"`
	// Waits is how long tasks waited to start, per queue, and whether any job ever waited for
	// resources (its Warning is set when none did).
	Waits      Waits       `json:"waits"`
	Engine     EngineStats `json:"engine"`
	Provenance Provenance  `json:"provenance"`
}

// Provenance returns the outcome's provenance record.
func (o *Outcome) Provenance() Provenance {
	return Provenance{
		Config: o.Config.Map(), Seed: o.Config.Seed, Workload: o.Workload.Name,
		WorkloadSource: o.Workload.Source, WorkloadHash: o.WorkloadHash, SchedlabVersion: Version,
		Build: buildid.Current(), Deterministic: o.Nondeterministic == "", NondeterministicWhy: o.Nondeterministic,
	}
}

// OutputFiles names the files WriteOutputs writes for this outcome: jobs.parquet,
// summary.json, config.yaml, usage.parquet when the usage series is enabled, then the policy's
// tables (<name>.parquet) and documents (<name>.json).
func (o *Outcome) OutputFiles() []string {
	files := []string{JobsFile, SummaryFile, ConfigFile}
	if o.writesUsage() {
		files = append(files, UsageFile)
	}
	files = append(files, o.recordedFiles()...)
	if o.Report != nil {
		for _, t := range o.Report.Tables {
			files = append(files, t.Name+".parquet")
		}
		for _, d := range o.Report.Docs {
			files = append(files, d.Name+".json")
		}
	}
	return files
}

func (o *Outcome) writesUsage() bool { return o.Result.UsageWindow > 0 && o.Result.Usage != nil }

// WriteOutputs writes jobs.parquet, summary.json, config.yaml, usage.parquet when the usage
// series is enabled and the tables and documents of a policies.Reporter policy (BPF's
// admissions.json, …) into dir, each atomically.
func (o *Outcome) WriteOutputs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicWrite(filepath.Join(dir, JobsFile), func(f io.Writer) error { return WriteJobs(f, o.Result.Jobs) }); err != nil {
		return err
	}
	if o.writesUsage() {
		if err := atomicWrite(filepath.Join(dir, UsageFile), func(f io.Writer) error { return WriteUsage(f, o.Result) }); err != nil {
			return err
		}
	}
	if err := o.writeRecordings(dir); err != nil {
		return err
	}
	metrics := RunMetrics{Summary: o.Summary}
	if o.Report != nil {
		if err := writePolicyReport(dir, o.Report); err != nil {
			return err
		}
		metrics.Policy = o.Report.Metrics
	}
	doc := SummaryDoc{Metrics: metrics, Waits: o.Waits, Engine: o.Engine, Provenance: o.Provenance()}
	if err := atomicWrite(filepath.Join(dir, SummaryFile), func(f io.Writer) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}); err != nil {
		return err
	}
	// config.yaml records paths so that it reads the same inputs from any directory.
	cfg := o.Config.Map()
	recordPaths(cfg)
	return atomicWrite(filepath.Join(dir, ConfigFile), func(f io.Writer) error {
		fmt.Fprintf(f, "# schedlab %s resolved configuration; rerun with: schedlab run --config %s\n", Version, ConfigFile)
		enc := yaml.NewEncoder(f)
		enc.SetIndent(2)
		if err := enc.Encode(cfg); err != nil {
			return err
		}
		return enc.Close()
	})
}

// WriteJobs writes per-job records as Parquet (deterministic bytes for identical records).
func WriteJobs(f io.Writer, jobs []replay.JobRecord) error {
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, JobsSchema)
	defer b.Release()
	secs := func(t traces.Time) float64 { return traces.Seconds(t) }
	for i := range jobs {
		j := &jobs[i]
		b.Field(0).(*array.Int32Builder).Append(j.Index)
		b.Field(1).(*array.Int64Builder).Append(j.ID)
		b.Field(2).(*array.StringBuilder).Append(j.Name)
		b.Field(3).(*array.StringBuilder).Append(j.Queue)
		b.Field(4).(*array.StringBuilder).Append(j.Class)
		b.Field(5).(*array.Int32Builder).Append(int32(j.Priority))
		b.Field(6).(*array.Float64Builder).Append(secs(j.Submit))
		appendOpt(b.Field(7).(*array.Float64Builder), j.FirstStart >= 0, secs(j.FirstStart))
		appendOpt(b.Field(8).(*array.Float64Builder), j.Completed, secs(j.Finish))
		appendOpt(b.Field(9).(*array.Float64Builder), j.Completed, secs(j.JCT()))
		b.Field(10).(*array.BooleanBuilder).Append(j.Completed)
		appendOpt(b.Field(11).(*array.Float64Builder), j.Deadline != 0, secs(j.Deadline))
		if j.Deadline != 0 {
			b.Field(12).(*array.BooleanBuilder).Append(j.DeadlineMet())
		} else {
			b.Field(12).(*array.BooleanBuilder).AppendNull()
		}
		appendOpt(b.Field(13).(*array.Float64Builder), !math.IsNaN(j.Utility), j.Utility)
		b.Field(14).(*array.Int64Builder).Append(j.Tasks)
		b.Field(15).(*array.Int64Builder).Append(j.Finished)
		b.Field(16).(*array.Float64Builder).Append(secs(j.Work))
		b.Field(17).(*array.Int32Builder).Append(j.Preemptions)
		appendOpt(b.Field(18).(*array.Float64Builder), j.Target != 0, secs(j.Target))
		d, ok := j.Delta()
		appendOpt(b.Field(19).(*array.Float64Builder), ok, secs(d))
		b.Field(20).(*array.Int32Builder).Append(j.SlowedStarts)
	}
	rec := b.NewRecord()
	defer rec.Release()
	return writeParquet(f, JobsSchema, rec)
}

// UsageSchema is the Arrow schema of usage.parquet for the given resource dimensions, its
// metadata describing each column.
func UsageSchema(dims []string) *arrow.Schema {
	fields := []arrow.Field{
		{Name: UsageQueueColumn, Type: arrow.BinaryTypes.String},
		{Name: UsageWindowStartColumn, Type: arrow.PrimitiveTypes.Float64},
	}
	for _, d := range dims {
		fields = append(fields, arrow.Field{Name: d, Type: arrow.PrimitiveTypes.Float64})
	}
	return withColumnDocs(fields, func(name string) ColumnDoc {
		if d, ok := usageColumns[name]; ok {
			return d
		}
		return usageDimDoc(name)
	})
}

// WriteUsage writes a result's per-queue usage series as Parquet: one row per queue and window,
// ordered by queue index then window. window_start_s is the window's start on the trace's clock
// (the first submission plus the window index times the window length); each dimension's value
// is the queue's average allocation over the window as a fraction of cluster capacity. Every
// queue gets the same windows (as many as the longest queue's series; missing windows are 0).
func WriteUsage(f io.Writer, r *replay.Result) error {
	dims := r.Dims
	if len(dims) > traces.MaxDims {
		dims = dims[:traces.MaxDims]
	}
	schema := UsageSchema(dims)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	n := 0
	for _, ws := range r.Usage {
		n = max(n, len(ws))
	}
	start, win := traces.Seconds(r.Start), traces.Seconds(r.UsageWindow)
	for q, name := range r.Queues {
		var ws [][traces.MaxDims]float64
		if q < len(r.Usage) {
			ws = r.Usage[q]
		}
		for w := 0; w < n; w++ {
			b.Field(0).(*array.StringBuilder).Append(name)
			b.Field(1).(*array.Float64Builder).Append(start + float64(w)*win)
			for d := range dims {
				v := 0.0
				if w < len(ws) {
					v = ws[w][d]
				}
				b.Field(2 + d).(*array.Float64Builder).Append(v)
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	return writeParquet(f, schema, rec)
}

// writeParquet writes one record as Parquet with schedlab's conventions: Snappy, created_by
// naming schedlab's version, no dictionaries (deterministic bytes for identical records).
func writeParquet(f io.Writer, schema *arrow.Schema, rec arrow.Record) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("schedlab "+Version),
		parquet.WithDictionaryDefault(false),
	)
	// The Parquet writer closes its sink; keep the caller's file open for Sync and rename.
	w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func appendOpt(b *array.Float64Builder, ok bool, v float64) {
	if ok {
		b.Append(v)
	} else {
		b.AppendNull()
	}
}

// atomicWrite writes path through a temporary file in its directory and a rename
// (safefs.WriteFile), so a reader never sees a half-written file and a killed process leaves
// either the old file or the new one; a panic of the writing library is an error. It does not
// fsync: a run's files are published by the rename of their whole directory (PublishOutputs, a
// sweep's cell), whose fsync carries the durability they need.
func atomicWrite(path string, write func(f io.Writer) error) error {
	return safefs.WriteFile(path, write, safefs.NoSync)
}
