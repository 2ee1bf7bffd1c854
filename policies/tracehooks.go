package policies

import "github.com/schedlab/schedlab/traces"

// TracePlacements is an optional ability of a View, discovered by type assertion: the replayed
// workload's trace placements (traces.Workload.Placements; nil when it has none), for a policy
// that replays the source trace's own decisions. The slice is the engine's: read, never modify.
type TracePlacements interface {
	TracePlacements() []traces.TaskPlacement
}

// Waker is an optional ability of a Policy: after each Schedule call the engine asks it for the
// next time it wants a scheduling point even if nothing else happens then (a task the policy
// means to start at a given time). ok false, or a time not after now, asks for none. With a
// scheduling cycle the scheduling point is the first tick at or after that time.
type Waker interface {
	NextWake() (t traces.Time, ok bool)
}
