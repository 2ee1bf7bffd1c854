package experiments

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Decision-time modes (engine.decision_time): how much simulated time a scheduling call takes
// before its plan lands (replay.DecisionTimer).
const (
	DecisionNone     = "none"     // the plan lands at the call's instant
	DecisionConst    = "const"    // every call takes engine.decision_time_s
	DecisionMeasured = "measured" // every call takes its wall time × engine.decision_time_scale
)

var decisionModes = []string{DecisionNone, DecisionConst, DecisionMeasured}

// measuredWhy is the provenance's nondeterministic_why of a run in measured mode.
const measuredWhy = "engine.decision_time: measured charges each scheduling call's wall time to the simulated clock"

// DecisionStats is summary.json's engine.decision_time: what charging decision time did. It is
// absent when engine.decision_time is none.
type DecisionStats struct {
	Mode string `json:"mode"`
	// ChargedS is the simulated time charged over all calls, in seconds.
	ChargedS float64 `json:"charged_s"`
	// DelayedCalls counts the calls that fell due while the scheduler was still deciding (made
	// once it was done).
	DelayedCalls int64 `json:"delayed_calls"`
	// DroppedPreempts counts preemptions of tasks that finished before the plan landed;
	// DroppedStarts counts the task starts only those preemptions would have made possible.
	DroppedPreempts int64 `json:"dropped_preempts"`
	DroppedStarts   int64 `json:"dropped_starts"`
}

// combinationError marks a decision-time key set without the mode that uses it: an error of a
// whole configuration, not of the key's value (CheckValue checks one key alone).
type combinationError struct{ error }

func (e combinationError) Unwrap() error { return e.error }

// checkDecisionTime checks the engine.decision_time keys together.
func checkDecisionTime(e EngineConfig) error {
	if !slices.Contains(decisionModes, e.DecisionTime) {
		return configErr("engine.decision_time: %q (valid: %s)%s", e.DecisionTime, strings.Join(decisionModes, ", "), suggest(e.DecisionTime, decisionModes))
	}
	if e.DecisionTimeS != 0 && e.DecisionTime != DecisionConst {
		return combinationError{configErr("engine.decision_time_s: %g is only used with engine.decision_time: const (it is %s)", e.DecisionTimeS, e.DecisionTime)}
	}
	if !(e.DecisionTimeScale > 0) || math.IsInf(e.DecisionTimeScale, 0) {
		return configErr("engine.decision_time_scale: want a number > 0, got %v", e.DecisionTimeScale)
	}
	if e.DecisionTimeScale != 1 && e.DecisionTime != DecisionMeasured {
		return combinationError{configErr("engine.decision_time_scale: %g is only used with engine.decision_time: measured (it is %s)", e.DecisionTimeScale, e.DecisionTime)}
	}
	return nil
}

// decisionKeys adds the engine.decision_time keys to config.yaml's engine section when the mode
// is not none: a run without decision time records (and hashes) exactly what it did before the
// keys existed.
func decisionKeys(engine map[string]any, e EngineConfig) {
	switch e.DecisionTime {
	case DecisionConst:
		engine["decision_time"], engine["decision_time_s"] = e.DecisionTime, e.DecisionTimeS
	case DecisionMeasured:
		engine["decision_time"], engine["decision_time_scale"] = e.DecisionTime, e.DecisionTimeScale
	}
}

// decisionTimer returns the engine's decision timer for c (nil for none) and the policy to give
// the engine: p itself, or p wrapped to time its calls when measured mode needs a wall time p
// does not measure itself.
func decisionTimer(c Config, p policies.Policy) (replay.DecisionTimer, policies.Policy) {
	switch c.Engine.DecisionTime {
	case DecisionConst:
		return constDecision(traces.FromSeconds(c.Engine.DecisionTimeS)), p
	case DecisionMeasured:
		w, ok := p.(callWall)
		if !ok {
			tp := &timedPolicy{Policy: p}
			w, p = tp, tp
		}
		return measuredDecision{w: w, scale: c.Engine.DecisionTimeScale}, p
	}
	return nil, p
}

// constDecision charges every call the same time.
type constDecision traces.Time

func (d constDecision) DecisionTime() traces.Time { return traces.Time(d) }

// callWall is an optional ability of a policy: the wall time of its latest scheduling call (the
// external policy measures it around the transport).
type callWall interface {
	LastCallWall() time.Duration
}

// measuredDecision charges each call its measured wall time, scaled, rounded to microseconds.
type measuredDecision struct {
	w     callWall
	scale float64
}

func (d measuredDecision) DecisionTime() traces.Time {
	return traces.Time(math.Round(float64(d.w.LastCallWall()) * d.scale / float64(time.Microsecond)))
}

// timedPolicy measures the wall time of each call of a policy that does not measure its own.
type timedPolicy struct {
	policies.Policy
	last time.Duration
}

func (t *timedPolicy) Schedule(v policies.View, p *policies.Plan) error {
	begin := time.Now()
	err := t.Policy.Schedule(v, p)
	t.last = time.Since(begin)
	return err
}

func (t *timedPolicy) LastCallWall() time.Duration { return t.last }

// decisionOutcome fills the outcome's decision-time record and marks a measured run
// nondeterministic.
func decisionOutcome(o *Outcome) {
	mode := o.Config.Engine.DecisionTime
	if mode == "" || mode == DecisionNone {
		return
	}
	st := o.Result.Stats
	o.Engine.DecisionTime = &DecisionStats{
		Mode: mode, ChargedS: traces.Seconds(st.DecisionTime), DelayedCalls: st.DelayedCalls,
		DroppedPreempts: st.DroppedPreempts, DroppedStarts: st.DroppedStarts,
	}
	if mode == DecisionMeasured {
		if o.Nondeterministic == "" {
			o.Nondeterministic = measuredWhy
		} else {
			o.Nondeterministic = fmt.Sprintf("%s; %s", o.Nondeterministic, measuredWhy)
		}
	}
}

// combinationErr reports an error about how decision-time keys are combined, which a check of
// one key alone (CheckValue) must not raise.
func combinationErr(err error) bool { return errors.As(err, new(combinationError)) }
