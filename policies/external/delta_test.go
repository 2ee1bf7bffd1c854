package external

import (
	"encoding/json"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// trackingPolicy encodes every call as the external policy does and returns scripted plans.
type trackingPolicy struct {
	tr    tracker
	plans map[traces.Time]policies.Plan
	msgs  []string
}

func (p *trackingPolicy) Name() string { return "tracking" }

func (p *trackingPolicy) Schedule(v policies.View, plan *policies.Plan) error {
	var e enc
	p.tr.encodeCall(&e, v, int64(len(p.msgs)+1))
	p.msgs = append(p.msgs, string(e.b))
	if pl, ok := p.plans[v.Now()]; ok {
		plan.Starts = append(plan.Starts, pl.Starts...)
		plan.Preempts = append(plan.Preempts, pl.Preempts...)
	}
	p.tr.planned(plan)
	return nil
}

type constDecision traces.Time

func (c constDecision) DecisionTime() traces.Time { return traces.Time(c) }

// TestDroppedPreemptIsReportedFinished: with a decision time, a preemption of a task that
// finished before the plan landed is dropped by the engine; the next call must tell the
// scheduler the task finished, not that it was preempted.
func TestDroppedPreemptIsReportedFinished(t *testing.T) {
	w := &traces.Workload{Name: "drop", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(1, 1), 0)}
	w.Jobs = []traces.Job{
		{ID: 0, Stages: []traces.Stage{{Name: "a", Tasks: 1, Demand: traces.VecOf(1, 1), Duration: 3500 * traces.Millisecond, Estimate: 3500 * traces.Millisecond}}},
		{ID: 1, Submit: 4 * traces.Second, Stages: []traces.Stage{{Name: "b", Tasks: 1, Demand: traces.VecOf(1, 1), Duration: 2 * traces.Second, Estimate: 2 * traces.Second}}},
	}
	task := policies.TaskRef{Job: 0, Stage: 0, Task: 0}
	p := &trackingPolicy{plans: map[traces.Time]policies.Plan{
		0:                 {Starts: []policies.Start{{Job: 0, Stage: 0, Machine: 0, Count: 1}}},
		4 * traces.Second: {Preempts: []policies.TaskRef{task}, Starts: []policies.Start{{Job: 1, Stage: 0, Machine: 0, Count: 1}}},
	}}
	e, err := replay.New(w, p, replay.Config{DecisionTime: constDecision(traces.Second)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.DroppedPreempts != 1 || res.Stats.Preemptions != 0 {
		t.Fatalf("dropped %d, preempted %d: want the preemption dropped", res.Stats.DroppedPreempts, res.Stats.Preemptions)
	}
	var finished, preempted int
	for _, m := range p.msgs {
		var call struct {
			Finished  [][3]int32 `json:"finished"`
			Preempted [][3]int32 `json:"preempted"`
		}
		if err := json.Unmarshal([]byte(m), &call); err != nil {
			t.Fatal(err)
		}
		for _, r := range call.Finished {
			if r == [3]int32{0, 0, 0} {
				finished++
			}
		}
		for _, r := range call.Preempted {
			if r == [3]int32{0, 0, 0} {
				preempted++
			}
		}
	}
	if finished != 1 || preempted != 0 {
		t.Errorf("job 0's task reported finished %d times, preempted %d times; want finished once:\n%v", finished, preempted, p.msgs)
	}
}
