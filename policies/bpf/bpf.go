package bpf

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Registry names of the family.
const (
	BPFName  = "bpf"
	NBPFName = "nbpf"
	MBVTName = "mbvt"
)

// Admission is the record of one queue's admission, as BPF reports it (Admissions, Report).
type Admission struct {
	Queue  string // queue name
	Index  int    // index into View.Queues
	Kind   Kind
	Class  Class
	Failed Condition // the condition that decided the class (CondNone: all held)
	Reason string    // one line: which conditions held or failed, with the numbers
	Time   traces.Time
	// Queues is |H|+|S|+|E|+1 when the decision was made.
	Queues int
	// Declared reports that the burst parameters came (at least in part) from
	// policy.params.queues rather than entirely from the queue's first jobs.
	Declared bool
	// The LQ's first burst and its number of bursts (zero for TQs and LQs whose parameters are
	// unknown).
	Start    traces.Time
	Duration traces.Time
	Period   traces.Time
	Demand   traces.Vec
	Bursts   int
}

// BPF is Bounded Priority Fairness (and, without the soft class, N-BPF): queue admission by the
// paper's Algorithm 1, then allocation to hard, soft and elastic queues in that order.
type BPF struct {
	c     core
	ac    *AdmissionControl
	steps []step
	recs  []Admission

	hard, soft, elastic, rejected []*queue
	buf, order                    []*queue
	heap                          shareHeap
	victims                       []victim
	tally                         []traces.Vec
	tallyStamp                    []uint64
	tallyN                        uint64
}

var (
	_ policies.Policy   = (*BPF)(nil)
	_ policies.Reporter = (*BPF)(nil)
)

// NewBPF builds a BPF policy. Params: queues, period_s, horizon_s, preempt, rejected (see the
// package documentation); Backfill lets elastic queues skip a blocked queue.
func NewBPF(o policies.Options) (policies.Policy, error) { return newBPF(variantBPF, BPFName, o) }

// NewNBPF builds an N-BPF policy: BPF without the soft class. It takes BPF's parameters.
func NewNBPF(o policies.Options) (policies.Policy, error) { return newBPF(variantNBPF, NBPFName, o) }

func newBPF(v variant, name string, o policies.Options) (*BPF, error) {
	cfg, err := parseConfig(v, o)
	if err != nil {
		return nil, err
	}
	return &BPF{c: core{name: name, cfg: cfg}}, nil
}

// Name returns "bpf" or "nbpf".
func (b *BPF) Name() string { return b.c.name }

// Admissions returns the admission records in decision order. The slice must not be modified.
func (b *BPF) Admissions() []Admission { return b.recs }

// Schedule admits the queues seen for the first time, then allocates: hard guarantees, soft
// guarantees by SRPT from the uncommitted capacity, DRF among the elastic queues and the
// guaranteed queues within their fair share, spare capacity, and what is left to rejected
// queues.
func (b *BPF) Schedule(v policies.View, p *policies.Plan) error {
	c := &b.c
	if err := c.begin(v, p); err != nil {
		return err
	}
	if b.ac == nil {
		ac, err := NewAdmissionControl(c.capacity, c.dims, c.cfg.variant == variantBPF)
		if err != nil {
			return c.errorf("%v", err)
		}
		b.ac = ac
	}
	if err := b.admit(v); err != nil {
		return err
	}
	c.pl.begin(v)
	c.reserve = traces.Vec{}
	c.inflight = false
	if c.cfg.preempt {
		var held traces.Vec
		for _, q := range c.queues {
			held = held.Add(q.alloc)
		}
		// Capacity that is neither free nor held by a running task is being released.
		c.inflight = c.capacity.Sub(v.FreeTotal()).Sub(held) != traces.Vec{}
	}
	return b.fill(v, p)
}

// admit decides the class of every queue seen for the first time: LQs first, then TQs (as
// Algorithm 1's PeriodicSchedule does), each in queue order.
func (b *BPF) admit(v policies.View) error {
	c := &b.c
	if len(c.fresh) == 0 {
		return nil
	}
	slices.SortFunc(c.fresh, func(x, y int) int {
		qx, qy := c.queues[x], c.queues[y]
		return cmp.Or(cmp.Compare(qy.kind, qx.kind), cmp.Compare(x, y))
	})
	for _, qi := range c.fresh {
		q := c.queues[qi]
		rec := Admission{Queue: q.name, Index: q.idx, Kind: q.kind, Time: v.Now(), Declared: q.spec != nil}
		var d Decision
		if q.kind == TQ {
			d = b.ac.AdmitTQ()
		} else {
			k, derive, ok, steps, err := c.contractFor(v, q, b.steps)
			b.steps = steps
			if err != nil {
				return err
			}
			if ok {
				d = b.ac.AdmitLQ(q.idx, &k)
				q.contract, q.derive = k, derive
				first := k.Burst(0)
				rec.Start, rec.Duration, rec.Period, rec.Demand, rec.Bursts = first.Start, first.Duration, first.Period, first.Demand, k.Count
			} else {
				d = b.ac.AdmitUnknown()
			}
		}
		q.class = d.Class
		rec.Class, rec.Failed, rec.Queues = d.Class, d.Failed, d.Queues
		rec.Reason = b.reason(d)
		b.recs = append(b.recs, rec)
		switch d.Class {
		case Hard:
			b.hard = append(b.hard, q)
		case Soft:
			b.soft = append(b.soft, q)
		case Elastic:
			b.elastic = append(b.elastic, q)
		case Rejected:
			b.rejected = append(b.rejected, q)
		}
	}
	return nil
}

