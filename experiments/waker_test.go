package experiments

import (
	"bytes"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// A run of the trace policy starts each task at its trace time, however the run wraps the
// policy (progress lines, measured decision time): the wrappers keep its wake-ups.
func TestRunKeepsWakeups(t *testing.T) {
	w := &traces.Workload{Name: "wake", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(1, 1), 0),
		Jobs:       []traces.Job{{ID: 1, Stages: []traces.Stage{{Name: "t", Tasks: 2, Demand: traces.VecOf(0.5, 0.5), Duration: 10 * traces.Second, Estimate: 10 * traces.Second}}}},
		Placements: []traces.TaskPlacement{{Job: 1, Machine: 1, Start: 5 * traces.Second}, {Job: 1, Task: 1, Machine: 0, Start: 7 * traces.Second}}}
	for _, sets := range [][]string{{"policy.name=trace"}, {"policy.name=trace", "engine.decision_time=measured", "engine.decision_time_scale=1e-9"}} {
		c := resolve(t, sets...)
		c.Progress = new(bytes.Buffer)
		out, err := RunWorkload(c, w)
		if err != nil {
			t.Fatal(err)
		}
		m := out.Report.Metrics
		if m["trace.on_time"] != 2 || m["trace.late"] != 0 || out.Summary.AvgJCT != 17 {
			t.Errorf("%v: metrics %v, avg JCT %v s (want 2 on time, JCT 17 s)", sets, m, out.Summary.AvgJCT)
		}
	}
}
