package cora

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate/cora"
)

// activeState is n active jobs of the paper's workload recipe (generate/cora defaults: 20/60/20%
// critical/sensitive/insensitive, sigmoid utilities, targets scaled by the active jobs), all
// submitted within a few seconds of each other and none started — a cluster with n active jobs,
// at the last submission — with the policy's default slotting.
func activeState(tb testing.TB, n int, seed uint64) (Slotting, traces.Vec, []jobwork.Job) {
	tb.Helper()
	o := cora.Defaults()
	o.Jobs = n
	o.MeanInterarrivalS = 1
	w, err := cora.Generate(o, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		tb.Fatal(err)
	}
	jobs := make([]jobwork.Job, n)
	var now traces.Time
	for i := range w.Jobs {
		j := &w.Jobs[i]
		now = max(now, j.Submit)
		jobs[i] = jobwork.Job{Utility: j.Utility, Submit: j.Submit}
		for s := range j.Stages {
			st := &j.Stages[s]
			jobs[i].Work[0] += float64(st.Tasks) * traces.Seconds(st.Duration) * st.Demand.Float(0)
		}
	}
	capacity := w.Cluster.Total()
	sl := NewSlotting(now, DefaultSlot, capacity)
	sl.Fit(capacity, jobs, DefaultMaxSlots)
	return sl, capacity, jobs
}

// activeInstance is activeState's problem.
func activeInstance(tb testing.TB, n int, seed uint64) *Problem {
	sl, capacity, jobs := activeState(tb, n, seed)
	return sl.Problem(capacity, jobs)
}

// BenchmarkDecide times one decision — building the slotted problem from the jobs' remaining
// work and solving it — at 10, 100 and 1,000 active jobs. solver=lp also solves the instance
// with the exact solver in the same run and reports the ratio (lp-vs-exact) and whether both
// reached the same sorted utility vector (same-vector).
func BenchmarkDecide(b *testing.B) {
	for _, name := range []string{SolverExact, SolverLP} {
		for _, n := range []int{10, 100, 1000} {
			if name == SolverLP && n > 100 {
				continue // 4 million LP columns
			}
			b.Run(fmt.Sprintf("solver=%s/jobs=%d", name, n), func(b *testing.B) {
				sl, capacity, jobs := activeState(b, n, 1)
				decide := func() *Solution {
					p := sl.Problem(capacity, jobs)
					s, err := Exact(p, ExactBudget{})
					if err != nil {
						b.Fatal(err)
					}
					return s
				}
				var ms solver.ModelSolver
				if name == SolverLP {
					ms = newSolver(b)
					decide = func() *Solution {
						p := sl.Problem(capacity, jobs)
						r, err := SolveLP(context.Background(), ms, p, ScaleResolvable, solver.Options{})
						if err != nil {
							b.Fatal(err)
						}
						return r.Solution
					}
				}
				var sol *Solution
				cpu := testutil.CPUTime()
				for b.Loop() {
					sol = decide()
				}
				perOp := float64((testutil.CPUTime() - cpu).Nanoseconds()) / float64(b.N)
				b.ReportMetric(perOp, "cpu-ns/op")
				b.ReportMetric(float64(sl.Problem(capacity, jobs).Slots), "slots")
				if name == SolverLP {
					p := sl.Problem(capacity, jobs)
					const reps = 20
					cpu := testutil.CPUTime()
					var ex *Solution
					for range reps {
						ex, _ = Exact(p, ExactBudget{})
					}
					exOp := float64((testutil.CPUTime() - cpu).Nanoseconds()) / reps
					b.ReportMetric(perOp/exOp, "lp-vs-exact")
					same := 0.0
					if CompareSorted(sol.Sorted(), ex.Sorted()) == 0 {
						same = 1
					}
					b.ReportMetric(same, "same-vector")
				} else {
					b.ReportMetric(float64(sol.Stats.Rounds), "rounds")
				}
			})
		}
	}
}
