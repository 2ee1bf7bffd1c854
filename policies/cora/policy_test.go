package cora_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/cora"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	gencora "github.com/schedlab/schedlab/traces/generate/cora"
)

// run replays w under the policy built with params.
func run(t *testing.T, w *traces.Workload, name string, params map[string]any) (*replay.Result, policies.Policy) {
	t.Helper()
	var p policies.Policy
	var err error
	switch name {
	case cora.Name:
		p, err = cora.New(policies.Options{Params: params})
	case baseline.EDFName:
		p, err = baseline.NewEDF(policies.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := replay.New(w, p, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res, p
}

// job is a one-stage job of n one-container tasks of dur seconds with a sigmoid utility.
func job(id int64, submit, dur float64, n int32, p, mu, target float64) traces.Job {
	d := traces.FromSeconds(target)
	return traces.Job{
		ID: id, Name: "j", Submit: traces.FromSeconds(submit), Queue: "default", Class: "c", Weight: p,
		Deadline: d, Utility: &traces.Utility{Kind: traces.UtilitySigmoid, Priority: p, Decay: mu, Target: d},
		Stages: []traces.Stage{{Name: "map", Tasks: n, Demand: traces.VecOf(1), Duration: traces.FromSeconds(dur), Estimate: traces.FromSeconds(dur)}},
	}
}

func pool(containers int, jobs ...traces.Job) *traces.Workload {
	w := &traces.Workload{Name: "t", Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(float64(containers)), 0), Jobs: jobs}
	w.Cluster.Pooled = true
	w.SortJobs()
	return w
}

// TestEDFCounterExample is the paper's §I example (claim C-19): job 1 has the earlier target but
// tolerates lateness; job 2 has a later, critical target. EDF serves job 1 first and job 2
// misses; CORA serves job 2 first and both keep most of their utility.
func TestEDFCounterExample(t *testing.T) {
	w := pool(4,
		job(1, 0, 30, 8, 3, 0.01, 70), // 60 s of work alone; target 70 s, gradual
		job(2, 0, 30, 8, 3, 5, 100),   // 60 s alone; target 100 s, critical
	)
	edf, _ := run(t, w, baseline.EDFName, nil)
	cr, _ := run(t, w, cora.Name, map[string]any{"slot_s": 10})
	if edf.Jobs[1].Finish <= traces.FromSeconds(100) {
		t.Fatalf("EDF finished the critical job at %v s, before its target; the example is void", traces.Seconds(edf.Jobs[1].Finish))
	}
	if f := cr.Jobs[1].Finish; f > traces.FromSeconds(100) {
		t.Errorf("CORA finished the critical job at %v s, after its 100 s target", traces.Seconds(f))
	}
	sum := func(r *replay.Result) float64 { return r.Jobs[0].Utility + r.Jobs[1].Utility }
	if sum(cr) <= sum(edf) {
		t.Errorf("utility CORA %v, EDF %v", sum(cr), sum(edf))
	}
}

// TestRunsDeterministically replays the paper's workload (small) under both solvers: every job
// completes, the engine accepts every plan, repeated runs give identical records, and the
// per-event table has a row per solve.
func TestRunsDeterministically(t *testing.T) {
	o := gencora.Defaults()
	o.Jobs = 10
	w, err := gencora.Generate(o, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	for _, params := range []map[string]any{{"shadow": true}, {"solver": "lp", "slot_s": 60}} {
		if params["solver"] == "lp" && testing.Short() {
			continue
		}
		a, pa := run(t, w, cora.Name, params)
		b, _ := run(t, w, cora.Name, params)
		for i := range a.Jobs {
			if !a.Jobs[i].Completed {
				t.Fatalf("%v: job %d did not complete", params, i)
			}
		}
		if !reflect.DeepEqual(a.Jobs, b.Jobs) {
			t.Errorf("%v: two runs differ", params)
		}
		rep, err := pa.(policies.Reporter).Report(policies.ReportContext{Dims: w.Dims})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Validate(); err != nil {
			t.Fatal(err)
		}
		events := rep.Metrics["cora.events"]
		if events < float64(len(w.Jobs)) || rep.Metrics["cora.failures"] != 0 {
			t.Errorf("%v: metrics %v", params, rep.Metrics)
		}
		if got := rep.Tables[0].Columns[0].Len(); float64(got) != events {
			t.Errorf("%v: %d event rows, %v events", params, got, events)
		}
		if params["shadow"] == true {
			sh := rep.Tables[1]
			for _, c := range sh.Columns {
				if c.Name == "gain_fair" || c.Name == "gain_fifo" || c.Name == "gain_edf" || c.Name == "gain_rrh" {
					for _, g := range c.Float64 {
						if g < -1e-12 || math.IsNaN(g) {
							t.Fatalf("%s = %v: the exact max-min is below a comparator's min", c.Name, g)
						}
					}
				}
			}
		}
	}
}
