package traces

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCheckedAmount(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    float64
		want int64
		bad  bool
	}{
		{"a fraction rounds to the nearest unit", 0.1234567, 123457, false},
		{"negative amounts convert (validation rejects negative demands)", -2, -2 * Unit, false},
		{"the largest amount converts exactly", float64(MaxAmount) / float64(Unit), MaxAmount, false},
		{"beyond the range is an error, not a clamp", 1e10, 0, true},
		{"the 1e308 Google request is an error", 1e308, 0, true},
		{"a huge negative amount is an error", -1e308, 0, true},
		{"infinity is an error", math.Inf(1), 0, true},
		{"NaN is an error", math.NaN(), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckedAmount(tc.x)
			if tc.bad {
				if !errors.Is(err, ErrRange) {
					t.Fatalf("CheckedAmount(%v) = %d, %v; want an error wrapping ErrRange", tc.x, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CheckedAmount(%v) = %d, %v; want %d", tc.x, got, err, tc.want)
			}
		})
	}
}

func TestCheckedVec(t *testing.T) {
	v, err := CheckedVec(0.5, 0.25)
	if err != nil || v != VecOf(0.5, 0.25) {
		t.Fatalf("CheckedVec(0.5, 0.25) = %v, %v; want VecOf's result", v, err)
	}
	if _, err := CheckedVec(0.5, 1e308); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "dimension 1") {
		t.Fatalf("got %v; want a range error naming dimension 1", err)
	}
	if _, err := CheckedVec(1, 1, 1, 1, 1, 1, 1); err == nil {
		t.Fatal("seven amounts converted into a six-dimension Vec")
	}
}

func TestValidateRefusesCapacitiesOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		machines []Machine
		bad      bool
	}{
		{"ordinary machines", Uniform(3, VecOf(1, 1), 0).Machines, false},
		{"a machine beyond MaxAmount", []Machine{{Name: "m0", Capacity: Vec{MaxAmount + 1, Unit}}}, true},
		{"a cluster total that would overflow", Uniform(1100, Vec{MaxAmount, Unit}, 0).Machines, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := twoStage()
			w.Cluster.Machines = tc.machines
			err := w.Validate()
			var ie *InvalidError
			if tc.bad != errors.As(err, &ie) || tc.bad && !strings.Contains(ie.Field, "capacity") {
				t.Fatalf("Validate() = %v; want an invalid capacity: %v", err, tc.bad)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	w := twoStage() // one job: stages of 4 and 1 tasks on 2 machines
	for _, tc := range []struct {
		name   string
		limits Limits
		scale  func(int32) int64
		want   *LimitError
		msg    string
	}{
		{"no limits", Limits{}, nil, nil, ""},
		{"limits at the workload's size", Limits{StageTasks: 4, JobTasks: 5, Tasks: 5, Machines: 2}, nil, nil, ""},
		{"too many machines", Limits{Machines: 1}, nil, &LimitError{Limit: LimitMachines, Job: -1, Stage: -1, Value: 2, Max: 1}, "traces: workload: cluster.machines: 2 exceeds the limit of 1 machines"},
		{"a stage too large", Limits{StageTasks: 3}, nil, &LimitError{Limit: LimitStageTasks, Job: 0, JobID: 1, Stage: 0, Value: 4, Max: 3}, "traces: job 0 (id 1) stage 0: tasks: 4 exceeds the limit of 3 tasks per stage"},
		{"a job too large", Limits{JobTasks: 4}, nil, &LimitError{Limit: LimitJobTasks, Job: 0, JobID: 1, Stage: -1, Value: 5, Max: 4}, "traces: job 0 (id 1): tasks: 5 exceeds the limit of 4 tasks per job"},
		{"a workload too large", Limits{Tasks: 4}, nil, &LimitError{Limit: LimitTasks, Job: -1, Stage: -1, Value: 5, Max: 4}, "traces: workload: tasks: 5 exceeds the limit of 4 tasks per workload"},
		{"scaled counts are checked", Limits{Tasks: 1000}, func(n int32) int64 { return int64(n) * 1000 }, &LimitError{Limit: LimitTasks, Job: -1, Stage: -1, Value: 5000, Max: 1000}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.limits.CheckScaled(w, tc.scale)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) || *le != *tc.want || !errors.Is(err, ErrLimit) {
				t.Fatalf("got %#v; want %#v", err, tc.want)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("message %q, want %q", err, tc.msg)
			}
		})
	}
}

// TestMemoryLimitCountsJobs: the memory limit charges per job as well as per task, so a workload
// of many one-task jobs is refused where its task count alone would pass.
func TestMemoryLimitCountsJobs(t *testing.T) {
	w := &Workload{Dims: []string{"cpu"}, Cluster: Uniform(1, VecOf(1), 0)}
	for i := range 1000 {
		w.Jobs = append(w.Jobs, Job{ID: int64(i), Stages: []Stage{{Tasks: 1, Demand: VecOf(1), Duration: 1}}})
	}
	l := Limits{Tasks: 1 << 20, Memory: 1 << 20, JobBytes: 1500, TaskBytes: 64}
	err := l.Check(w)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitMemory || le.Value != 1000*(1500+64) {
		t.Fatalf("Check = %v; want a memory limit error of %d B", err, 1000*(1500+64))
	}
	if want := "traces: workload: memory: 1000 jobs and 1000 tasks need about 1.5 MiB for a replay (1500 B per job, 64 B per task), more than the limit of 1.0 MiB"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	l.JobBytes = 900
	if err := l.Check(w); err != nil {
		t.Errorf("1000 jobs at 964 B each within 1 MiB: %v", err)
	}
	if err := (Limits{Memory: 1, JobBytes: 1 << 40, TaskBytes: 1 << 40}).CheckMemory(math.MaxInt64, math.MaxInt64); err == nil {
		t.Error("an overflowing estimate passed")
	}
}
