package bpf

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Kind says whether a queue is latency-sensitive or throughput-sensitive.
type Kind uint8

// Queue kinds.
const (
	// TQ is a throughput-sensitive queue: backlogged batch jobs that care about long-term share.
	TQ Kind = iota
	// LQ is a latency-sensitive queue: a sequence of small jobs arriving in ON/OFF bursts.
	LQ
)

// String returns "lq" or "tq", the job classes the BPF workloads use.
func (k Kind) String() string {
	if k == LQ {
		return "lq"
	}
	return "tq"
}

type stageTake struct{ stage, n int32 }

// jobRec is the policy's record of one job, refreshed from the View when the job changes and
// advanced by the policy's own starts.
type jobRec struct {
	seen      bool
	arrived   bool
	done      bool
	inFIFO    bool
	queue     int32
	pending   int32 // pending runnable tasks, less those started by the plan being built
	running   int32
	runIdx    int32 // position+1 in its queue's running list
	alloc     traces.Vec
	remain    int64
	refreshed uint64
	touched   uint64
	takenAt   uint64
	taken     []stageTake
}

func (r *jobRec) takenOf(s int32, epoch uint64) int32 {
	if r.takenAt != epoch {
		return 0
	}
	for _, t := range r.taken {
		if t.stage == s {
			return t.n
		}
	}
	return 0
}

func (r *jobRec) addTaken(s, k int32, epoch uint64) {
	if r.takenAt != epoch {
		r.taken = r.taken[:0]
		r.takenAt = epoch
	}
	for i := range r.taken {
		if r.taken[i].stage == s {
			r.taken[i].n += k
			return
		}
	}
	r.taken = append(r.taken, stageTake{s, k})
}

// queue is the policy's record of one queue: its jobs in FIFO order, its allocation, and the
// per-class state (burst accounting for guaranteed queues, virtual time for M-BVT).
type queue struct {
	name  string
	idx   int
	seen  bool
	kind  Kind
	class Class // 0 until admitted
	spec  *queueSpec

	fifo    []policies.JobID // min-heap of jobs with pending tasks (lazy: stale entries popped)
	running []policies.JobID // jobs with running tasks
	active  int              // arrived, unfinished jobs
	alloc   traces.Vec
	remain  int64 // summed RemainingEstimate of its jobs

	arrivals []policies.JobID // jobs that arrived at the current scheduling point
	arrEpoch uint64
	blocked  uint64 // epoch in which it was blocked on free capacity

	// Guaranteed queues (H, S).
	contract   Contract
	derive     []uint8 // per contract shape: which burst parameters its jobs determine
	cycleStart traces.Time
	period     traces.Time
	cycleJobs  []policies.JobID // jobs that arrived in the current cycle
	derivedAt  uint64
	burst      int  // burst whose accounting is current, -1 before the first
	gActive    bool // a guarantee applies now
	capVec     traces.Vec
	onEnd      traces.Time             // end of the current burst's ON period, T(n)+t(n)
	budget     [traces.MaxDims]float64 // min(d·t, fair), units·µs
	charged    [traces.MaxDims]float64 // demand × estimate of tasks started under the guarantee
	fair       [traces.MaxDims]float64 // the cycle's long-term fair share C·P/N, units·µs
	consumed   [traces.MaxDims]float64 // demand × estimate of every task started in the cycle
	inCycle    bool                    // now lies in one of the contract's cycles
	elastic    limits                  // the cycle's limits as an elastic queue: fair, consumed

	// M-BVT.
	vt    float64 // actual virtual time A_i: ∫ dominant share dt, in seconds
	warpW float64 // the warp W_i of the current burst
	warp  float64 // progress left before the warp ends
}

