package experiments

import (
	"maps"
	"slices"
	"testing"
)

// The changing-cluster keys at their defaults leave config.yaml's engine section as it was; set
// otherwise, they are recorded (and so reach a rerun from config.yaml).
func TestClusterKeysRecordedOnlyWhenSet(t *testing.T) {
	engine := func(sets ...string) map[string]any { return resolve(t, sets...).Map()["engine"].(map[string]any) }
	def := engine("engine.initial_state=true", "engine.cluster_events=true", "engine.failures_mttf_s=0", "engine.trace_evictions=ignore", "engine.initial_overcommit=reject")
	for _, k := range []string{"initial_state", "cluster_events", "failures_mttf_s", "failures_mttr_s", "trace_evictions", "initial_overcommit"} {
		if _, ok := def[k]; ok {
			t.Errorf("default %s recorded", k)
		}
	}
	set := engine("engine.initial_state=false", "engine.cluster_events=false", "engine.failures_mttf_s=100", "engine.failures_mttr_s=5", "engine.trace_evictions=replay", "engine.initial_overcommit=saturate")
	want := map[string]any{"initial_state": false, "cluster_events": false, "failures_mttf_s": 100.0, "failures_mttr_s": 5.0, "trace_evictions": "replay", "initial_overcommit": "saturate"}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if set[k] != want[k] {
			t.Errorf("%s = %v, want %v", k, set[k], want[k])
		}
	}
	c := resolve(t, "engine.trace_evictions=replay", "engine.initial_state=false", "engine.failures_mttf_s=100", "engine.failures_mttr_s=5", "engine.initial_overcommit=saturate").EngineConfig()
	if !c.TraceEvictions || !c.IgnoreInitial || c.IgnoreClusterEvents || c.Failures.MTTF != 100_000_000 || c.FailureRand == nil || !c.SaturateHolds {
		t.Errorf("engine config %+v", c)
	}
}
