package google2011

import (
	"errors"
	"io"
	"math"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// TaskEvent is one task_events line of a task.
type TaskEvent struct {
	Time traces.Time
	Type EventType
	// MissingInfo is the missing_info field (0 SNAPSHOT_BUT_NO_TRANSITION, 1
	// NO_SNAPSHOT_OR_TRANSITION, 2 EXISTS_BUT_NO_CREATION), -1 when empty (the usual case).
	MissingInfo int8
	// Machine is the machine ID, -1 when empty (e.g. while pending).
	Machine int64
	// SchedClass is the scheduling class 0-3, -1 when empty.
	SchedClass int8
	// Priority is the task's priority 0-11.
	Priority int8
	// CPURequest, MemRequest and DiskRequest are normalized requests, NaN when empty.
	CPURequest, MemRequest, DiskRequest float64
	// DifferentMachines is the different-machines restriction (0 or 1), -1 when empty.
	DifferentMachines int8
}

// TaskRecord is the event history of one task (job ID, task index).
type TaskRecord struct {
	JobID int64
	Index int32
	User  string
	// Events are the task's events in time order (resubmitted tasks have several SUBMITs).
	Events []TaskEvent
}

// FinalState returns the type of the task's last terminal event, or of its last event if it
// has none.
func (t *TaskRecord) FinalState() EventType {
	for i := len(t.Events) - 1; i >= 0; i-- {
		if t.Events[i].Type.Terminal() {
			return t.Events[i].Type
		}
	}
	if len(t.Events) == 0 {
		return Submit
	}
	return t.Events[len(t.Events)-1].Type
}

// taskEvent is one parsed task_events line; user aliases the reader's buffer.
type taskEvent struct {
	jobID int64
	index int32
	user  []byte
	ev    TaskEvent
	time  traces.Time
}

func (e *taskEvent) parse(r *lineReader, f [][]byte) error {
	var err error
	var v int64
	if e.time, err = r.time(f, 0); err != nil {
		return err
	}
	e.ev.Time = e.time
	if v, err = r.small(f, 1, 0, 2, false); err != nil {
		return err
	}
	e.ev.MissingInfo = int8(v)
	if e.jobID, err = r.uint(f, 2, true); err != nil {
		return err
	}
	if v, err = r.small(f, 3, 0, math.MaxInt32, true); err != nil {
		return err
	}
	e.index = int32(v)
	if e.ev.Machine, err = r.uint(f, 4, false); err != nil {
		return err
	}
	if e.ev.Type, err = r.eventType(f, 5); err != nil {
		return err
	}
	e.user = f[6]
	if v, err = r.small(f, 7, 0, 3, false); err != nil {
		return err
	}
	e.ev.SchedClass = int8(v)
	if v, err = r.small(f, 8, 0, math.MaxInt8, true); err != nil {
		return err
	}
	e.ev.Priority = int8(v)
	if e.ev.CPURequest, err = r.amount(f, 9); err != nil {
		return err
	}
	if e.ev.MemRequest, err = r.amount(f, 10); err != nil {
		return err
	}
	if e.ev.DiskRequest, err = r.float(f, 11); err != nil {
		return err
	}
	if v, err = r.small(f, 12, 0, 1, false); err != nil {
		return err
	}
	e.ev.DifferentMachines = int8(v)
	return nil
}

type taskKey struct {
	job   int64
	index int32
}

type taskState struct {
	rec     TaskRecord
	seq     uint64
	gen     uint32
	closing bool
	life    life
}

type taskClosing struct {
	st  *taskState
	gen uint32
	at  traces.Time
}

// ScanTasks streams the event history of every task in src.TaskEvents. fn is called once per
// task when its history is complete — ResubmitGrace after its terminal event (a task evicted or
// failed is usually resubmitted within seconds) — and, at the end of the input, for the tasks
// still pending or running, in order of their first event. The record passed to fn is reused
// afterwards: copy it (and its Events) to keep it. Memory holds the tasks alive at a time. An
// event order the trace's semantics forbid is an error (see ScanJobs).
func ScanTasks(src Source, fn func(*TaskRecord) error) error {
	files, err := expand(src.TaskEvents)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("google2011: no task_events input")
	}
	r := newLineReader(TaskEventsTable, taskEventNames[:], files)
	defer r.close()
	var (
		open    = make(map[taskKey]*taskState)
		closing fifo[taskClosing]
		free    []*taskState
		seq     uint64
		in      strCache
		e       taskEvent
	)
	report := func(st *taskState) error {
		delete(open, taskKey{st.rec.JobID, st.rec.Index})
		err := fn(&st.rec)
		st.rec.Events = st.rec.Events[:0]
		free = append(free, st)
		return err
	}
	expire := func(t traces.Time) error {
		for closing.len() > 0 && closing.front().at < t {
			c := *closing.front()
			closing.pop()
			if c.st.closing && c.st.gen == c.gen {
				if err := report(c.st); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for {
		f, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := e.parse(r, f); err != nil {
			return err
		}
		if err := expire(e.time); err != nil {
			return err
		}
		k := taskKey{e.jobID, e.index}
		st := open[k]
		if st == nil {
			if n := len(free); n > 0 {
				st, free = free[n-1], free[:n-1]
				*st = taskState{rec: TaskRecord{Events: st.rec.Events[:0]}}
			} else {
				st = &taskState{}
			}
			seq++
			st.seq = seq
			st.rec.JobID, st.rec.Index = e.jobID, e.index
			open[k] = st
		}
		if !reconstructed(e.ev.MissingInfo) {
			if why := misordered(st.life, e.ev.Type, r.fromStart()); why != "" {
				return orderErr(r, 5, e.ev.Type, taskWhat(e.jobID, e.index), why)
			}
		}
		st.life = after(e.ev.Type)
		if st.rec.User == "" && len(e.user) > 0 {
			st.rec.User = in.get(e.user)
		}
		st.rec.Events = append(st.rec.Events, e.ev)
		switch {
		case e.ev.Type.Terminal():
			st.closing = true
			st.gen++
			closing.push(taskClosing{st: st, gen: st.gen, at: satAdd(e.time, ResubmitGrace)})
		case e.ev.Type == Submit:
			st.closing = false
		}
	}
	if err := expire(math.MaxInt64); err != nil {
		return err
	}
	for closing.len() > 0 {
		c := *closing.front()
		closing.pop()
		if c.st.closing && c.st.gen == c.gen {
			if err := report(c.st); err != nil {
				return err
			}
		}
	}
	rest := make([]*taskState, 0, len(open))
	for _, st := range open {
		rest = append(rest, st)
	}
	slices.SortFunc(rest, func(a, b *taskState) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	for _, st := range rest {
		if err := report(st); err != nil {
			return err
		}
	}
	return nil
}
