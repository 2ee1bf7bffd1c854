package policies

// PlanDrops is an optional ability of a View, discovered by type assertion, when the engine
// charges decision time to the simulated clock (engine.decision_time): a plan then takes effect
// after the scheduler's decision time, and a preemption of a task that finished meanwhile is
// dropped. A policy that remembers the preemptions it asked for (to tell a preempted task from
// a finished one) forgets these.
type PlanDrops interface {
	// DroppedPreempts lists the preemptions of the previous plan that were dropped because
	// their task finished while the scheduler was deciding.
	DroppedPreempts() []TaskRef
}
