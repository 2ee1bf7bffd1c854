// Package traces holds schedlab's workload model — the vocabulary every reader produces and every
// policy and the replay engine consume — plus the code that checks and fingerprints a workload.
//
// Time is simulated time in int64 microseconds. Resource amounts are fixed-point integers (Unit
// per whole unit, e.g. one machine's cpu = 1.0 = Unit), so capacity arithmetic is exact and
// replays are bit-for-bit deterministic. Readers for concrete trace formats live in subpackages
// (traces/tpcdag, traces/google2011, ...).
package traces

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Time is simulated time in microseconds.
type Time = int64

// Common durations in simulated time.
const (
	Microsecond Time = 1
	Millisecond Time = 1000
	Second      Time = 1_000_000
	Minute      Time = 60 * Second
	Hour        Time = 60 * Minute
)

// Seconds converts a simulated duration to float seconds (for reporting only).
func Seconds(t Time) float64 { return float64(t) / float64(Second) }

// FromSeconds converts float seconds to simulated time, rounding to the nearest microsecond.
func FromSeconds(s float64) Time { return Time(math.Round(s * float64(Second))) }

// MaxDims is the largest number of resource dimensions a workload may use (cpu, mem and up to
// four more, as in the Carbyne/BoPF TPC and BigBench traces).
const MaxDims = 6

// Unit is the fixed-point scale of resource amounts: a demand of 0.19 machines is 190,000.
const Unit int64 = 1_000_000

// Vec is a resource vector in fixed-point units; dimensions beyond the workload's are zero.
type Vec [MaxDims]int64

// MaxAmount is the largest magnitude of one resource amount in fixed-point units: 2⁵³ (about
// 9.0e9 whole units), so every amount converts to float64 and back exactly, and the sum over a
// thousand machines still fits in int64 (Validate checks a cluster's total).
const MaxAmount int64 = 1 << 53

// ErrRange is wrapped by CheckedAmount's and CheckedVec's errors.
var ErrRange = errors.New("outside the fixed-point range")

// CheckedAmount converts a float amount in whole units to fixed point, rounding to the nearest
// unit. An amount that is not a number or whose magnitude exceeds MaxAmount units is an error
// wrapping ErrRange, never a clamp: readers of trace data convert through it (or CheckedVec) and
// report the error at the record.
func CheckedAmount(x float64) (int64, error) {
	f := math.Round(x * float64(Unit))
	if math.IsNaN(f) || math.Abs(f) > float64(MaxAmount) {
		return 0, fmt.Errorf("%v is %w (magnitude at most %.4g units)", x, ErrRange, float64(MaxAmount)/float64(Unit))
	}
	return int64(f), nil
}

// CheckedVec converts float amounts to a Vec as CheckedAmount does; the error of an amount out of
// range names its dimension index. More than MaxDims amounts are an error too.
func CheckedVec(xs ...float64) (Vec, error) {
	var v Vec
	if len(xs) > MaxDims {
		return v, fmt.Errorf("%d amounts, at most %d dimensions", len(xs), MaxDims)
	}
	for i, x := range xs {
		a, err := CheckedAmount(x)
		if err != nil {
			return Vec{}, fmt.Errorf("dimension %d: %w", i, err)
		}
		v[i] = a
	}
	return v, nil
}

// VecOf converts float amounts to a Vec, rounding each to the nearest fixed-point unit. It is for
// amounts known to be in range — constants and validated options; it does not check. Data read
// from a trace goes through CheckedVec, which reports an amount out of range as an error.
func VecOf(xs ...float64) Vec {
	var v Vec
	for i, x := range xs {
		if i < MaxDims {
			v[i] = int64(math.Round(x * float64(Unit)))
		}
	}
	return v
}

// Add returns v+w.
func (v Vec) Add(w Vec) Vec {
	for i := range v {
		v[i] += w[i]
	}
	return v
}

// Sub returns v-w.
func (v Vec) Sub(w Vec) Vec {
	for i := range v {
		v[i] -= w[i]
	}
	return v
}

// Scale returns v*k.
func (v Vec) Scale(k int64) Vec {
	for i := range v {
		v[i] *= k
	}
	return v
}

