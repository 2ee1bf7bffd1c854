package fit

import (
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
