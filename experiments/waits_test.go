package experiments

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/google2011"
)

// oneMachine is a workload on one machine of capacity 1: jobs of one single-task stage each,
// given as (submit s, demand, duration s, queue).
func oneMachine(jobs ...[4]any) *traces.Workload {
	w := &traces.Workload{Name: "waits", Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 0)}
	for i, j := range jobs {
		d := traces.FromSeconds(j[2].(float64))
		w.Jobs = append(w.Jobs, traces.Job{ID: int64(i), Submit: traces.FromSeconds(j[0].(float64)), Queue: j[3].(string),
			Stages: []traces.Stage{{Name: "s", Tasks: 1, Demand: traces.VecOf(j[1].(float64)), Duration: d, Estimate: d}}})
	}
	return w
}

// TestWaits checks task waits and the waited/no-wait verdict against hand-worked schedules.
func TestWaits(t *testing.T) {
	cases := []struct {
		name       string
		sets       []string
		w          *traces.Workload
		waitedJobs int
		waits      map[string][2]float64 // queue: avg, max
		warn       bool
	}{
		{"second job waits for the first", nil,
			oneMachine([4]any{0.0, 1.0, 10.0, "a"}, [4]any{0.0, 1.0, 5.0, "b"}), 1,
			map[string][2]float64{"a": {0, 0}, "b": {10, 10}}, false},
		{"side by side nothing waits", nil,
			oneMachine([4]any{0.0, 0.5, 10.0, "a"}, [4]any{2.0, 0.5, 5.0, "a"}), 0,
			map[string][2]float64{"a": {0, 0}}, true},
		// With a 4 s cycle a job submitted at 1 s starts at the 4 s tick: 3 s of wait, but no
		// wait for resources.
		{"cycle: waiting for the tick is not contention", []string{"engine.cycle_s=4"},
			oneMachine([4]any{1.0, 0.5, 10.0, "a"}, [4]any{2.0, 0.5, 5.0, "a"}), 0,
			map[string][2]float64{"a": {2.5, 3}}, true},
		{"cycle: waiting past the tick is", []string{"engine.cycle_s=4"},
			oneMachine([4]any{1.0, 1.0, 10.0, "a"}, [4]any{2.0, 1.0, 5.0, "a"}), 1,
			map[string][2]float64{"a": {8.5, 14}}, false},
		{"cut by the horizon while waiting", []string{"engine.horizon_s=5"},
			oneMachine([4]any{0.0, 1.0, 10.0, "a"}, [4]any{1.0, 1.0, 5.0, "a"}), 1,
			map[string][2]float64{"a": {0, 0}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := RunWorkload(resolve(t, tc.sets...), tc.w)
			if err != nil {
				t.Fatal(err)
			}
			w := o.Waits
			if w.WaitedJobs != tc.waitedJobs || w.NoWait() != tc.warn || (w.Warning != "") != tc.warn {
				t.Errorf("waited jobs %d, warning %q; want %d, warning %t", w.WaitedJobs, w.Warning, tc.waitedJobs, tc.warn)
			}
			for q, want := range tc.waits {
				if g := w.ByQueue[q]; g.Avg != want[0] || g.Max != want[1] {
					t.Errorf("queue %s: avg %v max %v, want %v", q, g.Avg, g.Max, want)
				}
			}
		})
	}
}

// TestNoContentionWarning runs a job-level Google import, whose every job is one small task on
// 12,583 machines: nothing ever waits, and summary.json says so.
func TestNoContentionWarning(t *testing.T) {
	dir := filepath.Join("..", "traces", "google2011", "testdata", "mini")
	src := google2011.Source{JobEvents: []string{filepath.Join(dir, "job_events")}}
	path := filepath.Join(t.TempDir(), "jobs.arrow")
	if _, err := google2011.Import(src, google2011.Options{}, path); err != nil {
		t.Fatal(err)
	}
	o, err := Run(resolve(t, "workload.name="+path, "policy.name=drf"))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Waits.NoWait() || !strings.Contains(o.Waits.Warning, "no job ever waited for resources") {
		t.Fatalf("waits %+v, want the no-contention warning", o.Waits)
	}
	out := filepath.Join(t.TempDir(), "run")
	if err := o.WriteOutputs(out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc SummaryDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Waits.Warning != o.Waits.Warning || doc.Waits.Tasks.Starts != 300 {
		t.Errorf("summary.json waits %+v", doc.Waits)
	}

	// The task-level import of the same jobs on the machines their tasks ran on contends.
	src.TaskEvents = []string{filepath.Join(dir, "task_events")}
	if _, err := google2011.Import(src, google2011.Options{Machines: 2}, path); err != nil {
		t.Fatal(err)
	}
	o, err = Run(resolve(t, "workload.name="+path, "policy.name=drf"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Waits.NoWait() || o.Waits.Warning != "" || o.Waits.WaitedJobs == 0 {
		t.Errorf("task-level import on 2 machines: waits %+v", o.Waits)
	}
}

// TestGoogleWindowContends replays the task-level import of the shared data's window (job_events
// and task_events parts 0-9) under fifo, drf, sp and srpt: the cluster is busy, tasks wait, and
// the policies differ.
func TestGoogleWindowContends(t *testing.T) {
	if testing.Short() || slowBuild {
		t.Skip("skipped with -short, -race and -tags invariants")
	}
	path := googleWindowFile(t, t.TempDir())
	w, err := LoadWorkload(WorkloadConfig{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	// Average and median JCT and average task wait: two policies differ when one of them moves
	// by 5% or more.
	seen := map[string][3]float64{}
	for _, policy := range []string{"fifo", "drf", "sp", "srpt"} {
		o, err := RunWorkload(resolve(t, "policy.name="+policy, "workload.name="+path), w)
		if err != nil {
			t.Fatal(err)
		}
		s := o.Summary
		if s.Completed != s.Jobs || s.Utilization["cpu"] < 0.3 || s.Utilization["mem"] < 0.3 || o.Waits.NoWait() || o.Waits.Tasks.Waited < 1000 {
			t.Errorf("%s: %d/%d jobs, utilization %v, waits %+v", policy, s.Completed, s.Jobs, s.Utilization, o.Waits.Tasks)
		}
		m := [3]float64{s.AvgJCT, s.P50JCT, o.Waits.Tasks.Avg}
		t.Logf("%s: avg JCT %.0f s, p50 JCT %.0f s, avg task wait %.0f s, utilization %.3f", policy, m[0], m[1], m[2], s.Utilization["cpu"])
		for p, v := range seen {
			differ := false
			for k := range m {
				differ = differ || math.Abs(v[k]-m[k]) >= 0.05*max(v[k], m[k])
			}
			if !differ {
				t.Errorf("%s %v and %s %v: want policies that differ", p, v, policy, m)
			}
		}
		seen[policy] = m
	}
}
