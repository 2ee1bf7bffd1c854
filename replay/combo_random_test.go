package replay

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/traces"
)

// comboCase is one random small workload and one random combination of the engine's optional
// mechanisms.
type comboCase struct {
	w      *traces.Workload
	cfg    Config
	policy string
	mechs  []string // the mechanisms turned on, for failure messages
}

// randomCombo draws case i: 2-4 machines, 3-10 jobs of 1-2 stages, and each mechanism on with
// probability about one half: start-up and release holds, duration spread, heartbeats, AMs,
// reservations, slow-start, initial holds (sometimes saturating), machine events, the failure
// model, trace evictions, decision time, a scheduling cycle, preemption (sp) with a delay.
func randomCombo(i int) comboCase {
	r := rand.New(rand.NewPCG(uint64(i), 0xc0b0))
	n := 2 + r.IntN(3)
	w := &traces.Workload{Name: fmt.Sprintf("combo%d", i), Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(n, traces.VecOf(2, 2), 2)}
	var t float64
	for j := range 3 + r.IntN(8) {
		t += r.ExpFloat64() * 3
		job := traces.Job{ID: int64(10 + j), Submit: traces.FromSeconds(float64(int(t*10)) / 10), Class: []string{"a", "b"}[r.IntN(2)], Queue: []string{"q0", "q1"}[r.IntN(2)]}
		for s := range 1 + r.IntN(2) {
			d := traces.FromSeconds(float64(1 + r.IntN(10)))
			st := traces.Stage{Name: fmt.Sprintf("s%d", s), Tasks: int32(1 + r.IntN(4)), Demand: traces.VecOf(0.5*float64(1+r.IntN(2)), 0.5*float64(1+r.IntN(2))), Duration: d, Estimate: d}
			if s > 0 {
				st.Parents = []int32{int32(s - 1)}
			}
			job.Stages = append(job.Stages, st)
		}
		w.Jobs = append(w.Jobs, job)
	}
	c := comboCase{w: w, policy: []string{"fifo", "drf", "sp"}[r.IntN(3)]}
	on := func(name string) bool {
		if r.IntN(2) == 0 {
			return false
		}
		c.mechs = append(c.mechs, name)
		return true
	}
	cfg := &c.cfg
	cfg.Seed = int64(i)
	if on("holds") {
		cfg.Holding.Startup = traces.FromSeconds(float64(r.IntN(3)))
		cfg.Holding.Release = traces.FromSeconds(float64(r.IntN(2)))
	}
	if on("spread") {
		cfg.Variance.Sigma = 0.5
	}
	if on("heartbeat") {
		cfg.Yarn.Heartbeat = traces.Second
		cfg.Yarn.ContainersPerHeartbeat = r.IntN(3)
	}
	if on("reservations") {
		cfg.Yarn.Reservations = true
	}
	if on("slowstart") {
		cfg.Yarn.SlowStartOn, cfg.Yarn.SlowStart = true, 0.5
		// A run that cannot finish (slow-start's deadlock) would replay the failure model forever:
		// the horizon, far beyond any finishing run (< 200 s), ends it.
		cfg.Horizon = 10000 * traces.Second
	}
	if on("initial") {
		for range 1 + r.IntN(3) {
			s := float64(r.IntN(10))
			w.Initial = append(w.Initial, traces.Hold{Machine: int32(r.IntN(n)), Start: traces.FromSeconds(s), End: traces.FromSeconds(s + float64(1+r.IntN(20))), Demand: traces.VecOf(0.5, 0.5*float64(r.IntN(3)))})
		}
		slices.SortStableFunc(w.Initial, func(a, b traces.Hold) int { return cmp.Compare(a.Start, b.Start) })
		cfg.SaturateHolds = r.IntN(2) == 0
	}
	loses := false // the cluster loses capacity: application masters are refused then (combos.go)
	switch {
	case on("events"):
		m := int32(1 + r.IntN(n-1)) // machine 0 stays: every task fits somewhere
		at := float64(1 + r.IntN(15))
		if r.IntN(2) == 0 {
			w.ClusterEvents = append(w.ClusterEvents, traces.ClusterEvent{T: traces.FromSeconds(at), Kind: traces.MachineRemove, Machine: m},
				traces.ClusterEvent{T: traces.FromSeconds(at + float64(1+r.IntN(10))), Kind: traces.MachineAdd, Machine: m, Capacity: traces.VecOf(2, 2)})
		} else {
			w.ClusterEvents = append(w.ClusterEvents, traces.ClusterEvent{T: traces.FromSeconds(at), Kind: traces.MachineResize, Machine: m, Capacity: traces.VecOf(1, 2)})
		}
		loses = true
	case on("failures"):
		cfg.Failures = traces.FailureModel{MTTF: 20 * traces.Second, MTTR: 5 * traces.Second}
		cfg.FailureRand = rand.New(rand.NewPCG(uint64(i), 1))
		loses = true
	}
	if !loses && on("am") {
		cfg.Yarn.AM, cfg.Yarn.AMDemand = true, traces.VecOf(0.5, 0.5)
		cfg.Yarn.AMStartup, cfg.Yarn.AMTeardown = traces.Second, traces.Second
	}
	if on("evictions") {
		for range 1 + r.IntN(4) {
			j := r.IntN(len(w.Jobs))
			w.Faults = append(w.Faults, traces.TaskFault{T: w.Jobs[j].Submit + traces.FromSeconds(float64(r.IntN(10))), Job: w.Jobs[j].ID, Kind: traces.TaskEvicted})
		}
		slices.SortStableFunc(w.Faults, func(a, b traces.TaskFault) int { return cmp.Compare(a.T, b.T) })
		cfg.TraceEvictions = true
	}
	// Decision time only without capacity the engine changes between a call and its plan's landing
	// (initial holds, machine events, failures, AM placement, evictions): the engine refuses those
	// combinations (combos.go, scenario combo_decision_hold).
	capChanges := len(w.Initial) > 0 || loses || cfg.Yarn.AM || cfg.TraceEvictions
	if !capChanges && on("decision") {
		cfg.DecisionTime = constDecision(traces.FromSeconds(0.5))
	}
	if on("cycle") {
		cfg.Cycle = 2 * traces.Second
	}
	if c.policy == "sp" && on("preempt_delay") {
		cfg.PreemptDelay = traces.FromSeconds(float64(r.IntN(2)))
	}
	return c
}

