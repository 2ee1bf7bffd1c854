package replay

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// viewProbe starts job 0's two tasks on machines 0 and 2 at its first call and records what the
// View says about them at the next.
type viewProbe struct {
	calls   int
	running []policies.RunningTask
	cycle   traces.Time
	delay   traces.Time
}

func (p *viewProbe) Name() string { return "probe" }

func (p *viewProbe) Schedule(v policies.View, plan *policies.Plan) error {
	p.calls++
	if t, ok := v.(policies.Timing); ok {
		p.cycle, p.delay = t.SchedulingCycle(), t.PreemptionDelay()
	}
	switch p.calls {
	case 1:
		plan.Starts = append(plan.Starts, policies.Start{Job: 0, Stage: 0, Machine: 0, Count: 1}, policies.Start{Job: 0, Stage: 0, Machine: 2, Count: 1})
	case 2:
		p.running = append(p.running, v.RunningTasks(0)...)
	}
	return nil
}

func TestPlacementView(t *testing.T) {
	w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(4, traces.VecOf(1, 1), 2)}
	w.Cluster.Machines[0].GPU = true
	w.Jobs = []traces.Job{{Placement: traces.Placement{Kind: traces.PlacementGPU, Slowdown: 1.5},
		Stages: []traces.Stage{{Tasks: 2, Duration: 10 * traces.Second, Estimate: 10 * traces.Second, Demand: traces.VecOf(1, 1)}}}}
	p := &viewProbe{}
	e, err := New(w, p, Config{Cycle: traces.Second, PreemptDelay: 3 * traces.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	if p.cycle != traces.Second || p.delay != 3*traces.Second {
		t.Errorf("Timing: cycle %d delay %d", p.cycle, p.delay)
	}
	if len(p.running) != 2 || !p.running[0].Slowed || !p.running[1].Slowed {
		t.Errorf("running tasks %+v, want both slowed", p.running)
	}
	if got := res.Jobs[0].Finish; got != 15*traces.Second {
		t.Errorf("finish %d, want 15 s", got)
	}
	if res.Stats.SlowedStarts != 2 || res.Jobs[0].SlowedStarts != 2 {
		t.Errorf("slowed starts: stats %d, job %d", res.Stats.SlowedStarts, res.Jobs[0].SlowedStarts)
	}
}
