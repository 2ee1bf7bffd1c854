package decimadp_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/decimadp"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

func stage(name string, durs []traces.Time, parents ...int32) traces.Stage {
	var sum traces.Time
	for _, d := range durs {
		sum += d
	}
	mean := sum / traces.Time(len(durs))
	return traces.Stage{Name: name, Tasks: int32(len(durs)), TaskDurations: durs, Duration: mean, Estimate: mean, Demand: traces.VecOf(1), Parents: parents}
}

func firstStarts(t *testing.T, w *traces.Workload, p policies.Policy) []traces.Time {
	t.Helper()
	e, err := replay.New(w, p, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	var out []traces.Time
	for _, j := range res.Jobs {
		if !j.Completed {
			t.Fatalf("job %d did not complete", j.Index)
		}
		out = append(out, j.FirstStart)
	}
	return out
}

// TestKeepsExecutorsAcrossABarrier: a job whose next stage waits for a long parent task keeps
// the executor its short parent task freed (decima-sim's dynamic partition), so a job arriving
// meanwhile starts only when the first job completes; fair sharing lends it at once.
func TestKeepsExecutorsAcrossABarrier(t *testing.T) {
	s := traces.Second
	w := &traces.Workload{Name: "barrier", Dims: []string{"cpu"}, Cluster: traces.Uniform(2, traces.VecOf(1), 0), Jobs: []traces.Job{
		{ID: 0, Stages: []traces.Stage{stage("a", []traces.Time{s, 10 * s}), stage("b", []traces.Time{s, s}, 0)}},
		{ID: 1, Submit: s / 2, Stages: []traces.Stage{stage("c", []traces.Time{s, s})}},
	}}
	dp, err := decimadp.New(policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := firstStarts(t, w, dp); got[1] != 11*s {
		t.Errorf("decimadp: job 1 first started at %d µs, want 11 s (after job 0 completes)", got[1])
	}
	fair, err := baseline.NewFair(policies.Options{Level: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if got := firstStarts(t, w, fair); got[1] != s {
		t.Errorf("fair: job 1 first started at %d µs, want 1 s", got[1])
	}
}

// TestCapsJobsAtTheirShare: jobs present together take at most ceil(machines / jobs) executors
// each, in arrival order, and a job without work gives its executors up.
func TestCapsJobsAtTheirShare(t *testing.T) {
	s := traces.Second
	four := []traces.Time{s, s, s, s}
	w := &traces.Workload{Name: "cap", Dims: []string{"cpu"}, Cluster: traces.Uniform(4, traces.VecOf(1), 0), Jobs: []traces.Job{
		{ID: 0, Stages: []traces.Stage{stage("a", four)}},
		{ID: 1, Stages: []traces.Stage{stage("b", four)}},
	}}
	dp, _ := decimadp.New(policies.Options{})
	e, err := replay.New(w, dp, replay.Config{Log: func(l replay.LogEntry) {
		if l.Kind == replay.KindStart && l.T == 0 && l.Task >= 2 {
			t.Errorf("job %d started task %d at 0: more than its 2 of 4 executors", l.Job, l.Task)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	if s0 := replay.Summarize(res); s0.Completed != 2 || s0.Makespan != 2 {
		t.Errorf("completed %d jobs, makespan %v s; want 2 jobs in 2 s", s0.Completed, s0.Makespan)
	}
	if _, err := decimadp.New(policies.Options{Params: map[string]any{"cap": 3}}); err == nil || !strings.Contains(err.Error(), "takes no params") {
		t.Errorf("params: got %v", err)
	}
}
