package bpf_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// vec is a two-dimensional (cpu, mem) amount in raw units.
func vec(cpu, mem int64) traces.Vec { return traces.Vec{cpu, mem} }

// job is a single-stage job.
func job(queue, class string, submit float64, tasks int32, demand traces.Vec, est float64) traces.Job {
	e := traces.FromSeconds(est)
	return traces.Job{
		Queue: queue, Class: class, Submit: traces.FromSeconds(submit),
		Stages: []traces.Stage{{Tasks: tasks, Demand: demand, Duration: e, Estimate: e}},
	}
}

// lqDecl declares a periodic LQ in policy.params.queues form.
func lqDecl(start, period, duration float64, demand ...float64) map[string]any {
	d := make([]any, len(demand))
	for i, x := range demand {
		d[i] = x
	}
	return map[string]any{"class": "lq", "start_s": start, "period_s": period, "duration_s": duration, "demand": d}
}

// fixture builds a fake over the given machines with jobs added in order (queues numbered in
// order of first appearance) and a policy of the family.
func fixture(t *testing.T, name string, machines []traces.Vec, params map[string]any, jobs ...traces.Job) (*policytest.Fake, policies.Policy) {
	t.Helper()
	f := policytest.New(machines...)
	for _, j := range jobs {
		if _, err := f.AddJob(j); err != nil {
			t.Fatal(err)
		}
	}
	var entry policies.Entry
	for _, e := range bpf.Entries() {
		if e.Name == name {
			entry = e
		}
	}
	if entry.New == nil {
		t.Fatalf("no entry %q", name)
	}
	p, err := entry.New(policies.Options{Params: params, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

// step advances the fake to t seconds, schedules, applies the plan and returns the tasks
// started per queue and the plan.
func step(t *testing.T, f *policytest.Fake, p policies.Policy, at float64) (map[string]int32, policies.Plan) {
	t.Helper()
	if err := f.Advance(traces.FromSeconds(at)); err != nil {
		t.Fatal(err)
	}
	plan, err := f.Step(p)
	if err != nil {
		t.Fatalf("t=%gs: %v", at, err)
	}
	got := map[string]int32{}
	for _, s := range plan.Starts {
		got[f.Queues()[f.Job(s.Job).Queue]] += s.Count
	}
	return got, plan
}

func same(a, b map[string]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func classes(p policies.Policy) string {
	var out []string
	for _, a := range p.(*bpf.BPF).Admissions() {
		out = append(out, a.Queue+"="+a.Class.String())
	}
	return strings.Join(out, " ")
}

// orderScenario: a hard LQ of 14 tasks (share level 4 of 10, budget 8 tasks of 5 s), a soft LQ (level 7,
// overlapping the hard one), an over-demanding LQ (elastic) and a TQ, all arriving at time 0.
func orderScenario(t *testing.T, machines []traces.Vec) (*policytest.Fake, policies.Policy) {
	params := map[string]any{"queues": map[string]any{
		"lqH": lqDecl(0, 100, 10, 0.4, 0.4),
		"lqS": lqDecl(0, 100, 10, 0.7, 0.7),
		"lqE": lqDecl(0, 100, 60, 1, 1),
	}}
	return fixture(t, "bpf", machines, params,
		job("lqH", "lq", 0, 14, vec(1, 1), 5),
		job("lqS", "lq", 0, 3, vec(1, 1), 5),
		job("lqE", "lq", 0, 10, vec(1, 1), 5),
		job("tq", "tq", 0, 20, vec(1, 1), 100),
	)
}

func TestBPFAllocatesHardThenSoftThenElastic(t *testing.T) {
	for _, tc := range []struct {
		name     string
		machines []traces.Vec
	}{
		{"in a pooled cluster", []traces.Vec{vec(10, 10)}},
		{"across two machines", []traces.Vec{vec(5, 5), vec(5, 5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, p := orderScenario(t, tc.machines)
			got, _ := step(t, f, p, 0)
			// H takes its level 4; S takes its 3 tasks from the uncommitted 6; E shares the
			// remaining 3 by DRF (ties to the lower queue index).
			if want := map[string]int32{"lqH": 4, "lqS": 3, "lqE": 2, "tq": 1}; !same(got, want) {
				t.Fatalf("t=0: started %v, want %v", got, want)
			}
			if c, want := classes(p), "lqH=H lqS=S lqE=E tq=E"; c != want {
				t.Fatalf("admissions %q, want %q", c, want)
			}
			// The hard queue's tasks finish: it takes its level again, which uses up its budget
			// d·t = 4 × 10s (eight 5-second tasks).
			if err := f.Finish(0, 0, 4); err != nil {
				t.Fatal(err)
			}
			got, _ = step(t, f, p, 5)
			if want := map[string]int32{"lqH": 4}; !same(got, want) {
				t.Fatalf("t=5s: started %v, want %v", got, want)
			}
			// With its budget consumed, the hard queue competes like an elastic queue: DRF over
			// the 4 free units between lqH (share 0), lqE (0.2) and the TQ (0.1), ties to the
			// lower queue index.
			if err := f.Finish(0, 0, 4); err != nil {
				t.Fatal(err)
			}
			got, _ = step(t, f, p, 10)
			if want := map[string]int32{"lqH": 3, "tq": 1}; !same(got, want) {
				t.Fatalf("t=10s: started %v, want %v", got, want)
			}
			// A new cycle brings a fresh budget: the hard queue is served first again.
			if err := f.Finish(0, 0, 3); err != nil {
				t.Fatal(err)
			}
			got, _ = step(t, f, p, 100)
			if want := map[string]int32{"lqH": 3}; !same(got, want) {
				t.Fatalf("t=100s: started %v, want %v", got, want)
			}
		})
	}
}

func TestNBPFHasNoSoftClass(t *testing.T) {
	params := map[string]any{"queues": map[string]any{
		"lqH": lqDecl(0, 100, 10, 0.4, 0.4),
		"lqS": lqDecl(0, 100, 10, 0.7, 0.7),
	}}
	f, p := fixture(t, "nbpf", []traces.Vec{vec(10, 10)}, params,
		job("lqH", "lq", 0, 10, vec(1, 1), 5),
		job("lqS", "lq", 0, 10, vec(1, 1), 5),
		job("tq", "tq", 0, 20, vec(1, 1), 100),
	)
	got, _ := step(t, f, p, 0)
	if c, want := classes(p), "lqH=H lqS=E tq=E"; c != want {
		t.Fatalf("admissions %q, want %q", c, want)
	}
	// H takes 4; lqS and tq share the other 6 by DRF.
	if want := map[string]int32{"lqH": 4, "lqS": 3, "tq": 3}; !same(got, want) {
		t.Fatalf("started %v, want %v", got, want)
	}
}

// blockedScenario: a TQ fills the cluster at time 0; a hard LQ with three 2-unit tasks (share
// level 6) arrives at 1s.
func blockedScenario(t *testing.T, preempt bool, machines ...traces.Vec) (*policytest.Fake, policies.Policy) {
	params := map[string]any{
		"queues":  map[string]any{"lq": lqDecl(1, 100, 10, 0.6, 0.6)},
		"preempt": preempt,
	}
	if len(machines) == 0 {
		machines = []traces.Vec{vec(10, 10)}
	}
	f, p := fixture(t, "bpf", machines, params,
		job("tq", "tq", 0, 20, vec(1, 1), 100),
		job("lq", "lq", 1, 3, vec(2, 2), 5),
	)
	if got, _ := step(t, f, p, 0); !same(got, map[string]int32{"tq": 10}) {
		t.Fatalf("t=0: started %v, want the TQ to fill the cluster", got)
	}
	return f, p
}

func TestBPFKeepsFreedCapacityForABlockedHardQueue(t *testing.T) {
	f, p := blockedScenario(t, false)
	if got, plan := step(t, f, p, 1); len(got) != 0 || len(plan.Preempts) != 0 {
		t.Fatalf("t=1s: nothing is free, yet the plan is %+v", plan)
	}
	// One TQ task finishes: one unit is free, the LQ needs two; the TQ may not take it.
	if err := f.Finish(0, 0, 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := step(t, f, p, 2); len(got) != 0 {
		t.Fatalf("t=2s: started %v, want nothing (the unit is kept for the hard queue)", got)
	}
	if err := f.Finish(0, 0, 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := step(t, f, p, 3); !same(got, map[string]int32{"lq": 1}) {
		t.Fatalf("t=3s: started %v, want one LQ task", got)
	}
}

func TestBPFPreemptsElasticTasksForAHardQueueWhenAsked(t *testing.T) {
	tasks := func(ids ...int32) []policies.TaskRef {
		var out []policies.TaskRef
		for _, id := range ids {
			out = append(out, policies.TaskRef{Job: 0, Stage: 0, Task: id})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		machines []traces.Vec
		victims  []policies.TaskRef
		started  int32
	}{
		// The most recently started TQ tasks go first (all started together: highest index
		// first). Pooled, room is made for all three LQ tasks at once.
		{"in a pooled cluster room is made for the whole guarantee", []traces.Vec{vec(10, 10)}, tasks(9, 8, 7, 6, 5, 4), 3},
		// With machines, room is made on one machine for the next task.
		{"across machines room is made for the next task on one machine", []traces.Vec{vec(5, 5), vec(5, 5)}, tasks(9, 8), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, p := blockedScenario(t, true, tc.machines...)
			f.PreemptDelay = traces.FromSeconds(5)
			_, plan := step(t, f, p, 1)
			if !slices.Equal(plan.Preempts, tc.victims) || len(plan.Starts) != 0 {
				t.Fatalf("t=1s: plan %+v, want preemptions %v and no starts", plan, tc.victims)
			}
			// While the preempted resources are being released nothing more is preempted, and
			// the requeued TQ tasks do not get the room back.
			if got, plan := step(t, f, p, 2); len(got) != 0 || len(plan.Preempts) != 0 {
				t.Fatalf("t=2s: plan %+v, want nothing while the release is in flight", plan)
			}
			if got, _ := step(t, f, p, 6); !same(got, map[string]int32{"lq": tc.started}) {
				t.Fatalf("t=6s: started %v, want %d LQ tasks once the release landed", got, tc.started)
			}
		})
	}
}

func TestBPFGivesSpareCapacityToQueuesBeyondTheirGuarantee(t *testing.T) {
	params := map[string]any{"queues": map[string]any{"lq": lqDecl(0, 100, 10, 0.4, 0.4)}}
	f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, params, job("lq", "lq", 0, 10, vec(1, 1), 5))
	if got, _ := step(t, f, p, 0); !same(got, map[string]int32{"lq": 10}) {
		t.Fatalf("started %v, want all 10 tasks: nobody else can use the capacity", got)
	}
}

func TestBPFServesRejectedQueuesAsConfigured(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rejected string
		want     map[string]int32
	}{
		{"rejected queues get only what nobody admitted can use", "spare", map[string]int32{"lq": 3, "tq": 7}},
		{"rejected queues get nothing when told never", "never", map[string]int32{"lq": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{
				"queues":   map[string]any{"lq": lqDecl(0, 100, 60, 1, 1)}, // ratio 0.6: alone only
				"rejected": tc.rejected,
			}
			f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, params,
				job("lq", "lq", 0, 3, vec(1, 1), 5),
				job("tq", "tq", 0, 20, vec(1, 1), 100),
			)
			got, _ := step(t, f, p, 0)
			if c, want := classes(p), "lq=H tq=rejected"; c != want {
				t.Fatalf("admissions %q, want %q", c, want)
			}
			if !same(got, tc.want) {
				t.Fatalf("started %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBPFDerivesBurstParametersFromTheFirstJobs(t *testing.T) {
	twoStage := func(deadline float64) traces.Job {
		return traces.Job{Queue: "lq", Class: "lq", Submit: traces.FromSeconds(3), Deadline: traces.FromSeconds(deadline),
			Stages: []traces.Stage{
				{Tasks: 4, Demand: vec(1, 2), Duration: traces.FromSeconds(10), Estimate: traces.FromSeconds(10)},
				{Tasks: 2, Demand: vec(1, 1), Duration: traces.FromSeconds(5), Estimate: traces.FromSeconds(5), Parents: []int32{0}},
			}}
	}
	for _, tc := range []struct {
		name     string
		params   map[string]any
		deadline float64
		duration float64
		period   float64
		demand   traces.Vec
		declared bool
	}{
		{"without a deadline t is the estimated critical path and d the profile's peak",
			map[string]any{"period_s": 100}, 0, 15, 100, vec(4, 8), false},
		{"a deadline sets the allowed processing time",
			map[string]any{"period_s": 100}, 23, 20, 100, vec(4, 8), false},
		// Work (50, 90) at rate d = (4, 8) needs 12.5 s: a 12 s deadline cannot hold it.
		{"a deadline too tight for the burst's work at rate d is stretched",
			map[string]any{"period_s": 100}, 15, 12.5, 100, vec(4, 8), false},
		{"a declared period with derived duration and demand",
			map[string]any{"queues": map[string]any{"lq": map[string]any{"period_s": 50}}}, 0, 15, 50, vec(4, 8), true},
		{"a declared demand by dimension name overrides the profile",
			map[string]any{"period_s": 100, "queues": map[string]any{"lq": map[string]any{"demand": map[string]any{"mem": 0.5}}}}, 0, 15, 100, vec(0, 5), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, tc.params, twoStage(tc.deadline))
			step(t, f, p, 3)
			as := p.(*bpf.BPF).Admissions()
			if len(as) != 1 {
				t.Fatalf("%d admissions, want 1", len(as))
			}
			a := as[0]
			if a.Kind != bpf.LQ || a.Start != traces.FromSeconds(3) || a.Duration != traces.FromSeconds(tc.duration) ||
				a.Period != traces.FromSeconds(tc.period) || a.Demand != tc.demand || a.Declared != tc.declared {
				t.Fatalf("admission %+v; want start 3s, duration %gs, period %gs, demand %v, declared %v", a, tc.duration, tc.period, tc.demand, tc.declared)
			}
			if want := int((traces.FromSeconds(86400) - traces.FromSeconds(3) + traces.FromSeconds(tc.period) - 1) / traces.FromSeconds(tc.period)); a.Bursts != want {
				t.Fatalf("%d bursts, want %d (every burst starting within the default one-day horizon)", a.Bursts, want)
			}
		})
	}
}

func TestBPFTreatsAnLQWithoutAPeriodAsElastic(t *testing.T) {
	f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, nil,
		job("lq", "lq", 0, 3, vec(1, 1), 5), job("tq", "tq", 0, 3, vec(1, 1), 5))
	got, _ := step(t, f, p, 0)
	as := p.(*bpf.BPF).Admissions()
	if len(as) != 2 || as[0].Class != bpf.Elastic || as[0].Failed != bpf.CondUnknown || as[1].Class != bpf.Elastic {
		t.Fatalf("admissions %+v, want the LQ elastic for lack of a period, then the TQ elastic", as)
	}
	if !same(got, map[string]int32{"lq": 3, "tq": 3}) {
		t.Fatalf("started %v, want both queues' tasks", got)
	}
}

func TestFactoriesRejectBadParameters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  string
		level   string
		params  map[string]any
		message string
	}{
		{"an unknown parameter is named", "bpf", "", map[string]any{"nope": 1}, "policy.params.nope"},
		{"M-BVT does not take preemption", "mbvt", "", map[string]any{"preempt": true}, "policy.params.preempt"},
		{"BPF does not take a warp", "bpf", "", map[string]any{"warp_s": 1}, "policy.params.warp_s"},
		{"an unknown level is refused", "bpf", "stage", nil, "unknown level"},
		{"a non-positive period is refused", "bpf", "", map[string]any{"period_s": 0}, "period_s"},
		{"preempt must be a boolean", "nbpf", "", map[string]any{"preempt": "yes"}, "preempt"},
		{"rejected must be spare or never", "bpf", "", map[string]any{"rejected": "drop"}, "rejected"},
		{"queues must be a map", "bpf", "", map[string]any{"queues": []any{1}}, "queues"},
		{"an unknown queue field is named", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"size": 1}}}, `"size"`},
		{"a class other than lq or tq is refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"class": "bq"}}}, "class"},
		{"a demand above the whole cluster is refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"demand": []any{1.5}}}}, "demand"},
		{"a duration longer than the period is refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"period_s": 10, "duration_s": 20}}}, "exceeds"},
		{"bursts and a flat shape together are refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"period_s": 10, "bursts": []any{map[string]any{"period_s": 10}}}}}, "both given"},
		{"an explicit burst needs a period", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"bursts": []any{map[string]any{"duration_s": 10}}}}}, "required"},
		{"a fractional burst count is refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"count": 1.5}}}, "count"},
		{"a queue start of 1e300 s is refused", "bpf", "", map[string]any{"queues": map[string]any{"q": map[string]any{"start_s": 1e300}}}, "policy.params.queues.q.start_s: want a number of seconds in [0, 1e9], got 1e+300"},
		{"a negative warp is refused", "mbvt", "", map[string]any{"warp_s": -1}, "warp_s"},
		{"a negative tie tolerance is refused", "mbvt", "", map[string]any{"tie_s": -1}, "tie_s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var entry policies.Entry
			for _, e := range bpf.Entries() {
				if e.Name == tc.policy {
					entry = e
				}
			}
			_, err := entry.New(policies.Options{Level: tc.level, Params: tc.params})
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.message)
			}
		})
	}
}