// core is the bookkeeping and task-starting machinery the whole family shares.
type core struct {
	name string
	cfg  config

	ready    bool
	dims     int
	dimNames []string
	capacity traces.Vec
	queues   []*queue
	jobs     []jobRec
	epoch    uint64
	touched  []policies.JobID
	fresh    []int // queues seen for the first time at this scheduling point
	base     int   // len(p.Starts) when Schedule was called

	pl       placer
	reserve  traces.Vec // withheld from later phases for blocked guaranteed queues
	inflight bool       // preempted resources not yet released

	arrivalHook func(q *queue, j policies.JobID)
	explain     bool // the run records reasons (policies.Explains)
}

func (c *core) errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %s", c.name, fmt.Sprintf(format, a...))
}

// begin starts a scheduling point: setup on the first call, then the jobs the previous plan
// touched and the jobs the View reports as changed are re-read.
func (c *core) begin(v policies.View, p *policies.Plan) error {
	if v == nil || p == nil {
		return c.errorf("schedule needs a view and a plan")
	}
	c.epoch++
	c.base = len(p.Starts)
	c.explain = policies.Explains(v)
	c.fresh = c.fresh[:0]
	if !c.ready {
		if err := c.setup(v); err != nil {
			return err
		}
	} else if cp := v.Capacity(); cp != c.capacity {
		return c.errorf("cluster capacity changed during the run (%s to %s)", c.capacity.Format(c.dims), cp.Format(c.dims))
	}
	for _, j := range c.touched {
		if err := c.refresh(v, j); err != nil {
			return err
		}
	}
	c.touched = c.touched[:0]
	for _, j := range v.Changed() {
		if err := c.refresh(v, j); err != nil {
			return err
		}
	}
	return nil
}

func (c *core) setup(v policies.View) error {
	c.capacity = v.Capacity()
	if c.capacity.AnyNegative() {
		return c.errorf("negative cluster capacity %s", c.capacity.Format(traces.MaxDims))
	}
	c.dimNames = append(c.dimNames[:0], v.Dims()...)
	c.dims = min(max(len(c.dimNames), 1), traces.MaxDims)
	if v.NumMachines() < 1 {
		return c.errorf("view has %d machines", v.NumMachines())
	}
	if err := c.loadQueues(v); err != nil {
		return err
	}
	c.ready = true
	return nil
}

// loadQueues learns queue names the View has added since the last call.
func (c *core) loadQueues(v policies.View) error {
	names := v.Queues()
	for i := len(c.queues); i < len(names); i++ {
		q := &queue{name: names[i], idx: i, burst: -1}
		q.spec = c.specFor(names[i])
		c.queues = append(c.queues, q)
	}
	return nil
}

// specFor returns the declaration of a queue: by its exact name, else by a name equal up to
// case (configuration keys are lower-cased on their way to the policy), the first such in
// sorted order.
func (c *core) specFor(name string) *queueSpec {
	if s, ok := c.cfg.queues[name]; ok {
		return s
	}
	for _, k := range slices.Sorted(maps.Keys(c.cfg.queues)) {
		if strings.EqualFold(k, name) {
			return c.cfg.queues[k]
		}
	}
	return nil
}

func (c *core) growJobs(j policies.JobID) {
	n := max(int(j)+1, 2*len(c.jobs), 64)
	c.jobs = append(c.jobs, make([]jobRec, n-len(c.jobs))...)
}

