package replay

import (
	"bufio"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// A scenario script drives the engine with hand-written decisions and records the event log.
//
//	cluster machines=2 cpu=1 mem=1 [rack_size=2] [gpu=1] [pooled]
//	job submit=0 [deadline=30] [queue=q] [class=c] [placement=hard:gpu|soft:rack:1.5]
//	stage name=a tasks=2 dur=10 cpu=0.5 mem=0.5 [est=8] [parents=a,b]
//	engine [cycle=5] [preempt_delay=2] [keeps_work] [horizon=100] [oracle] [decision=2] [stop_after=queue]
//	       [heartbeat=1] [per_beat=1] [am=0.5,0.5] [am_startup=8] [am_setup=3] [am_teardown=2]
//	       [max_am_share=0.5] [reservations] [slowstart=0.5]   (YARN mechanics, yarn.go)
//	       [seed=1] [startup=2] [release=3] [hold_dist=exp] [hold_cv=0.5]
//	       [sigma=0.5] [straggler_p=0.1] [straggler_factor=3] [model=contention|waves] [slope=1]
//	policy sp [preempt] [backfill] [order=slo,be]   (a real policy decides after the script)
//	at 0 start job=0 stage=0 machine=0 count=2
//	at 3 preempt job=0 stage=0 task=1
//	hold machine=0 start=0 end=5 cpu=0.5 mem=0.5
//	machine 3 remove machine=0
//	machine 4 add|resize machine=0 cpu=1 mem=1
//	failures mttf=100 mttr=10 seed=1
//	fault 4 job=ID stage=0 task=0 kind=evicted   (replayed with: engine trace_evictions)
//
// The engine's execution mechanics are set by startup/release (seconds), hold_dist, hold_cv,
// sigma, straggler_p, straggler_factor, model and slope (mechanics_test.go has the model
// "waves", which shows what a duration model is told).
// rack_size puts machines into racks r0, r1, … of that many machines; gpu=N gives the first N
// machines a GPU. decision=C charges every scheduling call C seconds of decision time (its plan
// applies C seconds after the call; decision.go). Times are seconds. `at T` decisions are returned by a scripted policy at the scheduling point
// at time T (a decision for an instant with no scheduling point is an error). The golden file
// holds the event log, the policy's view at each call, and the summary or the engine's error.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			got, err := runScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(file, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				os.WriteFile(golden+".got", []byte(got), 0o644)
				t.Errorf("event log differs from %s (got written to %s.got):\n%s", golden, golden, got)
			}
		})
	}
}