func (c comboCase) newPolicy() (policies.Policy, error) {
	o := policies.Options{Params: map[string]any{}}
	switch c.policy {
	case "fifo":
		return baseline.NewFIFO(o)
	case "drf":
		return baseline.NewDRF(o)
	}
	o.Params["preempt"] = true
	o.ClassOrder = []string{"a", "b"}
	return baseline.NewSP(o)
}

// run replays the case with recording on and returns a digest of its event log, job records and
// statistics, the ledger of its attempts, and the result.
func (c comboCase) run() (string, *attemptLedger, *Result, error) {
	p, err := c.newPolicy()
	if err != nil {
		return "", nil, nil, err
	}
	h := sha256.New()
	cfg := c.cfg
	if cfg.FailureRand != nil {
		cfg.FailureRand = rand.New(rand.NewPCG(uint64(cfg.Seed), 1)) // a fresh stream per run
	}
	cfg.Log = func(l LogEntry) { fmt.Fprintln(h, l) }
	l := newAttemptLedger()
	cfg.Recorder = l
	e, err := New(c.w, p, cfg)
	if err != nil {
		return "", nil, nil, err
	}
	res, err := e.Run()
	if err != nil {
		return "", nil, nil, err
	}
	for _, j := range res.Jobs {
		fmt.Fprintln(h, j.Index, j.FirstStart, j.Finish, j.Completed, j.Preemptions, j.AMStart)
	}
	fmt.Fprintf(h, "%+v %v\n", res.Stats, res.End)
	if cl := res.Cluster; cl != nil {
		s := *cl
		s.ByClass = nil // pointers: their values follow
		fmt.Fprintf(h, "%+v\n", s)
		for _, k := range slices.Sorted(maps.Keys(cl.ByClass)) {
			fmt.Fprintln(h, k, *cl.ByClass[k])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), l, res, nil
}

// TestRandomCombinations replays a few hundred random small workloads under random
// combinations of the mechanisms: each run ends without an engine error (under -tags
// invariants the engine checks capacity, and conservation where it applies, after every
// instant), replays to the same bytes twice, records every attempt started exactly once, with
// as many kills and preemptions as the run counted; without slow-start (which can deadlock an
// overloaded cluster: no reducer preemption) every job completes.
func TestRandomCombinations(t *testing.T) {
	cases := 300
	if testing.Short() {
		cases = 60
	}
	ran, killed, preempted := 0, 0, 0
	for i := range cases {
		c := randomCombo(i)
		if err := c.w.Validate(); err != nil {
			t.Fatalf("case %d: workload: %v", i, err)
		}
		where := fmt.Sprintf("case %d (%s; %s)", i, c.policy, strings.Join(c.mechs, "+"))
		d1, l, res, err := c.run()
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		ran++
		d2, _, _, err := c.run()
		if err != nil || d1 != d2 {
			t.Errorf("%s: not deterministic (second run: %v)", where, err)
		}
		for _, e := range l.errs {
			t.Errorf("%s: %s", where, e)
		}
		if len(l.running) > 0 {
			t.Errorf("%s: %d attempts never ended", where, len(l.running))
		}
		var kills, preempts int64
		if res.Cluster != nil {
			kills = res.Cluster.Kills
		}
		for _, j := range res.Jobs {
			preempts += int64(j.Preemptions)
		}
		killed += l.outcomes[AttemptKilled]
		preempted += l.outcomes[AttemptPreempted]
		if int64(l.outcomes[AttemptKilled]) != kills || int64(l.outcomes[AttemptPreempted]) != preempts {
			t.Errorf("%s: recorded %d killed and %d preempted attempts, the run counted %d kills and %d preemptions",
				where, l.outcomes[AttemptKilled], l.outcomes[AttemptPreempted], kills, preempts)
		}
		if !c.cfg.Yarn.SlowStartOn {
			for _, j := range res.Jobs {
				if !j.Completed {
					t.Errorf("%s: job %d did not complete", where, j.Index)
				}
			}
		}
	}
	t.Logf("%d of %d cases ran: %d attempts killed, %d preempted", ran, cases, killed, preempted)
	if killed == 0 || preempted == 0 {
		t.Errorf("no case killed or preempted a task: the combinations are not exercised")
	}
	if ran < cases*9/10 {
		t.Errorf("only %d of %d cases ran", ran, cases)
	}
}
