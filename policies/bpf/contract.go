package bpf

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/schedlab/schedlab/traces"
)

// Shape is the form of one ON/OFF cycle of a latency-sensitive queue (LQ): in the paper's
// notation, t_i(n), T_i(n+1) − T_i(n) and d_i(n).
type Shape struct {
	// Duration is the burst's allowed processing time t_i(n): its jobs should finish by
	// T_i(n) + t_i(n).
	Duration traces.Time
	// Period is the cycle length T_i(n+1) − T_i(n): the ON period plus the OFF period after it.
	Period traces.Time
	// Demand is d_i(n), the resources the burst asks for while it runs, in absolute units.
	Demand traces.Vec
}

// Burst is the n-th ON period of a contract (n counts from 0).
type Burst struct {
	N     int
	Start traces.Time // T_i(n)
	Shape
}

// End is the burst's deadline T_i(n) + t_i(n).
func (b Burst) End() traces.Time { return b.Start + b.Duration }

// Contract is an LQ's declared bursts: Count bursts, the n-th of shape Shapes[n mod
// len(Shapes)], the first starting at Start and each later one a period after the previous.
// One shape is a strictly periodic queue; several shapes cycle (as the burst lines of a BoPF
// queue_input file do). Call Validate before the other methods.
type Contract struct {
	Start  traces.Time
	Shapes []Shape
	Count  int

	prefix []traces.Time // offset of each shape's start within one pass over Shapes
	cycle  traces.Time   // the sum of the shapes' periods
}

// maxSpan bounds a contract's end so that burst arithmetic never overflows.
const maxSpan = traces.Time(1) << 62

// Validate checks the contract (positive durations no longer than their periods, non-negative
// demands, at least one burst, an end within ~146,000 years) and prepares it for use.
func (c *Contract) Validate() error {
	if len(c.Shapes) == 0 {
		return errors.New("contract has no burst shapes")
	}
	if c.Count < 1 {
		return fmt.Errorf("contract has %d bursts; want at least 1", c.Count)
	}
	if c.Start < 0 {
		return fmt.Errorf("contract starts at %d, before time 0", c.Start)
	}
	c.prefix = c.prefix[:0]
	c.cycle = 0
	for i := range c.Shapes {
		s := &c.Shapes[i]
		if s.Duration <= 0 || s.Period <= 0 {
			return fmt.Errorf("burst shape %d: duration %d and period %d must be positive", i, s.Duration, s.Period)
		}
		if s.Duration > s.Period {
			return fmt.Errorf("burst shape %d: duration %gs exceeds its period %gs", i, traces.Seconds(s.Duration), traces.Seconds(s.Period))
		}
		if s.Demand.AnyNegative() {
			return fmt.Errorf("burst shape %d: negative demand", i)
		}
		if s.Period > maxSpan-c.cycle {
			return errors.New("contract's cycle is too long")
		}
		c.prefix = append(c.prefix, c.cycle)
		c.cycle += s.Period
	}
	span := float64(c.Start) + float64(c.cycle)*(float64(c.Count)/float64(len(c.Shapes))+1)
	if span >= float64(maxSpan) {
		return fmt.Errorf("contract of %d bursts ends beyond the simulator's time range", c.Count)
	}
	return nil
}

// Burst returns burst n (0 ≤ n < Count).
func (c *Contract) Burst(n int) Burst {
	l := len(c.Shapes)
	k := n % l
	return Burst{N: n, Start: c.Start + traces.Time(n/l)*c.cycle + c.prefix[k], Shape: c.Shapes[k]}
}

// Index returns the burst whose cycle [T(n), T(n+1)) contains t, and false when t is before
// the first burst or after the last burst's cycle.
func (c *Contract) Index(t traces.Time) (int, bool) {
	if t < c.Start {
		return 0, false
	}
	d := t - c.Start
	l := len(c.Shapes)
	n := int(d/c.cycle) * l
	off := d % c.cycle
	// The last shape whose offset is ≤ off.
	k := sort.Search(l, func(i int) bool { return c.prefix[i] > off }) - 1
	n += k
	if n >= c.Count {
		return 0, false
	}
	return n, true
}

// Ratio returns the contract's largest burst size relative to its cycle,
// max over n and dimensions k of d^k(n)·t(n) / (C^k·(T(n+1) − T(n))), and the first burst
// attaining it. A queue holding ratio r passes the fairness condition (3) among N queues iff
// r·N ≤ 1. Demand in a dimension the cluster lacks makes the ratio +Inf.
func (c *Contract) Ratio(capacity traces.Vec, dims int) (float64, int) {
	best, at := 0.0, 0
	n := min(len(c.Shapes), c.Count)
	for i := 0; i < n; i++ {
		if r := shapeRatio(&c.Shapes[i], capacity, dims); r > best {
			best, at = r, i
		}
	}
	return best, at
}

func shapeRatio(s *Shape, capacity traces.Vec, dims int) float64 {
	best := 0.0
	for k := 0; k < dims; k++ {
		d := s.Demand[k]
		if d == 0 {
			continue
		}
		if capacity[k] <= 0 {
			return math.Inf(1)
		}
		r := (float64(d) / float64(capacity[k])) * (float64(s.Duration) / float64(s.Period))
		best = max(best, r)
	}
	return best
}
