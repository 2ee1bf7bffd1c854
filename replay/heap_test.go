package replay

import (
	"math/rand/v2"
	"testing"
)

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
