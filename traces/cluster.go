package traces

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
)

// # A cluster that changes, and load that was there before the workload
//
// Two optional parts of a Workload describe what its jobs do not: capacity held by work that was
// already running when the workload begins (Initial), and machines that join, leave or change
// capacity while it runs (ClusterEvents). Both are empty for a workload that starts on an empty,
// fixed cluster, and then cost nothing.
//
// Initial holds are background load: the replay takes each hold's demand from its machine at
// Start and gives it back at End. Policies see the capacity as used (View.Free) but cannot start,
// move or preempt it; it is not a job, so it counts in no job metric. A trace window that begins
// mid-life (package google2011) fills it with the tasks running at the window's start.

// Hold is capacity held on one machine over [Start, End) by work outside the workload's jobs.
type Hold struct {
	Machine int32 // index into Cluster.Machines
	Start   Time
	End     Time // > Start
	Demand  Vec
}

// ClusterEventKind says what a ClusterEvent does to its machine.
type ClusterEventKind uint8

// Cluster event kinds. A machine whose first event is an add is down from the start until then;
// every other machine is up from the start with its Cluster capacity.
const (
	MachineAdd    ClusterEventKind = 1 // the machine joins with Capacity
	MachineRemove ClusterEventKind = 2 // the machine leaves: its running tasks are killed
	MachineResize ClusterEventKind = 3 // an up machine's capacity becomes Capacity
)

var clusterEventNames = [...]string{MachineAdd: "add", MachineRemove: "remove", MachineResize: "resize"}

// String returns "add", "remove" or "resize".
func (k ClusterEventKind) String() string {
	if int(k) < len(clusterEventNames) && clusterEventNames[k] != "" {
		return clusterEventNames[k]
	}
	return fmt.Sprintf("ClusterEventKind(%d)", uint8(k))
}

// ParseClusterEventKind returns the kind named s ("add", "remove", "resize").
func ParseClusterEventKind(s string) (ClusterEventKind, bool) {
	for k, n := range clusterEventNames {
		if n != "" && n == s {
			return ClusterEventKind(k), true
		}
	}
	return 0, false
}

// ClusterEvent is a change of one machine at time T.
type ClusterEvent struct {
	T        Time
	Kind     ClusterEventKind
	Machine  int32 // index into Cluster.Machines
	Capacity Vec   // add and resize: the machine's capacity from T on
}

// InitiallyDown returns, per machine, whether it is down at the start: its first cluster event
// is an add. It is nil when no machine is.
func (w *Workload) InitiallyDown() []bool {
	return InitiallyDown(len(w.Cluster.Machines), w.ClusterEvents)
}

// InitiallyDown returns, per machine of n, whether events begin it with an add; nil when none do.
func InitiallyDown(n int, events []ClusterEvent) []bool {
	var down []bool
	seen := make(map[int32]bool)
	for _, ev := range events {
		if seen[ev.Machine] {
			continue
		}
		seen[ev.Machine] = true
		if ev.Kind == MachineAdd {
			if down == nil {
				down = make([]bool, n)
			}
			down[ev.Machine] = true
		}
	}
	return down
}

// checkCluster validates Initial and ClusterEvents against the cluster: machines in range and
// not pooled for events, times in range and ordered, positive intervals, amounts non-negative,
// and a life cycle per machine (add only a down machine, remove and resize only an up one).
func (w *Workload) checkCluster() error {
	n := int32(len(w.Cluster.Machines))
	bad := func(field string, i int, format string, args ...any) error {
		return &InvalidError{Job: -1, Stage: -1, Field: fmt.Sprintf("%s[%d]", field, i), Msg: fmt.Sprintf(format, args...)}
	}
	for i, h := range w.Initial {
		switch {
		case h.Machine < 0 || h.Machine >= n:
			return bad("initial", i, "machine %d out of range (cluster has %d)", h.Machine, n)
		case h.Start < 0 || h.End > MaxTime || h.End <= h.Start:
			return bad("initial", i, "interval [%d, %d) is empty or outside 0..%d µs", h.Start, h.End, MaxTime)
		case h.Demand.AnyNegative() || h.Demand.IsZero():
			return bad("initial", i, "demand %v must be non-negative and not zero", h.Demand)
		}
	}
	if len(w.ClusterEvents) == 0 {
		return nil
	}
	if w.Cluster.Pooled {
		return bad("cluster_events", 0, "a pooled cluster has no machines to change")
	}
	up := make([]bool, n)
	for m := range up {
		up[m] = true
	}
	for m, d := range w.InitiallyDown() {
		up[m] = !d
	}
	var prev Time
	for i, ev := range w.ClusterEvents {
		switch {
		case ev.Machine < 0 || ev.Machine >= n:
			return bad("cluster_events", i, "machine %d out of range (cluster has %d)", ev.Machine, n)
		case ev.T < 0 || ev.T > MaxTime:
			return bad("cluster_events", i, "time %d outside 0..%d µs", ev.T, MaxTime)
		case ev.T < prev:
			return bad("cluster_events", i, "not sorted by time (%d after %d)", ev.T, prev)
		case ev.Capacity.AnyNegative():
			return bad("cluster_events", i, "negative capacity %v", ev.Capacity)
		}
		prev = ev.T
		switch ev.Kind {
		case MachineAdd:
			if up[ev.Machine] {
				return bad("cluster_events", i, "add of machine %d, which is up", ev.Machine)
			}
			up[ev.Machine] = true
		case MachineRemove:
			if !up[ev.Machine] {
				return bad("cluster_events", i, "remove of machine %d, which is down", ev.Machine)
			}
			up[ev.Machine] = false
		case MachineResize:
			if !up[ev.Machine] {
				return bad("cluster_events", i, "resize of machine %d, which is down", ev.Machine)
			}
		default:
			return bad("cluster_events", i, "unknown kind %d (add, remove or resize)", ev.Kind)
		}
	}
	return nil
}