func TestBPFRejectsAnUnknownDemandDimensionAtItsFirstSchedule(t *testing.T) {
	params := map[string]any{"period_s": 100, "queues": map[string]any{"lq": map[string]any{"demand": map[string]any{"gpu": 0.5}}}}
	f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, params, job("lq", "lq", 0, 3, vec(1, 1), 5))
	if err := f.Advance(0); err != nil {
		t.Fatal(err)
	}
	_, err := f.Schedule(p)
	if err == nil || !strings.Contains(err.Error(), `"gpu"`) {
		t.Fatalf("error %v, want one naming the unknown dimension", err)
	}
}

func TestEntriesNameTheFamily(t *testing.T) {
	var names []string
	for _, e := range bpf.Entries() {
		if e.Description == "" || e.New == nil {
			t.Fatalf("entry %q lacks a description or a factory", e.Name)
		}
		p, err := e.New(policies.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != e.Name {
			t.Fatalf("entry %q builds a policy named %q", e.Name, p.Name())
		}
		names = append(names, e.Name)
	}
	if got := fmt.Sprint(names); got != "[bpf nbpf mbvt]" {
		t.Fatalf("entries %s", got)
	}
}

func TestBPFDerivesEachBurstFromItsJobsWithinItsFairShare(t *testing.T) {
	// Period 100s, two admitted queues: an LQ burst's budget is at most C·100s/2 = 500 unit·s.
	// Burst 0 (two 10s tasks) is small; burst 1 (100 tasks of 80s) derives d = the whole
	// cluster and t = 80s, so d·t = 800 exceeds the fair share: its budget of 500 admits
	// ceil(500/80) = 7 tasks, and the TQ gets the rest of the cluster.
	f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, map[string]any{"period_s": 100},
		job("lq", "lq", 0, 2, vec(1, 1), 10),
		job("tq", "tq", 0, 30, vec(1, 1), 50),
		job("lq", "lq", 100, 100, vec(1, 1), 80),
	)
	if got, _ := step(t, f, p, 0); !same(got, map[string]int32{"lq": 2, "tq": 8}) {
		t.Fatalf("t=0: started %v", got)
	}
	if c := classes(p); c != "lq=H tq=E" {
		t.Fatalf("admissions %q", c)
	}
	if err := f.Finish(0, 0, 2); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(1, 0, 8); err != nil {
		t.Fatal(err)
	}
	if got, _ := step(t, f, p, 100); !same(got, map[string]int32{"lq": 7, "tq": 3}) {
		t.Fatalf("t=100s: started %v, want 7 LQ tasks (its fair-share budget) and 3 TQ tasks", got)
	}
}

