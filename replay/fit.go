package replay

import "github.com/schedlab/schedlab/traces"

// fitIndex answers "lowest-numbered machine whose free capacity fits d" without scanning every
// machine: a segment tree whose nodes hold the per-dimension maximum of free capacity below them.
// A subtree whose maxima do not cover d cannot hold a fitting machine and is skipped.
type fitIndex struct {
	n    int // leaves (power of two ≥ machines)
	max  []traces.Vec
	used int // machines
}

func newFitIndex(free []traces.Vec) *fitIndex {
	n := 1
	for n < len(free) {
		n *= 2
	}
	f := &fitIndex{n: n, max: make([]traces.Vec, 2*n), used: len(free)}
	for i := range f.max[n:] {
		if i < len(free) {
			f.max[n+i] = free[i]
		} else {
			for d := range f.max[n+i] {
				f.max[n+i][d] = -1 // padding never fits
			}
		}
	}
	for i := n - 1; i >= 1; i-- {
		f.pull(i)
	}
	return f
}

func (f *fitIndex) pull(i int) {
	l, r := &f.max[2*i], &f.max[2*i+1]
	for d := range f.max[i] {
		f.max[i][d] = max(l[d], r[d])
	}
}

// set records machine m's new free capacity.
func (f *fitIndex) set(m int, free traces.Vec) {
	i := f.n + m
	f.max[i] = free
	for i /= 2; i >= 1; i /= 2 {
		old := f.max[i]
		f.pull(i)
		if f.max[i] == old {
			break
		}
	}
}

// first returns the lowest machine whose free capacity fits d.
func (f *fitIndex) first(d traces.Vec) (int, bool) {
	if !d.Fits(f.max[1]) {
		return 0, false
	}
	return f.descend(1, d)
}

func (f *fitIndex) descend(i int, d traces.Vec) (int, bool) {
	if i >= f.n {
		return i - f.n, true // leaf: max is exactly the machine's free capacity
	}
	if d.Fits(f.max[2*i]) {
		if m, ok := f.descend(2*i, d); ok {
			return m, true
		}
	}
	if d.Fits(f.max[2*i+1]) {
		return f.descend(2*i+1, d)
	}
	return 0, false
}
