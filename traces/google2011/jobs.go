package google2011

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/bits"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// ResubmitGrace is how long after a job's (or task's) terminal event the scanners wait for a
// resubmission before they report the record complete. In the full month of job_events one job is
// resubmitted, 208 s after it failed; an hour of trace time covers that with room to spare while
// keeping only the last hour's finished jobs in memory.
const ResubmitGrace = traces.Hour

// JobRecord is what the trace says about one job.
//
// Times are trace microseconds: 0 (BeforeWindow) for events before the trace window, AfterWindow
// for events after it, and -1 when the job has no such event in the input.
type JobRecord struct {
	ID int64
	// Submit is the job's first SUBMIT; FirstSchedule its first SCHEDULE.
	Submit, FirstSchedule traces.Time
	// End is the time of the job's last terminal event (EVICT, FAIL, FINISH, KILL, LOST), or -1
	// when the job was still pending or running when the input ended (also after a resubmission
	// that did not end).
	End traces.Time
	// FinalState is the type of the job's last terminal event, or, for a job without one (End ==
	// -1), the type of its last event (SUBMIT, SCHEDULE, UPDATE_*).
	FinalState EventType
	// Runtime is JamaisVu's job runtime, first SCHEDULE to last FINISH (End - FirstSchedule), when
	// the job ended with FINISH and both events are inside the trace window; -1 otherwise.
	Runtime traces.Time
	// Tasks is the number of distinct task indices seen in task_events (0 without task_events).
	Tasks int32
	// CPURequest and MemRequest are the mean over the job's tasks of each task's first known
	// request (normalized to the largest machine), NaN when unknown.
	CPURequest, MemRequest float64
	// User, JobName and LogicalJobName are the trace's (hashed) strings; empty when missing.
	User, JobName, LogicalJobName string
	// SchedClass is the scheduling class 0-3 (3 most latency-sensitive), -1 when missing.
	SchedClass int8
	// Priority is the highest task priority seen in task_events (0-11), -1 when unknown.
	Priority int8
	// Resubmissions counts SUBMIT events after the first.
	Resubmissions int32
}

// ScanStats counts what the job scanner saw and skipped.
type ScanStats struct {
	JobEventFiles, TaskEventFiles int   // input files
	GzipBytes                     int64 // compressed bytes of the gzip input files
	JobEvents, TaskEvents         int64 // lines
	Records                       int64 // JobRecords reported
	OpenAtEnd                     int64 // records of jobs without a terminal event at the end of the input
	Resubmissions                 int64 // SUBMITs after a job's first
	// LateJobEvents are non-SUBMIT job events for a job already reported (they are ignored).
	LateJobEvents int64
	// LateTaskEvents are task events for a job already reported (they are ignored).
	LateTaskEvents int64
	// OrphanJobs are jobs seen only in task_events (no job event at all); they are not reported.
	OrphanJobs int64
	// JobEventsAfterTasks is set when a task-level scan stopped reading job_events at the end of
	// task_events (the rest could not change any task).
	JobEventsAfterTasks bool
}

// taskSet records the life state of each task index of a job (unseen until its first event)
// and which had a request counted.
type taskSet struct {
	lives []life
	req   []uint64
	big   map[int32]uint8 // indices ≥ bitsetLimit: bits 0-1 life, bit 2 request counted
}

const bitsetLimit = 1 << 20

// life returns the state of task index.
func (s *taskSet) life(index int32) life {
	if index >= bitsetLimit {
		return life(s.big[index] & 3)
	}
	if int(index) < len(s.lives) {
		return s.lives[index]
	}
	return unseen
}

// add sets the state of task index (and, if withReq, marks its request counted) and reports
// whether its request had not been counted before.
func (s *taskSet) add(index int32, l life, withReq bool) (reqNew bool) {
	if index >= bitsetLimit {
		if s.big == nil {
			s.big = make(map[int32]uint8)
		}
		v := s.big[index]
		reqNew = withReq && v&4 == 0
		v = v&^3 | uint8(l)
		if withReq {
			v |= 4
		}
		s.big[index] = v
		return
	}
	for len(s.lives) <= int(index) {
		s.lives = append(s.lives, unseen)
	}
	s.lives[index] = l
	w, b := int(index>>6), uint64(1)<<(index&63)
	for len(s.req) <= w {
		s.req = append(s.req, 0)
	}
	if withReq && s.req[w]&b == 0 {
		reqNew = true
		s.req[w] |= b
	}
	return
}

