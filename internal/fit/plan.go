package fit

import "github.com/schedlab/schedlab/traces"

// A Tree can be shared by the engine, which keeps it equal to every machine's free capacity,
// and a policy, which subtracts the starts of the plan it is building from it instead of keeping
// a copy of its own. Between BeginPlan and EndPlan the Tree journals every machine Set changes;
// EndPlan sets each of them back to the capacity the engine holds for it (after applying the
// plan: usually the value the policy already left there, which costs one comparison).

// BeginPlan starts journaling the machines Set changes.
func (t *Tree) BeginPlan() { t.planning = true }

// Planned reports whether machine m was changed since BeginPlan (an engine applying the plan
// leaves it alone until EndPlan).
func (t *Tree) Planned(m int) bool { return t.planning && t.inPlan[m] }

// EndPlan stops journaling and sets every journaled machine m to free[m].
func (t *Tree) EndPlan(free []traces.Vec) {
	t.planning = false
	for _, m := range t.planned {
		t.inPlan[m] = false
		t.Set(int(m), free[m])
	}
	t.planned = t.planned[:0]
}

// journal records that machine m changes during a plan.
func (t *Tree) journal(m int) {
	if !t.inPlan[m] {
		t.inPlan[m] = true
		t.planned = append(t.planned, int32(m))
	}
}

// resetPlan drops the journal and sizes it for n machines.
func (t *Tree) resetPlan(n int) {
	t.planning = false
	t.planned = t.planned[:0]
	if cap(t.inPlan) < n {
		t.inPlan = make([]bool, n)
	}
	t.inPlan = t.inPlan[:n]
	clear(t.inPlan)
}