// hashCluster adds Initial and ClusterEvents to a workload hash; nothing when both are empty, so
// the hashes of workloads without them are unchanged.
func (w *Workload) hashCluster(h hash.Hash, i64 func(int64), vec func(Vec)) {
	if len(w.Initial) == 0 && len(w.ClusterEvents) == 0 {
		return
	}
	h.Write([]byte("cluster-timeline"))
	i64(int64(len(w.Initial)))
	for _, x := range w.Initial {
		i64(int64(x.Machine))
		i64(x.Start)
		i64(x.End)
		vec(x.Demand)
	}
	i64(int64(len(w.ClusterEvents)))
	for _, ev := range w.ClusterEvents {
		i64(ev.T)
		i64(int64(ev.Kind))
		i64(int64(ev.Machine))
		vec(ev.Capacity)
	}
}

// TaskFault is a trace's ending of a task's run by EVICT, FAIL or KILL before the run the
// workload keeps as the task (its last): replayed (replay Config.TraceEvictions) it kills the
// task at T if it is running then, a fault injection independent of the policy. Job is the
// job's ID (Job.ID), Stage and Task index the task within it; Kind is TaskEvicted, TaskFailed
// or TaskKilled.
type TaskFault struct {
	T     Time
	Job   int64
	Stage int32
	Task  int32
	Kind  TaskOutcome
}

// checkFaults validates Faults: sorted by time, stages and tasks that exist in their job, and
// kinds. A fault of a job not in the workload (shaping dropped it) is allowed; the replay skips it.
func (w *Workload) checkFaults() error {
	if len(w.Faults) == 0 {
		return nil
	}
	byID := make(map[int64]int, len(w.Jobs))
	for i := range w.Jobs {
		byID[w.Jobs[i].ID] = i
	}
	var prev Time
	for i, f := range w.Faults {
		bad := func(format string, args ...any) error {
			return &InvalidError{Job: -1, Stage: -1, Field: fmt.Sprintf("faults[%d]", i), Msg: fmt.Sprintf(format, args...)}
		}
		ji, ok := byID[f.Job]
		switch {
		case f.T < prev || f.T > MaxTime:
			return bad("time %d not sorted or beyond %d µs", f.T, MaxTime)
		case ok && (f.Stage < 0 || int(f.Stage) >= len(w.Jobs[ji].Stages)):
			return bad("job %d has no stage %d", f.Job, f.Stage)
		case ok && (f.Task < 0 || f.Task >= w.Jobs[ji].Stages[f.Stage].Tasks):
			return bad("job %d stage %d has no task %d", f.Job, f.Stage, f.Task)
		case f.Kind != TaskEvicted && f.Kind != TaskFailed && f.Kind != TaskKilled:
			return bad("kind %s (want evicted, failed or killed)", f.Kind)
		}
		prev = f.T
	}
	return nil
}

// HashFaults returns a hex SHA-256 of Faults ("" without any). Workload.Hash leaves them out, so
// the hash of an imported trace (and the results that record it) does not change with them: the
// replay reads them only under engine.trace_evictions: replay, which the configuration records.
func (w *Workload) HashFaults() string {
	if len(w.Faults) == 0 {
		return ""
	}
	h := sha256.New()
	var buf [8]byte
	i64 := func(x int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		h.Write(buf[:])
	}
	w.hashFaults(h, i64)
	return hex.EncodeToString(h.Sum(nil))
}

// hashFaults adds Faults to a hash; nothing when there are none.
func (w *Workload) hashFaults(h hash.Hash, i64 func(int64)) {
	if len(w.Faults) == 0 {
		return
	}
	h.Write([]byte("task-faults"))
	i64(int64(len(w.Faults)))
	for _, f := range w.Faults {
		i64(f.T)
		i64(f.Job)
		i64(int64(f.Stage))
		i64(int64(f.Task))
		i64(int64(f.Kind))
	}
}

// ShiftTimeline moves Initial, ClusterEvents, Faults and Placements by -by, as rebasing a time window moves
// its jobs: holds that ended by then are dropped and the rest start at 0 at the earliest; cluster
// events from before take effect at 0 (in order, so the machines' life cycles stay whole); faults
// from before are dropped.
func (w *Workload) ShiftTimeline(by Time) {
	if by == 0 {
		return
	}
	hs := w.Initial[:0]
	for _, h := range w.Initial {
		if h.End-by <= 0 {
			continue
		}
		h.Start, h.End = max(h.Start-by, 0), h.End-by
		hs = append(hs, h)
	}
	w.Initial = hs
	for i := range w.ClusterEvents {
		w.ClusterEvents[i].T = max(w.ClusterEvents[i].T-by, 0)
	}
	fs := w.Faults[:0]
	for _, f := range w.Faults {
		if f.T -= by; f.T >= 0 {
			fs = append(fs, f)
		}
	}
	w.Faults = fs
	w.shiftPlacements(by)
}
