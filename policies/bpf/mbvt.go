package bpf

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// MBVT is M-BVT, the paper's multi-resource extension of borrowed-virtual-time scheduling
// (§2.3): every queue has an actual virtual time A_i, its DRF progress (∫ dominant share dt, in
// seconds). An LQ's burst arrival warps it: its effective virtual time is E_i = A_i − W_i while
// its warp lasts, and A_i otherwise. The warp W_i is consumed at the rate of the queue's DRF
// progress: it lasts until the queue has progressed W_i since the burst arrived (BVT's warp time
// limit), so the priority is borrowed from the queue's future, not added to its long-term share.
// Queues are served in order of E_i: the queue with the only smallest E_i takes all it can use;
// queues whose E_i are equal (within tie_s) share by DRF. A queue that becomes active after
// being idle starts from at least the smallest virtual time among active queues (BVT's
// scheduler virtual time), so idleness banks no credit.
type MBVT struct {
	c       core
	last    traces.Time
	started bool
	steps   []step
	buf     []*queue
	keys    []float64
	heap    shareHeap
}

var _ policies.Policy = (*MBVT)(nil)

// NewMBVT builds an M-BVT policy. Params: queues (class and warp_s per queue; duration_s and
// demand size the default warp), warp_s (the default warp of every LQ), tie_s; Backfill lets a
// blocked queue be skipped.
func NewMBVT(o policies.Options) (policies.Policy, error) {
	cfg, err := parseConfig(variantMBVT, o)
	if err != nil {
		return nil, err
	}
	m := &MBVT{c: core{name: MBVTName, cfg: cfg}}
	m.c.arrivalHook = m.arrival
	return m, nil
}

// Name returns "mbvt".
func (m *MBVT) Name() string { return MBVTName }

// arrival is called for every job arrival while the View's changes are read: a queue that was
// idle is brought up to the scheduler virtual time.
func (m *MBVT) arrival(q *queue, _ policies.JobID) {
	if q.active > 0 {
		return
	}
	svt, ok := 0.0, false
	for _, o := range m.c.queues {
		if o != q && o.active > 0 && (!ok || o.vt < svt) {
			svt, ok = o.vt, true
		}
	}
	if ok && svt > q.vt {
		q.vt = svt
	}
}

// Schedule advances virtual times to now, gives LQs with arriving bursts their warp, and serves
// queues in order of effective virtual time.
func (m *MBVT) Schedule(v policies.View, p *policies.Plan) error {
	c := &m.c
	now := v.Now()
	if m.started && now > m.last && c.ready {
		dt := traces.Seconds(now - m.last)
		for _, q := range c.queues {
			if s := c.share(q); s > 0 {
				q.vt += s * dt
				q.warp = max(q.warp-s*dt, 0)
			}
		}
	}
	m.last, m.started = now, true
	if err := c.begin(v, p); err != nil {
		return err
	}
	for _, q := range c.queues {
		if q.arrEpoch == c.epoch && q.kind == LQ && len(q.arrivals) > 0 {
			w, err := m.warpOf(v, q)
			if err != nil {
				return err
			}
			q.warpW, q.warp = w, w
		}
	}
	c.pl.begin(v)
	c.reserve = traces.Vec{}
	m.buf = m.buf[:0]
	for _, q := range c.queues {
		if _, ok := c.head(q); ok {
			m.buf = append(m.buf, q)
		}
	}
	slices.SortFunc(m.buf, func(x, y *queue) int {
		return cmp.Or(cmp.Compare(x.effective(), y.effective()), cmp.Compare(x.idx, y.idx))
	})
	for i := 0; i < len(m.buf); {
		lo := m.buf[i].effective()
		j := i + 1
		for j < len(m.buf) && m.buf[j].effective() <= lo+c.cfg.tie {
			j++
		}
		stopped, err := c.fillDRF(v, p, m.buf[i:j], &m.heap, nil)
		if err != nil || (stopped && !c.cfg.backfill) {
			return err
		}
		i = j
	}
	return nil
}

// effective is the queue's effective virtual time E_i.
func (q *queue) effective() float64 {
	if q.warp > 0 {
		return q.vt - q.warpW
	}
	return q.vt
}

// warpOf is an LQ's warp W_i: its declared warp_s, else policy.params.warp_s, else the size of
// the arriving burst in seconds of whole-cluster dominant share (max_k d^k/C^k × t), with d and
// t declared (duration_s, demand of the first burst shape) or estimated from the arriving jobs
// as BPF derives them.
func (m *MBVT) warpOf(v policies.View, q *queue) (float64, error) {
	c := &m.c
	if q.spec != nil && q.spec.warp >= 0 {
		return q.spec.warp, nil
	}
	if c.cfg.warp >= 0 {
		return c.cfg.warp, nil
	}
	var sh shapeSpec
	if q.spec != nil {
		sh = q.spec.shapes[0]
	}
	frac := 0.0
	switch {
	case sh.demand != nil:
		for _, f := range sh.demand {
			frac = max(frac, f)
		}
	case sh.named != nil:
		for _, f := range sh.named {
			frac = max(frac, f)
		}
	}
	t := sh.duration
	if sh.demand == nil && sh.named == nil || t == 0 {
		start := v.Now()
		peak, span, steps, err := c.derivedBurst(v, q.arrivals, start, m.steps)
		m.steps = steps
		if err != nil {
			return 0, c.errorf("queue %q: %v", q.name, err)
		}
		if sh.demand == nil && sh.named == nil {
			frac = peak.DominantShare(c.capacity)
		}
		if t == 0 {
			t = span
		}
	}
	return frac * traces.Seconds(t), nil
}
