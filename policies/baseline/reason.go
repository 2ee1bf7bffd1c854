package baseline

import (
	"math"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// startReason says why job j is served now: what put it first in the policy's order, with the
// value the order compared (a share, a deadline, the remaining work). Nothing is formatted here.
func (c *core) startReason(r *jobRec) policies.Reason {
	if r.group >= 0 {
		g := &c.groups[r.group]
		if c.kind == kindFair {
			return policies.BecauseValue("queue with the fewest tasks per weight", float64(g.running)/g.weight)
		}
		return policies.BecauseValue("queue with the lowest dominant share", c.dominantShare(&g.alloc)/g.weight)
	}
	switch c.kind {
	case kindEDF:
		if r.deadline == math.MaxInt64 {
			return policies.Because("no deadline: first submitted")
		}
		return policies.BecauseValue("earliest deadline (s)", traces.Seconds(r.deadline))
	case kindSRPT:
		return policies.BecauseValue("least remaining work (task-s)", traces.Seconds(r.remain))
	case kindFair:
		return policies.BecauseValue("fewest running tasks per weight", float64(r.running)/r.weight)
	case kindDRF:
		return policies.BecauseValue("lowest dominant share", c.dominantShare(&r.alloc)/r.weight)
	case kindSP:
		return policies.BecauseValue("highest class, then lowest dominant share", c.dominantShare(&r.alloc)/r.weight)
	}
	return policies.Because("head of queue")
}

// preemptReason explains preempting a lower-class task for the job of trace ID id.
func preemptReason(id int64) policies.Reason {
	return policies.BecauseValue("make room for higher-class job", float64(id))
}
