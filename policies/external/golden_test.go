package external_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// conversationWorkload exercises every part of a call: two machines in two racks, a GPU, a
// two-stage job, a hard-constrained job, and a job that arrives while others run.
func conversationWorkload() *traces.Workload {
	w := &traces.Workload{Name: "conversation", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(2, 4), 2)}
	w.Cluster.Machines[1].GPU = true
	w.Jobs = []traces.Job{
		{ID: 10, Name: "dag", Queue: "a", Class: "be", Weight: 1, Stages: []traces.Stage{
			{Name: "map", Tasks: 3, Demand: traces.VecOf(1, 1), Duration: 10 * traces.Second, Estimate: 12 * traces.Second},
			{Name: "reduce", Tasks: 1, Demand: traces.VecOf(1, 2), Duration: 5 * traces.Second, Estimate: 4 * traces.Second, Parents: []int32{0}},
		}},
		{ID: 11, Name: "gpu", Submit: 2 * traces.Second, Queue: "b", Class: "slo", Priority: 1, Deadline: 60 * traces.Second,
			Placement: traces.Placement{Kind: traces.PlacementGPU, Hard: true},
			Stages:    []traces.Stage{{Name: "train", Tasks: 1, Demand: traces.VecOf(1, 2), Duration: 7 * traces.Second, Estimate: 7 * traces.Second}}},
	}
	return w
}

// TestConversationGolden records every message the engine sends to a scheduler during a small
// run and compares it with testdata/conversation.jsonl (go test -update rewrites it): the wire
// format PROTOCOL.md documents, byte for byte.
func TestConversationGolden(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	t.Setenv("SCHEDLAB_EXT_RECORD", rec)
	// The recording client is the Go test client's pooled fifo on machine 0 only (pooled).
	w := conversationWorkload()
	w.Cluster.Pooled = true
	if _, _, err := run(t, w, "policy.name=external", "policy.params.command="+childArgv("fifo"), "policy.params.args.note=hello"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "conversation.jsonl")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./policies/external -run Golden -update)", err)
	}
	if string(got) != string(want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Fatalf("the conversation differs from %s (see %s.got)", path, path)
	}
}
