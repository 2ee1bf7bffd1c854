package policies

import (
	"math"
	"strconv"
)

// Reason says why a policy made one decision (a start or a preemption), for a person reading a
// recorded run (tasks.parquet, the timeline trace, schedlab explain). It is built from parts a
// policy already holds — a constant phrase, an optional argument such as a queue name, an
// optional number — so attaching one costs no formatting: String runs only when the run is
// recorded.
type Reason struct {
	What     string  // a constant phrase: "head of queue", "lowest dominant share"
	Arg      string  // optional: a name shown after What ("hard guarantee" "LQ-0")
	Value    float64 // shown after What and Arg when HasValue
	HasValue bool
}

// Because returns the reason what.
func Because(what string) Reason { return Reason{What: what} }

// BecauseOf returns the reason what with argument arg.
func BecauseOf(what, arg string) Reason { return Reason{What: what, Arg: arg} }

// BecauseValue returns the reason what with the number v.
func BecauseValue(what string, v float64) Reason { return Reason{What: what, Value: v, HasValue: true} }

// IsZero reports whether no reason was given.
func (r Reason) IsZero() bool { return r.What == "" && r.Arg == "" && !r.HasValue }

// String renders "what arg value", a whole value as an integer and another with 3 significant
// digits ("lowest dominant share 0.12", "MILP value 189"); "" for no reason.
func (r Reason) String() string {
	s := r.What
	if r.Arg != "" {
		if s != "" {
			s += " "
		}
		s += r.Arg
	}
	if r.HasValue {
		if s != "" {
			s += " "
		}
		if r.Value == math.Trunc(r.Value) && math.Abs(r.Value) < 1e15 {
			s += strconv.FormatInt(int64(r.Value), 10)
		} else {
			s += strconv.FormatFloat(r.Value, 'g', 3, 64)
		}
	}
	return s
}

// StartBecause appends start s to the plan with the reason r, keeping StartReasons aligned with
// Starts.
func (p *Plan) StartBecause(s Start, r Reason) {
	for len(p.StartReasons) < len(p.Starts) {
		p.StartReasons = append(p.StartReasons, Reason{})
	}
	p.Starts = append(p.Starts, s)
	p.StartReasons = append(p.StartReasons, r)
}

// PreemptBecause appends preemption t to the plan with the reason r, keeping PreemptReasons
// aligned with Preempts.
func (p *Plan) PreemptBecause(t TaskRef, r Reason) {
	for len(p.PreemptReasons) < len(p.Preempts) {
		p.PreemptReasons = append(p.PreemptReasons, Reason{})
	}
	p.Preempts = append(p.Preempts, t)
	p.PreemptReasons = append(p.PreemptReasons, r)
}

// StartReason is the reason given for Starts[i], zero when none was.
func (p *Plan) StartReason(i int) Reason {
	if i < len(p.StartReasons) {
		return p.StartReasons[i]
	}
	return Reason{}
}

// PreemptReason is the reason given for Preempts[i], zero when none was.
func (p *Plan) PreemptReason(i int) Reason {
	if i < len(p.PreemptReasons) {
		return p.PreemptReasons[i]
	}
	return Reason{}
}

// Explainer is an optional ability of a View: whether the run records why each decision was
// made. Policies ask through Explains and skip building reasons when it does not.
type Explainer interface {
	Explains() bool
}

// Explains reports whether v's run records the reasons of decisions.
func Explains(v View) bool {
	e, ok := v.(Explainer)
	return ok && e.Explains()
}
