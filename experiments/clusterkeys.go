package experiments

// clusterKeys records the changing-cluster keys (engine.initial_state, engine.cluster_events,
// engine.failures_mttf_s, engine.failures_mttr_s, engine.trace_evictions) in config.yaml's engine
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
}
