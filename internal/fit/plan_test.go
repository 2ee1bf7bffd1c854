package fit

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

func TestPlanJournalsAndRestores(t *testing.T) {
	free := []traces.Vec{traces.VecOf(4, 4), traces.VecOf(2, 8), traces.VecOf(8, 2), traces.VecOf(1, 1)}
	tr := New(free)
	tr.BeginPlan()
	tr.Set(1, traces.VecOf(0, 0))
	tr.Set(1, traces.VecOf(0, 1)) // journaled once
	tr.Set(3, free[3])            // unchanged: not journaled
	if !tr.Planned(1) || tr.Planned(0) || tr.Planned(3) {
		t.Fatalf("planned: 0 %v, 1 %v, 3 %v; want only 1", tr.Planned(0), tr.Planned(1), tr.Planned(3))
	}
	if len(tr.planned) != 1 {
		t.Fatalf("journal %v, want [1]", tr.planned)
	}
	if m, ok := tr.First(traces.VecOf(2, 5)); ok {
		t.Fatalf("during the plan, machine 1 is taken; First found %d", m)
	}
	now := append([]traces.Vec(nil), free...)
	now[1] = traces.VecOf(1, 3) // the engine started less than the policy planned
	tr.EndPlan(now)
	if tr.Planned(1) || tr.Free(1) != now[1] {
		t.Fatalf("after EndPlan: planned %v, free %v; want false, %v", tr.Planned(1), tr.Free(1), now[1])
	}
	if m, ok := tr.First(traces.VecOf(1, 3)); !ok || m != 0 {
		t.Fatalf("First(1,3) = %d, %v; want 0", m, ok)
	}
	if m, ok := tr.First(traces.VecOf(1, 6)); ok {
		t.Fatalf("First(1,6) = %d; machine 1 has only 3 mem left", m)
	}
	tr.Set(2, traces.VecOf(0, 0)) // not planning: not journaled
	if tr.Planned(2) || len(tr.planned) != 0 {
		t.Fatal("a Set outside a plan was journaled")
	}
}

// TestBoundsStayExact checks, after every Set of a random mix of releases (pure growth, which
// raises the bounds above without reading siblings), takes and reshapes, that every inner node
// holds exactly the maxima of its children: Max and the searches' pruning rely on it.
func TestBoundsStayExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	free := make([]traces.Vec, 37)
	for m := range free {
		free[m] = traces.VecOf(float64(rng.IntN(9)), float64(rng.IntN(9)))
	}
	tr := New(free)
	for op := range 5000 {
		m := rng.IntN(len(free))
		v := tr.Free(m)
		d := traces.VecOf(float64(rng.IntN(3)), float64(rng.IntN(3)))
		switch rng.IntN(3) {
		case 0:
			v = v.Add(d)
		case 1:
			v = v.Sub(d)
		default:
			v = traces.VecOf(float64(rng.IntN(9)), float64(rng.IntN(9)))
		}
		tr.Set(m, v)
		for i := tr.size - 1; i >= 1; i-- {
			n, l, r := tr.nodes[i], tr.nodes[2*i], tr.nodes[2*i+1]
			for k := range n.cone {
				if n.cone[k] != max(l.cone[k], r.cone[k]) {
					t.Fatalf("op %d: node %d cone %d is %d, its children's maximum %d", op, i, k, n.cone[k], max(l.cone[k], r.cone[k]))
				}
			}
			for k := range tr.dims {
				if n.max[k] != max(l.max[k], r.max[k]) {
					t.Fatalf("op %d: node %d max[%d] is %d, its children's maximum %d", op, i, k, n.max[k], max(l.max[k], r.max[k]))
				}
			}
		}
	}
}
