// Package canonical stores schedlab workloads in a columnar form — Apache Parquet or the Arrow IPC
// file format — so a trace is parsed once (`schedlab trace import`) and replayed many times from a
// file that loads an order of magnitude faster than its source.
//
// The layout is one table with one row per stage; a job's fields are repeated on each of its
// stage rows, and its rows are consecutive in stage order (see Schema for the columns). A job
// without stages is stored as a single row with num_stages = 0. Parents are a list<int32> column
// (the DAG edges, by stage index), per-task durations a nullable list<int64> column. Workload-level
// data — name, source, resource dimension names and the cluster's machines (as JSON) — lives in
// the schema's key/value metadata, which Parquet keeps in its footer.
//
// String columns are dictionary-encoded on disk by Parquet; the Arrow IPC file format cannot carry
// a dictionary that grows from batch to batch, so .arrow files store plain utf8 and the reader
// interns repeated strings instead. Either way a reader allocates each distinct string about once.
//
// Write and Read handle whole workloads; Writer and Reader stream record batches, so importers and
// tools can process workloads larger than memory. Writer writes to a temporary file next to the
// destination and renames it into place on Close, so a crash never leaves a half-written file
// under the final name. Read detects the format by its magic bytes ("PAR1" or "ARROW1"), not by
// the file name.
package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/schedlab/schedlab/traces"
)

// SchemaVersion is the layout version written to every file's "schedlab.version" metadata key.
// Readers reject files with a different version.
const SchemaVersion = "1"

// Metadata keys of the workload-level fields.
const (
	KeyVersion = "schedlab.version"
	KeyName    = "schedlab.name"
	KeySource  = "schedlab.source"
	KeyDims    = "schedlab.dims"    // JSON array of dimension names
	KeyCluster = "schedlab.cluster" // JSON object {"pooled": bool, "machines": [...]}
)

// Column names, in schema order.
const (
	ColJobID           = "job_id"
	ColName            = "name"
	ColSubmit          = "submit"
	ColQueue           = "queue"
	ColClass           = "class"
	ColPriority        = "priority"
	ColWeight          = "weight"
	ColUser            = "user"
	ColJobName         = "job_name"
	ColLogicalJobName  = "logical_job_name"
	ColDeadline        = "deadline"
	ColUtilityKind     = "utility_kind"
	ColUtilityPriority = "utility_priority"
	ColUtilityDecay    = "utility_decay"
	ColUtilitySlope    = "utility_slope"
	ColUtilityTarget   = "utility_target"
	ColNumStages       = "num_stages"
	ColStage           = "stage"
	ColStageName       = "stage_name"
	ColTasks           = "tasks"
	ColDuration        = "duration"
	ColEstimate        = "estimate"
	ColTaskDurations   = "task_durations"
	ColParents         = "parents"
)

// ColDemand returns the name of the column holding per-task demand in dimension d (0..5).
func ColDemand(d int) string { return "demand_" + strconv.Itoa(d) }

// Format is an on-disk encoding of the canonical table.
type Format int

// The supported formats.
const (
	Parquet Format = iota + 1 // Apache Parquet (.parquet)
	Arrow                     // Arrow IPC file format (.arrow)
)

// String returns "parquet" or "arrow".
func (f Format) String() string {
	switch f {
	case Parquet:
		return "parquet"
	case Arrow:
		return "arrow"
	}
	return "unknown"
}

// FormatOf chooses the format to write from a file name: .parquet or .pq for Parquet, .arrow,
// .ipc or .feather for the Arrow IPC file format.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".arrow", ".ipc", ".feather":
		return Arrow, nil
	}
	return 0, fmt.Errorf("canonical: %s: unknown extension %q (want .parquet or .arrow)", path, filepath.Ext(path))
}

// Schema is the canonical table's Arrow schema (without metadata). Every column is non-nullable
// except utility_kind (null: the job has no utility function), task_durations (null: all tasks
// take the stage's duration) and parents (null: the stage has no parent list).
//
//	job_id int64, name utf8, submit int64 (µs), queue utf8, class utf8, priority int64,
//	weight float64, user utf8, job_name utf8, logical_job_name utf8, deadline int64 (µs),
//	utility_kind utf8?, utility_priority float64, utility_decay float64, utility_slope float64,
//	utility_target int64 (µs), num_stages int32, stage int32 (index within the job),
//	stage_name utf8, tasks int32, demand_0..demand_5 int64 (fixed point, traces.Unit per unit),
//	duration int64 (µs), estimate int64 (µs), task_durations list<int64>?, parents list<int32>?
var Schema = newSchema()

