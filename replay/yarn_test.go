package replay_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

var updateYarn = flag.Bool("update-yarn", false, "rewrite testdata/yarn_off.golden")

// dagWorkload is a small workload of DAG jobs (1-3 stages) in two queues, about `jobs` of them,
// with Poisson arrivals that keep `machines` machines busy.
func dagWorkload(jobs, machines int, pooled bool, seed uint64) *traces.Workload {
	r := rand.New(rand.NewPCG(seed, 0x7a4e))
	w := &traces.Workload{Name: "dag", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(machines, traces.VecOf(4, 8), 4)}
	w.Cluster.Pooled = pooled
	var t float64
	for i := 0; i < jobs; i++ {
		t += r.ExpFloat64() * 6
		n := 1 + r.IntN(3)
		j := traces.Job{ID: int64(i), Submit: traces.FromSeconds(t), Queue: fmt.Sprintf("q%d", i%2)}
		for s := 0; s < n; s++ {
			d := traces.FromSeconds(0.5 + r.ExpFloat64()*8)
			st := traces.Stage{Name: fmt.Sprintf("s%d", s), Tasks: int32(1 + r.IntN(12)), Demand: traces.VecOf(0.5+float64(r.IntN(3)), 1+float64(r.IntN(4))), Duration: d, Estimate: d}
			if s > 0 {
				st.Parents = []int32{int32(s - 1)}
				if s == 2 && r.IntN(2) == 0 {
					st.Parents = []int32{0, 1}
				}
			}
			j.Stages = append(j.Stages, st)
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w
}

// fingerprintOff hashes everything a run produced that existed before the YARN mechanics: its
// event log, every job's record and the run's totals.
func fingerprintOff(t *testing.T, w *traces.Workload, policy string, cfg replay.Config) string {
	t.Helper()
	h := sha256.New()
	cfg.Log = func(l replay.LogEntry) { fmt.Fprintln(h, l) }
	e, err := replay.New(w, newPolicy(t, policy), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		fmt.Fprintln(h, j.Index, j.Submit, j.FirstStart, j.Finish, j.Completed, j.Finished, j.Preemptions, j.SlowedStarts)
	}
	fmt.Fprintf(h, "%+v\n", replay.Summarize(res))
	fmt.Fprintln(h, res.AllocIntegral, res.QueueShareIntegral, res.QueueAllocIntegral, res.End, res.Stats.Events, res.Stats.Starts, res.Stats.SchedulingCalls)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestYarnOffIsInert: with every YARN mechanic off the engine's event log and results are those
// the engine produced before the mechanics existed (testdata/yarn_off.golden was written by the
// engine of main before them; JobRecord's new AMStart field, -1, is left out of the hash), and
// the mechanics' parameters without their switches change nothing.
func TestYarnOffIsInert(t *testing.T) {
	var lines []string
	for _, policy := range []string{"fifo", "drf", "srpt"} {
		for _, pooled := range []bool{false, true} {
			w := dagWorkload(40, 6, pooled, 3)
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			off := fingerprintOff(t, w, policy, replay.Config{})
			idle := fingerprintOff(t, w, policy, replay.Config{Yarn: replay.YarnConfig{
				ContainersPerHeartbeat: 1, AMDemand: traces.VecOf(1, 1), AMStartup: traces.Second,
				AMSetup: traces.Second, AMTeardown: traces.Second, MaxAMShare: 0.5, SlowStart: 0.05,
			}})
			if off != idle {
				t.Errorf("policy=%s pooled=%v: parameters without their switches changed the run", policy, pooled)
			}
			lines = append(lines, fmt.Sprintf("policy=%s pooled=%v %s", policy, pooled, off))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "yarn_off.golden")
	if *updateYarn {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("runs with the mechanics off differ from the engine before them:\n got %s\nwant %s", got, want)
	}
}

// checked runs the engine's self-checks (CheckInvariants) before every scheduling call, in any
// build; under the invariants tag the engine also checks after every instant.
type checked struct {
	policies.Policy
}

func (c checked) Schedule(v policies.View, p *policies.Plan) error {
	if err := replay.CheckInvariants(v.(*replay.Engine)); err != nil {
		return err
	}
	return c.Policy.Schedule(v, p)
}

// overbooker starts every pending task of every runnable stage on the machine with the most
// free cpu, whether they fit or not: with reservations on, the engine reserves for the rest.
type overbooker struct{}

func (overbooker) Name() string { return "overbooker" }

func (overbooker) Schedule(v policies.View, p *policies.Plan) error {
	for _, j := range v.Active() {
		for _, s := range v.RunnableStages(j) {
			best := 0
			for m := 1; m < v.NumMachines(); m++ {
				if v.Free(m)[0] > v.Free(best)[0] {
					best = m
				}
			}
			p.Starts = append(p.Starts, policies.Start{Job: j, Stage: s, Machine: int32(best), Count: v.StageState(j, s).Pending})
		}
	}
	return nil
}

var yarnAll = replay.YarnConfig{
	Heartbeat: traces.Second, ContainersPerHeartbeat: 1,
	AM: true, AMDemand: traces.VecOf(1, 1.5), AMStartup: 8 * traces.Second, AMSetup: 3 * traces.Second,
	AMTeardown: 2 * traces.Second, MaxAMShare: 0.5, Reservations: true, SlowStartOn: true, SlowStart: 0.25,
}

// TestYarnInvariants replays DAG workloads with each mechanic on, and all together, under
// built-in policies and the engine's self-checks: every job completes, none faster than its
// critical path, and with AMs every job's timeline has its AM's start-up, setup and teardown.
func TestYarnInvariants(t *testing.T) {
	configs := map[string]replay.YarnConfig{
		"heartbeat":    {Heartbeat: traces.Second, ContainersPerHeartbeat: 1},
		"heartbeat_x3": {Heartbeat: 3 * traces.Second},
		"am":           {AM: true, AMDemand: traces.VecOf(1, 1.5), AMStartup: 8 * traces.Second, AMSetup: 3 * traces.Second, AMTeardown: 2 * traces.Second, MaxAMShare: 0.5},
		"reservations": {Reservations: true},
		"slowstart":    {SlowStartOn: true, SlowStart: 0.25},
		"slowstart0":   {SlowStartOn: true},
		"all":          yarnAll,
	}
	for name, yc := range configs {
		for _, policy := range []string{"fifo", "drf"} {
			for _, pooled := range []bool{false, true} {
				for _, cycle := range []traces.Time{0, 2 * traces.Second} {
					t.Run(fmt.Sprintf("%s/policy=%s/pooled=%v/cycle=%d", name, policy, pooled, cycle), func(t *testing.T) {
						w := dagWorkload(40, 6, pooled, 5)
						e, err := replay.New(w, checked{newPolicy(t, policy)}, replay.Config{Yarn: yc, Cycle: cycle, PreemptKeepsWork: true})
						if err != nil {
							t.Fatal(err)
						}
						res, err := e.Run()
						if err != nil {
							t.Fatal(err)
						}
						checkTimelines(t, w, res, yc)
					})
				}
			}
		}
	}
}

func checkTimelines(t *testing.T, w *traces.Workload, res *replay.Result, yc replay.YarnConfig) {
	t.Helper()
	for _, j := range res.Jobs {
		src := &w.Jobs[j.Index]
		if !j.Completed {
			t.Fatalf("job %d did not complete", j.Index)
		}
		if path := src.CriticalPath(false); j.Finish-j.FirstStart < path {
			t.Errorf("job %d ran %d µs from its first task, under its critical path %d", j.Index, j.Finish-j.FirstStart, path)
		}
		if !yc.AM {
			if j.AMStart != -1 {
				t.Errorf("job %d: AM start %d without AMs", j.Index, j.AMStart)
			}
			continue
		}
		if j.AMStart < j.Submit || j.FirstStart < j.AMStart+yc.AMStartup+yc.AMSetup || j.Finish < j.FirstStart+src.CriticalPath(false)+yc.AMTeardown {
			t.Errorf("job %d: submit %d, AM %d, first task %d, finish %d: AM times missing", j.Index, j.Submit, j.AMStart, j.FirstStart, j.Finish)
		}
	}
}

// TestReservationsUnderOverbooking: a policy that plans more than fits is an invalid plan
// without reservations; with them the engine reserves nodes, drops starts on nodes reserved for
// others, fulfills reservations itself, and every job completes with the invariants intact.
func TestReservationsUnderOverbooking(t *testing.T) {
	w := dagWorkload(30, 4, false, 7)
	e, err := replay.New(w, overbooker{}, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err == nil || !strings.Contains(err.Error(), "over-commit") {
		t.Fatalf("without reservations: got %v, want an over-commit plan error", err)
	}
	for _, yc := range []replay.YarnConfig{{Reservations: true}, {Reservations: true, Heartbeat: traces.Second, ContainersPerHeartbeat: 1, SlowStartOn: true, SlowStart: 0.5}} {
		var reserves, unreserves int
		e, err := replay.New(w, checked{overbooker{}}, replay.Config{Yarn: yc, Log: func(l replay.LogEntry) {
			switch l.Kind {
			case replay.KindReserve:
				reserves++
			case replay.KindUnreserve:
				unreserves++
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		checkTimelines(t, w, res, yc)
		if reserves == 0 || reserves != unreserves {
			t.Errorf("%+v: %d reservations, %d ended; want some, all ended", yc, reserves, unreserves)
		}
	}
}

// TestYarnConfigErrors: invalid mechanic settings are refused by New with one clear message.
func TestYarnConfigErrors(t *testing.T) {
	w := dagWorkload(3, 2, false, 1)
	for _, tc := range []struct {
		yc   replay.YarnConfig
		want string
	}{
		{replay.YarnConfig{AM: true, AMDemand: traces.VecOf(5, 1)}, "AM demand [5 1] fits on no machine"},
		{replay.YarnConfig{AM: true, MaxAMShare: 1.5}, "max AM share 1.5"},
		{replay.YarnConfig{SlowStartOn: true, SlowStart: -0.1}, "slow-start -0.1"},
		{replay.YarnConfig{Heartbeat: -1}, "must be ≥ 0"},
	} {
		if _, err := replay.New(w, overbooker{}, replay.Config{Yarn: tc.yc}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.yc, err, tc.want)
		}
	}
}
