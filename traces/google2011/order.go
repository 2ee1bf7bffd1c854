package google2011

import "fmt"

// life is where a job or task stands in the trace's life cycle, after the state diagram of the
// trace's documentation: SUBMIT makes it pending, SCHEDULE running, a terminal event (EVICT,
// FAIL, FINISH, KILL, LOST) dead, and a SUBMIT after that pending again (a resubmission).
// UPDATE_PENDING and UPDATE_RUNNING keep it pending or running.
type life int8

const (
	unseen  life = iota // no event in the input yet
	pending             // submitted, not scheduled since
	running             // scheduled, not ended since
	dead                // ended, not resubmitted since
)

// after returns the state an event of type e leads to, whatever the state before it.
func after(e EventType) life {
	switch {
	case e == Submit, e == UpdatePending:
		return pending
	case e == Schedule, e == UpdateRunning:
		return running
	}
	return dead
}

// misordered explains why an event of type e cannot happen to a job or task in state s, or
// returns "" if it can. fromStart says that the table's input begins at the trace's beginning,
// so that an unseen job or task has no history before the input.
//
// What is allowed is what the trace holds: in all 500 parts of job_events (672,074 jobs) and in
// task_events parts 0-9 (464,004 tasks) every job's and task's first event is its SUBMIT; a
// pending one is next SCHEDULEd, UPDATE_PENDING'd or ended by EVICT, FAIL, KILL or LOST (never
// FINISHed: only what runs finishes); a running one is UPDATE_RUNNING'd or ended; an ended one
// is only ever resubmitted. Nothing is submitted twice without ending in between, nor scheduled
// twice without ending in between. An input that starts later in the trace (its first event
// after time 0) misses the beginning of the histories of what was alive then, so there a job's
// or task's first event may be any.
func misordered(s life, e EventType, fromStart bool) string {
	switch s {
	case unseen:
		if e != Submit && fromStart {
			return "before any SUBMIT of it: the input begins at the trace's beginning (its first event is at t=0), where every history starts with SUBMIT (is a part of the table missing from the input?)"
		}
	case pending:
		switch e {
		case Finish:
			return "while it is pending (submitted, not scheduled since): only what runs finishes"
		case Submit:
			return "while it is pending: a SUBMIT follows only an end (EVICT, FAIL, FINISH, KILL, LOST)"
		case UpdateRunning:
			return "while it is pending, not running"
		}
	case running:
		switch e {
		case Schedule:
			return "while it is running (scheduled, not ended since): a SCHEDULE follows only a SUBMIT"
		case Submit:
			return "while it is running: a SUBMIT follows only an end (EVICT, FAIL, FINISH, KILL, LOST)"
		case UpdatePending:
			return "while it is running, not pending"
		}
	case dead:
		if e != Submit {
			return "after it ended: only a SUBMIT (a resubmission) may follow an end"
		}
	}
	return ""
}

// reconstructed reports whether a missing_info value (-1: empty) marks an event the trace
// reconstructed rather than recorded (0 SNAPSHOT_BUT_NO_TRANSITION, 1 NO_SNAPSHOT_OR_TRANSITION, 2
// EXISTS_BUT_NO_CREATION). The order checks exempt them: the trace dates them by the snapshot that
// revealed them, not by when they happened.
func reconstructed(missingInfo int8) bool { return missingInfo >= 0 }

// orderErr locates a misordered event at the reader's current line, in its event type field.
func orderErr(r *lineReader, field int, e EventType, what, why string) error {
	return r.errf(field, "%s of %s %s", e, what, why)
}

func jobWhat(id int64) string { return fmt.Sprintf("job %d", id) }

func taskWhat(job int64, index int32) string { return fmt.Sprintf("task %d of job %d", index, job) }