func newSchema() *arrow.Schema {
	req := func(name string, t arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: t} }
	opt := func(name string, t arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: t, Nullable: true}
	}
	i64, i32, f64, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String
	fields := []arrow.Field{
		req(ColJobID, i64), req(ColName, str), req(ColSubmit, i64), req(ColQueue, str), req(ColClass, str),
		req(ColPriority, i64), req(ColWeight, f64), req(ColUser, str), req(ColJobName, str),
		req(ColLogicalJobName, str), req(ColDeadline, i64), opt(ColUtilityKind, str),
		req(ColUtilityPriority, f64), req(ColUtilityDecay, f64), req(ColUtilitySlope, f64),
		req(ColUtilityTarget, i64), req(ColNumStages, i32), req(ColStage, i32), req(ColStageName, str),
		req(ColTasks, i32),
	}
	for d := 0; d < traces.MaxDims; d++ {
		fields = append(fields, req(ColDemand(d), i64))
	}
	fields = append(fields,
		req(ColDuration, i64), req(ColEstimate, i64),
		opt(ColTaskDurations, arrow.ListOfNonNullable(i64)),
		opt(ColParents, arrow.ListOfNonNullable(i32)),
	)
	return arrow.NewSchema(fields, nil)
}

// Meta holds the workload-level fields stored in a file's metadata.
type Meta struct {
	Name    string
	Source  string
	Dims    []string
	Cluster traces.Cluster
}

// MetaOf returns w's workload-level fields.
func MetaOf(w *traces.Workload) Meta {
	return Meta{Name: w.Name, Source: w.Source, Dims: w.Dims, Cluster: w.Cluster}
}

type jsonMachine struct {
	Name     string                `json:"name"`
	Capacity [traces.MaxDims]int64 `json:"capacity"`
	Rack     string                `json:"rack,omitempty"`
	GPU      bool                  `json:"gpu,omitempty"`
	Platform string                `json:"platform,omitempty"`
}

type jsonCluster struct {
	Pooled   bool          `json:"pooled"`
	Machines []jsonMachine `json:"machines"`
}

// metadata encodes m as schema metadata.
func (m Meta) metadata() (arrow.Metadata, error) {
	dims, err := json.Marshal(m.Dims)
	if err != nil {
		return arrow.Metadata{}, fmt.Errorf("canonical: encode dims: %w", err)
	}
	jc := jsonCluster{Pooled: m.Cluster.Pooled}
	if m.Cluster.Machines != nil {
		jc.Machines = make([]jsonMachine, len(m.Cluster.Machines))
		for i, mc := range m.Cluster.Machines {
			jc.Machines[i] = jsonMachine{Name: mc.Name, Capacity: mc.Capacity, Rack: mc.Rack, GPU: mc.GPU, Platform: mc.Platform}
		}
	}
	cluster, err := json.Marshal(jc)
	if err != nil {
		return arrow.Metadata{}, fmt.Errorf("canonical: encode cluster: %w", err)
	}
	return arrow.NewMetadata(
		[]string{KeyVersion, KeyName, KeySource, KeyDims, KeyCluster},
		[]string{SchemaVersion, m.Name, m.Source, string(dims), string(cluster)},
	), nil
}

// errMeta reports a problem with a file's workload metadata.
var errMeta = errors.New("bad metadata")

// parseMeta decodes workload metadata; find returns a key's value and whether it is present.
func parseMeta(find func(key string) (string, bool)) (Meta, error) {
	var m Meta
	v, ok := find(KeyVersion)
	if !ok {
		return m, fmt.Errorf("%w: no %q key (not a schedlab canonical workload)", errMeta, KeyVersion)
	}
	if v != SchemaVersion {
		return m, fmt.Errorf("%w: %s %q, this schedlab reads version %q", errMeta, KeyVersion, v, SchemaVersion)
	}
	m.Name, _ = find(KeyName)
	m.Source, _ = find(KeySource)
	if s, ok := find(KeyDims); ok {
		if err := json.Unmarshal([]byte(s), &m.Dims); err != nil {
			return m, fmt.Errorf("%w: %s: %v", errMeta, KeyDims, err)
		}
	}
	if s, ok := find(KeyCluster); ok {
		var jc jsonCluster
		if err := json.Unmarshal([]byte(s), &jc); err != nil {
			return m, fmt.Errorf("%w: %s: %v", errMeta, KeyCluster, err)
		}
		m.Cluster.Pooled = jc.Pooled
		if jc.Machines != nil {
			m.Cluster.Machines = make([]traces.Machine, len(jc.Machines))
			for i, mc := range jc.Machines {
				m.Cluster.Machines[i] = traces.Machine{Name: mc.Name, Capacity: mc.Capacity, Rack: mc.Rack, GPU: mc.GPU, Platform: mc.Platform}
			}
		}
	}
	return m, nil
}
