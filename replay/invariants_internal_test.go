package replay

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// TestInvariantsDetectCorruption: the self-check accepts a finished run, and a running task
// held consistently behind the engine's back, but reports each counter, allocation or capacity
// that disagrees with the tasks' states (tasks placed on both machines, in two stages, so that
// the check finds running tasks at several positions of a stage).
func TestInvariantsDetectCorruption(t *testing.T) {
	one := traces.VecOf(1)
	w := &traces.Workload{Name: "w", Dims: []string{"cpu"}, Cluster: traces.Uniform(2, traces.VecOf(4), 0),
		Jobs: []traces.Job{{Stages: []traces.Stage{
			{Name: "a", Tasks: 5, Duration: traces.Second, Estimate: traces.Second, Demand: one},
			{Name: "b", Tasks: 3, Duration: traces.Second, Estimate: traces.Second, Demand: one},
		}}}}
	// run marks stage s's task i running on its machine again, as if it had not finished; hold
	// says whether the machine's free capacity and the job's allocation account for it.
	run := func(e *Engine, s, i int, hold bool) {
		jr := &e.jobs[0]
		st := &jr.stages[s]
		st.status[i] = taskRunning
		st.running++
		st.finished--
		jr.running++
		if hold {
			jr.alloc = jr.alloc.Add(one)
			e.free[st.machine[i]] = e.free[st.machine[i]].Sub(one)
		}
	}
	for _, tc := range []struct {
		name    string
		corrupt func(e *Engine)
		want    string // "" for no error
	}{
		{"a finished run", func(*Engine) {}, ""},
		{"running tasks held consistently", func(e *Engine) { run(e, 0, 4, true); run(e, 0, 1, true); run(e, 1, 2, true) }, ""},
		{"a done task marked running", func(e *Engine) { e.jobs[0].stages[0].status[3] = taskRunning }, "job 0 stage 0: counters"},
		{"a done task marked pending", func(e *Engine) { e.jobs[0].stages[1].status[0] = taskPending }, "job 0 stage 1: counters"},
		{"the job's running count off", func(e *Engine) { run(e, 1, 1, true); e.jobs[0].running-- }, "job 0: running=0"},
		{"the job's allocation off", func(e *Engine) { run(e, 0, 2, true); e.jobs[0].alloc = traces.Vec{} }, "job 0: running=1"},
		{"a running task's machine not charged", func(e *Engine) {
			run(e, 0, 0, true)
			run(e, 1, 2, false)
			e.jobs[0].alloc = e.jobs[0].alloc.Add(one)
		}, "free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(w, &scripted{at: map[traces.Time]*policies.Plan{0: {Starts: []policies.Start{
				{Stage: 0, Machine: 0, Count: 4}, {Stage: 0, Machine: 1, Count: 1}, {Stage: 1, Machine: 1, Count: 3},
			}}}, out: &strings.Builder{}}, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(); err != nil {
				t.Fatal(err)
			}
			tc.corrupt(e)
			err = e.checkInvariants()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
