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
// String columns are dictionary-encoded on disk by Parquet and read back as dictionaries, so a
// Parquet load holds each distinct string about once per row group. The Arrow IPC file format
// cannot carry a dictionary that grows from batch to batch, so .arrow files store plain utf8; they
// are read through the library's memory-mapped reader, and a load copies each batch's string
// bytes once, out of the mapping. Both formats are read by the Arrow libraries alone
// (github.com/apache/arrow-go/v18): this package only maps rows to jobs and back.
//
// Write and Read handle whole workloads; Writer and Reader stream record batches, so importers and
// tools can process workloads larger than memory. Writer writes to a temporary file next to the
// destination and renames it into place on Close, so a crash never leaves a half-written file
// under the final name. Read detects the format by its magic bytes ("PAR1" or "ARROW1"), not by
// the file name, and checks the file's embedded CRC-32C before parsing it (see KeyChecksum), so a
// corrupt file is reported as such instead of crashing the Arrow or Parquet library.
package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/schedlab/schedlab/traces"
)

// SchemaVersion is the layout version written to every file's "schedlab.version" metadata key.
// Version 2 added the placement_kind, placement_hard and placement_slowdown columns; version 3
// the task_attempts, task_evictions and task_outcomes columns. Readers also accept version 1 and
// 2 files (without the later columns: every job has the zero traces.Placement, every stage a nil
// History) and reject any other version.
const SchemaVersion = "3"

// readableVersions are the layout versions Read accepts, oldest first.
var readableVersions = []string{"1", "2", SchemaVersion}

// columnSince maps the columns added after version 1 to the version that added them; a file of
// an earlier version lacks them.
var columnSince = map[string]int{
	ColPlacementKind: 2, ColPlacementHard: 2, ColPlacementSlowdown: 2,
	ColTaskAttempts: 3, ColTaskEvictions: 3, ColTaskOutcomes: 3,
}

// hasColumn reports whether a file of layout version v (one of readableVersions) has column c.
func hasColumn(v, c string) bool {
	since, ok := columnSince[c]
	if !ok {
		return true
	}
	n, _ := strconv.Atoi(v)
	return n >= since
}

// Metadata keys of the workload-level fields.
const (
	KeyVersion = "schedlab.version"
	KeyName    = "schedlab.name"
	KeySource  = "schedlab.source"
	KeyDims    = "schedlab.dims"    // JSON array of dimension names
	KeyCluster = "schedlab.cluster" // JSON object, see jsonCluster
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
	// Placement columns (since version 2): the job's traces.Placement.
	ColPlacementKind     = "placement_kind"
	ColPlacementHard     = "placement_hard"
	ColPlacementSlowdown = "placement_slowdown"
	ColNumStages         = "num_stages"
	ColStage             = "stage"
	ColStageName         = "stage_name"
	ColTasks             = "tasks"
	ColDuration          = "duration"
	ColEstimate          = "estimate"
	ColTaskDurations     = "task_durations"
	ColParents           = "parents"
	// Task history columns (since version 3): the stage's traces.TaskHistory, one entry per
	// task, each a list<int32> that is null when the stage has no history.
	ColTaskAttempts  = "task_attempts"
	ColTaskEvictions = "task_evictions"
	ColTaskOutcomes  = "task_outcomes" // traces.TaskOutcome codes: 0 finished, 1 running, 2 evicted, 3 failed, 4 killed, 5 lost
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
// take the stage's duration), parents (null: the stage has no parent list) and the task history
// columns (null: the stage has no history).
//
//	job_id int64, name utf8, submit int64 (µs), queue utf8, class utf8, priority int64,
//	weight float64, user utf8, job_name utf8, logical_job_name utf8, deadline int64 (µs),
//	utility_kind utf8?, utility_priority float64, utility_decay float64, utility_slope float64,
//	utility_target int64 (µs), placement_kind utf8 ("" = no constraint), placement_hard bool,
//	placement_slowdown float64, num_stages int32, stage int32 (index within the job),
//	stage_name utf8, tasks int32, demand_0..demand_5 int64 (fixed point, traces.Unit per unit),
//	duration int64 (µs), estimate int64 (µs), task_durations list<int64>?, parents list<int32>?,
//	task_attempts list<int32>?, task_evictions list<int32>?, task_outcomes list<int32>?
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
		req(ColUtilityTarget, i64), req(ColPlacementKind, str), req(ColPlacementHard, arrow.FixedWidthTypes.Boolean),
		req(ColPlacementSlowdown, f64), req(ColNumStages, i32), req(ColStage, i32), req(ColStageName, str),
		req(ColTasks, i32),
	}
	for d := 0; d < traces.MaxDims; d++ {
		fields = append(fields, req(ColDemand(d), i64))
	}
	fields = append(fields,
		req(ColDuration, i64), req(ColEstimate, i64),
		opt(ColTaskDurations, arrow.ListOfNonNullable(i64)),
		opt(ColParents, arrow.ListOfNonNullable(i32)),
		opt(ColTaskAttempts, arrow.ListOfNonNullable(i32)),
		opt(ColTaskEvictions, arrow.ListOfNonNullable(i32)),
		opt(ColTaskOutcomes, arrow.ListOfNonNullable(i32)),
	)
	return arrow.NewSchema(fields, nil)
}

