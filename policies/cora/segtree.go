package cora

import "math"

// slack is a segment tree over positions 0..n-1 holding integers, with range add, range max and
// "rightmost position in a range whose value exceeds a threshold", each O(log n). The exact
// solver keeps one per resource, with position t-1 holding need(t) − C·t, the work that must be
// done by the end of slot t less the capacity of slots 1..t: deadlines are feasible iff every
// value is ≤ 0.
//
// Tags are not pushed down: mx[v] is the maximum of v's range including the adds recorded at v
// and below it, excluding those of v's ancestors, which queries accumulate on the way down.
type slack struct {
	n   int
	mx  []int64
	add []int64
}

const minusInf = math.MinInt64 / 4

// newSlack returns a tree over n positions with value init(p) at position p.
func newSlack(n int, init func(p int) int64) *slack {
	s := &slack{n: n}
	if n == 0 {
		return s
	}
	size := 1
	for size < n {
		size *= 2
	}
	s.mx = make([]int64, 2*size)
	s.add = make([]int64, 2*size)
	s.build(1, 0, n-1, init)
	return s
}

func (s *slack) build(v, lo, hi int, init func(int) int64) {
	if lo == hi {
		s.mx[v] = init(lo)
		return
	}
	mid := (lo + hi) / 2
	s.build(2*v, lo, mid, init)
	s.build(2*v+1, mid+1, hi, init)
	s.mx[v] = max(s.mx[2*v], s.mx[2*v+1])
}

// clone returns a deep copy.
func (s *slack) clone() *slack {
	return &slack{n: s.n, mx: append([]int64(nil), s.mx...), add: append([]int64(nil), s.add...)}
}

// Add adds d to positions l..r (inclusive; nothing when l > r).
func (s *slack) Add(l, r int, d int64) {
	if l < 0 {
		l = 0
	}
	if r >= s.n {
		r = s.n - 1
	}
	if l > r || d == 0 {
		return
	}
	s.addRange(1, 0, s.n-1, l, r, d)
}

func (s *slack) addRange(v, lo, hi, l, r int, d int64) {
	if l <= lo && hi <= r {
		s.mx[v] += d
		s.add[v] += d
		return
	}
	mid := (lo + hi) / 2
	if l <= mid {
		s.addRange(2*v, lo, mid, l, r, d)
	}
	if r > mid {
		s.addRange(2*v+1, mid+1, hi, l, r, d)
	}
	s.mx[v] = max(s.mx[2*v], s.mx[2*v+1]) + s.add[v]
}

// Max returns the largest value in l..r (minusInf when the range is empty).
func (s *slack) Max(l, r int) int64 {
	if l < 0 {
		l = 0
	}
	if r >= s.n {
		r = s.n - 1
	}
	if l > r {
		return minusInf
	}
	return s.maxRange(1, 0, s.n-1, l, r)
}

func (s *slack) maxRange(v, lo, hi, l, r int) int64 {
	if l <= lo && hi <= r {
		return s.mx[v]
	}
	mid := (lo + hi) / 2
	m := int64(minusInf)
	if l <= mid {
		m = max(m, s.maxRange(2*v, lo, mid, l, r))
	}
	if r > mid {
		m = max(m, s.maxRange(2*v+1, mid+1, hi, l, r))
	}
	return m + s.add[v]
}

// RightmostAbove returns the largest position p in l..r whose value exceeds thr, or -1.
func (s *slack) RightmostAbove(l, r int, thr int64) int {
	if l < 0 {
		l = 0
	}
	if r >= s.n {
		r = s.n - 1
	}
	if l > r {
		return -1
	}
	return s.rightmost(1, 0, s.n-1, l, r, thr)
}

func (s *slack) rightmost(v, lo, hi, l, r int, thr int64) int {
	if s.mx[v] <= thr {
		return -1
	}
	if lo == hi {
		return lo
	}
	mid := (lo + hi) / 2
	thr -= s.add[v]
	if r > mid {
		if p := s.rightmost(2*v+1, mid+1, hi, l, r, thr); p >= 0 {
			return p
		}
	}
	if l <= mid {
		return s.rightmost(2*v, lo, mid, l, r, thr)
	}
	return -1
}
