package builtin

import (
	"strings"
	"testing"
)

func TestEveryEmbeddedWorkloadLoads(t *testing.T) {
	for _, n := range Names() {
		w, err := Load(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if Describe(n) == "" || w.Name != n || w.Source == "" {
			t.Errorf("%s: missing description, name or source", n)
		}
	}
}

// TestDefaultWorkloadShape pins the default workload: 399 TPC-H DAGs, 91,304 tasks, 25
// machines, cpu and mem, arrivals spread over the Facebook trace's first ~1,330 s.
func TestDefaultWorkloadShape(t *testing.T) {
	w, err := Load(Default)
	if err != nil {
		t.Fatal(err)
	}
	last := w.Jobs[len(w.Jobs)-1].Submit
	if len(w.Jobs) != 399 || w.Tasks() != 91304 || len(w.Cluster.Machines) != 25 || strings.Join(w.Dims, ",") != "cpu,mem" || last <= 0 {
		t.Fatalf("default workload: %d jobs, %d tasks, %d machines, dims %v, last submit %d", len(w.Jobs), w.Tasks(), len(w.Cluster.Machines), w.Dims, last)
	}
}

func TestUnknownWorkloadListsEmbeddedOnes(t *testing.T) {
	_, err := Load("nope")
	if err == nil || !strings.Contains(err.Error(), Default) {
		t.Fatalf("Load(nope) = %v, want an error listing %s", err, Default)
	}
}
