package replay

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestFitIndexMatchesLinearScan checks the segment tree against a brute-force first-fit scan over
// random machine states, demands and updates.
func TestFitIndexMatchesLinearScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(40)
		free := make([]traces.Vec, n)
		randVec := func() traces.Vec {
			return traces.Vec{r.Int64N(5), r.Int64N(5), r.Int64N(3)}
		}
		for i := range free {
			free[i] = randVec()
		}
		f := newFitIndex(free)
		for step := 0; step < 50; step++ {
			if r.IntN(2) == 0 {
				m := r.IntN(n)
				free[m] = randVec()
				f.set(m, free[m])
			}
			d := randVec()
			want, wantOK := -1, false
			for i, v := range free {
				if d.Fits(v) {
					want, wantOK = i, true
					break
				}
			}
			got, ok := f.first(d)
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("trial %d step %d: first(%v) = %d,%v; linear scan says %d,%v (free %v)", trial, step, d, got, ok, want, wantOK, free)
			}
		}
	}
}

// TestEventHeapOrder pops random events and checks (time, kind, sequence) order.
func TestEventHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h eventHeap
	for i := 0; i < 5000; i++ {
		h.push(event{t: r.Int64N(100), kind: Kind(r.IntN(4))})
	}
	prev := h.pop()
	for h.Len() > 0 {
		e := h.pop()
		if e.less(&prev) {
			t.Fatalf("popped %+v after %+v", e, prev)
		}
		if e.t == prev.t && e.kind == prev.kind && e.seq < prev.seq {
			t.Fatalf("equal (time, kind) popped out of insertion order: %+v after %+v", e, prev)
		}
		prev = e
	}
}