type scripted struct {
	at    map[traces.Time]*policies.Plan
	out   *strings.Builder
	calls int
	real  policies.Policy // a `policy` line's policy, deciding after the script (policy_scenario_test.go)
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Schedule(v policies.View, p *policies.Plan) error {
	s.calls++
	fmt.Fprintf(s.out, "schedule t=%d changed=%v free=%s\n", v.Now(), v.Changed(), v.FreeTotal().Format(len(v.Dims())))
	if d, ok := v.(policies.PlanDrops); ok && len(d.DroppedPreempts()) > 0 {
		fmt.Fprintf(s.out, "dropped preempts=%v\n", d.DroppedPreempts())
	}
	if d, ok := s.at[v.Now()]; ok {
		p.Starts = append(p.Starts, d.Starts...)
		p.Preempts = append(p.Preempts, d.Preempts...)
		delete(s.at, v.Now())
	}
	if s.real != nil {
		return s.real.Schedule(v, p)
	}
	return nil
}

// scenarioRecorder, when set, records every scenario's attempts (combo_test.go).
var scenarioRecorder Recorder

func runScenario(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := &traces.Workload{Name: filepath.Base(file), Dims: []string{"cpu", "mem"}}
	var cfg Config
	var out strings.Builder
	pol := &scripted{at: map[traces.Time]*policies.Plan{}, out: &out}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		kv := map[string]string{}
		flags := map[string]bool{}
		args := fields[1:]
		if fields[0] == "fault" && len(fields) > 2 {
			args = fields[2:]
		}
		if fields[0] == "at" || fields[0] == "machine" {
			if len(fields) < 3 {
				return "", fmt.Errorf("%s:%d: at T start|preempt ...", file, line)
			}
			args = fields[3:]
		}
		for _, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok {
				kv[k] = v
			} else {
				flags[a] = true
			}
		}
		num := func(k string) float64 {
			x, e := strconv.ParseFloat(kv[k], 64)
			if e != nil && err == nil {
				err = fmt.Errorf("%s:%d: %s=%q: %v", file, line, k, kv[k], e)
			}
			return x
		}
		switch fields[0] {
		case "cluster":
			n := int(num("machines"))
			rackSize := 0
			if _, ok := kv["rack_size"]; ok {
				rackSize = int(num("rack_size"))
			}
			w.Cluster = traces.Uniform(n, traces.VecOf(num("cpu"), num("mem")), rackSize)
			if _, ok := kv["gpu"]; ok {
				for m := 0; m < int(num("gpu")) && m < n; m++ {
					w.Cluster.Machines[m].GPU = true
				}
			}
			w.Cluster.Pooled = flags["pooled"]
		case "job":
			j := traces.Job{ID: int64(len(w.Jobs)), Submit: traces.FromSeconds(num("submit")), Queue: kv["queue"], Class: kv["class"]}
			if _, ok := kv["deadline"]; ok {
				j.Deadline = traces.FromSeconds(num("deadline"))
			}
			if spec := kv["placement"]; spec != "" {
				parts := strings.Split(spec, ":")
				j.Placement = traces.Placement{Kind: parts[len(parts)-1], Hard: parts[0] == "hard"}
				if parts[0] == "soft" && len(parts) == 3 {
					j.Placement.Kind = parts[1]
					j.Placement.Slowdown = mustFloat(parts[2])
				}
			}
			w.Jobs = append(w.Jobs, j)
		case "stage":
			j := &w.Jobs[len(w.Jobs)-1]
			s := traces.Stage{Name: kv["name"], Tasks: int32(num("tasks")), Duration: traces.FromSeconds(num("dur")), Demand: traces.VecOf(num("cpu"), num("mem"))}
			s.Estimate = s.Duration
			if _, ok := kv["est"]; ok {
				s.Estimate = traces.FromSeconds(num("est"))
			}
			if p := kv["parents"]; p != "" {
				for _, name := range strings.Split(p, ",") {
					idx := -1
					for i := range j.Stages {
						if j.Stages[i].Name == name {
							idx = i
						}
					}
					if idx < 0 {
						return "", fmt.Errorf("%s:%d: unknown parent %q", file, line, name)
					}
					s.Parents = append(s.Parents, int32(idx))
				}
			}
			j.Stages = append(j.Stages, s)
		case "engine":
			cfg.StopAfterQueue = kv["stop_after"]
			if _, ok := kv["cycle"]; ok {
				cfg.Cycle = traces.FromSeconds(num("cycle"))
			}
			if _, ok := kv["preempt_delay"]; ok {
				cfg.PreemptDelay = traces.FromSeconds(num("preempt_delay"))
			}
			if _, ok := kv["horizon"]; ok {
				cfg.Horizon = traces.FromSeconds(num("horizon"))
			}
			if _, ok := kv["decision"]; ok {
				cfg.DecisionTime = constDecision(traces.FromSeconds(num("decision")))
			}
			cfg.PreemptKeepsWork = flags["keeps_work"]
			cfg.Oracle = flags["oracle"]
			if err == nil {
				err = scenarioYarn(&cfg.Yarn, kv, flags)
			}
			err = mechanicsOptions(&cfg, kv, num, err)
			cfg.TraceEvictions = flags["trace_evictions"]
			cfg.SaturateHolds = flags["saturate_holds"]
		case "hold":
			w.Initial = append(w.Initial, traces.Hold{Machine: int32(num("machine")), Start: traces.FromSeconds(num("start")),
				End: traces.FromSeconds(num("end")), Demand: traces.VecOf(num("cpu"), num("mem"))})
		case "machine":
			kind, ok := traces.ParseClusterEventKind(fields[2])
			if len(fields) < 3 || !ok {
				return "", fmt.Errorf("%s:%d: machine T add|remove|resize machine=M [cpu= mem=]", file, line)
			}
			ev := traces.ClusterEvent{T: traces.FromSeconds(mustFloat(fields[1])), Kind: kind, Machine: int32(num("machine"))}
			if kind != traces.MachineRemove {
				ev.Capacity = traces.VecOf(num("cpu"), num("mem"))
			}
			w.ClusterEvents = append(w.ClusterEvents, ev)
		case "fault":
			kind := map[string]traces.TaskOutcome{"evicted": traces.TaskEvicted, "failed": traces.TaskFailed, "killed": traces.TaskKilled}[kv["kind"]]
			w.Faults = append(w.Faults, traces.TaskFault{T: traces.FromSeconds(mustFloat(fields[1])), Job: int64(num("job")),
				Stage: int32(num("stage")), Task: int32(num("task")), Kind: kind})
		case "failures":
			cfg.Failures = traces.FailureModel{MTTF: traces.FromSeconds(num("mttf")), MTTR: traces.FromSeconds(num("mttr"))}
			cfg.FailureRand = rand.New(rand.NewPCG(uint64(num("seed")), 0))
		case "policy":
			pol.real, err = scenarioPolicy(kv, flags)
		case "at":
			at := traces.FromSeconds(mustFloat(fields[1]))
			p := pol.at[at]
			if p == nil {
				p = &policies.Plan{}
				pol.at[at] = p
			}
			switch fields[2] {
			case "start":
				p.Starts = append(p.Starts, policies.Start{Job: policies.JobID(num("job")), Stage: int32(num("stage")), Machine: int32(num("machine")), Count: int32(num("count"))})
			case "preempt":
				p.Preempts = append(p.Preempts, policies.TaskRef{Job: policies.JobID(num("job")), Stage: int32(num("stage")), Task: int32(num("task"))})
			default:
				return "", fmt.Errorf("%s:%d: unknown decision %q", file, line, fields[2])
			}
		default:
			return "", fmt.Errorf("%s:%d: unknown command %q", file, line, fields[0])
		}
		if err != nil {
			return "", err
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	cfg.Log = func(l LogEntry) { fmt.Fprintln(&out, l) }
	cfg.Recorder = scenarioRecorder
	e, err := New(w, pol, cfg)
	if err != nil {
		fmt.Fprintf(&out, "error: %v\n", err)
		return out.String(), nil
	}
	res, err := e.Run()
	if err != nil {
		fmt.Fprintf(&out, "error: %v\n", err)
		return out.String(), nil
	}
	if len(pol.at) > 0 {
		return "", fmt.Errorf("%s: decisions at times without a scheduling point: %v", file, pol.at)
	}
	s := Summarize(res)
	fmt.Fprintf(&out, "summary: jobs=%d completed=%d avg_jct_s=%g makespan_s=%g slo_miss_rate=%g utilization=%v preemptions=%d events=%d\n",
		s.Jobs, s.Completed, s.AvgJCT, s.Makespan, s.SLOMissRate, s.Utilization, s.Preemptions, res.Stats.Events)
	if cfg.DecisionTime != nil {
		st := res.Stats
		fmt.Fprintf(&out, "decision: calls=%d charged=%d delayed_calls=%d dropped_preempts=%d dropped_starts=%d\n",
			st.SchedulingCalls, st.DecisionTime, st.DelayedCalls, st.DroppedPreempts, st.DroppedStarts)
	}
	if c := res.Cluster; c != nil {
		fmt.Fprintf(&out, "cluster: holds=%d rejected=%d dropped=%d held_at_start=%s added=%d removed=%d resized=%d failures=%d kills=%d work_lost=%d capacity=%s\n",
			c.Holds, c.HoldsRejected, c.HoldsDropped, c.HeldAtStart.Format(2), c.Added, c.Removed, c.Resized, c.Failures, c.Kills, c.WorkLost, res.Capacity.Format(2))
		if c.HoldsSaturated > 0 {
			fmt.Fprintf(&out, "cluster: saturated=%d left=%s\n", c.HoldsSaturated, c.SaturatedLeft.Format(2))
		}
		if c.TraceKills+c.FaultsMissed > 0 {
			fmt.Fprintf(&out, "cluster: trace_kills=%d faults_missed=%d\n", c.TraceKills, c.FaultsMissed)
		}
		for _, class := range slices.Sorted(maps.Keys(c.ByClass)) {
			fmt.Fprintf(&out, "cluster class %q: restarts=%d work_lost=%d\n", class, c.ByClass[class].Restarts, c.ByClass[class].WorkLost)
		}
	}
	for _, j := range res.Jobs {
		fmt.Fprintf(&out, "job %d: completed=%v start=%d finish=%d jct=%d preemptions=%d", j.Index, j.Completed, j.FirstStart, j.Finish, j.JCT(), j.Preemptions)
		if !w.Jobs[j.Index].Placement.IsZero() {
			fmt.Fprintf(&out, " slowed_starts=%d", j.SlowedStarts)
		}
		if cfg.Yarn.AM {
			fmt.Fprintf(&out, " am_start=%d", j.AMStart)
		}
		fmt.Fprintln(&out)
	}
	return out.String(), nil
}

// constDecision charges every call the same decision time.
type constDecision traces.Time

func (c constDecision) DecisionTime() traces.Time { return traces.Time(c) }

func mustFloat(s string) float64 {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1
	}
	return x
}
