package traces

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func twoStage() *Workload {
	return &Workload{
		Dims:    []string{"cpu", "mem"},
		Cluster: Uniform(2, VecOf(1, 1), 1),
		Jobs: []Job{{
			ID: 1, Submit: 5 * Second,
			Stages: []Stage{
				{Name: "map", Tasks: 4, Demand: VecOf(0.5, 0.25), Duration: 10 * Second, Estimate: 10 * Second},
				{Name: "reduce", Tasks: 1, Demand: VecOf(1, 1), Duration: 3 * Second, Estimate: 4 * Second, Parents: []int32{0}},
			},
		}},
	}
}

func TestVecArithmeticIsExact(t *testing.T) {
	v := VecOf(0.1, 0.2)
	var sum Vec
	for i := 0; i < 10; i++ {
		sum = sum.Add(v)
	}
	if sum != VecOf(1, 2) {
		t.Fatalf("ten times %v = %v, want exactly [1 2]", v.Format(2), sum.Format(2))
	}
	if !VecOf(1, 2).Fits(sum) || VecOf(1, 2.000001).Fits(sum) {
		t.Fatal("Fits is not exact at the boundary")
	}
	if got := VecOf(0.5, 0.25).DominantShare(VecOf(2, 0.5)); got != 0.5 {
		t.Fatalf("dominant share = %v, want 0.5 (mem)", got)
	}
}

func TestJobDerivedQuantities(t *testing.T) {
	j := &twoStage().Jobs[0]
	if j.Tasks() != 5 || j.Work() != 43*Second {
		t.Fatalf("tasks %d work %d, want 5 and 43 s", j.Tasks(), j.Work())
	}
	if cp := j.CriticalPath(false); cp != 13*Second {
		t.Fatalf("critical path %d, want 13 s", cp)
	}
	if cp := j.CriticalPath(true); cp != 14*Second {
		t.Fatalf("estimated critical path %d, want 14 s", cp)
	}
}

func TestUtilityFamilies(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    Utility
		at   Time
		want float64
	}{
		{"a sigmoid is half its height at the target", Utility{Kind: UtilitySigmoid, Priority: 4, Decay: 5, Target: 100 * Second}, 100 * Second, 2},
		{"a steep sigmoid is near zero past the target", Utility{Kind: UtilitySigmoid, Priority: 4, Decay: 5, Target: 100 * Second}, 110 * Second, 4 / (1 + math.Exp(50))},
		{"a linear utility falls with time since submit", Utility{Kind: UtilityLinear, Priority: 1, Slope: -0.01, Target: 200 * Second}, 50 * Second, 0.5},
		{"a linear utility is zero past its target", Utility{Kind: UtilityLinear, Priority: 1, Slope: -0.001, Target: 20 * Second}, 30 * Second, 0},
		{"a constant utility ignores time", Utility{Kind: UtilityConstant, Priority: 3}, 1e9 * Second, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.u.Value(0, tc.at); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("U(%d) = %v, want %v", tc.at, got, tc.want)
			}
		})
	}
}

func TestValidateLocatesProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(w *Workload)
		want   string
	}{
		{"a stage without tasks", func(w *Workload) { w.Jobs[0].Stages[0].Tasks = 0 }, "job 0 (id 1) stage 0: tasks"},
		{"a zero duration", func(w *Workload) { w.Jobs[0].Stages[1].Duration = 0 }, "stage 1: duration"},
		{"a parent out of range", func(w *Workload) { w.Jobs[0].Stages[1].Parents = []int32{7} }, "parent 7 out of range"},
		{"a dependency cycle", func(w *Workload) { w.Jobs[0].Stages[0].Parents = []int32{1} }, "dependency cycle"},
		{"a demand no machine holds", func(w *Workload) { w.Jobs[0].Stages[0].Demand = VecOf(2, 0) }, "fits on no machine"},
		{"jobs out of submit order", func(w *Workload) {
			j := w.Jobs[0]
			j.Submit = 0
			w.Jobs = append(w.Jobs, j)
		}, "not sorted"},
		{"a negative submit", func(w *Workload) { w.Jobs[0].Submit = -1 }, "submit: negative"},
		{"a deadline before submit", func(w *Workload) { w.Jobs[0].Deadline = Second }, "deadline"},
		{"no machines", func(w *Workload) { w.Cluster.Machines = nil }, "cluster: no machines"},
		{"task durations of the wrong length", func(w *Workload) { w.Jobs[0].Stages[0].TaskDurations = []Time{1} }, "1 durations for 4 tasks"},
		{"task histories of the wrong length", func(w *Workload) { w.Jobs[0].Stages[1].History = make([]TaskHistory, 2) }, "stage 1: history: 2 task histories for 1 tasks"},
		{"a task history without attempts", func(w *Workload) { w.Jobs[0].Stages[1].History = []TaskHistory{{}} }, "task 0: 0 attempts"},
		{"more evictions than attempts", func(w *Workload) { w.Jobs[0].Stages[1].History = []TaskHistory{{Attempts: 1, Evictions: 2}} }, "task 0: 2 evictions in 1 attempts"},
		{"an unknown task outcome", func(w *Workload) {
			w.Jobs[0].Stages[1].History = []TaskHistory{{Attempts: 1, Outcome: NumTaskOutcomes}}
		}, "task 0: unknown outcome 6"},
		{"an unknown placement kind", func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: "tpu", Hard: true} }, `job 0 (id 1): placement: unknown kind "tpu"`},
		{"a soft placement without slowdown", func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: PlacementRack} }, "job 0 (id 1): placement: soft rack constraint needs slowdown ≥ 1, got 0"},
		{"a soft placement speeding tasks up", func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: PlacementGPU, Slowdown: 0.5} }, "placement: soft gpu constraint needs slowdown ≥ 1"},
		{"a NaN placement slowdown", func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: PlacementGPU, Slowdown: math.NaN()} }, "placement: slowdown must be finite, got NaN"},
		{"an infinite placement slowdown", func(w *Workload) {
			w.Jobs[0].Placement = Placement{Kind: PlacementRack, Hard: true, Slowdown: math.Inf(1)}
		}, "placement: slowdown must be finite"},
		{"a placement without kind", func(w *Workload) { w.Jobs[0].Placement = Placement{Hard: true} }, "placement: no kind"},
		{"a hard placement with a speed-up", func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: PlacementRack, Hard: true, Slowdown: 0.5} }, "placement: hard rack constraint with slowdown 0.5"},
		{"a demand no single machine holds", func(w *Workload) {
			w.Cluster.Machines[0].Capacity, w.Cluster.Machines[1].Capacity = VecOf(2, 1), VecOf(1, 2)
			w.Jobs[0].Stages[1].Demand = VecOf(2, 2)
		}, "job 0 (id 1) stage 1: demand: [2 2] fits on no machine (machine capacities [2 1], [1 2])"},
		{"a pooled demand over the cluster's total", func(w *Workload) {
			w.Cluster.Pooled = true
			w.Jobs[0].Stages[1].Demand = VecOf(3, 1)
		}, "stage 1: demand: [3 1] exceeds the pooled cluster's total [2 2]"},
		{"a NaN utility priority", func(w *Workload) { w.Jobs[0].Utility = &Utility{Kind: UtilitySigmoid, Priority: math.NaN()} }, "job 0 (id 1): utility.priority: must be a finite number ≥ 0, got NaN"},
		{"an infinite utility decay", func(w *Workload) { w.Jobs[0].Utility = &Utility{Kind: UtilitySigmoid, Priority: 1, Decay: math.Inf(1)} }, "utility.decay: must be a finite number ≥ 0, got +Inf"},
		{"a rising linear utility", func(w *Workload) { w.Jobs[0].Utility = &Utility{Kind: UtilityLinear, Priority: 1, Slope: 2} }, "utility.slope: must be a finite number ≤ 0, got 2"},
		{"an unknown utility kind", func(w *Workload) { w.Jobs[0].Utility = &Utility{Kind: "cubic", Priority: 1} }, `utility.kind: unknown kind "cubic" (want sigmoid, linear or constant)`},
		{"a utility target beyond the clock", func(w *Workload) {
			w.Jobs[0].Utility = &Utility{Kind: UtilitySigmoid, Priority: 1, Target: MaxTime + 1}
		}, "utility.target: 9007199254740993 µs is beyond the clock's range"},
		{"a submit time beyond the clock", func(w *Workload) { w.Jobs[0].Submit = math.MaxInt64 - 5 }, "job 0 (id 1): submit: 9223372036854775802 µs is beyond the clock's range"},
		{"a duration beyond the clock", func(w *Workload) { w.Jobs[0].Stages[1].Duration = math.MaxInt64 }, "job 0 (id 1) stage 1: duration: 9223372036854775807 µs is beyond the clock's range"},
		{"a task duration beyond the clock", func(w *Workload) { w.Jobs[0].Stages[0].TaskDurations = []Time{1, 1, MaxTime + 1, 1} }, "stage 0: task_durations: task 2: 9007199254740993 µs is beyond the clock's range"},
		{"an estimate beyond the clock", func(w *Workload) { w.Jobs[0].Stages[0].Estimate = MaxTime + 1 }, "stage 0: estimate: 9007199254740993 µs is beyond the clock's range"},
		{"a deadline beyond the clock", func(w *Workload) { w.Jobs[0].Deadline = MaxTime + 1 }, "job 0 (id 1): deadline: 9007199254740993 µs is beyond the clock's range"},
		{"a workload whose task time passes the clock", func(w *Workload) {
			w.Jobs[0].Stages[0].Tasks, w.Jobs[0].Stages[0].Duration = 1<<30, MaxTime/2
		}, "workload: tasks: the last submit (5000000 µs) plus all jobs' task time (over 2⁶³ µs) is beyond the clock's range"},
		{"a job whose work ends beyond the clock", func(w *Workload) {
			w.Jobs[0].Submit = MaxTime - 10*Second
			w.Jobs[0].Stages[0].Duration = MaxTime / 2
		}, "job 0 (id 1): stages: submit plus the job's critical path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := twoStage()
			tc.mutate(w)
			err := w.Validate()
			var ie *InvalidError
			if err == nil || !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an *InvalidError containing %q", err, tc.want)
			}
		})
	}
	if err := twoStage().Validate(); err != nil {
		t.Fatalf("valid workload rejected: %v", err)
	}
	for _, p := range []Placement{
		{Kind: PlacementGPU, Hard: true},
		{Kind: PlacementRack, Hard: true, Slowdown: 1.5},
		{Kind: PlacementRack, Slowdown: 1},
		{Kind: PlacementGPU, Slowdown: 1.4},
	} {
		w := twoStage()
		w.Jobs[0].Placement = p
		if err := w.Validate(); err != nil {
			t.Errorf("placement %+v rejected: %v", p, err)
		}
	}
}

