// Package fit answers first-fit placement queries over machines' free capacity.
//
// The replay engine (View.FirstFit) and the baseline policies (their plan-adjusted copy of every
// machine's free capacity) both ask "which is the lowest-numbered machine whose free capacity
// fits this demand?" at every placement; a Tree answers it in O(log machines) instead of a scan.
package fit

import "github.com/schedlab/schedlab/traces"

// Tree is a segment tree over machines whose nodes hold the per-dimension maximum of the free
// capacity below them. A subtree whose maxima do not cover a demand holds no machine that fits
// it and is skipped. The zero Tree has no machines; Reset sizes it.
type Tree struct {
	size int // leaves: a power of two ≥ used
	used int // machines
	max  []traces.Vec
}

// never is a padding leaf's capacity: it fits nothing, not even a zero demand.
var never = func() traces.Vec {
	var v traces.Vec
	for d := range v {
		v[d] = -1
	}
	return v
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
	if cap(t.max) < 2*size {
		t.max = make([]traces.Vec, 2*size)
	}
	t.max = t.max[:2*size]
	for i := range t.max {
		t.max[i] = never
	}
}

// Len returns the number of machines.
func (t *Tree) Len() int { return t.used }

// Free returns machine m's free capacity as last set.
func (t *Tree) Free(m int) traces.Vec { return t.max[t.size+m] }

// Max returns the per-dimension maximum of every machine's free capacity: a demand that does not
// fit it fits no machine.
func (t *Tree) Max() traces.Vec { return t.max[1] }

// SetAll sets every machine's free capacity and recomputes the inner nodes in O(machines).
func (t *Tree) SetAll(free func(m int) traces.Vec) {
	for m := 0; m < t.used; m++ {
		t.max[t.size+m] = free(m)
	}
	for i := t.size - 1; i >= 1; i-- {
		t.pull(i)
	}
}

func (t *Tree) pull(i int) {
	l, r := &t.max[2*i], &t.max[2*i+1]
	for d := range t.max[i] {
		t.max[i][d] = max(l[d], r[d])
	}
}

// Set records machine m's free capacity. The update stops climbing where a node's maximum does
// not change.
func (t *Tree) Set(m int, v traces.Vec) {
	i := t.size + m
	t.max[i] = v
	for i /= 2; i >= 1; i /= 2 {
		old := t.max[i]
		t.pull(i)
		if t.max[i] == old {
			return
		}
	}
}

// First returns the lowest machine whose free capacity fits d.
func (t *Tree) First(d traces.Vec) (int, bool) {
	if t.used == 0 || !d.Fits(t.max[1]) {
		return 0, false
	}
	return t.first(1, d)
}

// first searches the subtree at node i, whose maxima fit d. Maxima are per dimension, so a
// fitting node may still hold no fitting machine (one machine has the cpu, another the memory):
// the search then backtracks to the right sibling.
func (t *Tree) first(i int, d traces.Vec) (int, bool) {
	if i >= t.size {
		return i - t.size, true // a leaf's maximum is exactly its machine's free capacity
	}
	if d.Fits(t.max[2*i]) {
		if m, ok := t.first(2*i, d); ok {
			return m, true
		}
	}
	if d.Fits(t.max[2*i+1]) {
		return t.first(2*i+1, d)
	}
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
	return t.descend(1, 0, t.size, d, from)
}

func (t *Tree) descend(i, lo, hi int, d traces.Vec, from int) (int, bool) {
	if hi <= from || !d.Fits(t.max[i]) {
		return 0, false
	}
	if i >= t.size {
		return lo, true
	}
	mid := (lo + hi) / 2
	if m, ok := t.descend(2*i, lo, mid, d, from); ok {
		return m, true
	}
	return t.descend(2*i+1, mid, hi, d, from)
}