// refresh re-reads job j from the View and updates its queue's aggregates and FIFO.
func (c *core) refresh(v policies.View, j policies.JobID) error {
	if j < 0 {
		return c.errorf("the view reported job %d", j)
	}
	if int(j) >= len(c.jobs) {
		c.growJobs(j)
	}
	r := &c.jobs[j]
	if r.refreshed == c.epoch {
		return nil
	}
	r.refreshed = c.epoch
	js := v.JobState(j)
	if !r.seen {
		info := v.Job(j)
		if info == nil {
			return c.errorf("the view has no job %d", j)
		}
		if info.Queue < 0 || info.Queue >= len(c.queues) {
			if err := c.loadQueues(v); err != nil {
				return err
			}
			if info.Queue < 0 || info.Queue >= len(c.queues) {
				return c.errorf("job %d is in queue %d; the view has %d queues", j, info.Queue, len(c.queues))
			}
		}
		r.seen = true
		r.queue = int32(info.Queue)
		q := c.queues[info.Queue]
		if !q.seen {
			q.seen = true
			q.kind = kindOf(q.spec, info.Class)
			c.fresh = append(c.fresh, q.idx)
		}
	}
	q := c.queues[r.queue]
	if js.Arrived && !r.arrived {
		r.arrived = true
		if q.arrEpoch != c.epoch {
			q.arrEpoch = c.epoch
			q.arrivals = q.arrivals[:0]
		}
		q.arrivals = append(q.arrivals, j)
		if c.arrivalHook != nil {
			c.arrivalHook(q, j)
		}
		q.active++
	}
	if js.Done && !r.done {
		r.done = true
		if r.arrived {
			q.active--
		}
	}
	c.setRunning(q, j, r, js.Running, js.Alloc)
	q.remain += js.RemainingEstimate - r.remain
	r.remain = js.RemainingEstimate
	r.pending = js.Pending
	r.takenAt = 0
	if r.arrived && !r.done && r.pending > 0 && !r.inFIFO {
		r.inFIFO = true
		heapPush(&q.fifo, j)
	}
	if r.done {
		r.taken = nil
	}
	return nil
}

// kindOf decides a queue's kind: the declared class, else the class of its first job.
func kindOf(s *queueSpec, jobClass string) Kind {
	if s != nil && s.class != "" {
		if s.class == "lq" {
			return LQ
		}
		return TQ
	}
	if strings.EqualFold(jobClass, "lq") {
		return LQ
	}
	return TQ
}

// setRunning records a job's running tasks and allocation, keeping its queue's sums and
// running list in step.
func (c *core) setRunning(q *queue, j policies.JobID, r *jobRec, running int32, alloc traces.Vec) {
	q.alloc = q.alloc.Add(alloc).Sub(r.alloc)
	switch {
	case r.running <= 0 && running > 0:
		q.running = append(q.running, j)
		r.runIdx = int32(len(q.running))
	case r.running > 0 && running <= 0 && r.runIdx > 0:
		at := int(r.runIdx - 1)
		last := len(q.running) - 1
		if at <= last && q.running[at] == j {
			if at != last {
				moved := q.running[last]
				q.running[at] = moved
				c.jobs[moved].runIdx = int32(at + 1)
			}
			q.running = q.running[:last]
		}
		r.runIdx = 0
	}
	r.running, r.alloc = running, alloc
}

// head returns the first job of q's FIFO that still has pending tasks, dropping stale entries.
func (c *core) head(q *queue) (policies.JobID, bool) {
	for len(q.fifo) > 0 {
		j := q.fifo[0]
		r := &c.jobs[j]
		if r.pending > 0 && !r.done {
			return j, true
		}
		heapPop(&q.fifo)
		r.inFIFO = false
	}
	return 0, false
}

// share is q's dominant share of the cluster.
func (c *core) share(q *queue) float64 { return q.alloc.DominantShare(c.capacity) }

// limits bound the tasks a queue may start in one phase.
type limits struct {
	capOn   bool
	capVec  traces.Vec               // the queue's allocation may grow up to this
	budget  *[traces.MaxDims]float64 // with charged: consumption budget (nil: none)
	charged *[traces.MaxDims]float64
	also    *[traces.MaxDims]float64 // charged too, without a budget (nil: none)
	pool    *traces.Vec              // shared by a class (nil: none)
}

// noLimits is the limits of a queue served without bounds.
var noLimits limits

