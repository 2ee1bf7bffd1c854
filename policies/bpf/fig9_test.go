package bpf_test

import (
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// The fig9 scenario (BPF §5.2.5): three LQs arriving at 50, 100 and 150 s with periods 150, 110
// and 60 s, identical jobs, and one BigBench TQ backlogged at time 0, on 40 pooled machines.
const (
	fig9Machines = 40
	fig9Horizon  = 1200.0 // seconds of LQ bursts
)

var fig9LQs = []struct {
	name          string
	first, period float64
}{{"lq0", 50, 150}, {"lq1", 100, 110}, {"lq2", 150, 60}}

// fig9LQJob is the LQ job every burst submits: a map stage filling the cluster's memory for 20 s
// and a small reduce stage of 5 s, due 25 s after it arrives.
func fig9LQJob(queue string, submit traces.Time) traces.Job {
	return traces.Job{
		Name: queue, Queue: queue, Class: "lq", Submit: submit, Deadline: submit + 25*traces.Second,
		Stages: []traces.Stage{
			{Name: "Map1", Tasks: 80, Demand: traces.VecOf(0.25, 0.5), Duration: 20 * traces.Second, Estimate: 20 * traces.Second},
			{Name: "Reducer2", Tasks: 10, Demand: traces.VecOf(0.1, 0.1), Duration: 5 * traces.Second, Estimate: 5 * traces.Second, Parents: []int32{0}},
		},
	}
}

func fig9Workload(t testing.TB) *traces.Workload {
	t.Helper()
	bb, err := tpcdag.ReadFile("testdata/queries_bb.txt", tpcdag.Options{LastStageWins: true})
	if err != nil {
		t.Fatal(err)
	}
	w := &traces.Workload{Name: "fig9", Dims: bb.Dims, Cluster: traces.Uniform(fig9Machines, traces.VecOf(1, 1), 0)}
	w.Cluster.Pooled = true
	for rep := 0; rep < 4; rep++ {
		for _, q := range bb.Jobs {
			j := q
			j.Queue, j.Class, j.Submit = "tq0", "tq", 0
			w.Jobs = append(w.Jobs, j)
		}
	}
	for _, lq := range fig9LQs {
		for s := lq.first; s < fig9Horizon; s += lq.period {
			w.Jobs = append(w.Jobs, fig9LQJob(lq.name, traces.FromSeconds(s)))
		}
	}
	w.SortJobs()
	for i := range w.Jobs {
		w.Jobs[i].ID = int64(i)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// fig9Params declares only the LQs' periods: their demand and allowed processing time are
// derived from their first jobs.
func fig9Params() map[string]any {
	qs := map[string]any{}
	for _, lq := range fig9LQs {
		qs[lq.name] = map[string]any{"period_s": lq.period}
	}
	return map[string]any{"queues": qs}
}

func runFig9(t testing.TB, w *traces.Workload, name string) (*replay.Result, policies.Policy) {
	t.Helper()
	var (
		p   policies.Policy
		err error
	)
	switch name {
	case "drf":
		p, err = baseline.NewDRF(policies.Options{Level: "queue"})
	case "sp":
		p, err = baseline.NewSP(policies.Options{Level: "queue", ClassOrder: []string{"lq", "tq"}})
	default:
		for _, e := range bpf.Entries() {
			if e.Name == name {
				p, err = e.New(policies.Options{Params: fig9Params(), Seed: 1})
			}
		}
	}
	if err != nil || p == nil {
		t.Fatalf("policy %s: %v", name, err)
	}
	e, err := replay.New(w, p, replay.Config{UsageWindow: 100 * traces.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res, p
}

func TestFig9Explore(t *testing.T) {
	w := fig9Workload(t)
	for _, name := range []string{"drf", "sp", "nbpf", "bpf", "mbvt"} {
		res, p := runFig9(t, w, name)
		s := replay.Summarize(res)
		line := name + ":"
		for _, q := range []string{"lq0", "lq1", "lq2", "tq0"} {
			line += fmt.Sprintf(" %s jct=%.1f share=%.3f", q, s.ByQueue[q].AvgJCT, s.QueueDominantShare[q])
		}
		t.Log(line, "end", traces.Seconds(res.End), "unfinished", s.Unfinished)
		if a, ok := p.(bpf.Admitter); ok {
			for _, r := range a.Admissions() {
				t.Logf("  %s %v %s", r.Queue, r.Class, r.Reason)
			}
		}
	}
}
