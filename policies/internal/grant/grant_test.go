package grant_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/internal/grant"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// mapReduce is a job of maps one-cpu map tasks then reduces one-cpu reduce tasks.
func mapReduce(id int64, maps, reduces int32) traces.Job {
	st := []traces.Stage{{Name: "map", Tasks: maps, Demand: traces.VecOf(1), Duration: 10 * traces.Second, Estimate: 10 * traces.Second}}
	if reduces > 0 {
		st = append(st, traces.Stage{Name: "reduce", Tasks: reduces, Demand: traces.VecOf(1), Duration: 5 * traces.Second, Estimate: 5 * traces.Second, Parents: []int32{0}})
	}
	return traces.Job{ID: id, Name: "j", Queue: "q", Stages: st}
}

func started(p policies.Plan) map[policies.JobID]int32 {
	out := map[policies.JobID]int32{}
	for _, s := range p.Starts {
		out[s.Job] += s.Count
	}
	return out
}

func TestFillSharesThenLeftover(t *testing.T) {
	tests := []struct {
		name   string
		cpus   float64
		jobs   []traces.Job
		order  []policies.JobID
		shares []float64 // per job in order; < 0: no share
		want   map[policies.JobID]int32
	}{
		{"each job gets its share first, then the first in order takes the rest", 10,
			[]traces.Job{mapReduce(0, 20, 0), mapReduce(1, 20, 0)}, []policies.JobID{0, 1}, []float64{3, 4},
			map[policies.JobID]int32{0: 6, 1: 4}},
		{"order decides the leftover", 10,
			[]traces.Job{mapReduce(0, 20, 0), mapReduce(1, 20, 0)}, []policies.JobID{1, 0}, []float64{3, 4},
			map[policies.JobID]int32{0: 4, 1: 6}},
		{"a job never gets more tasks than it has runnable (the reduces wait for the maps)", 10,
			[]traces.Job{mapReduce(0, 2, 8), mapReduce(1, 20, 0)}, []policies.JobID{0, 1}, []float64{10, 0},
			map[policies.JobID]int32{0: 2, 1: 8}},
		{"without shares it is a priority order", 10,
			[]traces.Job{mapReduce(0, 4, 0), mapReduce(1, 20, 0)}, []policies.JobID{0, 1}, nil,
			map[policies.JobID]int32{0: 4, 1: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := policytest.New(traces.VecOf(tt.cpus, 100))
			for _, j := range tt.jobs {
				if _, err := f.AddJob(j); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Advance(0); err != nil {
				t.Fatal(err)
			}
			var shares []*traces.Vec
			if tt.shares != nil {
				for _, s := range tt.shares {
					if s < 0 {
						shares = append(shares, nil)
						continue
					}
					v := traces.VecOf(s, 1e6)
					shares = append(shares, &v)
				}
			}
			var fill grant.Filler
			var p policies.Plan
			fill.Fill(f, &p, tt.order, shares)
			if err := f.Apply(&p); err != nil {
				t.Fatalf("invalid plan: %v", err)
			}
			got := started(p)
			for j, n := range tt.want {
				if got[j] != n {
					t.Errorf("job %d started %d, want %d (plan %+v)", j, got[j], n, p.Starts)
				}
			}
		})
	}
}

// TestFillCountsRunningTasksAgainstShares: a job already running its share starts nothing in
// the share phase, and machines are filled first fit.
func TestFillCountsRunningTasksAgainstShares(t *testing.T) {
	f := policytest.New(traces.VecOf(2, 100), traces.VecOf(2, 100))
	for _, j := range []traces.Job{mapReduce(0, 10, 0), mapReduce(1, 10, 0)} {
		if _, err := f.AddJob(j); err != nil {
			t.Fatal(err)
		}
	}
	f.Advance(0)
	var fill grant.Filler
	share := traces.VecOf(2, 1e6)
	p := policies.Plan{}
	fill.Fill(f, &p, []policies.JobID{0}, []*traces.Vec{&share})
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	// Job 0 took all 4 cpus (share 2, then the leftover phase). Finish two of its tasks.
	if err := f.Finish(0, 0, 2); err != nil {
		t.Fatal(err)
	}
	p = policies.Plan{}
	fill.Fill(f, &p, []policies.JobID{1, 0}, []*traces.Vec{nil, &share})
	if err := f.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if got := started(p); got[0] != 0 || got[1] != 2 {
		t.Errorf("started %v, want job 1 the two freed cpus (job 0 runs its share)", got)
	}
}