// allow returns how many tasks of demand d and estimate est queue q may start under lim, at
// most left.
func (c *core) allow(q *queue, lim *limits, d traces.Vec, est traces.Time, left int32) int32 {
	k := int64(left)
	if lim.capOn {
		room := lim.capVec.Sub(q.alloc)
		kc := int64(math.MaxInt64)
		for i := 0; i < c.dims; i++ {
			if d[i] > 0 {
				kc = min(kc, max(room[i], 0)/d[i])
			}
		}
		if kc == 0 && q.alloc.IsZero() {
			kc = 1 // a task larger than the whole guarantee still runs alone
		}
		k = min(k, kc)
	}
	if lim.budget != nil {
		for i := 0; i < c.dims; i++ {
			b := lim.budget[i]
			if b <= 0 {
				continue
			}
			rem := b - lim.charged[i]
			if rem <= 0 {
				return 0
			}
			if per := float64(d[i]) * float64(est); per > 0 {
				k = min(k, int64(math.Ceil(rem/per)))
			}
		}
	}
	if lim.pool != nil {
		for i := 0; i < c.dims; i++ {
			if d[i] > 0 {
				k = min(k, max(lim.pool[i], 0)/d[i])
			}
		}
	}
	return int32(max(k, 0))
}

// serve starts tasks of q's jobs in FIFO order, lowest runnable stage first, at most max (0:
// as many as lim allows and fit). A stage whose task fits nowhere is passed over for the job's
// next runnable stage; a job with pending tasks none of which fits blocks the queue. It returns
// the number started, whether q ended blocked on free capacity, and then the demand of the
// first task that did not fit.
func (c *core) serve(v policies.View, p *policies.Plan, q *queue, lim *limits, maxStarts int32) (int32, bool, traces.Vec, error) {
	var started int32
	for {
		j, ok := c.head(q)
		if !ok {
			return started, false, traces.Vec{}, nil
		}
		r := &c.jobs[j]
		info := v.Job(j)
		if info == nil {
			return started, false, traces.Vec{}, c.errorf("the view has no job %d", j)
		}
		var need traces.Vec
		blocked := false
		for _, s := range v.RunnableStages(j) {
			if s < 0 || int(s) >= len(info.Stages) {
				return started, false, traces.Vec{}, c.errorf("job %d: runnable stage %d out of range (%d stages)", j, s, len(info.Stages))
			}
			left := v.StageState(j, s).Pending - r.takenOf(s, c.epoch)
			if left <= 0 {
				continue
			}
			st := &info.Stages[s]
			want := c.allow(q, lim, st.Demand, st.Estimate, left)
			if want == 0 {
				return started, false, traces.Vec{}, nil // the phase's limit is reached
			}
			if maxStarts > 0 {
				want = min(want, maxStarts-started)
			}
			for want > 0 {
				m, ok := c.pl.find(st.Demand, c.reserve)
				if !ok {
					if !blocked {
						blocked, need = true, st.Demand
					}
					break
				}
				k := c.pl.count(m, st.Demand, c.reserve, want)
				c.emit(p, q, j, r, s, m, k, st, lim)
				want -= k
				started += k
				if maxStarts > 0 && started >= maxStarts {
					return started, false, traces.Vec{}, nil
				}
			}
		}
		if r.pending > 0 {
			if !blocked {
				// Pending tasks exist but none is runnable in the View: nothing to do.
				return started, false, traces.Vec{}, nil
			}
			q.blocked = c.epoch
			return started, true, need, nil
		}
	}
}

// emit appends a start (merged into the previous one when it names the same job, stage and
// machine) and accounts for it.
func (c *core) emit(p *policies.Plan, q *queue, j policies.JobID, r *jobRec, s int32, m int, k int32, st *policies.StageInfo, lim *limits) {
	if n := len(p.Starts); n > c.base {
		if last := &p.Starts[n-1]; last.Job == j && last.Stage == s && int(last.Machine) == m {
			last.Count += k
			goto account
		}
	}
	if c.explain {
		p.StartBecause(policies.Start{Job: j, Stage: s, Machine: int32(m), Count: k}, startReason(q))
	} else {
		p.Starts = append(p.Starts, policies.Start{Job: j, Stage: s, Machine: int32(m), Count: k})
	}
account:
	use := st.Demand.Scale(int64(k))
	c.pl.take(m, use)
	r.addTaken(s, k, c.epoch)
	r.pending -= k
	if r.touched != c.epoch {
		r.touched = c.epoch
		c.touched = append(c.touched, j)
	}
	c.setRunning(q, j, r, r.running+k, r.alloc.Add(use))
	if lim == nil {
		return
	}
	for _, acc := range [2]*[traces.MaxDims]float64{lim.charged, lim.also} {
		if acc != nil {
			for i := 0; i < c.dims; i++ {
				acc[i] += float64(use[i]) * float64(st.Estimate)
			}
		}
	}
	if lim.pool != nil {
		*lim.pool = lim.pool.Sub(use)
	}
}