// reason renders a decision with queue names.
func (b *BPF) reason(d Decision) string {
	return d.Describe(func(id int) string {
		if id >= 0 && id < len(b.c.queues) {
			return b.c.queues[id].name
		}
		return "?"
	})
}

// advance brings a guaranteed queue's burst accounting to time now. A new cycle n starts with a
// fresh budget and share level from the contract; when the queue's burst parameters are derived
// from its jobs (not declared), the jobs arriving during the cycle re-derive the cycle's d(n)
// and t(n) — each burst is its own declaration, as the paper's LQs declare every burst — and
// the budget d(n)·t(n) is held to the burst's long-term fair share C·(T(n+1)−T(n))/N among the
// N admitted queues (the fairness condition (3) at the current N). The guarantee applies until
// the cycle ends or the budget is consumed; demand beyond it is served as an elastic queue's
// until the cycle's whole consumption reaches the fair share, and beyond that only from spare
// capacity.
func (b *BPF) advance(v policies.View, q *queue, now traces.Time) error {
	c := &b.c
	n, ok := q.contract.Index(now)
	q.inCycle = ok
	if !ok {
		q.gActive = false
		return nil
	}
	if n != q.burst {
		q.burst = n
		br := q.contract.Burst(n)
		q.cycleStart, q.period = br.Start, br.Period
		q.cycleJobs = q.cycleJobs[:0]
		q.charged = [traces.MaxDims]float64{}
		q.consumed = [traces.MaxDims]float64{}
		q.elastic = limits{budget: &q.fair, charged: &q.consumed}
		b.setBurst(q, br.Demand, br.Duration)
	}
	if flags := q.derive[n%len(q.derive)]; flags != 0 && q.arrEpoch == c.epoch && q.derivedAt != c.epoch && len(q.arrivals) > 0 {
		q.derivedAt = c.epoch
		q.cycleJobs = append(q.cycleJobs, q.arrivals...)
		peak, span, steps, err := c.derivedBurst(v, q.cycleJobs, q.cycleStart, b.steps)
		b.steps = steps
		if err != nil {
			return c.errorf("queue %q: %v", q.name, err)
		}
		d, t := q.capVec, q.onEnd-q.cycleStart
		if flags&deriveDemand != 0 {
			d = peak
		}
		if flags&deriveDuration != 0 {
			t = min(max(span, 1), q.period)
		}
		b.setBurst(q, d, t)
	}
	q.gActive = true
	for k := 0; k < c.dims; k++ {
		if q.budget[k] > 0 && q.charged[k] >= q.budget[k] {
			q.gActive = false
		}
	}
	return nil
}

// setBurst sets the current cycle's share level d, ON period [T(n), T(n)+t), fair share
// C·P/N and budget min(d·t, C·P/N) per dimension.
func (b *BPF) setBurst(q *queue, d traces.Vec, t traces.Time) {
	c := &b.c
	q.capVec = d
	q.onEnd = q.cycleStart + t
	fair := float64(q.period) / float64(max(b.ac.Admitted(), 1))
	for k := range q.budget {
		q.fair[k] = float64(c.capacity[k]) * fair
		q.budget[k] = min(float64(d[k])*float64(t), q.fair[k])
	}
}

// elasticLimits bounds a guaranteed queue in the elastic step by its cycle's fair share.
func elasticLimits(q *queue) *limits {
	if q.class.Guaranteed() && q.inCycle {
		return &q.elastic
	}
	return nil
}

