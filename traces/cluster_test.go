package traces

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestCheckCluster(t *testing.T) {
	base := func() *Workload {
		return &Workload{Dims: []string{"cpu", "mem"}, Cluster: Uniform(2, VecOf(1, 1), 0)}
	}
	for _, tc := range []struct {
		name string
		edit func(w *Workload)
		want string // "" = valid
	}{
		{"empty", func(w *Workload) {}, ""},
		{"remove then add", func(w *Workload) {
			w.ClusterEvents = []ClusterEvent{{T: 1, Kind: MachineRemove, Machine: 0}, {T: 2, Kind: MachineAdd, Machine: 0, Capacity: VecOf(2, 2)}}
		}, ""},
		{"add first: down until then", func(w *Workload) {
			w.ClusterEvents = []ClusterEvent{{T: 3, Kind: MachineAdd, Machine: 1, Capacity: VecOf(1, 1)}, {T: 4, Kind: MachineResize, Machine: 1, Capacity: VecOf(1, 2)}}
		}, ""},
		{"remove twice", func(w *Workload) {
			w.ClusterEvents = []ClusterEvent{{T: 1, Kind: MachineRemove, Machine: 0}, {T: 2, Kind: MachineRemove, Machine: 0}}
		}, "cluster_events[1]: remove of machine 0, which is down"},
		{"resize down machine", func(w *Workload) {
			w.ClusterEvents = []ClusterEvent{{T: 1, Kind: MachineRemove, Machine: 0}, {T: 2, Kind: MachineResize, Machine: 0}}
		}, "resize of machine 0, which is down"},
		{"unsorted", func(w *Workload) {
			w.ClusterEvents = []ClusterEvent{{T: 5, Kind: MachineRemove, Machine: 0}, {T: 2, Kind: MachineRemove, Machine: 1}}
		}, "not sorted"},
		{"machine out of range", func(w *Workload) { w.ClusterEvents = []ClusterEvent{{T: 1, Kind: MachineRemove, Machine: 2}} }, "out of range"},
		{"unknown kind", func(w *Workload) { w.ClusterEvents = []ClusterEvent{{T: 1, Kind: 9, Machine: 0}} }, "unknown kind"},
		{"pooled", func(w *Workload) {
			w.Cluster.Pooled = true
			w.ClusterEvents = []ClusterEvent{{T: 1, Kind: MachineRemove, Machine: 0}}
		}, "pooled"},
		{"hold empty interval", func(w *Workload) { w.Initial = []Hold{{Machine: 0, Start: 5, End: 5, Demand: VecOf(1, 0)}} }, "initial[0]"},
		{"hold zero demand", func(w *Workload) { w.Initial = []Hold{{Machine: 0, Start: 0, End: 5}} }, "not zero"},
		{"hold machine", func(w *Workload) { w.Initial = []Hold{{Machine: -1, Start: 0, End: 5, Demand: VecOf(1, 0)}} }, "out of range"},
		{"fault of a job shaping dropped", func(w *Workload) { w.Faults = []TaskFault{{T: 1, Job: 7, Kind: TaskEvicted}} }, ""},
		{"fault bad stage", func(w *Workload) {
			w.Jobs = []Job{{ID: 7, Stages: []Stage{{Name: "a", Tasks: 1, Demand: VecOf(0.5, 0.5), Duration: 5, Estimate: 5}}}}
			w.Faults = []TaskFault{{T: 1, Job: 7, Stage: 1, Kind: TaskEvicted}}
		}, "job 7 has no stage 1"},
		{"fault bad kind", func(w *Workload) {
			w.Jobs = []Job{{ID: 7, Stages: []Stage{{Name: "a", Tasks: 1, Demand: VecOf(0.5, 0.5), Duration: 5, Estimate: 5}}}}
			w.Faults = []TaskFault{{T: 1, Job: 7, Kind: TaskFinished}}
		}, "kind finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base()
			tc.edit(w)
			err := w.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The failure model is a function of its seed: alternating removals and re-adds per machine,
// sorted by time; and it refuses a model that would draw absurdly many events before drawing.
func TestFailureModel(t *testing.T) {
	c := Uniform(4, VecOf(1, 1), 0)
	f := FailureModel{MTTF: 100 * Second, MTTR: 10 * Second}
	a, err := f.Events(&c, 0, Hour, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.Events(&c, 0, Hour, rand.New(rand.NewPCG(1, 2)))
	if len(a) < 50 || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d events, repeatable %v", len(a), reflect.DeepEqual(a, b))
	}
	w := &Workload{Dims: []string{"cpu", "mem"}, Cluster: c, ClusterEvents: a}
	if err := w.Validate(); err != nil {
		t.Fatalf("generated events invalid: %v", err)
	}
	if _, err := (FailureModel{MTTF: 1, MTTR: 1}).Events(&c, 0, 1000*Hour, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), "raise mttf") {
		t.Fatalf("absurd model: %v", err)
	}
	if err := (FailureModel{MTTF: Second}).Validate(); err == nil {
		t.Fatal("mttf without mttr accepted")
	}
}

func TestShiftTimeline(t *testing.T) {
	w := &Workload{
		Initial:       []Hold{{Machine: 0, Start: 0, End: 5}, {Machine: 1, Start: 3, End: 20}, {Machine: 0, Start: 12, End: 15}},
		ClusterEvents: []ClusterEvent{{T: 4, Kind: MachineRemove}, {T: 11, Kind: MachineAdd}},
		Faults:        []TaskFault{{T: 9, Job: 1}, {T: 10, Job: 2}},
	}
	w.ShiftTimeline(10)
	wantH := []Hold{{Machine: 1, Start: 0, End: 10}, {Machine: 0, Start: 2, End: 5}}
	wantE := []ClusterEvent{{T: 0, Kind: MachineRemove}, {T: 1, Kind: MachineAdd}}
	wantF := []TaskFault{{T: 0, Job: 2}}
	if !reflect.DeepEqual(w.Initial, wantH) || !reflect.DeepEqual(w.ClusterEvents, wantE) || !reflect.DeepEqual(w.Faults, wantF) {
		t.Fatalf("got %v %v %v", w.Initial, w.ClusterEvents, w.Faults)
	}
}