// block withholds, from every later phase of this scheduling point, the part of need that the
// free capacity can already cover: a blocked guaranteed queue keeps what is freed for it.
func (c *core) block(need traces.Vec) {
	avail := c.pl.total.Sub(c.reserve)
	for i := 0; i < c.dims; i++ {
		c.reserve[i] += min(max(avail[i], 0), need[i])
	}
}

// fillDRF shares among the given queues by progressive filling on dominant share: the queue
// with the smallest share (ties: lower index) starts one task, and is re-keyed. limFor gives a
// queue's limits (nil: none); a queue at its limit leaves the filling. It reports whether it
// stopped at a queue blocked on free capacity (which, without backfill, ends the scheduling
// point for every lower class).
func (c *core) fillDRF(v policies.View, p *policies.Plan, qs []*queue, h *shareHeap, limFor func(*queue) *limits) (bool, error) {
	h.reset()
	for _, q := range qs {
		if _, ok := c.head(q); ok {
			h.push(q, c.share(q))
		}
	}
	stopped := false
	for h.len() > 0 {
		q := h.peek()
		lim := &noLimits
		if limFor != nil {
			if l := limFor(q); l != nil {
				lim = l
			}
		}
		n, blocked, _, err := c.serve(v, p, q, lim, 1)
		if err != nil {
			return stopped, err
		}
		switch {
		case n > 0:
			h.fix(c.share(q))
		case blocked:
			stopped = true
			if !c.cfg.backfill {
				return true, nil
			}
			h.pop()
		default:
			h.pop()
		}
	}
	return stopped, nil
}

// shareHeap orders queues by (dominant share, index).
type shareHeap struct {
	qs   []*queue
	keys []float64
}

func (h *shareHeap) reset()       { h.qs, h.keys = h.qs[:0], h.keys[:0] }
func (h *shareHeap) len() int     { return len(h.qs) }
func (h *shareHeap) peek() *queue { return h.qs[0] }
func (h *shareHeap) less(a, b int) bool {
	if h.keys[a] != h.keys[b] {
		return h.keys[a] < h.keys[b]
	}
	return h.qs[a].idx < h.qs[b].idx
}
func (h *shareHeap) swap(a, b int) {
	h.qs[a], h.qs[b] = h.qs[b], h.qs[a]
	h.keys[a], h.keys[b] = h.keys[b], h.keys[a]
}

func (h *shareHeap) push(q *queue, k float64) {
	h.qs = append(h.qs, q)
	h.keys = append(h.keys, k)
	for i := len(h.qs) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

// fix re-keys the top element.
func (h *shareHeap) fix(k float64) {
	h.keys[0] = k
	h.down(0)
}

func (h *shareHeap) pop() {
	last := len(h.qs) - 1
	h.swap(0, last)
	h.qs, h.keys = h.qs[:last], h.keys[:last]
	if last > 0 {
		h.down(0)
	}
}

func (h *shareHeap) down(i int) {
	n := len(h.qs)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

// heapPush and heapPop keep a min-heap of JobIDs (a queue's FIFO: JobIDs follow submit order).
func heapPush(h *[]policies.JobID, j policies.JobID) {
	*h = append(*h, j)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func heapPop(h *[]policies.JobID) {
	s := *h
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r] < s[l] {
			m = r
		}
		if s[i] <= s[m] {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
}
