package replay

import (
	"errors"
	"fmt"

	"github.com/schedlab/schedlab/traces"
)

// ErrNotModelled wraps New's refusal of mechanisms the engine cannot replay together (a
// configuration choice the caller can undo by turning one of them off).
var ErrNotModelled = errors.New("not modelled")

// checkAMCluster refuses application masters (YarnConfig.AM) on a cluster that loses capacity:
// a machine removal, a resize or the failure model. In YARN the loss of the AM's container fails
// the application attempt; the ResourceManager starts a new one (up to
// yarn.resourcemanager.am.max-attempts, default 2, yarn-default.xml) and, unless
// keep-containers-across-application-attempts is set, kills the attempt's running containers.
// Modelling that needs a job withdrawn from the policy until its new AM is up, which the engine
// cannot do (a policy sees a job leave only when it completes), so the combination is refused
// rather than replayed with an AM that outlives its machine. Machine additions are allowed.
func (e *Engine) checkAMCluster() error {
	c := e.cl
	if c == nil {
		return nil
	}
	if c.fail.MTTF > 0 {
		return fmt.Errorf("replay: application masters (engine.am) with the failure model (engine.failures_mttf_s): %w: a failed machine's AM containers would keep running; turn one of them off", ErrNotModelled)
	}
	for _, ev := range c.events {
		if ev.Kind == traces.MachineRemove || ev.Kind == traces.MachineResize {
			return fmt.Errorf("replay: application masters (engine.am) with the workload's machine %s events: %w: an AM container on a removed or shrunk machine would keep running; set engine.cluster_events=false or turn engine.am off", ev.Kind, ErrNotModelled)
		}
	}
	return nil
}

// checkDecisionCluster refuses decision time (Config.DecisionTime) with mechanisms that take
// capacity or kill tasks while a plan is in flight: initial holds, machine events, the failure
// model, trace evictions and AM containers. decision.go relies on nothing but the plan taking
// capacity between a call and its plan's landing; with these the plan can land over-committed
// or preempt a killed task, ending the run mid-way with an invalid-plan error.
func (e *Engine) checkDecisionCluster() error {
	if e.cfg.DecisionTime == nil {
		return nil
	}
	var what string
	switch {
	case e.y != nil && e.y.am != nil:
		what = "application masters (engine.am)"
	case e.cl == nil:
		return nil
	case len(e.cl.holds) > 0:
		what = "initial holds (engine.initial_state)"
	case len(e.cl.events) > 0:
		what = "the workload's machine events (engine.cluster_events)"
	case e.cl.fail.MTTF > 0:
		what = "the failure model (engine.failures_mttf_s)"
	default:
		what = "trace evictions (engine.trace_evictions)"
	}
	return fmt.Errorf("replay: decision time (engine.decision_time) with %s: %w: capacity taken while a plan is in flight would make it land invalid; turn one of them off", what, ErrNotModelled)
}
