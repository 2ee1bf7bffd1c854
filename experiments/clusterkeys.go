package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cast"
)

// clusterKeys records the changing-cluster keys (engine.initial_state, engine.cluster_events,
// engine.failures_mttf_s, engine.failures_mttr_s, engine.trace_evictions, engine.initial_overcommit) in config.yaml's engine
// section only when they differ from their defaults, so the configurations of runs that leave
// them alone — and the sweep cache keys made from them — stay what they were.
func clusterKeys(engine map[string]any, e EngineConfig) {
	if !e.InitialState {
		engine["initial_state"] = false
	}
	if !e.ClusterEvents {
		engine["cluster_events"] = false
	}
	if e.FailuresMTTFS != 0 || e.FailuresMTTRS != 0 {
		engine["failures_mttf_s"], engine["failures_mttr_s"] = e.FailuresMTTFS, e.FailuresMTTRS
	}
	if e.TraceEvictions != "" && e.TraceEvictions != "ignore" {
		engine["trace_evictions"] = e.TraceEvictions
	}
	if e.InitialOvercommit != "" && e.InitialOvercommit != "reject" {
		engine["initial_overcommit"] = e.InitialOvercommit
	}
}

// oneOf reads a string key that must be one of valid (the first is its default).
func oneOf(dst *string, valid ...string) func(any) error {
	return func(x any) error {
		s := cast.ToString(x)
		if !slices.Contains(valid, s) {
			return fmt.Errorf("want %s, got %q", strings.Join(valid, " or "), s)
		}
		*dst = s
		return nil
	}
}