func (s *taskSet) reset() {
	s.lives, s.req = s.lives[:0], s.req[:0]
	s.big = nil
}

type jobState struct {
	rec            JobRecord
	seq            uint64 // creation order, for a deterministic end-of-input order
	gen            uint32 // bumped when the job (re)enters the closing queue
	closing        bool
	reported       bool // kept as a tombstone for ResubmitGrace, to recognize late events
	hasJobEvent    bool
	firstSeen      traces.Time // time of the job's first event in the input
	tasks          taskSet
	cpuSum, memSum float64
	reqN           int32
	life           life      // the job's state in its life cycle (job_events only)
	runs           taskTable // task-level scans only: every task's last run
}

type closingEntry struct {
	st  *jobState
	gen uint32
	at  traces.Time // report once an event later than this arrives
}

type tombstone struct {
	st *jobState
	at traces.Time // forget the job once an event later than this arrives
}

// fifo is a queue that reuses its backing array.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) push(x T)  { q.items = append(q.items, x) }
func (q *fifo[T]) len() int  { return len(q.items) - q.head }
func (q *fifo[T]) front() *T { return &q.items[q.head] }
func (q *fifo[T]) pop() {
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head > 1024 && q.head*2 > len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
}

// jobScanner holds the state of ScanJobs and of the task-level scan.
type jobScanner struct {
	emit           func(*jobState) error // called with each job's complete state
	stats          *ScanStats
	open           idTable
	closing        fifo[closingEntry]
	tombs          fifo[tombstone]
	free           []*jobState
	seq            uint64
	users, logical strCache

	// taskLevel keeps every task's last run (jobState.runs) instead of the per-job task counts
	// and mean requests, and ends the scan with the task_events: job events later than the last
	// task event cannot change a task.
	taskLevel bool
	lastTask  traces.Time          // time of the last task event before AfterWindow
	machines  map[int64]struct{}   // task-level: machines that tasks were scheduled on
	initial   *initialState        // task-level: the running state at the window's start (initial.go)
	faults    map[int64][]rawFault // task-level: EVICT, FAIL, KILL of running tasks by job ID (faults.go)

	// jobs and tasks are the readers of the scan, which locate errors in the events they read.
	jobs, tasks *lineReader
}

// ScanJobs streams the job records of src's job_events, merged in time order with its
// task_events when given (they fill Tasks, CPURequest, MemRequest and Priority). fn is called
// once per job when its record is complete — ResubmitGrace after its terminal event, in that
// order — and, at the end of the input, for the jobs still open, in order of their first event
// (End = -1, FinalState = the last event's type, Runtime = -1). The record passed to fn is reused
// afterwards: copy it to keep it. Jobs seen only in task_events are not reported. Memory holds
// the jobs alive at a time, not the whole input. An error from fn stops the scan and is returned.
//
// Events in an order the trace's semantics forbid are *ParseErrors at the event (see the package
// documentation, "Event order"): a FINISH of a job or task never scheduled, a second SUBMIT or
// SCHEDULE without an end in between, any event but SUBMIT after an end, a job resubmitted after
// its FINISH, and, in an input that begins at the trace's beginning, a history that does not
// start with SUBMIT. Events the trace marks reconstructed (missing_info set) are exempt.
func ScanJobs(src Source, fn func(*JobRecord) error) error {
	var st ScanStats
	return scanJobs(src, fn, &st)
}

func scanJobs(src Source, fn func(*JobRecord) error, stats *ScanStats) error {
	jobFiles, err := expand(src.JobEvents)
	if err != nil {
		return err
	}
	taskFiles, err := expand(src.TaskEvents)
	if err != nil {
		return err
	}
	return scanJobFiles(jobFiles, taskFiles, nil, fn, stats)
}

// scanJobFiles is ScanJobs over explicit file lists; opener (nil: os.Open) lets tests and fuzzing
// supply content without files.
func scanJobFiles(jobFiles, taskFiles []string, opener func(string) (io.ReadCloser, error), fn func(*JobRecord) error, stats *ScanStats) error {
	s := &jobScanner{emit: func(st *jobState) error { return fn(&st.rec) }, stats: stats}
	return s.scan(jobFiles, taskFiles, opener)
}

