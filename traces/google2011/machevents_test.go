package google2011

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// The crafted machine_events (testdata/machines): machines 5, 6, 7 up at the start (8 never has
// a capacity); 6 is removed at 835,150 s and added back at 900,000 s; 5 grows at 1,000,000 s.
func TestClusterEventsFromMachineEvents(t *testing.T) {
	src := miniSource()
	src.MachineEvents = []string{filepath.Join("testdata", "machines", "machine_events.csv")}
	w, st, err := WorkloadStats(src, Options{ClusterEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []traces.ClusterEvent{
		{T: 835150655707, Kind: traces.MachineRemove, Machine: 1},
		{T: 900000000000, Kind: traces.MachineAdd, Machine: 1, Capacity: traces.VecOf(0.5, 0.4995)},
		{T: 1000000000000, Kind: traces.MachineResize, Machine: 0, Capacity: traces.VecOf(0.5, 0.749)},
	}
	if !reflect.DeepEqual(w.ClusterEvents, want) || st.ClusterEvents != 3 || len(w.Cluster.Machines) != 3 {
		t.Fatalf("events %v (stats %d), %d machines; want %v", w.ClusterEvents, st.ClusterEvents, len(w.Cluster.Machines), want)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	// Off by default; refused without the machine_events cluster.
	if w, _ := Workload(src, Options{}); w == nil || len(w.ClusterEvents) != 0 {
		t.Error("cluster events without Options.ClusterEvents")
	}
	if _, err := Workload(src, Options{ClusterEvents: true, Cluster: ClusterMix}); !errors.Is(err, ErrOptions) {
		t.Errorf("mix cluster with events: %v", err)
	}
}

// A machine first added after the input's start joins the machine list down, and comes up at
// its ADD.
func TestClusterEventsLateMachine(t *testing.T) {
	dir := t.TempDir()
	me := writeFile(t, dir, "machine_events.csv", []byte("0,1,0,p,1,1\n900000000,2,0,p,0.5,0.25\n950000000,2,1,,,\n"))
	c := traces.Cluster{Machines: []traces.Machine{{Name: "m1", Capacity: traces.VecOf(1, 1)}}}
	evs, err := clusterEvents([]string{me}, 700000000, &c, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []traces.ClusterEvent{{T: 900000000, Kind: traces.MachineAdd, Machine: 1, Capacity: traces.VecOf(0.5, 0.25)}, {T: 950000000, Kind: traces.MachineRemove, Machine: 1}}
	if !reflect.DeepEqual(evs, want) || len(c.Machines) != 2 || c.Machines[1].Name != "m2" {
		t.Fatalf("events %v, machines %v", evs, c.Machines)
	}
	w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: c, ClusterEvents: evs}
	if err := w.Validate(); err != nil || !w.InitiallyDown()[1] {
		t.Fatalf("validate %v, down %v", err, w.InitiallyDown())
	}
}

// FuzzMachineEvents feeds arbitrary bytes as machine_events to the cluster-event reader: it must
// end in a *ParseError naming the file, or give events that form a valid timeline.
func FuzzMachineEvents(f *testing.F) {
	f.Add([]byte("0,1,0,p,1,1\n900000000,2,0,p,0.5,0.25\n950000000,2,1,,,\n960000000,1,2,,0.5,\n"))
	f.Add([]byte("0,5,0,x,0.5,0.2493\n835150655707,5,1,,,\n835150655708,5,0,,,\n"))
	f.Add([]byte("800000000,9,0,,1e308,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		me := writeFile(t, t.TempDir(), "machine_events.csv", data)
		c := traces.Cluster{Machines: []traces.Machine{{Name: "m1", Capacity: traces.VecOf(1, 1)}}}
		evs, err := clusterEvents([]string{me}, 700000000, &c, nil)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != me || pe.Msg == "" {
				t.Fatalf("error without location: %v (%T)", err, err)
			}
			return
		}
		w := &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: c, ClusterEvents: evs}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid timeline: %v", err)
		}
	})
}
