package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// TraceFile is the name of the trace-event file in a run's output directory.
const TraceFile = "trace.json"

// Trace writes the Chrome trace-event format (JSON object form) that ui.perfetto.dev and
// chrome://tracing open, one event a line as events happen:
//
//   - one process per machine, or per queue in pooled mode, named by metadata events (ph "M");
//   - each task attempt a nestable async slice (ph "b" then "e", same cat and id) on its
//     machine's or queue's process, so that tasks running side by side get rows of their own;
//     its args carry job, queue, outcome and the policy's reasons;
//   - a preemption an instant event (ph "i", thread scope) at its end;
//   - on the "scheduler" process, counters (ph "C") of free capacity per dimension and of
//     pending and running tasks, and an instant event for each scheduling call.
//
// Timestamps are microseconds on the trace's clock, the unit the format prescribes.
type Trace struct {
	w       *bufio.Writer
	meta    Meta
	pooled  bool
	queueOf map[string]int
	first   bool
	id      int64
	buf     []byte
	err     error
}

// Process ids: the scheduler's, then one per track from trackBase.
const (
	schedulerPID = 1
	trackBase    = 2
)

// NewTrace starts a trace on w and names its processes.
func NewTrace(w io.Writer, meta Meta) *Trace {
	t := &Trace{w: bufio.NewWriterSize(w, 1<<16), meta: meta, pooled: meta.Pooled, first: true, queueOf: map[string]int{}}
	t.raw(`{"displayTimeUnit":"ms","traceEvents":[` + "\n")
	t.name(schedulerPID, "scheduler", 0)
	if t.pooled {
		for i, q := range meta.Queues {
			t.queueOf[q] = i
			t.name(trackBase+i, "queue "+q, i+1)
		}
	} else {
		for i, m := range meta.Machines {
			t.name(trackBase+i, fmt.Sprintf("machine %d %s", i, m), i+1)
		}
	}
	return t
}

func (t *Trace) raw(s string) {
	if t.err == nil {
		_, t.err = t.w.WriteString(s)
	}
}

// event writes one event object from buf.
func (t *Trace) event(b []byte) {
	if !t.first {
		t.raw(",\n")
	}
	t.first = false
	if t.err == nil {
		_, t.err = t.w.Write(b)
	}
}

func (t *Trace) name(pid int, name string, order int) {
	b := fmt.Appendf(t.buf[:0], `{"name":"process_name","ph":"M","pid":%d,"tid":0,"args":{"name":%s}}`, pid, strconv.Quote(name))
	t.event(b)
	b = fmt.Appendf(t.buf[:0], `{"name":"process_sort_index","ph":"M","pid":%d,"tid":0,"args":{"sort_index":%d}}`, pid, order)
	t.event(b)
}

// track is the process of a row: its machine, or its queue in pooled mode.
func (t *Trace) track(r *Row) int {
	if t.pooled {
		q, ok := t.queueOf[r.Queue]
		if !ok {
			q = len(t.meta.Queues) + len(t.queueOf)
			t.queueOf[r.Queue] = q
			t.name(trackBase+q, "queue "+r.Queue, q+1)
		}
		return trackBase + q
	}
	return trackBase + int(r.Machine)
}

// Attempt writes a task attempt's slice (and its preemption).
func (t *Trace) Attempt(r *Row) {
	pid := t.track(r)
	t.id++
	name := fmt.Sprintf("job %d s%d t%d", r.JobID, r.Stage, r.Task)
	b := fmt.Appendf(t.buf[:0], `{"name":%s,"cat":%s,"ph":"b","id":%d,"ts":%d,"pid":%d,"tid":%d,"args":{"job":%d,"job_index":%d,"queue":%s,"stage":%d,"task":%d,"machine":%d,"ready_s":%s,"wait_s":%s,"reason":%s`,
		strconv.Quote(name), strconv.Quote(r.Queue), t.id, r.Start, pid, pid, r.JobID, r.Job, strconv.Quote(r.Queue), r.Stage, r.Task, r.Machine,
		fsec(r.Ready), fsec(r.Start-r.Ready), strconv.Quote(r.Reason))
	b = append(b, "}}"...)
	t.event(b)
	b = fmt.Appendf(t.buf[:0], `{"name":%s,"cat":%s,"ph":"e","id":%d,"ts":%d,"pid":%d,"tid":%d,"args":{"outcome":%q,"slowed":%t,"work_lost_s":%s,"end_reason":%s}}`,
		strconv.Quote(name), strconv.Quote(r.Queue), t.id, r.End, pid, pid, r.Outcome, r.Slowed, fsec(r.WorkLost), strconv.Quote(r.EndWhy))
	t.event(b)
	if r.Outcome == "preempted" || r.Outcome == "killed" {
		b = fmt.Appendf(t.buf[:0], `{"name":%s,"ph":"i","s":"t","ts":%d,"pid":%d,"tid":%d,"args":{"job":%d,"reason":%s}}`,
			strconv.Quote(r.Outcome+" job "+strconv.FormatInt(r.JobID, 10)), r.End, pid, pid, r.JobID, strconv.Quote(r.EndWhy))
		t.event(b)
	}
	t.buf = b
}

// Call writes a scheduling call's instant event and the counters after it: free capacity per
// dimension (units) and pending and running tasks.
func (t *Trace) Call(at traces.Time, starts, preempts int, free []float64, pending, running int64) {
	t.buf = fmt.Appendf(t.buf[:0], `{"name":"schedule","ph":"i","s":"p","ts":%d,"pid":%d,"tid":0,"args":{"starts":%d,"preempts":%d}}`, at, schedulerPID, starts, preempts)
	t.event(t.buf)
	t.Counters(at, free, pending, running)
}

// Counters writes the counters at time at: free capacity per dimension (units), pending and
// running tasks.
func (t *Trace) Counters(at traces.Time, free []float64, pending, running int64) {
	b := fmt.Appendf(t.buf[:0], `{"name":"free capacity","ph":"C","ts":%d,"pid":%d,"tid":0,"args":{`, at, schedulerPID)
	for d, v := range free {
		if d > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%s:%s", strconv.Quote(t.meta.Dims[d]), strconv.FormatFloat(v, 'g', -1, 64))
	}
	b = append(b, "}}"...)
	t.event(b)
	b = fmt.Appendf(t.buf[:0], `{"name":"tasks","ph":"C","ts":%d,"pid":%d,"tid":0,"args":{"pending":%d,"running":%d}}`, at, schedulerPID, pending, running)
	t.event(b)
	t.buf = b
}

// Close ends the JSON document and flushes it.
func (t *Trace) Close() error {
	t.raw("\n]}\n")
	if t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}

func fsec(t traces.Time) string { return strconv.FormatFloat(traces.Seconds(t), 'f', -1, 64) }
