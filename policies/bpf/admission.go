package bpf

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Class is the admission class of a queue.
type Class uint8

// Admission classes (paper §3.3). The zero Class means "not yet admitted".
const (
	// Hard: an LQ with a hard guarantee (class H): it receives d_i(n) during each cycle until
	// its burst has consumed d_i(n)·t_i(n).
	Hard Class = iota + 1
	// Soft: an LQ with a soft guarantee (class S): like Hard, but served after the hard queues,
	// from the capacity they have not committed, shortest remaining work first.
	Soft
	// Elastic: a TQ, or an LQ whose bursts exceed its long-term fair share (class E): no
	// short-term guarantee; elastic queues share what the guaranteed queues leave by DRF.
	Elastic
	// Rejected: admitting the queue would break a guarantee already given (safety condition).
	Rejected
)

// String returns "H", "S", "E", "rejected" or "none".
func (c Class) String() string {
	switch c {
	case Hard:
		return "H"
	case Soft:
		return "S"
	case Elastic:
		return "E"
	case Rejected:
		return "rejected"
	}
	return "none"
}

// Guaranteed reports whether the class carries a burst guarantee (H or S).
func (c Class) Guaranteed() bool { return c == Hard || c == Soft }

// Condition names an admission condition of the paper.
type Condition uint8

// Admission conditions. CondNone means every condition that was checked held.
const (
	CondNone Condition = iota
	// CondSafety is condition (2): admitting one more queue leaves every guaranteed burst within
	// its queue's long-term fair share.
	CondSafety
	// CondFairness is condition (3): the new LQ's own bursts are within its long-term fair share.
	CondFairness
	// CondResource is condition (4): the new LQ's demand fits beside the hard guarantees during
	// each of its ON periods.
	CondResource
	// CondUnknown: the LQ's burst parameters could not be determined (e.g. no period declared);
	// it is treated as elastic.
	CondUnknown
)

// String names the condition as the paper numbers it.
func (c Condition) String() string {
	switch c {
	case CondSafety:
		return "safety (2)"
	case CondFairness:
		return "fairness (3)"
	case CondResource:
		return "resource (4)"
	case CondUnknown:
		return "burst parameters unknown"
	}
	return "none"
}

// Decision is the outcome of one admission.
type Decision struct {
	Class Class
	// Failed is the condition that decided a class below the best possible: CondSafety for a
	// rejection, CondFairness for an elastic LQ, CondResource for a soft LQ (or an elastic one
	// under N-BPF). CondNone when every condition held.
	Failed Condition
	// Burst is the first burst of the new LQ at which the failed condition does not hold
	// (fairness, resource), else -1.
	Burst int
	// Blocker is the id of the guaranteed queue whose guarantee the safety condition protects
	// (for a rejection), else -1.
	Blocker int
	// Queues is |H|+|S|+|E|+1: the number of admitted queues the conditions were checked for.
	Queues int
	// Ratio is the checked quantity relative to its bound (≤ 1 passes): for safety the blocker's
	// ratio·Queues, for fairness the new LQ's; for resource the largest committed-plus-demand
	// over capacity at the failing burst.
	Ratio float64
}

// Reason renders the decision as one line for the results, naming queues by id.
func (d Decision) Reason() string { return d.Describe(nil) }

// Describe renders the decision as one line, naming the blocking queue with name (nil: by id).
func (d Decision) Describe(name func(id int) string) string {
	switch d.Failed {
	case CondNone:
		if d.Class == Elastic {
			return fmt.Sprintf("TQ: safety (2) holds with %d queues", d.Queues)
		}
		return fmt.Sprintf("safety (2), fairness (3) and resource (4) hold with %d queues", d.Queues)
	case CondSafety:
		blocker := fmt.Sprintf("queue %d", d.Blocker)
		if name != nil {
			blocker = fmt.Sprintf("queue %q", name(d.Blocker))
		}
		return fmt.Sprintf("safety (2) fails: %s's bursts would reach %.3g of its fair share among %d queues", blocker, d.Ratio, d.Queues)
	case CondFairness:
		return fmt.Sprintf("fairness (3) fails at burst %d: d·t is %.3g of its fair share among %d queues", d.Burst, d.Ratio, d.Queues)
	case CondResource:
		return fmt.Sprintf("resource (4) fails at burst %d: hard commitments plus its demand reach %.3g of capacity", d.Burst, d.Ratio)
	case CondUnknown:
		return "burst parameters unknown (no period declared): treated as elastic"
	}
	return ""
}

// tolerance absorbs floating-point rounding in the ratio comparisons, in favour of admission.
const tolerance = 1e-9

// AdmissionControl decides the class of each new queue by the paper's Algorithm 1 (LQAdmit and
// TQAdmit). It keeps, for the safety condition, the largest burst ratio among the guaranteed
// queues (so the condition costs O(1)), and for the resource condition the timeline of hard
// commitments (so an LQ of B bursts costs O(B) when its ON periods span a few seconds each; see
// timeline). Admitting the queues of a workload therefore costs time linear in queues × cycles.
//
// Queues never leave: the paper evaluates fairness over intervals without admissions or exits,
// and a trace replay has no queue departures.
type AdmissionControl struct {
	capacity traces.Vec
	dims     int
	soft     bool

	admitted  int     // |H| + |S| + |E|
	maxRatio  float64 // largest Contract.Ratio among H ∪ S
	maxHolder int     // its queue id
	counts    [Rejected + 1]int
	hard      *timeline
}

