package traces

import (
	"errors"
	"strings"
	"testing"
)

func placementsWorkload(ps ...TaskPlacement) *Workload {
	return &Workload{Name: "p", Dims: []string{"cpu", "mem"}, Cluster: Uniform(2, VecOf(1, 1), 0), Placements: ps,
		Jobs: []Job{{ID: 5, Stages: []Stage{{Name: "a", Tasks: 2, Demand: VecOf(0.5, 0.5), Duration: 10, Estimate: 10}}}}}
}

func TestCheckPlacements(t *testing.T) {
	for _, tc := range []struct {
		name string
		ps   []TaskPlacement
		want string // "" valid
	}{
		{"valid", []TaskPlacement{{Job: 5, Task: 1, Machine: 1, Start: 2}, {Job: 5, Task: 0, Machine: 0, Start: 3}}, ""},
		{"a dropped job", []TaskPlacement{{Job: 9, Stage: 4, Task: 7, Machine: 1}}, ""},
		{"unsorted", []TaskPlacement{{Job: 5, Start: 3}, {Job: 5, Task: 1, Start: 2}}, "not sorted"},
		{"duplicate", []TaskPlacement{{Job: 5, Start: 3}, {Job: 5, Start: 3}}, "duplicate"},
		{"machine", []TaskPlacement{{Job: 5, Machine: 2}}, "machine 2 out of range"},
		{"start", []TaskPlacement{{Job: 5, Start: -1}}, "start -1"},
		{"stage", []TaskPlacement{{Job: 5, Stage: 1}}, "no stage 1"},
		{"task", []TaskPlacement{{Job: 5, Task: 2}}, "no task 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := placementsWorkload(tc.ps...).Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "placements[") {
				t.Errorf("error %v, want one naming placements[i] and containing %q", err, tc.want)
			}
		})
	}
}

// Rebasing a window moves placements with the jobs; starts before the new origin become 0 and
// the order (job, stage, start, task) is kept.
func TestShiftPlacements(t *testing.T) {
	w := placementsWorkload(TaskPlacement{Job: 5, Task: 1, Start: 4}, TaskPlacement{Job: 5, Task: 0, Start: 5})
	w.ShiftTimeline(6) // both start at 0 now: task 0 comes first
	want := []TaskPlacement{{Job: 5, Task: 0, Start: 0}, {Job: 5, Task: 1, Start: 0}}
	if len(w.Placements) != 2 || w.Placements[0] != want[0] || w.Placements[1] != want[1] {
		t.Errorf("shifted: %v, want %v", w.Placements, want)
	}
	if err := w.Validate(); err != nil {
		t.Error(err)
	}
}
