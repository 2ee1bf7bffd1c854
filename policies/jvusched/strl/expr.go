// Package strl holds TetriSched's space-time request language (STRL, Tumanov et al., EuroSys
// 2016) with JamaisVu's preemption extensions (pSTRL, CMU-PDL-16-104 §4.1): expression trees
// that describe, for one scheduling cycle, every option of every pending job — which resources,
// when, for how long, and what it is worth — and what preempting a running job would cost.
//
// Leaves:
//
//   - nck(set, k, start, dur, v): k machines of the equivalence set from start for dur, worth v.
//   - lnck(set, k, start, dur, v): linear nCk, up to k machines, worth v·(machines/k).
//   - killnck(set, k, start_p, finish_p, c): preempt all k machines a running job holds in set,
//     returning them over [start_p, finish_p], at cost c (worth −c).
//   - lkillnck(set, k, start_p, finish_p, c): linear KillnCk, preempt up to k of them at cost
//     c·(machines/k).
//
// Operators: max(e…) is worth its best child and chooses at most one (exclusive or); min(e…)
// chooses all children or none and is worth the least of them; sum(e…) chooses any subset and is
// worth the sum; scale(e, s) multiplies e's worth by s ≥ 0; barrier(e, v) is worth v when e is
// chosen and worth at least v, else 0 and nothing is chosen.
//
// An equivalence set names machines and attribute selectors: {m1,m2}, {rack=r0}, {gpu}, {*}
// (every machine), or a union such as {rack=r3,m7}. Package milp resolves sets against a cluster,
// groups identical machines into partitions and compiles an expression into a MILP.
//
// The text form (Format, Parse) round-trips exactly: times are decimal seconds with up to six
// fractional digits (simulated time is integer microseconds), values are shortest decimal
// floats. Any node may carry a label in brackets, kept through the round trip, which policies use
// to map compiled decisions back to jobs:
//
//	sum(killnck({m2,m3}, 2, 10, 10, 11),
//	    max[j2](nck({m1,m2}, 2, 10, 20, 100), nck({m3,m4}, 2, 10, 20, 100), nck({*}, 2, 20, 20, 1)))
package strl

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Expr is an STRL expression: one of *NCk, *KillNCk, *Max, *Min, *Sum, *Scale, *Barrier.
type Expr interface {
	// Label is the node's label ("" when none).
	Label() string
	node()
}

// NCk asks for K machines of Set from Start for Dur, worth Value; Linear makes it LnCk (up to K
// machines, worth Value per K).
type NCk struct {
	Tag    string
	Set    Set
	K      int
	Start  traces.Time
	Dur    traces.Time
	Value  float64
	Linear bool
}

// KillNCk offers to preempt the K machines a running job holds in Set, which then count as
// available from StartP through FinishP (inclusive), at cost Cost; Linear makes it the linear
// KillnCk (up to K machines at Cost per K).
type KillNCk struct {
	Tag     string
	Set     Set
	K       int
	StartP  traces.Time
	FinishP traces.Time
	Cost    float64
	Linear  bool
}

// Max chooses at most one child and is worth it.
type Max struct {
	Tag      string
	Children []Expr
}

// Min chooses every child or none and is worth the least of them.
type Min struct {
	Tag      string
	Children []Expr
}

// Sum chooses any subset of its children and is worth their sum.
type Sum struct {
	Tag      string
	Children []Expr
}

// Scale is worth Factor times its child.
type Scale struct {
	Tag    string
	Child  Expr
	Factor float64
}

// Barrier is worth Value when its child is chosen and worth at least Value.
type Barrier struct {
	Tag   string
	Child Expr
	Value float64
}

func (e *NCk) Label() string     { return e.Tag }
func (e *KillNCk) Label() string { return e.Tag }
func (e *Max) Label() string     { return e.Tag }
func (e *Min) Label() string     { return e.Tag }
func (e *Sum) Label() string     { return e.Tag }
func (e *Scale) Label() string   { return e.Tag }
func (e *Barrier) Label() string { return e.Tag }

func (*NCk) node()     {}
func (*KillNCk) node() {}
func (*Max) node()     {}
func (*Min) node()     {}
func (*Sum) node()     {}
func (*Scale) node()   {}
func (*Barrier) node() {}

// Children returns e's direct subexpressions (nil for leaves).
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *Max:
		return e.Children
	case *Min:
		return e.Children
	case *Sum:
		return e.Children
	case *Scale:
		return []Expr{e.Child}
	case *Barrier:
		return []Expr{e.Child}
	}
	return nil
}

