package tracepolicy_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/tracepolicy"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

type started struct {
	T       traces.Time
	Job     int32
	Machine int32
}

// run replays w under the trace policy and returns its task starts and counts.
func run(t *testing.T, w *traces.Workload) ([]started, tracepolicy.Stats) {
	t.Helper()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	pol, err := tracepolicy.New(policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []started
	e, err := replay.New(w, pol, replay.Config{Log: func(l replay.LogEntry) {
		if l.Kind == replay.KindStart {
			got = append(got, started{l.T, l.Job, l.Machine})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return got, pol.(*tracepolicy.Policy).Stats()
}

func job(id int64, submit traces.Time, tasks int32, cpu float64, dur traces.Time) traces.Job {
	return traces.Job{ID: id, Submit: submit, Stages: []traces.Stage{{Name: "t", Tasks: tasks, Demand: traces.VecOf(cpu, 0.1), Duration: dur, Estimate: dur}}}
}

// Each task starts at its trace time on its trace machine: after its job's submit (a wake-up,
// nothing else happens at t=50 or t=70), on a machine first fit would not pick. When its
// machine is full it moves to the first machine where it fits; when none fits it starts late,
// when capacity returns; a task without a placement starts where it first fits.
func TestTraceScenarios(t *testing.T) {
	cl := traces.Uniform(3, traces.VecOf(1, 1), 0)
	for _, tc := range []struct {
		name  string
		jobs  []traces.Job
		pls   []traces.TaskPlacement
		want  []started
		stats tracepolicy.Stats
	}{
		{"when and where", []traces.Job{job(1, 0, 2, 0.5, 100)},
			[]traces.TaskPlacement{{Job: 1, Machine: 2, Start: 50}, {Job: 1, Task: 1, Machine: 1, Start: 70}},
			[]started{{50, 0, 2}, {70, 0, 1}}, tracepolicy.Stats{OnTime: 2}},
		{"moved", []traces.Job{job(1, 0, 1, 0.75, 100), job(2, 10, 1, 0.5, 100)},
			[]traces.TaskPlacement{{Job: 1, Machine: 1, Start: 0}, {Job: 2, Machine: 1, Start: 10}},
			[]started{{0, 0, 1}, {10, 1, 0}}, tracepolicy.Stats{OnTime: 2, Moved: 1}},
		{"late", []traces.Job{job(1, 0, 3, 0.75, 100), job(2, 10, 1, 0.5, 30)},
			[]traces.TaskPlacement{{Job: 1, Machine: 0}, {Job: 1, Task: 1, Machine: 1}, {Job: 1, Task: 2, Machine: 2}, {Job: 2, Machine: 2, Start: 20}},
			[]started{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {100, 1, 2}}, tracepolicy.Stats{OnTime: 3, Late: 1, LateTotal: 80}},
		{"unplaced", []traces.Job{job(1, 0, 2, 0.5, 100)},
			[]traces.TaskPlacement{{Job: 1, Machine: 2, Start: 40}},
			[]started{{0, 0, 0}, {40, 0, 2}}, tracepolicy.Stats{OnTime: 1, Unplaced: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &traces.Workload{Name: tc.name, Dims: []string{"cpu", "mem"}, Cluster: cl, Jobs: tc.jobs, Placements: tc.pls}
			got, st := run(t, w)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("starts\n got %v\nwant %v", got, tc.want)
			}
			if st != tc.stats {
				t.Errorf("stats %+v, want %+v", st, tc.stats)
			}
		})
	}
}

// With a scheduling cycle the engine does not wake the policy: a placement due at t=50 starts at
// the next tick (t=60), late.
func TestTraceWithCycle(t *testing.T) {
	w := &traces.Workload{Name: "cycle", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(1, 1), 0),
		Jobs: []traces.Job{job(1, 0, 1, 0.5, 100)}, Placements: []traces.TaskPlacement{{Job: 1, Machine: 1, Start: 50}}}
	pol, _ := tracepolicy.New(policies.Options{})
	var got []started
	e, err := replay.New(w, pol, replay.Config{Cycle: 30, Log: func(l replay.LogEntry) {
		if l.Kind == replay.KindStart {
			got = append(got, started{l.T, l.Job, l.Machine})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if want := []started{{60, 0, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("starts %v, want %v", got, want)
	}
	if st := pol.(*tracepolicy.Policy).Stats(); st.Late != 1 || st.LateTotal != 10 {
		t.Errorf("stats %+v", st)
	}
}

// A workload without placements is refused at the first scheduling point, saying what to do.
func TestTraceNeedsPlacements(t *testing.T) {
	w := &traces.Workload{Name: "none", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(1, traces.VecOf(1, 1), 0), Jobs: []traces.Job{job(1, 0, 1, 0.5, 10)}}
	pol, _ := tracepolicy.New(policies.Options{})
	e, err := replay.New(w, pol, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); !errors.Is(err, tracepolicy.ErrNoPlacements) {
		t.Errorf("error %v, want ErrNoPlacements", err)
	}
	if _, err := tracepolicy.New(policies.Options{Params: map[string]any{"x": 1}}); err == nil {
		t.Error("an unknown parameter was accepted")
	}
}
