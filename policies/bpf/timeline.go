package bpf

import (
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// bucketWidth is the span of simulated time one timeline bucket covers.
const bucketWidth = traces.Second

// denseBuckets bounds the buckets kept in flat arrays: about 48 days of simulated time from 0.
const denseBuckets = 1 << 22

// timeline is the committed hard-guarantee demand as a step function of time: the sum of d_j(n)
// over the ON periods [T_j(n), T_j(n)+t_j(n)) of the queues admitted to H.
//
// Time is cut into buckets of bucketWidth. A bucket records the level at its start (base), the
// changes of level inside it (sorted breakpoints), and the highest level reached within it
// (peak); a bucket never touched is all zero, which is exactly its level. Committing an interval
// [from, to) and asking for the peak over one both cost O(1 + (to−from)/bucketWidth + b) for b
// breakpoints in the two end buckets — independent of how many intervals are committed
// elsewhere, so admitting queue after queue costs time linear in their cycles.
//
// Buckets from time 0 up to denseBuckets live in flat arrays indexed by bucket number (bases
// and peaks contiguous, so the middle of an interval is a sequential scan); the rare ones beyond
// (or before 0) in a map used only for lookups.
type timeline struct {
	k      int     // resource dimensions in use
	base   []int64 // k per dense bucket: the level at its start, before its own breakpoints
	peak   []int64 // k per dense bucket: the highest level within it
	keys   [][]int64
	delta  [][]int64 // k changes per breakpoint
	sparse map[int64]*bucket
	points int
	tmp    []int64 // scratch for a query result
	lvl    []int64 // scratch level
}

// bucket is a sparse bucket.
type bucket struct {
	base, peak  []int64
	keys, delta []int64
}

// bref addresses one bucket's fields, dense or sparse.
type bref struct {
	base, peak  []int64
	keys, delta *[]int64
}

func newTimeline(k int) *timeline {
	return &timeline{k: k, sparse: make(map[int64]*bucket), tmp: make([]int64, k), lvl: make([]int64, k)}
}

// size returns the number of breakpoints.
func (t *timeline) size() int { return t.points }

func bucketOf(x int64) int64 {
	b := x / bucketWidth
	if x < 0 && x%bucketWidth != 0 {
		b--
	}
	return b
}

// ref returns bucket b's fields; with create false, ok is false for a bucket never touched
// (whose level is zero throughout).
func (t *timeline) ref(b int64, create bool) (bref, bool) {
	if b >= 0 && b < denseBuckets {
		i := int(b)
		if i >= len(t.keys) {
			if !create {
				return bref{}, false
			}
			n := min(max(i+1, 2*len(t.keys), 1024), denseBuckets)
			t.keys = append(t.keys, make([][]int64, n-len(t.keys))...)
			t.delta = append(t.delta, make([][]int64, n-len(t.delta))...)
			t.base = append(t.base, make([]int64, n*t.k-len(t.base))...)
			t.peak = append(t.peak, make([]int64, n*t.k-len(t.peak))...)
		}
		o := i * t.k
		return bref{base: t.base[o : o+t.k], peak: t.peak[o : o+t.k], keys: &t.keys[i], delta: &t.delta[i]}, true
	}
	bk := t.sparse[b]
	if bk == nil {
		if !create {
			return bref{}, false
		}
		bk = &bucket{base: make([]int64, t.k), peak: make([]int64, t.k)}
		t.sparse[b] = bk
	}
	return bref{base: bk.base, peak: bk.peak, keys: &bk.keys, delta: &bk.delta}, true
}

// addPoint adds sign·d to the change at time x inside bucket r.
func (t *timeline) addPoint(r bref, x int64, d *traces.Vec, sign int64) {
	i, found := slices.BinarySearch(*r.keys, x)
	if !found {
		*r.keys = slices.Insert(*r.keys, i, x)
		*r.delta = slices.Insert(*r.delta, i*t.k, t.lvl[:t.k]...) // placeholder values, set below
		clear((*r.delta)[i*t.k : (i+1)*t.k])
		t.points++
	}
	dd := (*r.delta)[i*t.k : (i+1)*t.k]
	for j := range dd {
		dd[j] += sign * d[j]
	}
}

// repeak recomputes a bucket's peak from its base and breakpoints.
func (t *timeline) repeak(r bref, start int64) {
	keys, delta := *r.keys, *r.delta
	lvl := t.lvl[:t.k]
	copy(lvl, r.base)
	copy(r.peak, r.base)
	// The base level holds from the bucket's start unless a breakpoint sits right there.
	have := len(keys) == 0 || keys[0] > start
	for i := range keys {
		for j := range lvl {
			lvl[j] += delta[i*t.k+j]
		}
		if !have {
			copy(r.peak, lvl)
			have = true
			continue
		}
		for j := range lvl {
			r.peak[j] = max(r.peak[j], lvl[j])
		}
	}
}

// add commits demand d over [from, to).
func (t *timeline) add(from, to int64, d *traces.Vec) {
	if to <= from {
		return
	}
	bf, bt := bucketOf(from), bucketOf(to)
	first, _ := t.ref(bf, true)
	t.addPoint(first, from, d, +1)
	t.repeak(first, bf*bucketWidth)
	// Every later bucket up to the one holding to starts inside [from, to]: its base rises by d.
	for b := bf + 1; b <= bt; b++ {
		r, _ := t.ref(b, true)
		for j := 0; j < t.k; j++ {
			r.base[j] += d[j]
			r.peak[j] += d[j]
		}
	}
	last, _ := t.ref(bt, true)
	t.addPoint(last, to, d, -1)
	t.repeak(last, bt*bucketWidth)
}

// peak returns, per dimension, the highest committed level over [from, to). The result is valid
// until the next call.
func (t *timeline) peakOver(from, to int64) []int64 {
	out := t.tmp[:t.k]
	clear(out)
	if to <= from {
		return out
	}
	bf, bl := bucketOf(from), bucketOf(to-1)
	for b := bf; b <= bl; b++ {
		r, ok := t.ref(b, false)
		if !ok {
			continue // level 0
		}
		if b != bf && b != bl {
			for j := range out {
				out[j] = max(out[j], r.peak[j])
			}
			continue
		}
		// An end bucket: scan its breakpoints over [max(from, start), min(to, end)).
		keys, delta := *r.keys, *r.delta
		lo := max(from, b*bucketWidth)
		lvl := t.lvl[:t.k]
		copy(lvl, r.base)
		i := 0
		for ; i < len(keys) && keys[i] <= lo; i++ {
			for j := range lvl {
				lvl[j] += delta[i*t.k+j]
			}
		}
		for j := range out {
			out[j] = max(out[j], lvl[j])
		}
		for ; i < len(keys) && keys[i] < to; i++ {
			for j := range lvl {
				lvl[j] += delta[i*t.k+j]
				out[j] = max(out[j], lvl[j])
			}
		}
	}
	return out
}