// Fits reports whether v ≤ w in every dimension (v fits into free capacity w).
func (v Vec) Fits(w Vec) bool {
	for i := range v {
		if v[i] > w[i] {
			return false
		}
	}
	return true
}

// IsZero reports whether every dimension is zero.
func (v Vec) IsZero() bool { return v == Vec{} }

// AnyNegative reports whether some dimension is below zero.
func (v Vec) AnyNegative() bool {
	for _, x := range v {
		if x < 0 {
			return true
		}
	}
	return false
}

// DominantShare returns max_i v[i]/total[i] over dimensions with positive total.
func (v Vec) DominantShare(total Vec) float64 {
	s := 0.0
	for i := range v {
		if total[i] > 0 {
			if f := float64(v[i]) / float64(total[i]); f > s {
				s = f
			}
		}
	}
	return s
}

// Float returns dimension i as a float amount (x / Unit).
func (v Vec) Float(i int) float64 { return float64(v[i]) / float64(Unit) }

// Format renders the first n dimensions as "[0.19 0.17]".
func (v Vec) Format(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < n && i < MaxDims; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%g", v.Float(i))
	}
	b.WriteByte(']')
	return b.String()
}

// Machine is one node of a cluster.
type Machine struct {
	Name     string
	Capacity Vec
	Rack     string
	GPU      bool
	Platform string
}

// Cluster is the set of machines a workload runs on. In pooled mode the engine treats the cluster
// as one capacity vector (the sum of all machines), as CORA counts containers and BPF's simulator
// shares its cluster.
type Cluster struct {
	Machines []Machine
	Pooled   bool
}

// Total returns the summed capacity of all machines.
func (c *Cluster) Total() Vec {
	var t Vec
	for _, m := range c.Machines {
		t = t.Add(m.Capacity)
	}
	return t
}

// Uniform returns a cluster of n identical machines spread over racks of rackSize machines.
func Uniform(n int, capacity Vec, rackSize int) Cluster {
	c := Cluster{Machines: make([]Machine, n)}
	for i := range c.Machines {
		rack := 0
		if rackSize > 0 {
			rack = i / rackSize
		}
		c.Machines[i] = Machine{Name: fmt.Sprintf("m%d", i), Capacity: capacity, Rack: fmt.Sprintf("r%d", rack)}
	}
	return c
}

// Features are the job attributes a runtime predictor may group history by (JamaisVu §3).
type Features struct {
	User           string
	JobName        string
	LogicalJobName string
}

// UtilityKind names a completion-time utility family.
type UtilityKind string

// Utility families from the CORA paper.
const (
	// UtilitySigmoid is U(t) = p / (1 + exp(μ (t - d))) with t and d in seconds (CORA eq. 11).
	UtilitySigmoid UtilityKind = "sigmoid"
	// UtilityLinear is U(t) = max(0, p + slope·(t - submit)) for t ≤ d and 0 after d (CORA §III-D3).
	UtilityLinear UtilityKind = "linear"
	// UtilityConstant is U(t) = p: a completion-time-insensitive job.
	UtilityConstant UtilityKind = "constant"
)

// Utility is a non-increasing utility of a job's completion time.
type Utility struct {
	Kind     UtilityKind
	Priority float64 // p: the utility's height
	Decay    float64 // μ for sigmoid (per second)
	Slope    float64 // utility per second for linear (negative)
	Target   Time    // d: absolute target completion time
}

// Value returns the utility of completing at absolute time t for a job submitted at submit.
func (u *Utility) Value(submit, t Time) float64 {
	switch u.Kind {
	case UtilitySigmoid:
		x := u.Decay * Seconds(t-u.Target)
		if x > 700 {
			return 0
		}
		return u.Priority / (1 + math.Exp(x))
	case UtilityLinear:
		if t > u.Target {
			return 0
		}
		return math.Max(0, u.Priority+u.Slope*Seconds(t-submit))
	default:
		return u.Priority
	}
}

// TimeSensitive reports whether the utility depends on the completion time: false for constant
// utilities and for sigmoids with decay 0 (CORA's CT-insensitive jobs); truncated linear
// utilities drop to 0 after the target, so they always are.
func (u *Utility) TimeSensitive() bool {
	switch u.Kind {
	case UtilitySigmoid:
		return u.Decay != 0
	case UtilityLinear:
		return true
	}
	return false
}

