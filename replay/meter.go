package replay

import (
	"github.com/schedlab/schedlab/traces"
)

// meter integrates resource use over simulated time: cluster-wide allocation at every advance of
// the clock (O(dims)), and per-queue allocation lazily when a queue's allocation changes, so the
// per-event cost does not depend on the number of queues.
type meter struct {
	e        *Engine
	alloc    traces.Vec
	allocInt [traces.MaxDims]float64 // ∫ allocated dt, in units·µs

	qAlloc    []traces.Vec
	qLast     []traces.Time
	qShareInt []float64                   // ∫ dominant share dt
	qAllocInt [][traces.MaxDims]float64   // ∫ allocation dt
	window    traces.Time                 // usage series window; 0 = off
	usage     [][][traces.MaxDims]float64 // [queue][window] ∫ allocation dt within the window
	start     traces.Time
}

func newMeter(e *Engine) *meter {
	q := len(e.queues)
	m := &meter{
		e:         e,
		qAlloc:    make([]traces.Vec, q),
		qLast:     make([]traces.Time, q),
		qShareInt: make([]float64, q),
		qAllocInt: make([][traces.MaxDims]float64, q),
		window:    e.cfg.UsageWindow,
	}
	if len(e.w.Jobs) > 0 {
		m.start = e.w.Jobs[0].Submit
		for i := range m.qLast {
			m.qLast[i] = m.start
		}
	}
	if m.window > 0 {
		m.usage = make([][][traces.MaxDims]float64, q)
	}
	return m
}

func (m *meter) advance(from, to traces.Time) {
	if from < m.start {
		from = m.start
	}
	if to <= from {
		return
	}
	dt := float64(to - from)
	for d := range m.alloc {
		m.allocInt[d] += float64(m.alloc[d]) * dt
	}
}

// allocChanged records that job j's allocation changed by sign·d at the current time.
func (m *meter) allocChanged(j int32, d traces.Vec, sign int64) {
	q := m.e.jobs[j].info.Queue
	m.flushQueue(q, m.e.now)
	if sign > 0 {
		m.alloc = m.alloc.Add(d)
		m.qAlloc[q] = m.qAlloc[q].Add(d)
	} else {
		m.alloc = m.alloc.Sub(d)
		m.qAlloc[q] = m.qAlloc[q].Sub(d)
	}
}

func (m *meter) flushQueue(q int, now traces.Time) {
	last := m.qLast[q]
	if now <= last {
		return
	}
	a := m.qAlloc[q]
	dt := float64(now - last)
	if !a.IsZero() {
		m.qShareInt[q] += a.DominantShare(m.e.cap) * dt
		for d := range a {
			m.qAllocInt[q][d] += float64(a[d]) * dt
		}
		if m.window > 0 {
			m.addUsage(q, last, now, a)
		}
	}
	m.qLast[q] = now
}

// addUsage spreads a constant allocation a over [from, to) into the usage windows it covers.
func (m *meter) addUsage(q int, from, to traces.Time, a traces.Vec) {
	for from < to {
		w := int((from - m.start) / m.window)
		end := m.start + traces.Time(w+1)*m.window
		if end > to {
			end = to
		}
		for len(m.usage[q]) <= w {
			m.usage[q] = append(m.usage[q], [traces.MaxDims]float64{})
		}
		dt := float64(end - from)
		for d := range a {
			m.usage[q][w][d] += float64(a[d]) * dt
		}
		from = end
	}
}
