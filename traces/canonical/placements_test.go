package canonical

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// A workload's trace placements survive a write and a read in both formats and change its hash;
// a workload without them writes no placements key.
func TestPlacementsRoundTrip(t *testing.T) {
	w := &traces.Workload{Name: "p", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(3, traces.VecOf(1, 1), 0),
		Jobs:       []traces.Job{{ID: 7, Stages: []traces.Stage{{Name: "a", Tasks: 2, Demand: traces.VecOf(0.5, 0.5), Duration: 5, Estimate: 5}}}},
		Placements: []traces.TaskPlacement{{Job: 7, Stage: 0, Task: 1, Machine: 2, Start: 3}, {Job: 7, Stage: 0, Task: 0, Machine: 0, Start: 9}},
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
		if !reflect.DeepEqual(back.Placements, w.Placements) {
			t.Errorf("%s: read back %v", ext, back.Placements)
		}
		if back.Hash() != w.Hash() {
			t.Errorf("%s: hash changed", ext)
		}
	}
	plain := *w
	plain.Placements = nil
	md, err := MetaOf(&plain).metadata()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range md.Keys() {
		if k == KeyPlacements {
			t.Errorf("a workload without placements writes key %s", k)
		}
	}
	if plain.Hash() == w.Hash() {
		t.Error("placements do not change the workload hash")
	}
}

func TestPlacementsBadMeta(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{`{"job_id":[1,2],"stage":[0],"task":[0,0],"machine":[0,0],"start":[0,0]}`, "columns of 2 and 1 rows"},
		{`{"job_id":[1],"stage":[0],"task":[0],"machine":[0],"start":["x"]}`, "schedlab.placements"},
		{`[`, "schedlab.placements"},
		{strings.Repeat(" ", 64*MaxTimelineRows+1), "too large"},
	} {
		_, _, err := parseMeta(fuzzLimits, func(k string) (string, bool) {
			switch k {
			case KeyVersion:
				return SchemaVersion, true
			case KeyPlacements:
				return tc.value, true
			}
			return "", false
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: error %v, want one containing %q", tc.value, err, tc.want)
		}
	}
}

// FuzzPlacementsMeta feeds arbitrary JSON to the placements decoder: it must return an error or
// as many placements as the columns have rows, never panic.
func FuzzPlacementsMeta(f *testing.F) {
	f.Add(`{"job_id":[1,1],"stage":[0,0],"task":[0,1],"machine":[3,4],"start":[5,6]}`)
	f.Add(`{"job_id":[1],"stage":[0]}`)
	f.Fuzz(func(t *testing.T, s string) {
		m, _, err := parseMeta(fuzzLimits, func(k string) (string, bool) {
			switch k {
			case KeyVersion:
				return SchemaVersion, true
			case KeyPlacements:
				return s, true
			}
			return "", false
		})
		if err == nil && len(m.Placements) > MaxTimelineRows {
			t.Fatalf("%d placements", len(m.Placements))
		}
	})
}
