package bpf

import (
	"math/rand/v2"

	"github.com/schedlab/schedlab/traces"
)

// timeline is the committed hard-guarantee demand as a step function of time: the sum of d_j(n)
// over the ON periods [T_j(n), T_j(n)+t_j(n)) of the queues admitted to H. It is stored as
// breakpoints (time → change of level) in a treap whose nodes also hold, per resource dimension,
// the sum of the changes in their subtree and the largest level reached within it (maximum prefix
// sum, in key order). Adding an interval costs two O(log m) insertions and the largest level over
// an interval costs O(log m) for m breakpoints; node storage lives in flat arrays so a timeline
// of millions of breakpoints stays compact.
//
// The treap's priorities come from an explicit generator; they shape only the tree, never a
// result.
type timeline struct {
	k     int // resource dimensions in use
	key   []int64
	pri   []uint64
	left  []int32
	right []int32
	val   []int64 // per node, 3k values: change, subtree sum, subtree maximum prefix
	root  int32
	rng   *rand.Rand
	tmp   []int64 // scratch for a query result
}

const nilNode = int32(-1)

func newTimeline(k int, rng *rand.Rand) *timeline {
	return &timeline{k: k, root: nilNode, rng: rng, tmp: make([]int64, 3*k)}
}

// size returns the number of breakpoints.
func (t *timeline) size() int { return len(t.key) }

func (t *timeline) delta(x int32) []int64 { o := int(x) * 3 * t.k; return t.val[o : o+t.k] }
func (t *timeline) sum(x int32) []int64 {
	o := int(x)*3*t.k + t.k
	return t.val[o : o+t.k]
}
func (t *timeline) maxPre(x int32) []int64 {
	o := int(x)*3*t.k + 2*t.k
	return t.val[o : o+t.k]
}

// pull recomputes x's aggregates from its children.
func (t *timeline) pull(x int32) {
	l, r := t.left[x], t.right[x]
	d, s, m := t.delta(x), t.sum(x), t.maxPre(x)
	for i := 0; i < t.k; i++ {
		var sl int64
		best := int64(0)
		have := false
		if l != nilNode {
			sl = t.sum(l)[i]
			best, have = t.maxPre(l)[i], true
		}
		here := sl + d[i]
		if !have || here > best {
			best = here
		}
		total := here
		if r != nilNode {
			if v := here + t.maxPre(r)[i]; v > best {
				best = v
			}
			total += t.sum(r)[i]
		}
		s[i], m[i] = total, best
	}
}

// split divides the subtree at x into keys < key (or ≤ key when inclusive) and the rest.
func (t *timeline) split(x int32, key int64, inclusive bool) (int32, int32) {
	if x == nilNode {
		return nilNode, nilNode
	}
	goesLeft := t.key[x] < key || (inclusive && t.key[x] == key)
	if goesLeft {
		a, b := t.split(t.right[x], key, inclusive)
		t.right[x] = a
		t.pull(x)
		return x, b
	}
	a, b := t.split(t.left[x], key, inclusive)
	t.left[x] = b
	t.pull(x)
	return a, x
}

// merge joins two subtrees whose keys are ordered a < b.
func (t *timeline) merge(a, b int32) int32 {
	if a == nilNode {
		return b
	}
	if b == nilNode {
		return a
	}
	if t.pri[a] > t.pri[b] {
		t.right[a] = t.merge(t.right[a], b)
		t.pull(a)
		return a
	}
	t.left[b] = t.merge(a, t.left[b])
	t.pull(b)
	return b
}

// change adds d (scaled by sign) to the level from time at on.
func (t *timeline) change(at int64, d *traces.Vec, sign int64) {
	lt, rest := t.split(t.root, at, false)
	eq, gt := t.split(rest, at, true)
	if eq == nilNode {
		eq = int32(len(t.key))
		t.key = append(t.key, at)
		t.pri = append(t.pri, t.rng.Uint64())
		t.left = append(t.left, nilNode)
		t.right = append(t.right, nilNode)
		t.val = append(t.val, make([]int64, 3*t.k)...)
	}
	dd := t.delta(eq)
	for i := 0; i < t.k; i++ {
		dd[i] += sign * d[i]
	}
	t.pull(eq)
	t.root = t.merge(lt, t.merge(eq, gt))
}

// add commits demand d over [from, to).
func (t *timeline) add(from, to int64, d *traces.Vec) {
	if to <= from {
		return
	}
	t.change(from, d, +1)
	t.change(to, d, -1)
}

// peak returns, per dimension, the largest committed level over [from, to) (the level is 0
// before the first breakpoint). The result is valid until the next call.
func (t *timeline) peak(from, to int64) []int64 {
	out := t.tmp[:t.k]
	clear(out)
	if to <= from || t.root == nilNode {
		return out
	}
	upto, rest := t.split(t.root, from, true) // keys ≤ from: the level at from
	mid, after := t.split(rest, to, false)    // from < keys < to
	if upto != nilNode {
		copy(out, t.sum(upto))
	}
	if mid != nilNode {
		m := t.maxPre(mid)
		for i := range out {
			if v := out[i] + m[i]; v > out[i] {
				out[i] = v
			}
		}
	}
	t.root = t.merge(upto, t.merge(mid, after))
	return out
}
