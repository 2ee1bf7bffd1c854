package baseline_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// BenchmarkSchedule measures Schedule in a steady state: every job has practically endless
// one-slot tasks, the cluster holds two per job, and before each Schedule call the
// earliest-started running task finishes, so each call re-keys the changed job and places one
// task. ns/op includes the fake view's bookkeeping; ns/decision is the time inside Schedule
// alone per task started. view=changes offers the View's optional ChangedMachines; view=plain
// does not, so multi-machine runs re-read the machines the changed job ran on.
func BenchmarkSchedule(b *testing.B) {
	for _, f := range factories {
		for _, mv := range []struct {
			machines int
			view     string
		}{{1, "changes"}, {100, "changes"}, {100, "plain"}} {
			for _, jobs := range []int{100, 1000, 10000} {
				b.Run(fmt.Sprintf("policy=%s/machines=%d/view=%s/jobs=%d", f.name, mv.machines, mv.view, jobs), func(b *testing.B) {
					benchSchedule(b, f.new, mv.machines, mv.view == "plain", jobs)
				})
			}
		}
	}
}

func benchSchedule(b *testing.B, factory policies.Factory, machines int, plain bool, jobs int) {
	perMachine := float64((2*jobs + machines - 1) / machines)
	caps := make([]traces.Vec, machines)
	for i := range caps {
		caps[i] = slots(perMachine)
	}
	fk := policytest.New(caps...)
	var view policies.View = fk
	if plain {
		view = policytest.WithoutMachineChanges(fk)
	}
	for i := range jobs {
		class := "be"
		if i%2 == 0 {
			class = "slo"
		}
		add(b, fk, traces.Job{
			Submit: traces.Time(i), Class: class, Queue: fmt.Sprintf("q%d", i%10),
			Stages: []traces.Stage{stage(1<<30, slots(1))},
		})
	}
	if err := fk.Advance(traces.Time(jobs)); err != nil {
		b.Fatal(err)
	}
	pol := newPolicy(b, factory, policies.Options{ClassOrder: []string{"slo", "be"}})
	var plan policies.Plan
	var started []policies.JobID // jobs of started tasks, oldest first, from head on
	head := 0
	apply := func() int {
		if err := fk.Apply(&plan); err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, s := range plan.Starts {
			for range s.Count {
				started = append(started, s.Job)
			}
			n += int(s.Count)
		}
		return n
	}
	// Fill the cluster (untimed).
	if err := pol.Schedule(view, &plan); err != nil {
		b.Fatal(err)
	}
	fk.ClearChanged()
	if apply() == 0 {
		b.Fatal("nothing started")
	}
	decisions := 0
	var inSchedule time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := started[head]
		if head++; head > len(started)/2 {
			started = append(started[:0], started[head:]...)
			head = 0
		}
		if err := fk.Finish(j, 0, 1); err != nil {
			b.Fatal(err)
		}
		plan.Reset()
		t0 := time.Now()
		err := pol.Schedule(view, &plan)
		inSchedule += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		fk.ClearChanged()
		decisions += apply()
	}
	b.StopTimer()
	if decisions != b.N {
		b.Fatalf("%d tasks started in %d scheduling points; the steady state should start one each", decisions, b.N)
	}
	b.ReportMetric(float64(inSchedule.Nanoseconds())/float64(max(decisions, 1)), "ns/decision")
}