// scan merges the job and task events of the files in time order.
func (s *jobScanner) scan(jobFiles, taskFiles []string, opener func(string) (io.ReadCloser, error)) error {
	stats := s.stats
	if len(jobFiles) == 0 {
		return errors.New("google2011: no job_events input")
	}
	jobs := newLineReader(JobEventsTable, jobEventNames[:], jobFiles)
	defer jobs.close()
	var tasks *lineReader
	if len(taskFiles) > 0 {
		tasks = newLineReader(TaskEventsTable, taskEventNames[:], taskFiles)
		defer tasks.close()
	}
	if opener != nil {
		jobs.opener = opener
		if tasks != nil {
			tasks.opener = opener
		}
	}
	stats.JobEventFiles, stats.TaskEventFiles = len(jobFiles), len(taskFiles)
	s.jobs, s.tasks = jobs, tasks
	err := s.run(jobs, tasks)
	stats.JobEvents = jobs.allLines
	stats.GzipBytes = jobs.gzBytes
	if tasks != nil {
		stats.TaskEvents = tasks.allLines
		stats.GzipBytes += tasks.gzBytes
	}
	return err
}

func (s *jobScanner) run(jobs, tasks *lineReader) error {
	var je jobEvent
	var te taskEvent
	jok, tok := true, tasks != nil
	advanceJob := func() error {
		f, err := jobs.next()
		if err == io.EOF {
			jok = false
			return nil
		}
		if err != nil {
			return err
		}
		return je.parse(jobs, f)
	}
	advanceTask := func() error {
		f, err := tasks.next()
		if err == io.EOF {
			tok = false
			return nil
		}
		if err != nil {
			return err
		}
		return te.parse(tasks, f)
	}
	if err := advanceJob(); err != nil {
		return err
	}
	if tok {
		if err := advanceTask(); err != nil {
			return err
		}
	}
	for jok || tok {
		if s.taskLevel && !tok && je.time > s.lastTask {
			s.stats.JobEventsAfterTasks = true
			break // the rest of job_events lies beyond the task_events
		}
		// Task events go first on ties, so a job's terminal event sees its tasks' last events.
		if jok && (!tok || je.time < te.time) {
			if err := s.expire(je.time); err != nil {
				return err
			}
			if err := s.jobEvent(&je); err != nil {
				return err
			}
			if err := advanceJob(); err != nil {
				return err
			}
		} else {
			if err := s.expire(te.time); err != nil {
				return err
			}
			if te.time != AfterWindow {
				s.lastTask = te.time
			}
			if err := s.taskEvent(&te); err != nil {
				return err
			}
			if err := advanceTask(); err != nil {
				return err
			}
		}
	}
	return s.finish()
}

// expire reports the closing jobs whose grace period ended before time t.
func (s *jobScanner) expire(t traces.Time) error {
	for s.tombs.len() > 0 && s.tombs.front().at < t {
		st := s.tombs.front().st
		s.tombs.pop()
		if s.open.get(st.rec.ID) == st {
			s.open.del(st.rec.ID)
		}
		s.recycle(st)
	}
	for s.closing.len() > 0 && s.closing.front().at < t {
		e := *s.closing.front()
		s.closing.pop()
		if !e.st.closing || e.st.gen != e.gen {
			continue // reopened by a resubmission
		}
		if err := s.report(e.st, t); err != nil {
			return err
		}
	}
	return nil
}

// report completes st's record and calls fn. A job that ended stays in the map as a tombstone for
// ResubmitGrace, so late events for it are recognized; one still open is dropped.
func (s *jobScanner) report(st *jobState, now traces.Time) error {
	if st.closing {
		st.reported = true
		s.tombs.push(tombstone{st: st, at: satAdd(now, ResubmitGrace)})
	} else {
		s.open.del(st.rec.ID)
		defer s.recycle(st)
	}
	if !st.hasJobEvent {
		s.stats.OrphanJobs++
		return nil
	}
	if !st.closing {
		s.stats.OpenAtEnd++
	}
	r := &st.rec
	r.Runtime = -1
	if r.FinalState == Finish && r.End != -1 && r.FirstSchedule > BeforeWindow && r.End != AfterWindow && r.End >= r.FirstSchedule {
		r.Runtime = r.End - r.FirstSchedule
	}
	if st.reqN > 0 {
		r.CPURequest = st.cpuSum / float64(st.reqN)
		r.MemRequest = st.memSum / float64(st.reqN)
	}
	s.stats.Records++
	return s.emit(st)
}

