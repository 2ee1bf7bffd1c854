package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// greedy starts every pending runnable task that fits, in job order; enough to drive the engine
// in tests of this package without importing real policies.
type greedy struct{ seen []string }

func (g *greedy) Name() string { return "greedy" }

func (g *greedy) Schedule(v policies.View, p *policies.Plan) error {
	free := make([]traces.Vec, v.NumMachines())
	for m := range free {
		free[m] = v.Free(m)
	}
	for _, j := range v.Active() {
		info := v.Job(j)
		for _, s := range v.RunnableStages(j) {
			g.seen = append(g.seen, fmt.Sprintf("t=%d job=%d stage=%d est=%d", v.Now(), j, s, info.Stages[s].Estimate))
			d := info.Stages[s].Demand
			pending := v.StageState(j, s).Pending
			for m := range free {
				var n int32
				for n < pending && d.Fits(free[m]) {
					free[m] = free[m].Sub(d)
					n++
				}
				if n > 0 {
					p.Starts = append(p.Starts, policies.Start{Job: j, Stage: s, Machine: int32(m), Count: n})
					pending -= n
				}
			}
		}
	}
	return nil
}

type fixedEstimator struct {
	pred     traces.Time
	observed []string
}

func (f *fixedEstimator) Predict(j *traces.Job, now traces.Time) traces.Time { return f.pred }

func (f *fixedEstimator) Observe(j *traces.Job, runtime traces.Time) {
	f.observed = append(f.observed, fmt.Sprintf("job %d runtime %d", j.ID, runtime))
}

func twoStageWorkload() *traces.Workload {
	return &traces.Workload{
		Dims:    []string{"cpu", "mem"},
		Cluster: traces.Uniform(1, traces.VecOf(1, 1), 0),
		Jobs: []traces.Job{{
			ID: 7, Submit: 0,
			Stages: []traces.Stage{
				{Name: "a", Tasks: 1, Demand: traces.VecOf(1, 1), Duration: 30, Estimate: 30},
				{Name: "b", Tasks: 1, Demand: traces.VecOf(1, 1), Duration: 10, Estimate: 10, Parents: []int32{0}},
			},
		}},
	}
}

func TestEstimatorSpreadsPredictionOverStages(t *testing.T) {
	est := &fixedEstimator{pred: 80} // critical path is 40: every estimate doubles
	g := &greedy{}
	e, err := New(twoStageWorkload(), g, Config{Estimator: est})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	want := "t=0 job=0 stage=0 est=60\nt=30 job=0 stage=1 est=20"
	if got := strings.Join(g.seen, "\n"); got != want {
		t.Errorf("policy saw\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(est.observed, ";"); got != "job 7 runtime 40" {
		t.Errorf("observed %q, want the job's runtime 40", got)
	}
}

func TestOracleIgnoresEstimator(t *testing.T) {
	w := twoStageWorkload()
	w.Jobs[0].Stages[0].Estimate = 1 // a bad estimate the oracle must not show
	g := &greedy{}
	e, err := New(w, g, Config{Oracle: true, Estimator: &fixedEstimator{pred: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.seen[0], "t=0 job=0 stage=0 est=30") {
		t.Errorf("oracle run showed %q, want the true duration 30", g.seen[0])
	}
}

func TestNewRejectsInvalidWorkload(t *testing.T) {
	w := twoStageWorkload()
	w.Jobs[0].Stages[0].Parents = []int32{1} // a cycle a→b→a
	_, err := New(w, &greedy{}, Config{})
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("New = %v, want a dependency-cycle error", err)
	}
}

func TestRunTwiceIsAnError(t *testing.T) {
	e, err := New(twoStageWorkload(), &greedy{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err == nil {
		t.Fatal("second Run succeeded")
	}
}

// TestUsageSeries checks the per-queue usage windows against a hand computation: one task using
// the whole machine from 0 to 30 s, windows of 20 s → window 0 full, window 1 half.
func TestUsageSeries(t *testing.T) {
	w := twoStageWorkload()
	w.Jobs[0].Stages = w.Jobs[0].Stages[:1]
	w.Jobs[0].Stages[0].Duration = 30 * traces.Second
	e, err := New(w, &greedy{}, Config{UsageWindow: 20 * traces.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Usage) != 1 || len(res.Usage[0]) != 2 {
		t.Fatalf("usage shape %d queues, want 1 queue × 2 windows: %v", len(res.Usage), res.Usage)
	}
	if got := [2]float64{res.Usage[0][0][0], res.Usage[0][1][0]}; got != [2]float64{1, 0.5} {
		t.Errorf("cpu usage per window = %v, want [1 0.5]", got)
	}
	s := Summarize(res)
	if s.QueueDominantShare[""] != 1 || s.Utilization["cpu"] != 1 {
		t.Errorf("dominant share %v utilization %v, want 1 and 1", s.QueueDominantShare, s.Utilization)
	}
}

// The engine offers policies/baseline's optional MachineChanges ability; the interface is
// mirrored here (package replay's tests do not import policies) and checked at compile time.
var _ interface{ ChangedMachines() []int32 } = (*Engine)(nil)

// TestChangedMachinesListsEachChangeOnce checks the ability's contract on a run: at each
// scheduling point the machines whose free capacity changed since the previous call are listed
// once each.
func TestChangedMachinesListsEachChangeOnce(t *testing.T) {
	w := &traces.Workload{
		Dims:    []string{"cpu", "mem"},
		Cluster: traces.Uniform(3, traces.VecOf(1, 1), 0),
		Jobs: []traces.Job{{ID: 1, Stages: []traces.Stage{
			{Name: "a", Tasks: 4, Demand: traces.VecOf(0.5, 0.5), Duration: 10, Estimate: 10},
		}}},
	}
	p := &machineRecorder{}
	e, err := New(w, p, Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.e = e
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	// t=0: nothing ran yet; greedy starts 2+2 tasks on machines 0 and 1. t=10: both free up.
	if got := strings.Join(p.seen, " | "); got != "t=0 [] | t=10 [0 1]" {
		t.Errorf("changed machines per call: %s", got)
	}
}

type machineRecorder struct {
	greedy
	e    *Engine
	seen []string
}

func (m *machineRecorder) Schedule(v policies.View, p *policies.Plan) error {
	m.seen = append(m.seen, fmt.Sprintf("t=%d %v", v.Now(), m.e.ChangedMachines()))
	return m.greedy.Schedule(v, p)
}