// NewAdmissionControl returns an admission control for a cluster of the given capacity over
// the first dims resource dimensions. soft selects BPF (three classes); without it the control
// is N-BPF's (no soft class: an LQ that fails the resource condition is elastic).
func NewAdmissionControl(capacity traces.Vec, dims int, soft bool) (*AdmissionControl, error) {
	if dims < 1 || dims > traces.MaxDims {
		return nil, fmt.Errorf("admission: %d resource dimensions (want 1..%d)", dims, traces.MaxDims)
	}
	if capacity.AnyNegative() {
		return nil, errors.New("admission: negative capacity")
	}
	return &AdmissionControl{capacity: capacity, dims: dims, soft: soft, maxHolder: -1, hard: newTimeline(dims)}, nil
}

// Admitted returns |H| + |S| + |E|.
func (a *AdmissionControl) Admitted() int { return a.admitted }

// Count returns how many queues were given class c.
func (a *AdmissionControl) Count(c Class) int {
	if c > Rejected {
		return 0
	}
	return a.counts[c]
}

// Breakpoints returns the size of the hard-commitment timeline (for cost accounting).
func (a *AdmissionControl) Breakpoints() int { return a.hard.size() }

// safety checks condition (2) for one more queue.
func (a *AdmissionControl) safety(d *Decision) bool {
	d.Queues = a.admitted + 1
	if a.maxHolder < 0 {
		return true
	}
	if v := a.maxRatio * float64(d.Queues); v > 1+tolerance {
		d.Failed, d.Blocker, d.Ratio = CondSafety, a.maxHolder, v
		return false
	}
	return true
}

// AdmitTQ admits a throughput-sensitive queue (TQAdmit): elastic if the safety condition holds,
// else rejected.
func (a *AdmissionControl) AdmitTQ() Decision {
	d := Decision{Burst: -1, Blocker: -1}
	if !a.safety(&d) {
		d.Class = Rejected
	} else {
		d.Class = Elastic
		a.admitted++
	}
	a.counts[d.Class]++
	return d
}

// AdmitUnknown admits an LQ whose burst parameters are unknown: elastic if the safety condition
// holds (it gets its long-term fair share, as an over-demanding LQ does), else rejected.
func (a *AdmissionControl) AdmitUnknown() Decision {
	d := a.AdmitTQ()
	if d.Class == Elastic {
		d.Failed = CondUnknown
	}
	return d
}

// AdmitLQ admits a latency-sensitive queue with id and validated contract c (LQAdmit): rejected
// when the safety condition (2) fails; elastic when its own bursts fail the fairness condition
// (3); hard when the resource condition (4) holds at every burst; otherwise soft (or, for
// N-BPF, elastic). A queue admitted to H commits its bursts to the timeline.
func (a *AdmissionControl) AdmitLQ(id int, c *Contract) Decision {
	d := Decision{Burst: -1, Blocker: -1}
	switch {
	case !a.safety(&d):
		d.Class = Rejected
	case !a.fair(c, &d):
		d.Class = Elastic
	case !a.fits(c, &d):
		d.Class = Elastic
		if a.soft {
			d.Class = Soft
		}
	default:
		d.Class = Hard
		for n := 0; n < c.Count; n++ {
			b := c.Burst(n)
			a.hard.add(b.Start, b.End(), &b.Demand)
		}
	}
	if d.Class != Rejected {
		a.admitted++
	}
	if d.Class.Guaranteed() {
		if r, _ := c.Ratio(a.capacity, a.dims); a.maxHolder < 0 || r > a.maxRatio {
			a.maxRatio, a.maxHolder = r, id
		}
	}
	a.counts[d.Class]++
	return d
}

// fair checks condition (3) for contract c.
func (a *AdmissionControl) fair(c *Contract, d *Decision) bool {
	r, at := c.Ratio(a.capacity, a.dims)
	if v := r * float64(d.Queues); v > 1+tolerance || math.IsInf(r, 1) {
		d.Failed, d.Burst, d.Ratio = CondFairness, at, v
		return false
	}
	return true
}

// fits checks condition (4) for contract c: every burst's demand fits beside the hard
// commitments over its ON period.
func (a *AdmissionControl) fits(c *Contract, d *Decision) bool {
	for n := 0; n < c.Count; n++ {
		b := c.Burst(n)
		peak := a.hard.peakOver(b.Start, b.End())
		for k := 0; k < a.dims; k++ {
			if b.Demand[k] == 0 {
				continue
			}
			if peak[k]+b.Demand[k] > a.capacity[k] {
				d.Failed, d.Burst = CondResource, n
				d.Ratio = math.Inf(1)
				if a.capacity[k] > 0 {
					d.Ratio = float64(peak[k]+b.Demand[k]) / float64(a.capacity[k])
				}
				return false
			}
		}
	}
	return true
}
