package experiments

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// overcommitted is a window whose running state asks for more than its machines hold: two holds
// of 0.75 cpu on each 1-cpu machine, then jobs that need the room.
func overcommitted() *traces.Workload {
	w := &traces.Workload{Name: "oc", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(1, 1), 0)}
	for m := range int32(2) {
		for k := range 2 {
			w.Initial = append(w.Initial, traces.Hold{Machine: m, Start: 0, End: traces.Time(20+10*k) * traces.Second, Demand: traces.VecOf(0.75, 0.25)})
		}
	}
	for i := range 6 {
		w.Jobs = append(w.Jobs, traces.Job{ID: int64(i), Submit: traces.Time(i) * traces.Second,
			Stages: []traces.Stage{{Name: "t", Tasks: int32(1 + i%2), Demand: traces.VecOf(0.25, 0.25), Duration: traces.Time(5+3*i) * traces.Second, Estimate: 5 * traces.Second}}})
	}
	return w
}

func summaryJSON(t *testing.T, sets ...string) string {
	t.Helper()
	out, err := RunWorkload(resolve(t, sets...), overcommitted())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out.Summary)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// engine.initial_overcommit: reject (the default) replays as before — the summary of a run that
// sets it is byte-identical to one that does not, and has no saturation fields; saturate fills
// the machines the holds overcommitted, so the jobs wait and the summary says how much was left.
func TestInitialOvercommit(t *testing.T) {
	def := summaryJSON(t, "policy.name=fifo")
	if rej := summaryJSON(t, "policy.name=fifo", "engine.initial_overcommit=reject"); rej != def {
		t.Errorf("explicit reject differs from the default:\n%s\n%s", rej, def)
	}
	if strings.Contains(def, "saturated") {
		t.Errorf("the default summary names saturation: %s", def)
	}
	sat := summaryJSON(t, "policy.name=fifo", "engine.initial_overcommit=saturate")
	if !strings.Contains(sat, `"initial_holds_saturated":2`) || !strings.Contains(sat, `"initial_saturated_left":{"cpu":0.5`) {
		t.Errorf("saturate summary: %s", sat)
	}
	if sat == def {
		t.Error("saturate changed nothing")
	}
	if err := resolveErr("engine.initial_overcommit=clip"); err == nil || !strings.Contains(err.Error(), "reject or saturate") {
		t.Errorf("a bad value: %v", err)
	}
}
