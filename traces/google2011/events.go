// Package google2011 reads the Google cluster trace clusterdata-2011-2 (one Borg cell of ~12.5k
// machines over 29 days of May 2011): the job_events, task_events and machine_events tables, as
// directories of part-NNNNN-of-NNNNN.csv.gz files or as plain CSV.
//
// The files have no header; fields are comma separated and an empty field is a missing value.
// Times are microseconds of trace time; 0 means "before the trace window" (the window starts at
// 600 s) and 2^63-1 means "after it". Jobs and tasks go through SUBMIT, SCHEDULE and one of the
// terminal events EVICT, FAIL, FINISH, KILL or LOST; a SUBMIT after a terminal event (or a second
// SUBMIT at all) is a resubmission of the same job or task, not an error.
//
// ScanJobs streams per-job records (submit, first schedule, end, final state, runtime, features,
// and, when task_events are given, task count, requests and priority) with memory bounded by the
// number of jobs alive at once, not by the input size. ScanTasks does the same for per-task event
// histories. Workload and Import turn the job records into a schedlab workload — one single-stage
// job per finished job — in memory or streamed into a canonical Parquet/Arrow file.
//
// Bad input is reported as a *ParseError naming the file, line and field.
package google2011

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// EventType is the event_type field of job_events and task_events.
type EventType int8

// Event types of the 2011 trace (the 2019 trace numbers them differently).
const (
	Submit        EventType = 0 // submitted and pending
	Schedule      EventType = 1 // scheduled on a machine (task) / started (job)
	Evict         EventType = 2 // descheduled for a higher-priority task or machine failure
	Fail          EventType = 3 // failed
	Finish        EventType = 4 // completed normally
	Kill          EventType = 5 // cancelled by the user or a dependency
	Lost          EventType = 6 // presumably terminated, but the record is missing
	UpdatePending EventType = 7 // requirements updated while pending
	UpdateRunning EventType = 8 // requirements updated while running
)

var eventNames = [...]string{"SUBMIT", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL", "LOST", "UPDATE_PENDING", "UPDATE_RUNNING"}

// String returns the trace documentation's name, e.g. "FINISH".
func (e EventType) String() string {
	if e >= 0 && int(e) < len(eventNames) {
		return eventNames[e]
	}
	return fmt.Sprintf("EventType(%d)", int8(e))
}

// Terminal reports whether e ends a job's or task's run: EVICT, FAIL, FINISH, KILL or LOST.
func (e EventType) Terminal() bool { return e >= Evict && e <= Lost }

// Special times of the trace.
const (
	// BeforeWindow is the time of events that happened before the trace window began.
	BeforeWindow traces.Time = 0
	// AfterWindow is the time of events that happened after the trace window ended.
	AfterWindow traces.Time = math.MaxInt64
	// WindowStart is the trace time at which the observation window begins (600 s).
	WindowStart traces.Time = 600 * traces.Second
)

// Table names, as used for directory names in the published trace.
const (
	JobEventsTable     = "job_events"
	TaskEventsTable    = "task_events"
	MachineEventsTable = "machine_events"
)

// Field counts per table (schema.csv).
const (
	jobEventFields     = 8
	taskEventFields    = 13
	machineEventFields = 6
)

// Field names per table, from the trace's schema.csv (used in error messages).
var (
	jobEventNames     = [jobEventFields]string{"time", "missing info", "job ID", "event type", "user", "scheduling class", "job name", "logical job name"}
	taskEventNames    = [taskEventFields]string{"time", "missing info", "job ID", "task index", "machine ID", "event type", "user", "scheduling class", "priority", "CPU request", "memory request", "disk space request", "different machines restriction"}
	machineEventNames = [machineEventFields]string{"time", "machine ID", "event type", "platform ID", "CPUs", "Memory"}
)

// ParseError locates bad input: the file, the 1-based line (0 when the problem is with the file as
// a whole) and the field (empty when the problem is the whole line).
type ParseError struct {
	File  string
	Line  int64
	Field string
	Msg   string
}

// Error renders "google2011: FILE:LINE: field \"NAME\": MESSAGE".
func (e *ParseError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("google2011: %s: field %q: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("google2011: %s: %s", loc, e.Msg)
}