// Walk calls fn on every node of e in pre-order (a node before its children, children in order).
func Walk(e Expr, fn func(Expr)) {
	fn(e)
	for _, c := range Children(e) {
		Walk(c, fn)
	}
}

// Limits on expressions, checked by Validate and Parse.
const (
	// MaxK is the largest machine count of a leaf.
	MaxK = 1 << 24
	// MaxDepth is the deepest nesting of operators.
	MaxDepth = 200
	// MaxTime is the largest time (µs; about 31,700 years).
	MaxTime traces.Time = 1 << 60
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("strl: invalid expression")

// Validate checks e: leaves with k ≥ 1, non-negative times, positive durations, finish_p ≥
// start_p, finite values and costs, operators with children, scale factors ≥ 0 (a negative
// factor would turn maximising the worth into minimising it), and nesting within MaxDepth.
func Validate(e Expr) error {
	return validate(e, 0)
}

func validate(e Expr, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrInvalid, MaxDepth)
	}
	if err := checkNode(e); err != nil {
		return err
	}
	for _, c := range Children(e) {
		if err := validate(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkNode checks e's own fields (not its children).
func checkNode(e Expr) error {
	if e == nil {
		return fmt.Errorf("%w: nil expression", ErrInvalid)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInvalid, describe(e), fmt.Sprintf(format, args...))
	}
	if l := e.Label(); l != "" && !isBare(l) {
		return bad("label %q: want letters, digits and _ . : / + - @", l)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	okTime := func(t traces.Time) bool { return t >= 0 && t <= MaxTime }
	switch e := e.(type) {
	case *NCk:
		switch {
		case len(e.Set.Items) == 0:
			return bad("empty equivalence set")
		case e.K < 1 || e.K > MaxK:
			return bad("k = %d, want 1..%d", e.K, MaxK)
		case !okTime(e.Start) || !okTime(e.Dur) || e.Dur == 0:
			return bad("start %s s and duration %s s: want start ≥ 0 and duration > 0", AppendTime(nil, e.Start), AppendTime(nil, e.Dur))
		case !finite(e.Value):
			return bad("value %v", e.Value)
		}
	case *KillNCk:
		switch {
		case len(e.Set.Items) == 0:
			return bad("empty equivalence set")
		case e.K < 1 || e.K > MaxK:
			return bad("k = %d, want 1..%d", e.K, MaxK)
		case !okTime(e.StartP) || !okTime(e.FinishP) || e.FinishP < e.StartP:
			return bad("start_p %s s, finish_p %s s: want 0 ≤ start_p ≤ finish_p", AppendTime(nil, e.StartP), AppendTime(nil, e.FinishP))
		case !finite(e.Cost):
			return bad("cost %v", e.Cost)
		}
	case *Max, *Min, *Sum:
		if len(Children(e)) == 0 {
			return bad("no subexpressions")
		}
		for _, c := range Children(e) {
			if c == nil {
				return bad("nil subexpression")
			}
		}
	case *Scale:
		if e.Child == nil {
			return bad("nil subexpression")
		}
		if !finite(e.Factor) || e.Factor < 0 {
			return bad("factor %v, want a finite number ≥ 0", e.Factor)
		}
	case *Barrier:
		if e.Child == nil {
			return bad("nil subexpression")
		}
		if !finite(e.Value) {
			return bad("value %v", e.Value)
		}
	default:
		return fmt.Errorf("%w: unknown node %T", ErrInvalid, e)
	}
	for _, it := range setOf(e).Items {
		if it.Kind == ItemMachine && it.Name == "" {
			return bad("empty machine name in set")
		}
		if it.Kind > ItemAll {
			return bad("set item of unknown kind %d", it.Kind)
		}
	}
	return nil
}

// setOf returns a leaf's equivalence set (the zero Set for operators).
func setOf(e Expr) Set {
	switch e := e.(type) {
	case *NCk:
		return e.Set
	case *KillNCk:
		return e.Set
	}
	return Set{}
}

// describe names a node for messages: its operator and label.
func describe(e Expr) string {
	name := opName(e)
	if l := e.Label(); l != "" {
		return name + "[" + l + "]"
	}
	return name
}

func opName(e Expr) string {
	switch e := e.(type) {
	case *NCk:
		if e.Linear {
			return "lnck"
		}
		return "nck"
	case *KillNCk:
		if e.Linear {
			return "lkillnck"
		}
		return "killnck"
	case *Max:
		return "max"
	case *Min:
		return "min"
	case *Sum:
		return "sum"
	case *Scale:
		return "scale"
	case *Barrier:
		return "barrier"
	}
	return fmt.Sprintf("%T", e)
}