func TestFlattenedLowerCasedParametersMeanTheSameAsNested(t *testing.T) {
	// Configuration files reach the policy flattened and lower-cased, e.g.
	// policy.params.queues.lqh.period_s for queue "lqH".
	flat := map[string]any{}
	for name, d := range map[string][]float64{"lqh": {10, 0.4}, "lqs": {10, 0.7}, "lqe": {60, 1}} {
		flat["queues."+name+".class"] = "lq"
		flat["queues."+name+".start_s"] = 0
		flat["queues."+name+".period_s"] = 100
		flat["queues."+name+".duration_s"] = d[0]
		flat["queues."+name+".demand"] = []any{d[1], d[1]}
	}
	f, p := fixture(t, "bpf", []traces.Vec{vec(10, 10)}, flat,
		job("lqH", "lq", 0, 10, vec(1, 1), 5),
		job("lqS", "lq", 0, 3, vec(1, 1), 5),
		job("lqE", "lq", 0, 10, vec(1, 1), 5),
		job("tq", "tq", 0, 20, vec(1, 1), 100),
	)
	got, _ := step(t, f, p, 0)
	if want := map[string]int32{"lqH": 4, "lqS": 3, "lqE": 2, "tq": 1}; !same(got, want) {
		t.Fatalf("started %v, want %v (as with nested parameters)", got, want)
	}
	if c, want := classes(p), "lqH=H lqS=S lqE=E tq=E"; c != want {
		t.Fatalf("admissions %q, want %q", c, want)
	}
}

func TestConflictingFlattenedParametersAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]any
	}{
		{"a key that is both a value and a map is refused", map[string]any{"queues": 1, "queues.lq0.period_s": 10}},
		{"a key given flat and nested is refused", map[string]any{"queues.lq0.period_s": 10, "queues": map[string]any{"lq0": map[string]any{"period_s": 20}}}},
		{"an empty key segment is refused", map[string]any{"queues..period_s": 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := bpf.NewBPF(policies.Options{Params: tc.params}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	// Flat and nested parts of one declaration merge.
	p, err := bpf.NewBPF(policies.Options{Params: map[string]any{
		"queues.lq0.period_s": 10, "queues": map[string]any{"lq0": map[string]any{"duration_s": 5}},
	}})
	if err != nil || p == nil {
		t.Fatalf("merging flat and nested fields: %v", err)
	}
}