func satAdd(a, b traces.Time) traces.Time {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func (s *jobScanner) recycle(st *jobState) {
	st.tasks.reset()
	st.runs.reset()
	s.free = append(s.free, st)
}

func (s *jobScanner) state(id int64, now traces.Time) *jobState {
	var st *jobState
	if n := len(s.free); n > 0 {
		st, s.free = s.free[n-1], s.free[:n-1]
	} else {
		st = &jobState{}
	}
	s.seq++
	// Field by field, keeping st.tasks' storage: whole-struct assignments of these pointerful
	// structs run bulk write barriers while the collector is marking.
	st.seq, st.gen, st.closing, st.reported, st.hasJobEvent, st.firstSeen, st.life = s.seq, 0, false, false, false, now, unseen
	st.cpuSum, st.memSum, st.reqN = 0, 0, 0
	r := &st.rec
	r.ID, r.Submit, r.FirstSchedule, r.End, r.FinalState, r.Runtime = id, -1, -1, -1, Submit, -1
	r.Tasks, r.CPURequest, r.MemRequest = 0, math.NaN(), math.NaN()
	r.User, r.JobName, r.LogicalJobName = "", "", ""
	r.SchedClass, r.Priority, r.Resubmissions = -1, -1, 0
	s.open.put(id, st)
	return st
}

// finish reports everything still held at the end of the input.
func (s *jobScanner) finish() error {
	if err := s.expire(math.MaxInt64); err != nil {
		return err
	}
	// expire(MaxInt64) reports entries due before MaxInt64; what remains is due at MaxInt64.
	for s.closing.len() > 0 {
		e := *s.closing.front()
		s.closing.pop()
		if e.st.closing && e.st.gen == e.gen {
			if err := s.report(e.st, math.MaxInt64); err != nil {
				return err
			}
		}
	}
	rest := make([]*jobState, 0, s.open.len())
	s.open.each(func(st *jobState) {
		if !st.reported {
			rest = append(rest, st)
		}
	})
	slices.SortFunc(rest, func(a, b *jobState) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	for _, st := range rest {
		if err := s.report(st, math.MaxInt64); err != nil {
			return err
		}
	}
	return nil
}

// jobEvent is one parsed job_events line; strings alias the reader's buffer.
type jobEvent struct {
	time                traces.Time
	jobID               int64
	typ                 EventType
	schedClass          int8
	missingInfo         int8
	user, name, logical []byte
}

func (e *jobEvent) parse(r *lineReader, f [][]byte) error {
	var err error
	if e.time, err = r.time(f, 0); err != nil {
		return err
	}
	mi, err := r.small(f, 1, 0, 2, false)
	if err != nil {
		return err
	}
	e.missingInfo = int8(mi)
	if e.jobID, err = r.uint(f, 2, true); err != nil {
		return err
	}
	if e.typ, err = r.eventType(f, 3); err != nil {
		return err
	}
	sc, err := r.small(f, 5, 0, 3, false)
	if err != nil {
		return err
	}
	e.schedClass = int8(sc)
	e.user, e.name, e.logical = f[4], f[6], f[7]
	return nil
}

// jobEvent applies a job event. An event the job's life cycle forbids (see misordered) is an
// error, unless the trace marks it reconstructed; so is a SUBMIT after the job's FINISH: all 500
// parts of job_events resubmit none of their 385,582 finished jobs (their one resubmission
// follows a FAIL).
func (s *jobScanner) jobEvent(e *jobEvent) error {
	st := s.open.get(e.jobID)
	if !reconstructed(e.missingInfo) {
		l, why := unseen, ""
		if st != nil {
			l = st.life
		}
		if why = misordered(l, e.typ, s.jobs.fromStart()); why == "" && l == dead && e.typ == Submit && st.rec.FinalState == Finish {
			why = "after its FINISH: a finished job is not resubmitted (none of the trace's 385,582 is)"
		}
		if why != "" {
			return orderErr(s.jobs, 3, e.typ, jobWhat(e.jobID), why)
		}
	}
	if st != nil && st.reported {
		if e.typ != Submit {
			s.stats.LateJobEvents++ // a reconstructed event
			return nil
		}
		st = nil // a resubmission after the record was reported starts a new record
	}
	if st == nil {
		st = s.state(e.jobID, e.time)
	}
	st.hasJobEvent = true
	r := &st.rec
	if r.User == "" && len(e.user) > 0 {
		r.User = s.users.get(e.user)
	}
	// Job names are mostly distinct (184k among the month's 672k jobs): caching them would cost
	// more than it saves. Users (933) and logical names (40k) repeat.
	if r.JobName == "" && len(e.name) > 0 {
		r.JobName = string(e.name)
	}
	if r.LogicalJobName == "" && len(e.logical) > 0 {
		r.LogicalJobName = s.logical.get(e.logical)
	}
	if e.schedClass >= 0 {
		r.SchedClass = e.schedClass
	}
	switch {
	case e.typ == Submit:
		if r.Submit == -1 {
			r.Submit = e.time
		} else {
			r.Resubmissions++
			s.stats.Resubmissions++
		}
		if st.closing {
			st.closing = false
			r.End = -1
		}
		r.FinalState = Submit
	case e.typ == Schedule:
		if r.FirstSchedule == -1 {
			r.FirstSchedule = e.time
		}
		if !st.closing {
			r.FinalState = Schedule
		}
	case e.typ.Terminal():
		r.End, r.FinalState = e.time, e.typ
		st.closing = true
		st.gen++
		s.closing.push(closingEntry{st: st, gen: st.gen, at: satAdd(e.time, ResubmitGrace)})
	default: // UPDATE_PENDING, UPDATE_RUNNING
		if !st.closing {
			r.FinalState = e.typ
		}
	}
	st.life = after(e.typ)
	return nil
}

// taskEvent applies a task event to its job. A task event for a job already reported is
// counted and dropped (its job ended more than ResubmitGrace before); one that the task's life
// cycle forbids (see misordered) is an error unless the trace marks it reconstructed.
func (s *jobScanner) taskEvent(e *taskEvent) error {
	st := s.open.get(e.jobID)
	if st != nil && st.reported {
		s.stats.LateTaskEvents++
		return nil
	}
	if st == nil {
		st = s.state(e.jobID, e.time)
	}
	if st.rec.User == "" && len(e.user) > 0 {
		st.rec.User = s.users.get(e.user)
	}
	if s.taskLevel {
		return s.taskRunEvent(st, e)
	}
	l := st.tasks.life(e.index)
	if err := s.checkTask(l, e); err != nil {
		return err
	}
	withReq := !math.IsNaN(e.ev.CPURequest) && !math.IsNaN(e.ev.MemRequest)
	reqNew := st.tasks.add(e.index, after(e.ev.Type), withReq)
	if l == unseen {
		st.rec.Tasks++
	}
	if reqNew {
		st.cpuSum += e.ev.CPURequest
		st.memSum += e.ev.MemRequest
		st.reqN++
	}
	if e.ev.Priority > st.rec.Priority {
		st.rec.Priority = e.ev.Priority
	}
	return nil
}

// checkTask returns the error of a task event its task's life cycle (in state l) forbids.
func (s *jobScanner) checkTask(l life, e *taskEvent) error {
	if reconstructed(e.ev.MissingInfo) {
		return nil
	}
	if why := misordered(l, e.ev.Type, s.tasks.fromStart()); why != "" {
		return orderErr(s.tasks, 5, e.ev.Type, taskWhat(e.jobID, e.index), why)
	}
	return nil
}

// strCache shares the strings of repeated byte strings (user and job names repeat across
// jobs). It is a direct-mapped cache rather than a map: constant memory and a single probe, at the
// price of sometimes allocating a string it has seen before. The slot comes from a cheap hash of
// the length and the first and last eight bytes (the trace's strings are base64 hashes, so those
// bytes are well mixed); a poor spread only costs allocations, never correctness.
type strCache struct {
	slots []strSlot
}

// strSlot keeps the hash beside the string, so most mismatches are found without reading the
// string's bytes (a cache miss, wherever in the heap they are).
type strSlot struct {
	h uint64
	s string
}

const strCacheBits = 14

func (c *strCache) get(b []byte) string {
	if c.slots == nil {
		c.slots = make([]strSlot, 1<<strCacheBits)
	}
	h := uint64(len(b))
	if n := len(b); n >= 8 {
		h ^= binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 31)
	} else {
		for _, c := range b {
			h = h<<8 | uint64(c)
		}
	}
	h ^= h >> 29
	h *= 0x9E3779B97F4A7C15
	slot := &c.slots[h>>(64-strCacheBits)]
	if slot.h == h && slot.s == string(b) {
		return slot.s
	}
	s := string(b)
	slot.h, slot.s = h, s
	return s
}
