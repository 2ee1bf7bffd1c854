package experiments

// checkMechanismCombos refuses, as configuration errors (exit 2), the engine mechanisms the
// replay cannot model together when the keys alone show it (replay/combos.go says why each is
// not modelled). Combinations that depend on the workload (its initial holds or machine events)
// are refused by the engine when the run starts.
func checkMechanismCombos(e *EngineConfig) error {
	decision := e.DecisionTime != "" && e.DecisionTime != "none"
	if e.Yarn.AM && e.FailuresMTTFS > 0 {
		return configErr("engine.am with engine.failures_mttf_s: application masters on machines that fail are not modelled (YARN would restart the application attempt); turn one of them off")
	}
	for _, c := range []struct {
		on  bool
		key string
	}{
		{e.Yarn.AM, "engine.am"},
		{e.FailuresMTTFS > 0, "engine.failures_mttf_s"},
		{e.TraceEvictions == "replay", "engine.trace_evictions=replay"},
	} {
		if decision && c.on {
			return configErr("engine.decision_time=%s with %s: capacity taken or tasks killed while a plan is in flight are not modelled; turn one of them off", e.DecisionTime, c.key)
		}
	}
	return nil
}
