package fit

import "github.com/schedlab/schedlab/traces"

// Hints remembers a few recent searches of a Tree so that a later search can start where they
// ended. While no machine's capacity grows (a policy's plan only takes capacity), the machines
// below a search's answer for demand d stay unable to fit d, and so any demand at least as large
// in every dimension: its first fit lies at or after that answer, and a search from there
// climbs from the answer's leaf to the nearest subtree that covers it instead of descending
// from the root. A greedy policy placing the tasks of one stage after another asks for the
// same demand again and again, and the answer is usually the leaf it last took from or its
// neighbour. The zero Hints is empty; any growth of capacity in the Tree voids it.
type Hints struct {
	gen  uint64 // the Tree's gen the entries belong to; 0: none
	tree *Tree
	n    int // entries in use
	next int // the entry the next search replaces once all are in use
	e    [hintEntries]hintEntry
}

// hintEntries is the number of searches Hints remembers.
const hintEntries = 4

// hintEntry: no machine below from fits d (from = Len(): none fits).
type hintEntry struct {
	d    traces.Vec
	from int
}

// FirstHinted is First(d), starting from the furthest machine h's entries show to be a lower
// bound for d, and remembering the answer in h.
func (t *Tree) FirstHinted(d traces.Vec, h *Hints) (int, bool) {
	if h.tree != t || h.gen != t.gen {
		h.tree, h.gen, h.n, h.next = t, t.gen, 0, 0
	}
	from := 0
	for k := range h.n {
		if e := &h.e[k]; e.from > from && e.d.Fits(d) {
			from = e.from
		}
	}
	var m int
	var ok bool
	if from == 0 {
		m, ok = t.First(d)
	} else {
		m, ok = t.firstUp(d, from)
	}
	at := m
	if !ok {
		at = t.used
	}
	if at > 0 {
		k := h.next
		if h.n < hintEntries {
			k = h.n
			h.n++
		} else {
			h.next = (h.next + 1) % hintEntries
		}
		h.e[k] = hintEntry{d: d, from: at}
	}
	return m, ok
}

// firstUp returns the lowest machine m ≥ from whose free capacity fits d, climbing from from's
// leaf: each right sibling on the way up that covers d is searched, nearest first. When the
// root's bounds do not cover d (a full cluster) it answers at once, as First does.
func (t *Tree) firstUp(d traces.Vec, from int) (int, bool) {
	if from >= t.used || !t.fitsBeyond(&d) {
		return 0, false
	}
	dc := conesOf(&d)
	if !t.nodes[1].covers(&d, &dc, t.dims) {
		return 0, false
	}
	i := t.size + from
	if t.nodes[i].covers(&d, &dc, t.dims) {
		return from, true
	}
	for ; i > 1; i /= 2 {
		if i&1 == 0 && t.nodes[i+1].covers(&d, &dc, t.dims) {
			if m, ok := t.first(i+1, &d, &dc); ok {
				return m, true
			}
		}
	}
	return 0, false
}