// fill allocates in the order H → S → E (with guaranteed queues up to their fair share) →
// spare → rejected.
func (b *BPF) fill(v policies.View, p *policies.Plan) error {
	c := &b.c
	now := v.Now()
	// committed is Σ_{j∈H} d_j(t): the demand of the hard queues in their ON periods
	// [T_j(n), T_j(n)+t_j(n)) whose budget is not yet consumed.
	var committed traces.Vec
	b.buf = b.buf[:0]
	for _, q := range b.hard {
		if err := b.advance(v, q, now); err != nil {
			return err
		}
		if !q.gActive {
			continue
		}
		if now < q.onEnd {
			committed = committed.Add(q.capVec)
		}
		if _, ok := c.head(q); ok {
			b.buf = append(b.buf, q)
		}
	}
	// Hard: earliest current burst first (ties: queue order). Each receives up to d(n).
	slices.SortStableFunc(b.buf, func(x, y *queue) int {
		return cmp.Compare(x.contract.Burst(x.burst).Start, y.contract.Burst(y.burst).Start)
	})
	for _, q := range b.buf {
		if err := b.guarantee(v, p, q, nil); err != nil {
			return err
		}
	}
	// Soft: the uncommitted capacity C − Σ_{j∈H} d_j(t), less what soft queues already hold, by
	// shortest remaining (estimated) work first.
	pool := c.capacity.Sub(committed)
	b.buf = b.buf[:0]
	for _, q := range b.soft {
		if err := b.advance(v, q, now); err != nil {
			return err
		}
		pool = pool.Sub(q.alloc)
		if _, ok := c.head(q); ok && q.gActive {
			b.buf = append(b.buf, q)
		}
	}
	slices.SortStableFunc(b.buf, func(x, y *queue) int { return cmp.Compare(x.remain, y.remain) })
	for _, q := range b.buf {
		if err := b.guarantee(v, p, q, &pool); err != nil {
			return err
		}
	}
	// Elastic: DRF over what is left, among the elastic queues and the guaranteed queues with
	// demand beyond their guarantee (over their share level or budget, or between cycles), which
	// keep their fair share of the cycle like an elastic queue until the cycle's consumption
	// reaches C·P/N. A guaranteed queue's dominant share counts what it holds under its
	// guarantee, so it competes only once that has run down.
	b.buf = append(b.buf[:0], b.elastic...)
	for _, list := range [][]*queue{b.hard, b.soft} {
		for _, q := range list {
			if q.blocked != c.epoch {
				b.buf = append(b.buf, q)
			}
		}
	}
	if stopped, err := c.fillDRF(v, p, b.buf, &b.heap, elasticLimits); err != nil || (stopped && !c.cfg.backfill) {
		return err
	}
	// Spare: what no queue within its fair share can use goes to guaranteed queues with demand
	// beyond it (Pareto efficiency).
	b.buf = b.buf[:0]
	for _, list := range [][]*queue{b.hard, b.soft} {
		for _, q := range list {
			if q.blocked != c.epoch {
				b.buf = append(b.buf, q)
			}
		}
	}
	if stopped, err := c.fillDRF(v, p, b.buf, &b.heap, nil); err != nil || (stopped && !c.cfg.backfill) {
		return err
	}
	if c.cfg.rejected == RejectedSpare {
		if _, err := c.fillDRF(v, p, b.rejected, &b.heap, nil); err != nil {
			return err
		}
	}
	return nil
}

// guarantee serves a guaranteed queue up to its share level and budget (and, for soft queues,
// the pool). If it is blocked on free capacity, the part of its next task that free capacity
// covers is withheld from later phases and, with preemption on, elastic or rejected tasks are
// preempted to make room.
func (b *BPF) guarantee(v policies.View, p *policies.Plan, q *queue, pool *traces.Vec) error {
	c := &b.c
	lim := limits{capOn: true, capVec: q.capVec, budget: &q.budget, charged: &q.charged, also: &q.consumed, pool: pool}
	_, blocked, need, err := c.serve(v, p, q, &lim, 0)
	if err != nil || !blocked {
		return err
	}
	c.block(need)
	if !c.cfg.preempt || c.inflight {
		return nil
	}
	target := need
	if c.pl.n == 1 {
		// Pooled: make room at once for all the queue may still start under its guarantee
		// (its head job's runnable tasks, up to its share level and the soft pool).
		room := q.capVec.Sub(q.alloc)
		if pool != nil {
			room = minVec(room, *pool)
		}
		target = maxVec(minVec(room, b.pendingDemand(v, q)), need)
	}
	return b.preemptFor(v, p, target, preemptReason(q))
}

// pendingDemand is the demand of the pending runnable tasks of q's head job.
func (b *BPF) pendingDemand(v policies.View, q *queue) traces.Vec {
	var d traces.Vec
	j, ok := b.c.head(q)
	if !ok {
		return d
	}
	info := v.Job(j)
	r := &b.c.jobs[j]
	for _, s := range v.RunnableStages(j) {
		if s >= 0 && int(s) < len(info.Stages) {
			if left := v.StageState(j, s).Pending - r.takenOf(s, b.c.epoch); left > 0 {
				d = d.Add(info.Stages[s].Demand.Scale(int64(left)))
			}
		}
	}
	return d
}

func minVec(a, b traces.Vec) traces.Vec {
	for i := range a {
		a[i] = min(a[i], b[i])
	}
	return a
}

func maxVec(a, b traces.Vec) traces.Vec {
	for i := range a {
		a[i] = max(a[i], b[i])
	}
	return a
}
