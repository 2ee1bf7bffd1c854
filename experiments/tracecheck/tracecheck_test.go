package tracecheck

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/google2011"
)

// sliceWorkload imports the committed slice of the Google 2011 trace (testdata/slice/SOURCE.md):
// 30 minutes of task_events part 5 on 40 busy machines, with its trace placements.
func sliceWorkload(t *testing.T) *traces.Workload {
	t.Helper()
	dir := filepath.Join("testdata", "slice")
	w, err := google2011.Workload(google2011.Source{
		TaskEvents: []string{filepath.Join(dir, "task_events")}, JobEvents: []string{filepath.Join(dir, "job_events")},
	}, google2011.Options{Placements: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The stated bound: replayed with the trace's placements, the slice's allocation over time
// tracks the trace's own within 0.5% of the cluster's capacity on average per minute and 2% at
// worst, for the tasks alone and with the initial holds.
const meanBound, maxBound = 0.005, 0.02

func TestSliceTracksTrace(t *testing.T) {
	w := sliceWorkload(t)
	c, err := Compare(w, traces.Minute, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Trace.T) < 25 || c.Policy.OnTime == 0 {
		t.Fatalf("a vacuous comparison: %d bins, %+v", len(c.Trace.T), c.Policy)
	}
	for d := range 2 {
		if c.MeanAbs[d] > meanBound || c.MaxAbs[d] > maxBound || c.TotalMeanAbs[d] > meanBound || c.TotalMaxAbs[d] > maxBound {
			t.Errorf("dimension %d: tracking error mean %.4f max %.4f (totals %.4f, %.4f), bound %.3f / %.3f",
				d, c.MeanAbs[d], c.MaxAbs[d], c.TotalMeanAbs[d], c.TotalMaxAbs[d], meanBound, maxBound)
		}
	}
	again, err := Compare(w, traces.Minute, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, again) {
		t.Error("two comparisons of the same workload differ")
	}
}

// The check can fail: on machines of half the capacity the trace's placements no longer fit at
// their times, tasks start late, and the replay falls behind the trace beyond the bound.
func TestSliceOnHalfCapacityDiverges(t *testing.T) {
	w := sliceWorkload(t)
	for i := range w.Cluster.Machines {
		m := &w.Cluster.Machines[i]
		for d := range m.Capacity {
			m.Capacity[d] /= 8
		}
	}
	// Demands larger than a shrunk machine would make the workload invalid: cap them.
	top := w.Cluster.Machines[0].Capacity
	for _, m := range w.Cluster.Machines {
		for d := range top {
			top[d] = max(top[d], m.Capacity[d])
		}
	}
	for j := range w.Jobs {
		for s := range w.Jobs[j].Stages {
			dm := &w.Jobs[j].Stages[s].Demand
			for d := range dm {
				dm[d] = min(dm[d], top[d])
			}
		}
	}
	c, err := Compare(w, traces.Minute, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy.Late == 0 || c.MeanAbs[0] <= meanBound {
		t.Errorf("late %d, cpu tracking error %.4f: the check does not see the replay fall behind", c.Policy.Late, c.MeanAbs[0])
	}
}

func TestCompareErrors(t *testing.T) {
	w := &traces.Workload{Name: "x", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(1, traces.VecOf(1, 1), 0)}
	if _, err := Compare(w, traces.Minute, replay.Config{}); !errors.Is(err, ErrNoPlacements) {
		t.Errorf("no placements: %v", err)
	}
	w.Placements = []traces.TaskPlacement{{Job: 1}}
	if _, err := Compare(w, 0, replay.Config{}); err == nil {
		t.Error("a zero bin was accepted")
	}
}
