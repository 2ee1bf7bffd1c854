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
//   - each task attempt a complete event (ph "X", ts and dur) on its machine's or queue's
//     process, on the thread of the lowest task slot free when it started ("slot 1", "slot
//     2", ...: lanes.go), so slices never overlap on a thread; its args carry job, queue, wait,
//     outcome and the policy's reasons (cat: the queue);
//   - a preemption an instant event (ph "i", thread scope) at its end;
//   - on the "scheduler" process, counters (ph "C") of free capacity per dimension and of
//     pending and running tasks, written when they change, and an instant event for each
//     scheduling call that started or preempted something (summary.json counts all calls).
//
// Timestamps are microseconds on the trace's clock, the unit the format prescribes.
type Trace struct {
	w       *bufio.Writer
	meta    Meta
	pooled  bool
	queueOf map[string]int
	first   bool
	lanes   map[int]*lanes     // by pid
	running map[attemptKey]int // lane of each begun attempt
	last    []float64          // the counters last written: free per dimension, pending, running
	wrote   bool
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
	t := &Trace{w: bufio.NewWriterSize(w, 1<<16), meta: meta, pooled: meta.Pooled, first: true, queueOf: map[string]int{},
		lanes: map[int]*lanes{}, running: map[attemptKey]int{}}
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

// Attempt writes a task attempt's slice when it ends (and its preemption's instant), on the
// lane Begin gave it. It formats with strconv appends, not fmt: a recorded run writes an event
// per attempt.
func (t *Trace) Attempt(r *Row) {
	pid := t.track(r)
	tid := int64(t.release(pid, r) + 1)
	b := append(t.buf[:0], `{"name":"job `...)
	b = strconv.AppendInt(b, r.JobID, 10)
	b = append(b, " s"...)
	b = strconv.AppendInt(b, int64(r.Stage), 10)
	b = append(b, " t"...)
	b = strconv.AppendInt(b, int64(r.Task), 10)
	b = append(b, `","cat":`...)
	b = strconv.AppendQuote(b, r.Queue)
	b = append(b, `,"ph":"X","ts":`...)
	b = strconv.AppendInt(b, int64(r.Start), 10)
	b = append(b, `,"dur":`...)
	b = strconv.AppendInt(b, int64(r.End-r.Start), 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"args":{"job":`...)
	b = strconv.AppendInt(b, r.JobID, 10)
	b = append(b, `,"job_index":`...)
	b = strconv.AppendInt(b, int64(r.Job), 10)
	b = append(b, `,"queue":`...)
	b = strconv.AppendQuote(b, r.Queue)
	b = append(b, `,"machine":`...)
	b = strconv.AppendInt(b, int64(r.Machine), 10)
	b = append(b, `,"ready_s":`...)
	b = appendSec(b, r.Ready)
	b = append(b, `,"wait_s":`...)
	b = appendSec(b, r.Start-r.Ready)
	b = append(b, `,"outcome":`...)
	b = strconv.AppendQuote(b, r.Outcome)
	b = append(b, `,"slowed":`...)
	b = strconv.AppendBool(b, r.Slowed)
	b = append(b, `,"work_lost_s":`...)
	b = appendSec(b, r.WorkLost)
	b = append(b, `,"reason":`...)
	b = strconv.AppendQuote(b, r.Reason)
	b = append(b, `,"end_reason":`...)
	b = strconv.AppendQuote(b, r.EndWhy)
	b = append(b, "}}"...)
	t.event(b)
	if r.Outcome == "preempted" || r.Outcome == "killed" {
		b = fmt.Appendf(b[:0], `{"name":%s,"ph":"i","s":"t","ts":%d,"pid":%d,"tid":%d,"args":{"job":%d,"reason":%s}}`,
			strconv.Quote(r.Outcome+" job "+strconv.FormatInt(r.JobID, 10)), r.End, pid, tid, r.JobID, strconv.Quote(r.EndWhy))
		t.event(b)
	}
	t.buf = b
}

func appendSec(b []byte, t traces.Time) []byte {
	return strconv.AppendFloat(b, traces.Seconds(t), 'f', -1, 64)
}

// Call writes a scheduling call's instant event and the counters after it: free capacity per
// dimension (units) and pending and running tasks.
func (t *Trace) Call(at traces.Time, starts, preempts int, free []float64, pending, running int64) {
	if starts+preempts == 0 {
		t.Counters(at, free, pending, running)
		return
	}
	t.buf = fmt.Appendf(t.buf[:0], `{"name":"schedule","ph":"i","s":"p","ts":%d,"pid":%d,"tid":0,"args":{"starts":%d,"preempts":%d}}`, at, schedulerPID, starts, preempts)
	t.event(t.buf)
	t.Counters(at, free, pending, running)
}

// Counters writes the counters at time at: free capacity per dimension (units), pending and
// running tasks.
func (t *Trace) Counters(at traces.Time, free []float64, pending, running int64) {
	if t.unchanged(free, float64(pending), float64(running)) {
		return
	}
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

// unchanged reports whether the counters equal those last written, and remembers them.
func (t *Trace) unchanged(free []float64, pending, running float64) bool {
	same := t.wrote && len(t.last) == len(free)+2
	if same {
		for i, v := range free {
			same = same && t.last[i] == v
		}
		same = same && t.last[len(free)] == pending && t.last[len(free)+1] == running
	}
	t.last = append(append(t.last[:0], free...), pending, running)
	t.wrote = true
	return same
}
