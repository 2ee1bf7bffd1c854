package experiments

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestHorizonMetrics checks the fixed-horizon metrics against a hand-worked schedule on one
// machine with 5-s cycles: best-effort A (100 s) starts at 0; SLO job B (10 s, deadline 50)
// arrives at 20 and preempts it under sp, runs 25-35; A runs again from 35; SLO job C arrives
// after H = 60.
func TestHorizonMetrics(t *testing.T) {
	w := oneMachine([4]any{0.0, 1.0, 100.0, "be"}, [4]any{20.0, 1.0, 10.0, "slo"}, [4]any{70.0, 1.0, 5.0, "slo"})
	for i, c := range []string{"be", "slo", "slo"} {
		w.Jobs[i].Class = c
	}
	w.Jobs[1].Deadline, w.Jobs[2].Deadline = traces.FromSeconds(50), traces.FromSeconds(500)
	h := func(s float64) float64 { return s / 3600 }
	for _, tc := range []struct {
		name string
		sets []string
		want map[string]float64
	}{
		{"restart", nil, map[string]float64{
			"horizon.slo_jobs": 1, "horizon.slo_after_h": 1, "horizon.slo_miss_rate": 0,
			"horizon.be_completed": 0, "horizon.be_goodput_node_hours": 0,
			"horizon.be_useful_node_hours": h(25), "horizon.be_unfinished_node_hours": h(75),
			"horizon.lost_node_hours": h(20), "horizon.be_lost_node_hours": h(20),
			"horizon.offered_load": 110.0 / 60, "horizon.offered_load_clipped": 70.0 / 60,
			"horizon.utilization": 55.0 / 60, "horizon.h_s": 60,
		}},
		{"resume", []string{"engine.preempt_keeps_work=true"}, map[string]float64{
			"horizon.be_useful_node_hours": h(45), "horizon.be_unfinished_node_hours": h(55),
			"horizon.lost_node_hours": 0,
		}},
		{"horizon after every finish", []string{"engine.horizon_s=400"}, map[string]float64{
			"horizon.be_completed": 1, "horizon.be_goodput_node_hours": h(100), "horizon.be_useful_node_hours": h(100),
			"horizon.be_unfinished_node_hours": 0, "horizon.be_mean_latency_s": 180, "horizon.slo_jobs": 1,
			"horizon.slo_after_h": 1, "horizon.utilization": 170.0 / 400, "horizon.lost_node_hours": h(55),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := append([]string{"policy.name=sp", "policy.class_order=slo,be", "policy.params.preempt=true", "engine.cycle_s=5", "engine.horizon_s=60"}, tc.sets...)
			o, err := RunWorkload(resolve(t, sets...), w)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				got, ok := o.Report.Metrics[k]
				if !ok || math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
				}
			}
		})
	}
	// (With H = 400, C preempts A again at 70: A finishes at 180 after losing 20 + 35 s.)
	// Without a horizon there are no horizon metrics.
	o, err := RunWorkload(resolve(t, "policy.name=sp", "policy.class_order=slo,be"), w)
	if err != nil {
		t.Fatal(err)
	}
	if o.Report != nil {
		if _, ok := o.Report.Metrics["horizon.slo_jobs"]; ok {
			t.Error("horizon metrics without engine.horizon_s")
		}
	}
}
