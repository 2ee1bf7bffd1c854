package baseline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// lyingView reports a fixed Changed list, whatever happened.
type lyingView struct {
	*policytest.Fake
	changed []policies.JobID
}

func (v lyingView) Changed() []policies.JobID { return v.changed }

// queueless hides the queue list.
type queueless struct{ *policytest.Fake }

func (queueless) Queues() []string { return nil }

func TestBadViewsAreErrorsNotPanics(t *testing.T) {
	tests := []struct {
		name string
		opts policies.Options
		view func(*policytest.Fake) policies.View
		want string
	}{
		{"a negative JobID in Changed is an error", policies.Options{},
			func(f *policytest.Fake) policies.View { return lyingView{f, []policies.JobID{-1}} }, "job -1"},
		{"a JobID the view does not know is an error", policies.Options{},
			func(f *policytest.Fake) policies.View { return lyingView{f, []policies.JobID{1 << 30}} }, "no job 1073741824"},
		{"a job in a queue the view does not list is an error at queue level", policies.Options{Level: baseline.LevelQueue},
			func(f *policytest.Fake) policies.View { return queueless{f} }, "queue 0"},
	}
	for _, tt := range tests {
		for _, fac := range factories {
			t.Run(fac.name+": "+tt.name, func(t *testing.T) {
				f := build(t, []traces.Vec{slots(2)}, one(0, stage(1, slots(1))))
				pol := newPolicy(t, fac.new, tt.opts)
				err := pol.Schedule(tt.view(f), &policies.Plan{})
				if fac.name != baseline.FairName && fac.name != baseline.DRFName && fac.name != baseline.SPName && tt.opts.Level != "" {
					// Static orders do not use queues.
					if err != nil {
						t.Fatalf("err = %v", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), fac.name+": ") {
					t.Fatalf("err = %v, want one starting %q and containing %q", err, fac.name+": ", tt.want)
				}
			})
		}
	}
}

func TestADroppedPlanIsPlannedAgain(t *testing.T) {
	for _, fac := range factories {
		for _, caps := range [][]traces.Vec{{slots(3)}, {slots(1), slots(2)}} {
			t.Run(fac.name+" plans the same starts again when its plan was not applied", func(t *testing.T) {
				f := build(t, caps, one(0, stage(2, slots(1))), one(1, stage(2, slots(1))))
				pol := newPolicy(t, fac.new, policies.Options{})
				first, err := f.Schedule(pol)
				if err != nil {
					t.Fatal(err)
				}
				again := step(t, f, pol)
				wantPlan(t, again, first.Starts, first.Preempts)
			})
		}
	}
}

func TestScheduleDoesNotAllocateInTheSteadyState(t *testing.T) {
	for _, fac := range factories {
		for _, setup := range []struct {
			machines int
			hide     bool
		}{{1, false}, {8, false}, {8, true}} {
			name := fmt.Sprintf("%s on %d machines (machine changes hidden: %t) schedules without allocating once warmed up",
				fac.name, setup.machines, setup.hide)
			t.Run(name, func(t *testing.T) {
				caps := make([]traces.Vec, setup.machines)
				for i := range caps {
					caps[i] = slots(float64(100 / setup.machines))
				}
				f := policytest.New(caps...)
				var view policies.View = f
				if setup.hide {
					view = policytest.WithoutMachineChanges(f)
				}
				const jobs = 50
				for i := range jobs {
					add(t, f, traces.Job{Submit: traces.Time(i), Class: []string{"slo", "be"}[i%2],
						Stages: []traces.Stage{stage(1<<30, slots(1))}})
				}
				if err := f.Advance(jobs); err != nil {
					t.Fatal(err)
				}
				pol := newPolicy(t, fac.new, policies.Options{ClassOrder: []string{"slo", "be"}, Params: spParams(fac.name)})
				var plan policies.Plan
				next := policies.JobID(0)
				cycle := func() {
					// Finish one task of the next job (round robin) that has one running.
					for range jobs {
						j := next
						next = (next + 1) % jobs
						if f.StageState(j, 0).Running > 0 {
							if err := f.Finish(j, 0, 1); err != nil {
								t.Fatal(err)
							}
							break
						}
					}
					plan.Reset()
					if err := pol.Schedule(view, &plan); err != nil {
						t.Fatal(err)
					}
					f.ClearChanged()
					if err := f.Apply(&plan); err != nil {
						t.Fatal(err)
					}
					if len(plan.Starts) == 0 {
						t.Fatal("the steady state started nothing")
					}
				}
				for range 500 {
					cycle() // warm up: records, heaps and scratch space reach their size
				}
				if allocs := testing.AllocsPerRun(200, cycle); allocs != 0 {
					t.Errorf("a finish-schedule-apply cycle allocated %.2f times", allocs)
				}
			})
		}
	}
}

// spParams turns preemption on for sp, so its bookkeeping is exercised too.
func spParams(name string) map[string]any {
	if name == baseline.SPName {
		return map[string]any{"preempt": true}
	}
	return nil
}
