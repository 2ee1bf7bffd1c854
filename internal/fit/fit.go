// Package fit answers first-fit placement queries over machines' free capacity.
//
// The replay engine (View.FirstFit) and the baseline policies (the engine's tree, lent to them
// while they plan and restored after, plan.go; or a plan-adjusted copy of every machine's free
// capacity under other Views) both ask "which is the lowest-numbered machine whose free capacity
// fits this demand?" at every placement; a Tree answers it in O(log machines) instead of a scan.
package fit

import (
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Tree is a segment tree over machines whose nodes hold bounds on the free capacity below them:
// the per-dimension maximum, and a few "cone" maxima over the first two dimensions (below). A
// subtree whose bounds do not cover a demand holds no machine that fits it and is skipped. The
// zero Tree has no machines; Reset sizes it.
//
// Per-dimension maxima alone can cover a demand that no single machine fits (one machine has the
// cpu, another the memory): in a full, fragmented cluster a search may then visit most of the
// tree and find nothing, and it is asked again after every finish. Two things keep such searches
// short. The cone bounds are, for a few ratios p:q, the maximum over the machines below of
// min(p·cpu, q·mem): a machine that fits demand d has min(p·cpu, q·mem) ≥ min(p·d.cpu, q·d.mem),
// so a node whose cone maximum is smaller holds no fitting machine, which rules out most
// machines rich in one dimension and poor in the other. And each inner node remembers the last
// demand found to fit nowhere below it until capacity below it grows: a later demand at least as
// large fails there at once, and after one machine's capacity grew only the nodes above it are
// searched again.
type Tree struct {
	size  int // leaves: a power of two ≥ used
	used  int // machines
	nodes []node
	// dims is the number of leading dimensions any machine has capacity in (at least 1): inner
	// nodes hold maxima of those only, since every machine has 0 beyond them.
	dims int

	// Failure memo per inner node: fail[i] fit no machine below i at clock failAt[i] (0: none);
	// it holds while no machine below grew since (grown[i] ≤ failAt[i]).
	clock         uint64
	fail          []traces.Vec
	failAt, grown []uint64

	// gen counts the changes that may have grown some machine's capacity (hint.go): while it
	// stands, capacities only shrank, and a search's answer bounds later ones.
	gen uint64

	// A plan's journal (plan.go): while planning, the machines Set changed, once each.
	planning bool
	planned  []int32
	inPlan   []bool
}

// coneRatios are the p:q of the cone bounds min(p·cpu, q·mem).
var coneRatios = [...][2]int64{{1, 4}, {1, 2}, {1, 1}, {2, 1}, {4, 1}}

const cones = len(coneRatios)

var _ = [1]struct{}{}[cones-5] // covers, conesOf, pull and raise spell out these five cones

// node holds the bounds of the capacity below a node (cones first: with two dimensions in use,
// what pull and covers read is then the node's first 56 bytes).
type node struct {
	cone [cones]int64
	max  traces.Vec
}

// coneLimit keeps p·x from overflowing; capacities beyond it (no real cluster) get weaker bounds.
const coneLimit = math.MaxInt64 / 8

// conesOf returns the cone values of v (for a machine's capacity or a demand). It spells out
// coneRatios with constant factors (the compiler turns them into shifts), as covers does.
func conesOf(v *traces.Vec) [cones]int64 {
	a, b := min(v[0], coneLimit), min(v[1], coneLimit)
	return [cones]int64{min(a, 4*b), min(a, 2*b), min(a, b), min(2*a, b), min(4*a, b)}
}

// covers reports whether n's bounds cover demand d, whose cones are dc, in the first dims
// dimensions.
//
// It tests every bound without branching (a bound below the demand makes its difference
// negative; bounds and demands lie in [-1, MaxInt64/2], so no difference overflows): which
// bound fails is unpredictable, and a mispredicted branch costs more than the few subtractions.
func (n *node) covers(d *traces.Vec, dc *[cones]int64, dims int) bool {
	short := (n.cone[0] - dc[0]) | (n.cone[1] - dc[1]) | (n.cone[2] - dc[2]) | (n.cone[3] - dc[3]) | (n.cone[4] - dc[4])
	for k := range dims {
		short |= n.max[k] - d[k]
	}
	return short >= 0
}

// never is a padding leaf's capacity: it fits nothing, not even a zero demand.
var never = func() node {
	var n node
	for d := range n.max {
		n.max[d] = -1
	}
	n.cone = conesOf(&n.max)
	return n
}()

// New returns a Tree over len(free) machines with the given free capacities.
func New(free []traces.Vec) *Tree {
	t := new(Tree)
	t.Reset(len(free))
	t.SetAll(func(m int) traces.Vec { return free[m] })
	return t
}

// Reset sizes the Tree for n machines, each with no capacity that fits anything (until set),
// reusing its memory.
func (t *Tree) Reset(n int) {
	size := 1
	for size < n {
		size *= 2
	}
	t.size, t.used = size, n
	if cap(t.nodes) < 2*size {
		t.nodes = make([]node, 2*size)
	}
	t.nodes = t.nodes[:2*size]
	for i := range t.nodes {
		t.nodes[i] = never
	}
	if cap(t.failAt) < size {
		t.fail, t.failAt, t.grown = make([]traces.Vec, size), make([]uint64, size), make([]uint64, size)
	}
	t.fail, t.failAt, t.grown = t.fail[:size], t.failAt[:size], t.grown[:size]
	t.resetPlan(n)
	t.dims = 1
	t.forget()
}

// dimsOf returns the number of leading dimensions of v up to its last non-zero one (at least 1).
func dimsOf(v *traces.Vec) int {
	for k := len(v) - 1; k > 0; k-- {
		if v[k] != 0 {
			return k + 1
		}
	}
	return 1
}

// fitsBeyond reports whether demand d fits beyond the first dims dimensions, where every machine
// has no capacity: whether it asks for none there.
func (t *Tree) fitsBeyond(d *traces.Vec) bool {
	for k := t.dims; k < len(d); k++ {
		if d[k] > 0 {
			return false
		}
	}
	return true
}

// forget drops every failure memo (and every search hint: capacities were set anew).
func (t *Tree) forget() {
	t.gen++
	clear(t.failAt)
	clear(t.grown)
	t.clock = 1
}

// Len returns the number of machines.
func (t *Tree) Len() int { return t.used }

// Free returns machine m's free capacity as last set.
func (t *Tree) Free(m int) traces.Vec { return t.nodes[t.size+m].max }

// Max returns the per-dimension maximum of every machine's free capacity: a demand that does not
// fit it fits no machine.
func (t *Tree) Max() traces.Vec {
	if t.size == 0 {
		return never.max
	}
	v := t.nodes[1].max
	for k := t.dims; k < len(v); k++ {
		v[k] = min(v[0], 0) // 0 for set machines; padding's -1 when none is
	}
	return v
}

// SetAll sets every machine's free capacity and recomputes the inner nodes in O(machines).
func (t *Tree) SetAll(free func(m int) traces.Vec) {
	for m := 0; m < t.used; m++ {
		t.setLeaf(m, free(m))
	}
	t.rebuild()
}

// rebuild recomputes every inner node and drops the failure memos.
func (t *Tree) rebuild() {
	for i := t.size - 1; i >= 1; i-- {
		t.pull(i)
	}
	t.forget()
}

// setLeaf stores machine m's capacity and reports whether it widened dims (the inner nodes then
// need a rebuild).
func (t *Tree) setLeaf(m int, v traces.Vec) bool {
	n := &t.nodes[t.size+m]
	n.max, n.cone = v, conesOf(&v)
	if k := dimsOf(&v); k > t.dims {
		t.dims = k
		return true
	}
	return false
}

// pull recomputes node i's bounds from its children and reports whether they changed.
// Like covers, it does not branch per bound: it stores every maximum and ORs the differences.
func (t *Tree) pull(i int) bool {
	n, l, r := &t.nodes[i], &t.nodes[2*i], &t.nodes[2*i+1]
	c := [cones]int64{max(l.cone[0], r.cone[0]), max(l.cone[1], r.cone[1]), max(l.cone[2], r.cone[2]),
		max(l.cone[3], r.cone[3]), max(l.cone[4], r.cone[4])}
	diff := (c[0] ^ n.cone[0]) | (c[1] ^ n.cone[1]) | (c[2] ^ n.cone[2]) | (c[3] ^ n.cone[3]) | (c[4] ^ n.cone[4])
	n.cone = c
	for d := range t.dims {
		x := max(l.max[d], r.max[d])
		diff |= x ^ n.max[d]
		n.max[d] = x
	}
	return diff != 0
}

// raise lifts n's bounds to at least leaf's and reports whether any rose.
func (n *node) raise(leaf *node, dims int) bool {
	c := [cones]int64{max(n.cone[0], leaf.cone[0]), max(n.cone[1], leaf.cone[1]), max(n.cone[2], leaf.cone[2]),
		max(n.cone[3], leaf.cone[3]), max(n.cone[4], leaf.cone[4])}
	diff := (c[0] ^ n.cone[0]) | (c[1] ^ n.cone[1]) | (c[2] ^ n.cone[2]) | (c[3] ^ n.cone[3]) | (c[4] ^ n.cone[4])
	n.cone = c
	for d := range dims {
		x := max(n.max[d], leaf.max[d])
		diff |= x ^ n.max[d]
		n.max[d] = x
	}
	return diff != 0
}

// Set records machine m's free capacity. When it grew in some dimension, the failure memos
// above it lapse; otherwise the update stops climbing where a node's bounds do not change.
// When it grew in no dimension shrinking (a release), each bound above can only rise to the
// machine's: the climb raises bounds without reading siblings.
func (t *Tree) Set(m int, v traces.Vec) {
	i := t.size + m
	old := t.nodes[i].max
	if v == old {
		return
	}
	if t.planning {
		t.journal(m)
	}
	grew, shrank := !v.Fits(old), !old.Fits(v)
	if t.setLeaf(m, v) {
		t.rebuild()
		return
	}
	if grew {
		t.clock++
		t.gen++
	}
	if !shrank {
		leaf := &t.nodes[i]
		raised := true
		for i /= 2; i >= 1; i /= 2 {
			if raised {
				raised = t.nodes[i].raise(leaf, t.dims)
			}
			t.grown[i] = t.clock
		}
		return
	}
	changed := true
	for i /= 2; i >= 1; i /= 2 {
		if changed {
			changed = t.pull(i)
		}
		if !grew {
			if !changed {
				return
			}
			continue
		}
		t.grown[i] = t.clock
	}
}

// First returns the lowest machine whose free capacity fits d.
func (t *Tree) First(d traces.Vec) (int, bool) {
	dc := conesOf(&d)
	if t.used == 0 || !t.nodes[1].covers(&d, &dc, t.dims) || !t.fitsBeyond(&d) {
		return 0, false
	}
	return t.first(1, &d, &dc)
}

// first searches the subtree at node i, whose bounds cover d. A covering node may still hold no
// fitting machine: the search then backtracks to the right sibling, and remembers the failure.
func (t *Tree) first(i int, d *traces.Vec, dc *[cones]int64) (int, bool) {
	if i >= t.size {
		return i - t.size, true // a leaf's bounds are exactly its machine's free capacity
	}
	if t.failAt[i] != 0 && t.grown[i] <= t.failAt[i] && t.fail[i].Fits(*d) {
		return 0, false
	}
	if t.nodes[2*i].covers(d, dc, t.dims) {
		if m, ok := t.first(2*i, d, dc); ok {
			return m, true
		}
	}
	if t.nodes[2*i+1].covers(d, dc, t.dims) {
		if m, ok := t.first(2*i+1, d, dc); ok {
			return m, true
		}
	}
	t.fail[i], t.failAt[i] = *d, t.clock
	return 0, false
}

// FirstFrom returns the lowest machine m ≥ from whose free capacity fits d.
func (t *Tree) FirstFrom(d traces.Vec, from int) (int, bool) {
	if from <= 0 {
		return t.First(d)
	}
	if from >= t.used {
		return 0, false
	}
	dc := conesOf(&d)
	if !t.fitsBeyond(&d) {
		return 0, false
	}
	return t.descend(1, 0, t.size, &d, &dc, from)
}

func (t *Tree) descend(i, lo, hi int, d *traces.Vec, dc *[cones]int64, from int) (int, bool) {
	if hi <= from || !t.nodes[i].covers(d, dc, t.dims) {
		return 0, false
	}
	if lo >= from {
		return t.first(i, d, dc) // the whole subtree is at or after from
	}
	mid := (lo + hi) / 2
	if m, ok := t.descend(2*i, lo, mid, d, dc, from); ok {
		return m, true
	}
	return t.descend(2*i+1, mid, hi, d, dc, from)
}
