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
		if e.t == prev.t && e.kind == prev.kind && e.ord < prev.ord {
			t.Fatalf("equal (time, kind) popped out of insertion order: %+v after %+v", e, prev)
		}
		prev = e
	}
}

// TestEventHeapMatchesBinary interleaves pushes and pops (a hold model with bursts of equal
// times and kinds) on the 4-ary eventHeap and the standard binary heap, and checks that both
// pop the same events in the same order at every size from empty to a few thousand.
func TestEventHeapMatchesBinary(t *testing.T) {
	for _, tc := range []struct {
		name   string
		seed   uint64
		spread int64 // times drawn from [now, now+spread): small spreads make many ties
		grow   int   // pushes per step while growing
	}{
		{"ties", 1, 3, 2},
		{"spread", 2, 1_000_000, 2},
		{"deep", 3, 50, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 9))
			var h eventHeap
			var ref binaryHeap
			var now int64
			push := func(i int) {
				e := event{t: now + r.Int64N(tc.spread), kind: Kind(r.IntN(4)), task: int32(i)}
				h.push(e)
				ref.push(binEvent{t: e.t, kind: e.kind, task: e.task})
			}
			for step := 0; step < 20_000; step++ {
				switch {
				case step < 10_000 && r.IntN(tc.grow+1) > 0: // grow
					push(step)
				case ref.Len() > 0:
					a, b := h.pop(), ref.pop()
					if !same(a, b) {
						t.Fatalf("step %d: 4-ary heap popped %+v, binary heap %+v", step, a, b)
					}
					now = a.t
				}
				if h.Len() != ref.Len() {
					t.Fatalf("step %d: lengths %d and %d", step, h.Len(), ref.Len())
				}
			}
			for ref.Len() > 0 {
				if a, b := h.pop(), ref.pop(); !same(a, b) {
					t.Fatalf("drain: 4-ary heap popped %+v, binary heap %+v", a, b)
				}
			}
		})
	}
}

// same reports whether a and b are the same event (same time, kind, task and insertion rank).
func same(a event, b binEvent) bool {
	return a.t == b.t && a.kind == b.kind && a.task == b.task && a.ord == uint64(b.kind)<<ordSeqBits|b.seq
}
