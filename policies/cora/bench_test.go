package cora

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate/cora"
)

// activeInstance builds the CORA problem of n active jobs from the paper's workload recipe
// (generate/cora defaults: 20/60/20% critical/sensitive/insensitive, sigmoid utilities, targets
// scaled by the active jobs), all submitted within a few seconds of each other and none started:
// the state of a cluster with n active jobs, at the last submission.
func activeInstance(tb testing.TB, n int, slot traces.Time, seed uint64) *Problem {
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
	sl := NewSlotting(now, slot, w.Cluster.Total())
	return sl.Problem(w.Cluster.Total(), jobs)
}

// BenchmarkExact times the exact solver on n active jobs (the 10/100/1000 growth).
func BenchmarkExact(b *testing.B) {
	for _, slot := range []int{10, 30} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("slot_s=%d/jobs=%d", slot, n), func(b *testing.B) {
				p := activeInstance(b, n, traces.Time(slot)*traces.Second, 1)
				var rounds int
				cpu := testutil.CPUTime()
				for b.Loop() {
					s, err := Exact(p, ExactBudget{})
					if err != nil {
						b.Fatal(err)
					}
					rounds = s.Stats.Rounds
				}
				b.ReportMetric(float64((testutil.CPUTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(p.Slots), "slots")
				b.ReportMetric(float64(rounds), "rounds")
			})
		}
	}
}
