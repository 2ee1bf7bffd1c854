package google2011

import (
	"errors"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// With Options.Placements each imported task keeps its last SCHEDULE's machine (mapped as the
// holds' are: IDs 1, 4, 5, 6 are machines 0..3) and time: 107 was evicted at 2350 s and ran
// again from 2360 s, 106 was rescheduled at 2500 s after its eviction. Without the option the
// workload has none and hashes as before.
func TestPlacements(t *testing.T) {
	s := traces.Second
	w, st, err := WorkloadStats(initialSource(), Options{Placements: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []traces.TaskPlacement{{Job: 105, Machine: 2, Start: 2300 * s}, {Job: 106, Machine: 3, Start: 2500 * s}, {Job: 107, Machine: 2, Start: 2360 * s}}
	if !reflect.DeepEqual(w.Placements, want) {
		t.Errorf("placements\n got %v\nwant %v", w.Placements, want)
	}
	if st.Placements != 3 || st.PlacementsOff != 0 {
		t.Errorf("stats: %d placements, %d off the cluster", st.Placements, st.PlacementsOff)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	plain, err := Workload(initialSource(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Placements != nil {
		t.Errorf("placements without the option: %v", plain.Placements)
	}
	w.Placements = nil
	if w.Hash() != plain.Hash() {
		t.Error("the option changed more than the placements")
	}
	if _, err := Workload(initialSource(), Options{Placements: true, Level: LevelJob}); !errors.Is(err, ErrOptions) {
		t.Errorf("job-level import with placements: %v, want an options error", err)
	}
}
