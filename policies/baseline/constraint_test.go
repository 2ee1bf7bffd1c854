package baseline_test

import (
	"errors"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// rackCluster returns 4 one-slot machines in racks r0 = {m0, m1} and r1 = {m2, m3}, the first
// gpus of them with a GPU.
func rackCluster(gpus int) []traces.Machine {
	ms := traces.Uniform(4, slots(1), 2).Machines
	for m := 0; m < gpus; m++ {
		ms[m].GPU = true
	}
	return ms
}

func placed(j traces.Job, spec traces.Placement) traces.Job { j.Placement = spec; return j }

var (
	hardGPU  = traces.Placement{Kind: traces.PlacementGPU, Hard: true}
	softGPU  = traces.Placement{Kind: traces.PlacementGPU, Slowdown: 1.5}
	hardRack = traces.Placement{Kind: traces.PlacementRack, Hard: true}
	softRack = traces.Placement{Kind: traces.PlacementRack, Slowdown: 1.5}
)

func TestPlacementConstraints(t *testing.T) {
	tests := []struct {
		name     string
		factory  policies.Factory
		opts     policies.Options
		gpus     int
		busy     []int32 // machines a filler job occupies first
		jobs     []traces.Job
		starts   []policies.Start
		preempts []policies.TaskRef
	}{
		{
			name: "hard gpu takes GPU machines and waits for them",
			// m0 and m1 have GPUs; a filler holds m0. The hard job starts one task on m1 and
			// leaves its second pending though m2 and m3 are free.
			factory: baseline.NewFIFO, gpus: 2, busy: []int32{0},
			jobs:   []traces.Job{placed(one(1, stage(2, slots(1))), hardGPU)},
			starts: []policies.Start{start(1, 0, 1, 1)},
		},
		{
			name:    "soft gpu prefers GPU machines, then falls back to any",
			factory: baseline.NewFIFO, gpus: 2, busy: []int32{0},
			jobs:   []traces.Job{placed(one(1, stage(2, slots(1))), softGPU)},
			starts: []policies.Start{start(1, 0, 1, 1), start(1, 0, 2, 1)},
		},
		{
			name: "hard rack keeps a job on the rack of its first task",
			// The filler holds m1: the first task goes to m0 (r0) and the second finds no room
			// on r0, so it waits rather than use r1.
			factory: baseline.NewDRF, busy: []int32{1},
			jobs:   []traces.Job{placed(one(1, stage(3, slots(1))), hardRack)},
			starts: []policies.Start{start(1, 0, 0, 1)},
		},
		{
			name:    "soft rack spills to another rack when its own is full",
			factory: baseline.NewDRF, busy: []int32{1},
			jobs:   []traces.Job{placed(one(1, stage(3, slots(1))), softRack)},
			starts: []policies.Start{start(1, 0, 0, 1), start(1, 0, 2, 1), start(1, 0, 3, 1)},
		},
		{
			name: "sp preempts for a hard gpu job only on GPU machines",
			// A best-effort filler's tasks 0, 1, 2 hold m0, m1 (GPU machines) and m2, started
			// together. sp's first victim would be task 2 (ties: higher task first), but m2
			// has no GPU: it preempts task 1 on m1. m3 is free, but the job may not use it.
			factory: baseline.NewSP, gpus: 2, busy: []int32{0, 1, 2},
			opts:     policies.Options{ClassOrder: []string{"slo", "be"}, Params: map[string]any{"preempt": true}},
			jobs:     []traces.Job{classed(placed(one(1, stage(1, slots(1))), hardGPU), "slo")},
			preempts: []policies.TaskRef{preempt(0, 0, 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := policytest.NewMachines([]string{"cpu", "mem"}, rackCluster(tt.gpus))
			filler := classed(one(0, stage(int32(len(tt.busy)), slots(1))), "be")
			if tt.busy == nil {
				filler = classed(one(0, stage(1, slots(0.5))), "be")
			}
			add(t, f, filler)
			var fill policies.Plan
			for _, m := range tt.busy {
				fill.Starts = append(fill.Starts, start(0, 0, m, 1))
			}
			if err := f.Arrive(0); err != nil {
				t.Fatal(err)
			}
			if err := f.Apply(&fill); err != nil {
				t.Fatal(err)
			}
			for _, j := range tt.jobs {
				add(t, f, j)
			}
			if err := f.Advance(1); err != nil {
				t.Fatal(err)
			}
			pol := newPolicy(t, tt.factory, tt.opts)
			p := step(t, f, pol)
			var starts []policies.Start
			for _, s := range p.Starts {
				if s.Job != 0 {
					starts = append(starts, s)
				}
			}
			wantPlan(t, policies.Plan{Starts: starts, Preempts: p.Preempts}, tt.starts, tt.preempts)
		})
	}
}

func TestFakeRejectsHardPlacement(t *testing.T) {
	f := policytest.NewMachines([]string{"cpu", "mem"}, rackCluster(1))
	add(t, f, placed(one(0, stage(2, slots(1))), hardGPU))
	add(t, f, placed(one(0, stage(2, slots(1))), hardRack))
	if err := f.Arrive(0, 1); err != nil {
		t.Fatal(err)
	}
	for _, p := range []policies.Plan{
		{Starts: []policies.Start{start(0, 0, 1, 1)}},
		{Starts: []policies.Start{start(1, 0, 1, 1), start(1, 0, 2, 1)}},
	} {
		if err := f.Apply(&p); !errors.Is(err, policytest.ErrPlacement) {
			t.Errorf("%s: got %v, want ErrPlacement", fmtPlan(p), err)
		}
	}
	ok := policies.Plan{Starts: []policies.Start{start(0, 0, 0, 1), start(1, 0, 2, 1), start(1, 0, 3, 1)}}
	if err := f.Apply(&ok); err != nil {
		t.Errorf("%s: %v", fmtPlan(ok), err)
	}
}
