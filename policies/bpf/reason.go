package bpf

import "github.com/schedlab/schedlab/policies"

// startReason says under which of its classes queue q's task starts: "hard guarantee LQ-0".
func startReason(q *queue) policies.Reason {
	switch q.class {
	case Hard:
		return policies.BecauseOf("hard guarantee", q.name)
	case Soft:
		return policies.BecauseOf("soft guarantee", q.name)
	case Elastic:
		return policies.BecauseOf("elastic share (DRF)", q.name)
	case Rejected:
		return policies.BecauseOf("rejected queue, left-over capacity", q.name)
	}
	return policies.BecauseOf("not yet admitted", q.name)
}

// preemptReason explains preempting a task to make room for guaranteed queue q.
func preemptReason(q *queue) policies.Reason {
	return policies.BecauseOf("make room for the guarantee of", q.name)
}
