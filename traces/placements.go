package traces

import (
	"cmp"
	"fmt"
	"hash"
	"slices"
)

// # Where and when the trace ran each task
//
// A trace that records its own scheduler's decisions (Google 2011's SCHEDULE events carry a
// machine and a time) can keep them as Placements: for each task of the workload, the machine
// and the time its last run started. They are optional: a workload without them has none, costs
// nothing, and hashes as before. The replay engine does not read them; the `trace` policy
// (policies/tracepolicy) does, to replay the trace's own decisions as a check of the model
// against the trace.

// TaskPlacement is where and when the source trace started one task (its last run): the task
// Task of stage Stage of the job whose ID (Job.ID) is Job, on machine Machine (an index into
// Cluster.Machines) at Start.
type TaskPlacement struct {
	Job     int64
	Stage   int32
	Task    int32
	Machine int32
	Start   Time
}

// ComparePlacements orders placements by job ID, stage, start time and task: the order
// Workload.Placements keeps.
func ComparePlacements(a, b TaskPlacement) int {
	if c := cmp.Compare(a.Job, b.Job); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Stage, b.Stage); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return cmp.Compare(a.Task, b.Task)
}

// SortPlacements puts placements in the order ComparePlacements defines.
func SortPlacements(ps []TaskPlacement) { slices.SortFunc(ps, ComparePlacements) }

// checkPlacements validates Placements: sorted (ComparePlacements) without duplicates, machines
// in range, times within [0, MaxTime], and stages and tasks that exist in their job. A placement
// of a job not in the workload (shaping dropped it) is allowed, as for faults: nothing reads it.
func (w *Workload) checkPlacements() error {
	if len(w.Placements) == 0 {
		return nil
	}
	n := int32(len(w.Cluster.Machines))
	byID := make(map[int64]int, len(w.Jobs))
	for i := range w.Jobs {
		byID[w.Jobs[i].ID] = i
	}
	for i, p := range w.Placements {
		bad := func(format string, args ...any) error {
			return &InvalidError{Job: -1, Stage: -1, Field: fmt.Sprintf("placements[%d]", i), Msg: fmt.Sprintf(format, args...)}
		}
		ji, ok := byID[p.Job]
		switch {
		case i > 0 && ComparePlacements(w.Placements[i-1], p) >= 0:
			return bad("not sorted by job, stage, start and task, or a duplicate")
		case w.Cluster.Pooled && p.Machine != 0:
			return bad("machine %d in a pooled cluster (only 0)", p.Machine)
		case p.Machine < 0 || p.Machine >= n:
			return bad("machine %d out of range (cluster has %d)", p.Machine, n)
		case p.Start < 0 || p.Start > MaxTime:
			return bad("start %d outside 0..%d µs", p.Start, MaxTime)
		case ok && (p.Stage < 0 || int(p.Stage) >= len(w.Jobs[ji].Stages)):
			return bad("job %d has no stage %d", p.Job, p.Stage)
		case ok && (p.Task < 0 || p.Task >= w.Jobs[ji].Stages[p.Stage].Tasks):
			return bad("job %d stage %d has no task %d", p.Job, p.Stage, p.Task)
		}
	}
	return nil
}

// hashPlacements adds Placements to a workload hash; nothing when there are none, so the hashes
// of workloads without them are unchanged.
func (w *Workload) hashPlacements(h hash.Hash, i64 func(int64)) {
	if len(w.Placements) == 0 {
		return
	}
	h.Write([]byte("task-placements"))
	i64(int64(len(w.Placements)))
	for _, p := range w.Placements {
		i64(p.Job)
		i64(int64(p.Stage))
		i64(int64(p.Task))
		i64(int64(p.Machine))
		i64(p.Start)
	}
}

// shiftPlacements moves Placements by -by, as rebasing a window moves its jobs; a start before
// the new origin becomes 0 (the task was already running there), and the order is kept.
func (w *Workload) shiftPlacements(by Time) {
	for i := range w.Placements {
		w.Placements[i].Start = max(w.Placements[i].Start-by, 0)
	}
	// Clamping can tie starts within a stage: restore the order (task breaks the tie).
	if !slices.IsSortedFunc(w.Placements, ComparePlacements) {
		SortPlacements(w.Placements)
	}
}