// Stage is a set of identical parallel tasks; it becomes runnable when all its parents finished.
type Stage struct {
	Name     string
	Tasks    int32
	Demand   Vec  // per task
	Duration Time // true duration of each task
	Estimate Time // the estimated task duration a scheduler sees
	// TaskDurations optionally overrides Duration per task (len == Tasks) for traces with
	// heterogeneous tasks.
	TaskDurations []Time
	Parents       []int32 // indices of stages this stage waits for
	// History optionally summarizes what the source trace recorded of each task (len == Tasks):
	// how often it ran and was evicted, and how its last run ended. The engine does not use it;
	// it is kept for fault-replay work and for filtering right-censored tasks.
	History []TaskHistory
}

// TaskOutcome says how the last run of a task in the source trace ended.
type TaskOutcome int8

// Task outcomes.
const (
	TaskFinished TaskOutcome = iota // completed normally
	// TaskRunning: still running when the trace ended; the task's duration is the run observed
	// so far (right-censored).
	TaskRunning
	TaskEvicted // descheduled and not run again before the trace ended
	TaskFailed  // failed, not run again
	TaskKilled  // cancelled by its user or a dependency
	TaskLost    // presumably terminated, the record is missing
)

// NumTaskOutcomes is the number of task outcomes (TaskFinished .. TaskLost).
const NumTaskOutcomes = 6

var taskOutcomeNames = [NumTaskOutcomes]string{"finished", "running", "evicted", "failed", "killed", "lost"}

// String returns the outcome's name: "finished", "running", "evicted", "failed", "killed" or
// "lost".
func (o TaskOutcome) String() string {
	if o >= 0 && int(o) < len(taskOutcomeNames) {
		return taskOutcomeNames[o]
	}
	return fmt.Sprintf("TaskOutcome(%d)", int8(o))
}

// TaskHistory summarizes one task of a trace beyond its duration. The task's duration in the
// workload is that of its last run, which Outcome describes.
type TaskHistory struct {
	Attempts  int32       // runs started (≥ 1)
	Evictions int32       // runs ended by an eviction (≤ Attempts)
	Outcome   TaskOutcome // how the last run ended
}

// TaskDuration returns the true duration of task i.
func (s *Stage) TaskDuration(i int32) Time {
	if s.TaskDurations != nil {
		return s.TaskDurations[i]
	}
	return s.Duration
}

// Placement kinds (Placement.Kind).
const (
	PlacementNone = ""     // no constraint
	PlacementGPU  = "gpu"  // every task on a machine with GPU = true
	PlacementRack = "rack" // all of the job's tasks on machines of one rack (an MPI-style job)
)

// Placement is a job's placement constraint, hard or soft, as in JamaisVu's SLO jobs (JamaisVu
// §5): a hard constraint may only be met where it holds, a soft one states a preference that may
// be ignored at the cost of the job's tasks running Slowdown times longer elsewhere. Task
// durations in the workload are those on the preferred resources.
//
// Policies decide placement; the replay engine owns the consequences (package replay, "Placement
// constraints"): it rejects a start that puts a hard-constrained job off its preferred resources
// as an invalid plan, and a soft-constrained job whose running tasks are not all on preferred
// resources when a task starts has that task run Slowdown times its duration. In pooled mode
// there are no machines to prefer and constraints have no effect. The zero value is no
// constraint.
type Placement struct {
	// Kind is PlacementNone (""), PlacementGPU ("gpu": GPU machines only) or PlacementRack
	// ("rack": all tasks in one rack).
	Kind string
	// Hard constraints must be met; soft ones are preferred, and elsewhere tasks run Slowdown
	// times longer.
	Hard bool
	// Slowdown is the runtime factor off the preferred resources: ≥ 1 for soft constraints
	// (JamaisVu §5 uses 1.4 and 1.5); 0 for hard constraints and none.
	Slowdown float64
}

// IsZero reports whether p is no constraint.
func (p Placement) IsZero() bool { return p == Placement{} }

