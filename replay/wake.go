package replay

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Wake-ups: a policy with the policies.Waker ability names the next time it wants a scheduling
// point; the engine keeps one pending wake-up in the heap (a KindCluster event with the jobWake
// marker, handled in clusterEvent) and asks again after every Schedule call. A wake-up that a
// later, earlier request overtook still fires: its scheduling point finds nothing new. With a
// scheduling cycle a wake-up makes no scheduling point of its own (the next tick is one), but
// it keeps the run going: a cycle that plans nothing with nothing else in flight ends the run.

// jobWake marks a policy's wake-up in the heap (beside cluster.go's markers).
const jobWake int32 = -4

// TracePlacements implements policies.TracePlacements.
func (e *Engine) TracePlacements() []traces.TaskPlacement { return e.w.Placements }

var _ policies.TracePlacements = (*Engine)(nil)

// askWake asks a Waker policy for its next wake-up after a Schedule call.
func (e *Engine) askWake() {
	wk, ok := e.policy.(policies.Waker)
	if !ok {
		return
	}
	t, ok := wk.NextWake()
	if !ok || t <= e.now || (e.wakeAt > e.now && e.wakeAt <= t) {
		return
	}
	e.wakeAt = t
	e.heap.push(event{t: t, kind: KindCluster, job: jobWake})
}

// wake handles a wake-up: the instant becomes a scheduling point.
func (e *Engine) wake() {
	if e.wakeAt == e.now {
		e.wakeAt = 0
	}
	e.dirty = true
}