func TestPlacementString(t *testing.T) {
	for _, tc := range []struct {
		p    Placement
		want string
	}{
		{Placement{}, ""},
		{Placement{Kind: PlacementGPU, Hard: true}, "hard:gpu"},
		{Placement{Kind: PlacementRack, Slowdown: 1.5}, "soft:rack:1.5"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestPooledDemandMayExceedOneMachine(t *testing.T) {
	w := twoStage()
	w.Jobs[0].Stages[0].Demand = VecOf(1.5, 0)
	w.Cluster.Pooled = true
	if err := w.Validate(); err != nil {
		t.Fatalf("pooled cluster of 2 rejected a 1.5-machine task: %v", err)
	}
}

func TestHashSeesEveryReplayedField(t *testing.T) {
	base := twoStage().Hash()
	if twoStage().Hash() != base {
		t.Fatal("hash is not deterministic")
	}
	for name, change := range map[string]func(w *Workload){
		"submit":             func(w *Workload) { w.Jobs[0].Submit++ },
		"estimate":           func(w *Workload) { w.Jobs[0].Stages[1].Estimate++ },
		"demand":             func(w *Workload) { w.Jobs[0].Stages[0].Demand[1]++ },
		"parents":            func(w *Workload) { w.Jobs[0].Stages[1].Parents = nil },
		"capacity":           func(w *Workload) { w.Cluster.Machines[1].Capacity[0]++ },
		"pooled":             func(w *Workload) { w.Cluster.Pooled = true },
		"class":              func(w *Workload) { w.Jobs[0].Class = "slo" },
		"utility":            func(w *Workload) { w.Jobs[0].Utility = &Utility{Kind: UtilityConstant, Priority: 1} },
		"placement kind":     func(w *Workload) { w.Jobs[0].Placement = Placement{Kind: PlacementGPU, Hard: true} },
		"placement hard":     func(w *Workload) { w.Jobs[0].Placement = Placement{Hard: true} },
		"placement slowdown": func(w *Workload) { w.Jobs[0].Placement = Placement{Slowdown: 1.5} },
	} {
		w := twoStage()
		change(w)
		if w.Hash() == base {
			t.Errorf("changing %s left the hash unchanged", name)
		}
	}
	// Each placement field on its own changes the hash of a constrained job.
	constrained := func(p Placement) string {
		w := twoStage()
		w.Jobs[0].Placement = p
		return w.Hash()
	}
	soft := Placement{Kind: PlacementRack, Slowdown: 1.5}
	for name, p := range map[string]Placement{
		"kind":     {Kind: PlacementGPU, Slowdown: 1.5},
		"hard":     {Kind: PlacementRack, Hard: true, Slowdown: 1.5},
		"slowdown": {Kind: PlacementRack, Slowdown: 1.4},
	} {
		if constrained(p) == constrained(soft) {
			t.Errorf("changing placement %s left the hash unchanged", name)
		}
	}
	w := twoStage()
	w.Name, w.Source = "renamed", "elsewhere"
	if w.Hash() != base {
		t.Error("name and source changed the content hash")
	}
}

// TestTaskHistoryHash checks that task histories count in the hash only when present, so
// workloads without them hash as before the field existed.
func TestTaskHistoryHash(t *testing.T) {
	w := twoStage()
	before := w.Hash()
	w.Jobs[0].Stages[1].History = []TaskHistory{{Attempts: 2, Evictions: 1, Outcome: TaskRunning}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	with := w.Hash()
	w.Jobs[0].Stages[1].History[0].Outcome = TaskKilled
	if with == before || w.Hash() == with {
		t.Errorf("hashes %s, %s, %s: histories must count", before, with, w.Hash())
	}
	w.Jobs[0].Stages[1].History = nil
	if w.Hash() != before {
		t.Error("a nil history changed the hash")
	}
	for o, want := range map[TaskOutcome]string{TaskFinished: "finished", TaskRunning: "running", TaskLost: "lost", 7: "TaskOutcome(7)"} {
		if o.String() != want {
			t.Errorf("%d.String() = %q, want %q", o, o.String(), want)
		}
	}
}

// TestCriticalPathOfAnUnvalidatedJob: a job read from a file but not validated yet (parents out of
// range or on a cycle) has a critical path, not a panic; bad parents are ignored. A chain of a
// million stages does not recurse a million deep.
func TestCriticalPathOfAnUnvalidatedJob(t *testing.T) {
	for _, parents := range [][]int32{{-1}, {7}, {math.MaxInt32}, {0}, {1}} {
		j := &Job{Stages: []Stage{{Tasks: 1, Duration: 3, Parents: parents}, {Tasks: 1, Duration: 2, Parents: []int32{0}}}}
		if parents[0] == 1 {
			j.Stages[0].Parents = []int32{1} // a cycle through both stages
		}
		if got := j.CriticalPath(false); got < 3 || got > 5 {
			t.Errorf("parents %v: critical path %d, want between 3 and 5", parents, got)
		}
	}
	const n = 1_000_000
	j := &Job{Stages: make([]Stage, n)}
	for i := range j.Stages {
		j.Stages[i] = Stage{Tasks: 1, Duration: 1, Estimate: 2}
		if i > 0 {
			j.Stages[i].Parents = []int32{int32(i - 1)}
		}
	}
	if got := j.CriticalPath(true); got != 2*n {
		t.Fatalf("chain of %d stages: estimated critical path %d, want %d", n, got, 2*n)
	}
}