// String renders p as "hard:gpu", "soft:rack:1.5", or "" for no constraint.
func (p Placement) String() string {
	switch {
	case p.IsZero():
		return ""
	case p.Hard:
		return "hard:" + p.Kind
	}
	return "soft:" + p.Kind + ":" + strconv.FormatFloat(p.Slowdown, 'g', -1, 64)
}

// Job is one submitted job: a DAG of stages plus the labels schedulers and metrics use.
type Job struct {
	ID       int64 // the trace's job id
	Name     string
	Submit   Time
	Queue    string
	Class    string // e.g. "slo", "be", "lq", "tq"
	Priority int
	Weight   float64 // fair-share weight; 0 means 1
	Features Features
	Deadline Time // absolute; 0 = none
	Utility  *Utility
	// Placement is the job's placement constraint (zero: none); see Placement.
	Placement Placement
	Stages    []Stage
}

// Tasks returns the total number of tasks of the job.
func (j *Job) Tasks() int64 {
	var n int64
	for i := range j.Stages {
		n += int64(j.Stages[i].Tasks)
	}
	return n
}

// Work returns the job's total true task-time, summed over tasks (µs).
func (j *Job) Work() Time {
	var w Time
	for i := range j.Stages {
		s := &j.Stages[i]
		if s.TaskDurations != nil {
			for _, d := range s.TaskDurations {
				w += d
			}
			continue
		}
		w += Time(s.Tasks) * s.Duration
	}
	return w
}

// CriticalPath returns the longest chain of true (or estimated) per-task durations through the DAG:
// the job's runtime with unlimited resources. It is safe on a job that was never validated: a
// parent out of range is ignored, and so is the edge that closes a dependency cycle. It takes
// time linear in the stages and parents (an explicit stack, so a long chain cannot exhaust the
// goroutine stack), and saturates at math.MaxInt64 rather than wrapping.
func (j *Job) CriticalPath(estimated bool) Time {
	n := len(j.Stages)
	finish := make([]Time, n)
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	type frame struct{ s, next int }
	var stack []frame
	var cp Time
	for root := range j.Stages {
		if color[root] != white {
			continue
		}
		color[root] = grey
		stack = append(stack[:0], frame{root, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			parents := j.Stages[top.s].Parents
			if top.next < len(parents) {
				p := int(parents[top.next])
				top.next++
				if p >= 0 && p < n && color[p] == white {
					color[p] = grey
					stack = append(stack, frame{p, 0})
				}
				continue
			}
			// All parents are finished (or ignored): the stage starts when the last one ends.
			var start Time
			for _, p := range parents {
				if p >= 0 && int(p) < n && color[p] == black {
					start = max(start, finish[p])
				}
			}
			s := &j.Stages[top.s]
			d := s.Duration
			if estimated {
				d = s.Estimate
			} else if s.TaskDurations != nil {
				for _, x := range s.TaskDurations {
					d = max(d, x)
				}
			}
			finish[top.s] = addSat(start, max(d, 0))
			cp = max(cp, finish[top.s])
			color[top.s] = black
			stack = stack[:len(stack)-1]
		}
	}
	return cp
}

// addSat returns a+b for b ≥ 0, saturating at math.MaxInt64.
func addSat(a, b Time) Time {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Workload is a set of jobs ordered by submit time, with the cluster they were profiled on.
type Workload struct {
	Name    string
	Source  string   // where the data came from (file paths, generator and seed)
	Dims    []string // names of the resource dimensions in use, e.g. ["cpu", "mem"]
	Cluster Cluster
	Jobs    []Job
	// Initial is capacity held from before the workload (e.g. a trace window's running tasks) and
	// ClusterEvents the machines' changes over time, both optional: see cluster.go.
	Initial       []Hold
	ClusterEvents []ClusterEvent
	// Faults are the trace's evictions, failures and kills of earlier runs of the workload's
	// tasks (cluster.go), replayed only on request.
	Faults []TaskFault
	// Placements are where and when the source trace started each task (placements.go),
	// optional; only the `trace` policy reads them.
	Placements []TaskPlacement
}

// Tasks returns the number of tasks over all jobs.
func (w *Workload) Tasks() int64 {
	var n int64
	for i := range w.Jobs {
		n += w.Jobs[i].Tasks()
	}
	return n
}
