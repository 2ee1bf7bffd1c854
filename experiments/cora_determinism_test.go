package experiments

import "testing"

// TestCORARunIsDeterministic: the utility-driven policies on the CORA workload give
// byte-identical jobs.parquet and identical metrics (the policy's own included) at GOMAXPROCS 1
// and 2; only the per-event tables' wall times may differ.
func TestCORARunIsDeterministic(t *testing.T) {
	for _, policy := range [][]string{{"policy.name=cora", "policy.params.shadow=true"}, {"policy.name=rrh"}} {
		t.Run(policy[0], func(t *testing.T) {
			doc := checkDeterministic(t, append([]string{"workload.generator=cora", "workload.cora.jobs=30", "seed=4"}, policy...)...)
			if doc.Metrics.TimedUtility.Jobs == 0 || (len(policy) > 1 && doc.Metrics.Policy["cora.events"] == 0) {
				t.Fatalf("summary lacks content: %+v", doc.Metrics)
			}
		})
	}
}
