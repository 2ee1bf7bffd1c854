package bpf

import (
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// bucketWidth is the span of simulated time one timeline bucket covers.
const bucketWidth = traces.Second

// timeline is the committed hard-guarantee demand as a step function of time: the sum of d_j(n)
// over the ON periods [T_j(n), T_j(n)+t_j(n)) of the queues admitted to H.
//
// Time is cut into buckets of bucketWidth. A bucket records the level at its start (base), the
// changes of level inside it (sorted breakpoints), and the highest level reached within it
// (peak). Only buckets that hold a breakpoint or lie inside a committed interval exist; the
// level is zero in every other bucket. Committing an interval [from, to) and asking for the peak
// over one both cost O(1 + (to−from)/bucketWidth + b) for b breakpoints in the end buckets —
// independent of how many intervals are committed elsewhere, so admitting queue after queue
// costs time linear in their cycles. Buckets from time 0 up to denseBuckets are kept in a slice
// indexed by bucket number; the rare ones beyond (or before 0) in a map used only for lookups.
type timeline struct {
	k      int // resource dimensions in use
	dense  []bucket
	sparse map[int64]*bucket
	points int
	tmp    []int64 // scratch for a query result
}

// denseBuckets bounds the slice of buckets: about 48 days of simulated time.
const denseBuckets = 1 << 22

type bucket struct {
	used  bool
	base  [traces.MaxDims]int64 // level at the bucket's start, before its own breakpoints
	peak  [traces.MaxDims]int64 // highest level within the bucket
	keys  []int64               // breakpoint times inside the bucket, ascending
	delta []int64               // k changes per breakpoint
}

func newTimeline(k int) *timeline {
	return &timeline{k: k, sparse: make(map[int64]*bucket), tmp: make([]int64, k)}
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

// get returns bucket b, creating it if needed.
func (t *timeline) get(b int64) *bucket {
	if b >= 0 && b < denseBuckets {
		if int(b) >= len(t.dense) {
			n := max(int(b)+1, 2*len(t.dense), 1024)
			t.dense = append(t.dense, make([]bucket, min(n, denseBuckets)-len(t.dense))...)
		}
		bk := &t.dense[b]
		bk.used = true
		return bk
	}
	bk := t.sparse[b]
	if bk == nil {
		bk = &bucket{used: true}
		t.sparse[b] = bk
	}
	return bk
}

// find returns bucket b, or nil if it does not exist (its level is zero throughout).
func (t *timeline) find(b int64) *bucket {
	if b >= 0 && b < denseBuckets {
		if int(b) < len(t.dense) && t.dense[b].used {
			return &t.dense[b]
		}
		return nil
	}
	return t.sparse[b]
}

// addPoint adds sign·d to the change at time x inside bucket bk.
func (t *timeline) addPoint(bk *bucket, x int64, d *traces.Vec, sign int64) {
	i, found := slices.BinarySearch(bk.keys, x)
	if !found {
		bk.keys = slices.Insert(bk.keys, i, x)
		bk.delta = slices.Insert(bk.delta, i*t.k, make([]int64, t.k)...)
		t.points++
	}
	dd := bk.delta[i*t.k : (i+1)*t.k]
	for j := range dd {
		dd[j] += sign * d[j]
	}
}

// repeak recomputes a bucket's peak from its base and breakpoints.
func (t *timeline) repeak(bk *bucket, start int64) {
	lvl := bk.base
	// The base level holds from the bucket's start unless a breakpoint sits right there.
	have := len(bk.keys) == 0 || bk.keys[0] > start
	bk.peak = lvl
	for i := range bk.keys {
		for j := 0; j < t.k; j++ {
			lvl[j] += bk.delta[i*t.k+j]
		}
		if !have {
			bk.peak, have = lvl, true
			continue
		}
		for j := 0; j < t.k; j++ {
			bk.peak[j] = max(bk.peak[j], lvl[j])
		}
	}
}

// add commits demand d over [from, to).
func (t *timeline) add(from, to int64, d *traces.Vec) {
	if to <= from {
		return
	}
	bf, bt := bucketOf(from), bucketOf(to)
	first := t.get(bf)
	t.addPoint(first, from, d, +1)
	t.repeak(first, bf*bucketWidth)
	// Every later bucket up to the one holding to starts inside [from, to]: its base rises by d.
	for b := bf + 1; b <= bt; b++ {
		bk := t.get(b)
		for j := 0; j < t.k; j++ {
			bk.base[j] += d[j]
			bk.peak[j] += d[j]
		}
	}
	last := t.get(bt)
	t.addPoint(last, to, d, -1)
	t.repeak(last, bt*bucketWidth)
}

// peak returns, per dimension, the highest committed level over [from, to). The result is valid
// until the next call.
func (t *timeline) peak(from, to int64) []int64 {
	out := t.tmp[:t.k]
	clear(out)
	if to <= from {
		return out
	}
	bf, bl := bucketOf(from), bucketOf(to-1)
	for b := bf; b <= bl; b++ {
		bk := t.find(b)
		if bk == nil {
			continue // level 0
		}
		if b != bf && b != bl {
			for j := 0; j < t.k; j++ {
				out[j] = max(out[j], bk.peak[j])
			}
			continue
		}
		// An end bucket: scan its breakpoints over [max(from, start), min(to, end)).
		lo := max(from, b*bucketWidth)
		lvl := bk.base
		i := 0
		for ; i < len(bk.keys) && bk.keys[i] <= lo; i++ {
			for j := 0; j < t.k; j++ {
				lvl[j] += bk.delta[i*t.k+j]
			}
		}
		for j := 0; j < t.k; j++ {
			out[j] = max(out[j], lvl[j])
		}
		for ; i < len(bk.keys) && bk.keys[i] < to; i++ {
			for j := 0; j < t.k; j++ {
				lvl[j] += bk.delta[i*t.k+j]
			}
			for j := 0; j < t.k; j++ {
				out[j] = max(out[j], lvl[j])
			}
		}
	}
	return out
}
