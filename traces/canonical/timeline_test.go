package canonical

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// A workload's initial holds and cluster events survive a write and a read in both formats, and
// a workload without them writes no timeline keys.
func TestTimelineRoundTrip(t *testing.T) {
	w := &traces.Workload{Name: "t", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(3, traces.VecOf(1, 1), 0),
		Jobs:    []traces.Job{{ID: 1, Stages: []traces.Stage{{Name: "a", Tasks: 1, Demand: traces.VecOf(0.5, 0.5), Duration: 5, Estimate: 5}}}},
		Initial: []traces.Hold{{Machine: 2, Start: 0, End: 9, Demand: traces.VecOf(0.25, 0)}, {Machine: 0, Start: 3, End: 4, Demand: traces.VecOf(0.5, 0.75)}},
		ClusterEvents: []traces.ClusterEvent{
			{T: 5, Kind: traces.MachineRemove, Machine: 1}, {T: 7, Kind: traces.MachineAdd, Machine: 1, Capacity: traces.VecOf(2, 1)},
			{T: 8, Kind: traces.MachineResize, Machine: 0, Capacity: traces.VecOf(0.5, 1)},
		},
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"parquet", "arrow"} {
		path := filepath.Join(t.TempDir(), "w."+ext)
		if err := Write(path, w); err != nil {
			t.Fatal(err)
		}
		back, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Initial, w.Initial) || !reflect.DeepEqual(back.ClusterEvents, w.ClusterEvents) {
			t.Errorf("%s: read back %v / %v", ext, back.Initial, back.ClusterEvents)
		}
		if back.Hash() != w.Hash() {
			t.Errorf("%s: hash changed", ext)
		}
	}
	plain := *w
	plain.Initial, plain.ClusterEvents = nil, nil
	md, err := MetaOf(&plain).metadata()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range md.Keys() {
		if k == KeyInitial || k == KeyClusterEvents {
			t.Errorf("a workload without a timeline writes key %s", k)
		}
	}
	if plain.Hash() == w.Hash() {
		t.Error("the timeline does not change the workload hash")
	}
}

func TestTimelineBadMeta(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{KeyInitial, `{"machine":[0,1],"start":[0],"end":[1,2],"demand":[[1,1]]}`, "columns of 2 and 1 rows"},
		{KeyInitial, `{"machine":[0],"start":[0],"end":[1],"demand":[[1],[1],[1],[1],[1],[1],[1]]}`, "amount columns"},
		{KeyClusterEvents, `{"t":[1],"kind":["explode"],"machine":[0],"capacity":[]}`, `kind "explode"`},
		{KeyClusterEvents, `{"t":[1],"kind":["add"],"machine":[0],"capacity":[[1,2]]}`, "amount column 0 has 2 rows"},
		{KeyClusterEvents, `[`, "schedlab.cluster_events"},
	} {
		_, _, err := parseMeta(fuzzLimits, func(k string) (string, bool) {
			switch k {
			case KeyVersion:
				return SchemaVersion, true
			case tc.key:
				return tc.value, true
			}
			return "", false
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: error %v, want one containing %q", tc.key, tc.value, err, tc.want)
		}
	}
}

// FuzzTimelineMeta feeds arbitrary JSON to the initial-hold and cluster-event decoders: they
// must return an error or rows whose count matches the columns, never panic.
func FuzzTimelineMeta(f *testing.F) {
	f.Add(`{"machine":[0,1],"start":[0,1],"end":[1,2],"demand":[[1,1],[2,2]]}`, `{"t":[1,2],"kind":["remove","add"],"machine":[0,0],"capacity":[[0,1]]}`)
	f.Add(`{"machine":[0],"start":[0]}`, `{"t":[1],"kind":["resize"],"machine":[9],"capacity":[[1],[1],[1],[1],[1],[1]]}`)
	f.Fuzz(func(t *testing.T, initial, events string) {
		m, _, err := parseMeta(fuzzLimits, func(k string) (string, bool) {
			switch k {
			case KeyVersion:
				return SchemaVersion, true
			case KeyInitial:
				return initial, true
			case KeyClusterEvents:
				return events, true
			}
			return "", false
		})
		if err == nil && (len(m.Initial) > MaxTimelineRows || len(m.ClusterEvents) > MaxTimelineRows) {
			t.Fatalf("%d holds, %d events", len(m.Initial), len(m.ClusterEvents))
		}
	})
}
