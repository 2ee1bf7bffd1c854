package replay

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// clusterWorkload is a contended workload on 4 machines with initial holds, machine events and
// trace faults, drawn from a fixed seed.
func clusterWorkload() *traces.Workload {
	r := rand.New(rand.NewPCG(3, 4))
	w := &traces.Workload{Name: "cluster", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(4, traces.VecOf(1, 1), 2)}
	for i := range 40 {
		w.Jobs = append(w.Jobs, traces.Job{ID: int64(100 + i), Submit: traces.Time(i) * 3 * traces.Second, Class: []string{"a", "b"}[i%2],
			Stages: []traces.Stage{{Name: "s", Tasks: int32(1 + r.IntN(4)), Demand: traces.VecOf(0.25, 0.125*float64(1+r.IntN(3))),
				Duration: traces.Time(5+r.IntN(20)) * traces.Second, Estimate: 10 * traces.Second}}})
	}
	for m := range 4 {
		w.Initial = append(w.Initial, traces.Hold{Machine: int32(m), Start: 0, End: traces.Time(10+10*m) * traces.Second, Demand: traces.VecOf(0.5, 0.25)})
	}
	w.ClusterEvents = []traces.ClusterEvent{
		{T: 20 * traces.Second, Kind: traces.MachineRemove, Machine: 1},
		{T: 30 * traces.Second, Kind: traces.MachineResize, Machine: 2, Capacity: traces.VecOf(0.5, 1)},
		{T: 50 * traces.Second, Kind: traces.MachineAdd, Machine: 1, Capacity: traces.VecOf(1, 1)},
	}
	for i := range 20 {
		w.Faults = append(w.Faults, traces.TaskFault{T: traces.Time(7+4*i) * traces.Second, Job: int64(100 + 2*i), Kind: traces.TaskEvicted})
	}
	return w
}

func runGreedy(t *testing.T, w *traces.Workload, cfg Config) *Result {
	t.Helper()
	e, err := New(w, &greedy{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Jobs {
		if math.IsNaN(res.Jobs[i].Utility) {
			res.Jobs[i].Utility = -1 // NaN (no utility) never equals itself: comparable instead
		}
	}
	return res
}

// Switching the timeline off replays exactly what a workload without it replays, and every part
// of it, on, changes the run; a replay with everything on is deterministic and exact (the
// invariants build checks capacity after every instant).
func TestClusterDifferential(t *testing.T) {
	full := clusterWorkload()
	bare := clusterWorkload()
	bare.Initial, bare.ClusterEvents, bare.Faults = nil, nil, nil
	off := runGreedy(t, full, Config{IgnoreInitial: true, IgnoreClusterEvents: true})
	want := runGreedy(t, bare, Config{})
	if off.Cluster != nil || !reflect.DeepEqual(off, want) {
		t.Fatalf("timeline off differs from no timeline:\n%+v\n%+v", off.Stats, want.Stats)
	}
	on := runGreedy(t, full, Config{TraceEvictions: true})
	again := runGreedy(t, clusterWorkload(), Config{TraceEvictions: true})
	if !reflect.DeepEqual(on, again) {
		t.Fatal("the same replay twice differs")
	}
	c := on.Cluster
	if c == nil || c.Holds != 4 || c.Removed != 1 || c.Added != 1 || c.Resized != 1 || c.TraceKills == 0 || c.Kills < c.TraceKills || c.WorkLost <= 0 {
		t.Fatalf("cluster stats %+v", c)
	}
	var restarts int64
	for _, l := range c.ByClass {
		restarts += l.Restarts
	}
	if restarts != c.Kills {
		t.Fatalf("restarts by class %d, kills %d", restarts, c.Kills)
	}
	for i := range on.Jobs {
		if !on.Jobs[i].Completed {
			t.Fatalf("job %d unfinished", i)
		}
	}
	if reflect.DeepEqual(on.Jobs, want.Jobs) {
		t.Fatal("holds, events and faults changed nothing")
	}
	// Failures need a seeded source and machines, and contradict the workload's own events.
	if _, err := New(full, &greedy{}, Config{Failures: traces.FailureModel{MTTF: traces.Second, MTTR: traces.Second}}); err == nil {
		t.Fatal("failure model over cluster events accepted")
	}
	if _, err := New(bare, &greedy{}, Config{Failures: traces.FailureModel{MTTF: traces.Second, MTTR: traces.Second}}); err == nil {
		t.Fatal("failure model without FailureRand accepted")
	}
	fr := runGreedy(t, bare, Config{Failures: traces.FailureModel{MTTF: 30 * traces.Second, MTTR: 5 * traces.Second}, FailureRand: rand.New(rand.NewPCG(1, 1))})
	if fr.Cluster == nil || fr.Cluster.Failures == 0 || fr.Cluster.Failures != fr.Cluster.Removed {
		t.Fatalf("failure model: %+v", fr.Cluster)
	}
}
