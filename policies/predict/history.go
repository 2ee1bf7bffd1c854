package predict

import "math"

// medianHeap keeps the exact running median of a multiset of int64 values with two binary
// heaps: lo is a max-heap of the smaller half, hi a min-heap of the larger half, and
// len(lo) == len(hi) or len(lo) == len(hi)+1. Add is O(log n), Median is O(1); memory is
// O(n): every value ever added is held (8 bytes each plus slice slack).
type medianHeap struct {
	lo, hi []int64
}

// Len returns the number of values added.
func (m *medianHeap) Len() int { return len(m.lo) + len(m.hi) }

// Add inserts x with at most one sift up and one sift down: when x belongs to the half that
// must not grow, it replaces that half's root, which moves to the other half.
func (m *medianHeap) Add(x int64) {
	if len(m.lo) == len(m.hi) {
		// lo must grow.
		if len(m.hi) > 0 && x > m.hi[0] {
			top := m.hi[0]
			m.hi[0] = x
			siftDown(m.hi, less)
			x = top
		}
		m.lo = pushHeap(m.lo, x, greater)
		return
	}
	// len(lo) == len(hi)+1: hi must grow.
	if x < m.lo[0] {
		top := m.lo[0]
		m.lo[0] = x
		siftDown(m.lo, greater)
		x = top
	}
	m.hi = pushHeap(m.hi, x, less)
}

// Median returns the median: the middle value for an odd count, the mean of the two middle
// values for an even count, NaN when empty.
func (m *medianHeap) Median() float64 {
	switch {
	case len(m.lo) == 0:
		return math.NaN()
	case len(m.lo) > len(m.hi):
		return float64(m.lo[0])
	default:
		return (float64(m.lo[0]) + float64(m.hi[0])) / 2
	}
}

func less(a, b int64) bool    { return a < b }
func greater(a, b int64) bool { return a > b }

// pushHeap appends x to the heap h ordered by before (the root is the element no other
// element comes before) and restores the heap property.
func pushHeap(h []int64, x int64, before func(a, b int64) bool) []int64 {
	h = append(h, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// siftDown restores the heap property of h after its root changed.
func siftDown(h []int64, before func(a, b int64) bool) {
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && before(h[r], h[l]) {
			c = r
		}
		if !before(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// history is the incremental state of one runtime history (one feature value, raw or median
// filtered) from which the four estimators are read in O(1):
//
//   - average: the mean of every runtime (an exact int64 sum over a count);
//   - median: the exact median of every runtime (medianHeap; kept only when needed);
//   - rolling: an exponentially weighted mean r ← α·x + (1−α)·r, seeded with the first runtime;
//   - recent: the mean of the last recentN runtimes (a ring buffer with a running sum).
//
// Memory is O(1) except for the median heap, which holds every value (see medianHeap).
type history struct {
	n       int64
	sum     int64
	rolling float64
	useMed  bool // maintain med
	med     medianHeap
	medVal  float64 // med.Median(), cached so that predictions do not touch the heaps
	ring    []int64 // grows to recentN, then used as a ring
	head    int     // index of the oldest value once the ring is full
	ringSum int64
}

// add appends runtime x (µs) to the history.
func (h *history) add(x int64, alpha float64, recentN int) {
	h.n++
	h.sum += x
	if h.n == 1 {
		h.rolling = float64(x)
	} else {
		h.rolling = alpha*float64(x) + (1-alpha)*h.rolling
	}
	if h.useMed {
		h.med.Add(x)
		h.medVal = h.med.Median()
	}
	if len(h.ring) < recentN {
		if len(h.ring) == cap(h.ring) {
			// Grow geometrically but never past the window.
			r := make([]int64, len(h.ring), min(max(2*cap(h.ring), 2), recentN))
			copy(r, h.ring)
			h.ring = r
		}
		h.ring = append(h.ring, x)
		h.ringSum += x
		return
	}
	h.ringSum += x - h.ring[h.head]
	h.ring[h.head] = x
	h.head = (h.head + 1) % recentN
}

// estimate returns estimator e's current value, NaN when the history is empty.
func (h *history) estimate(e estimator) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	switch e {
	case estAverage:
		return float64(h.sum) / float64(h.n)
	case estMedian:
		if !h.useMed {
			return math.NaN()
		}
		return h.medVal
	case estRolling:
		return h.rolling
	case estRecent:
		return float64(h.ringSum) / float64(len(h.ring))
	}
	return math.NaN()
}

// score accumulates the squared error of one feature-value:estimator pair's past predictions
// and the runtimes they predicted, so that the normalized RMSE is
// sqrt(sse/n) / (sumActual/n) = sqrt(sse·n) / sumActual.
// The value is recomputed at each add, so reading it costs nothing.
type score struct {
	sse       float64
	sumActual float64
	n         int64
	val       float64 // nrmse once n > 0
}

// add scores one prediction against the actual runtime.
func (s *score) add(pred, actual float64) {
	d := pred - actual
	s.sse += d * d
	s.sumActual += actual
	s.n++
	s.val = s.compute()
}

// nrmse returns the RMSE of the scored predictions divided by the mean of the runtimes they
// predicted; NaN before the first scored prediction. A pair whose runtimes were all zero has
// NRMSE 0 when it predicted them exactly and +Inf otherwise.
func (s *score) nrmse() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.val
}

func (s *score) compute() float64 {
	if s.sumActual == 0 {
		if s.sse == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Sqrt(s.sse*float64(s.n)) / s.sumActual
}