// Meta holds the workload-level fields stored in a file's metadata.
type Meta struct {
	Name    string
	Source  string
	Dims    []string
	Cluster traces.Cluster
	// Initial and ClusterEvents are the workload's initial holds and cluster events (optional
	// keys KeyInitial and KeyClusterEvents, timeline.go).
	Initial       []traces.Hold
	ClusterEvents []traces.ClusterEvent
	Faults        []traces.TaskFault     // optional key KeyFaults
	Placements    []traces.TaskPlacement // optional key KeyPlacements
}

// MetaOf returns w's workload-level fields.
func MetaOf(w *traces.Workload) Meta {
	return Meta{Name: w.Name, Source: w.Source, Dims: w.Dims, Cluster: w.Cluster, Initial: w.Initial, ClusterEvents: w.ClusterEvents, Faults: w.Faults, Placements: w.Placements}
}

// jsonCluster is the cluster's JSON form, column-wise so that a cluster of thousands of machines
// decodes quickly: names are omitted when every machine i is named "m<i>" (the convention of
// traces.Uniform), capacities are run-length encoded as [count, c0, ..., c5] runs, and racks,
// GPU flags and platforms appear only when some machine has one. N is null for a nil machine list.
type jsonCluster struct {
	Pooled    bool      `json:"pooled"`
	N         *int      `json:"n"`
	Names     []string  `json:"names,omitempty"`
	Capacity  [][]int64 `json:"capacity,omitempty"`
	Racks     []string  `json:"racks,omitempty"`
	GPU       []int     `json:"gpu,omitempty"` // indices of machines with a GPU
	Platforms []string  `json:"platforms,omitempty"`
}

func encodeCluster(c traces.Cluster) jsonCluster {
	jc := jsonCluster{Pooled: c.Pooled}
	if c.Machines == nil {
		return jc
	}
	n := len(c.Machines)
	jc.N = &n
	numbered, racks, platforms := true, false, false
	for i, m := range c.Machines {
		if m.Name != "m"+strconv.Itoa(i) {
			numbered = false
		}
		racks = racks || m.Rack != ""
		platforms = platforms || m.Platform != ""
		if m.GPU {
			jc.GPU = append(jc.GPU, i)
		}
		if k := len(jc.Capacity); k > 0 && traces.Vec(jc.Capacity[k-1][1:]) == m.Capacity {
			jc.Capacity[k-1][0]++
		} else {
			jc.Capacity = append(jc.Capacity, append([]int64{1}, m.Capacity[:]...))
		}
	}
	for _, m := range c.Machines {
		if !numbered {
			jc.Names = append(jc.Names, m.Name)
		}
		if racks {
			jc.Racks = append(jc.Racks, m.Rack)
		}
		if platforms {
			jc.Platforms = append(jc.Platforms, m.Platform)
		}
	}
	return jc
}

