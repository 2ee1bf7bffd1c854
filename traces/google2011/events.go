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
	Err   error // the cause, if another package's error (traces.ErrRange)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

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