// decodeCluster expands jc's machines, once their count passes limits.Machines.
func decodeCluster(jc jsonCluster, limits traces.Limits) (traces.Cluster, error) {
	c := traces.Cluster{Pooled: jc.Pooled}
	if jc.N == nil {
		return c, nil
	}
	n := *jc.N
	if n < 0 || n > 1<<26 {
		return c, fmt.Errorf("%d machines", n)
	}
	if err := limits.CheckMachines(int64(n)); err != nil {
		return c, err
	}
	for _, col := range []struct {
		name string
		len  int
	}{{"names", len(jc.Names)}, {"racks", len(jc.Racks)}, {"platforms", len(jc.Platforms)}} {
		if col.len != 0 && col.len != n {
			return c, fmt.Errorf("%d %s for %d machines", col.len, col.name, n)
		}
	}
	c.Machines = make([]traces.Machine, n)
	i := 0
	for _, run := range jc.Capacity {
		if len(run) != 1+traces.MaxDims || run[0] < 1 || run[0] > int64(n-i) {
			return c, fmt.Errorf("capacity run %v: want [count ≤ %d, %d amounts]", run, n-i, traces.MaxDims)
		}
		v := traces.Vec(run[1:])
		for range run[0] {
			c.Machines[i].Capacity = v
			i++
		}
	}
	if i != n {
		return c, fmt.Errorf("capacity runs cover %d of %d machines", i, n)
	}
	var names []string
	if jc.Names != nil {
		names = jc.Names
	} else {
		names = numberedNames(n)
	}
	for i := range c.Machines {
		m := &c.Machines[i]
		m.Name = names[i]
		if jc.Racks != nil {
			m.Rack = jc.Racks[i]
		}
		if jc.Platforms != nil {
			m.Platform = jc.Platforms[i]
		}
	}
	for _, g := range jc.GPU {
		if g < 0 || g >= n {
			return c, fmt.Errorf("gpu machine %d out of range", g)
		}
		c.Machines[g].GPU = true
	}
	return c, nil
}

// numberedNames returns "m0", "m1", ..., "m<n-1>", all slices of one string (two allocations
// rather than one per machine).
func numberedNames(n int) []string {
	buf := make([]byte, 0, n*(2+len(strconv.Itoa(max(n-1, 0)))))
	ends := make([]int, n)
	for i := range n {
		buf = append(buf, 'm')
		buf = strconv.AppendInt(buf, int64(i), 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	names := make([]string, n)
	start := 0
	for i, e := range ends {
		names[i] = all[start:e]
		start = e
	}
	return names
}

// metadata encodes m as schema metadata.
func (m Meta) metadata() (arrow.Metadata, error) {
	dims, err := json.Marshal(m.Dims)
	if err != nil {
		return arrow.Metadata{}, fmt.Errorf("canonical: encode dims: %w", err)
	}
	cluster, err := json.Marshal(encodeCluster(m.Cluster))
	if err != nil {
		return arrow.Metadata{}, fmt.Errorf("canonical: encode cluster: %w", err)
	}
	keys := []string{KeyVersion, KeyName, KeySource, KeyDims, KeyCluster, KeyChecksum}
	values := []string{SchemaVersion, m.Name, m.Source, string(dims), string(cluster), checksumMarker + placeholder}
	tk, tv, err := m.timelineMetadata()
	if err != nil {
		return arrow.Metadata{}, err
	}
	return arrow.NewMetadata(append(keys, tk...), append(values, tv...)), nil
}

// errMeta reports a problem with a file's workload metadata.
var errMeta = errors.New("bad metadata")

// parseMeta decodes workload metadata and returns it with the file's layout version; find
// returns a key's value and whether it is present.
// The cluster's machine count is checked against limits before the machines are allocated.
func parseMeta(limits traces.Limits, find func(key string) (string, bool)) (m Meta, version string, err error) {
	v, ok := find(KeyVersion)
	if !ok {
		return m, "", fmt.Errorf("%w: no %q key (not a schedlab canonical workload)", errMeta, KeyVersion)
	}
	if !slices.Contains(readableVersions, v) {
		return m, "", fmt.Errorf("%w: %s %q, this schedlab reads versions %s", errMeta, KeyVersion, v, strings.Join(readableVersions, ", "))
	}
	m.Name, _ = find(KeyName)
	m.Source, _ = find(KeySource)
	if s, ok := find(KeyDims); ok {
		if err := json.Unmarshal([]byte(s), &m.Dims); err != nil {
			return m, "", fmt.Errorf("%w: %s: %v", errMeta, KeyDims, err)
		}
	}
	if s, ok := find(KeyCluster); ok {
		var jc jsonCluster
		if err := json.Unmarshal([]byte(s), &jc); err != nil {
			return m, "", fmt.Errorf("%w: %s: %v", errMeta, KeyCluster, err)
		}
		c, err := decodeCluster(jc, limits)
		if err != nil {
			return m, "", fmt.Errorf("%w: %s: %w", errMeta, KeyCluster, err)
		}
		m.Cluster = c
	}
	if err := m.parseTimeline(find); err != nil {
		return m, "", err
	}
	return m, v, nil
}
