package traces

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"strings"
)

// ErrInvalid is wrapped by every workload validation error.
var ErrInvalid = errors.New("traces: invalid workload")

// InvalidError locates a validation failure at a job (by index and trace id), stage and field.
type InvalidError struct {
	Job   int   // index in Workload.Jobs, -1 for workload-level problems
	JobID int64 // the trace's id
	Stage int   // -1 when the problem is not in a stage
	Field string
	Msg   string
}

func (e *InvalidError) Error() string {
	switch {
	case e.Job < 0:
		return fmt.Sprintf("traces: workload: %s: %s", e.Field, e.Msg)
	case e.Stage < 0:
		return fmt.Sprintf("traces: job %d (id %d): %s: %s", e.Job, e.JobID, e.Field, e.Msg)
	default:
		return fmt.Sprintf("traces: job %d (id %d) stage %d: %s: %s", e.Job, e.JobID, e.Stage, e.Field, e.Msg)
	}
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// SortJobs orders jobs by (submit time, trace id), stably.
func (w *Workload) SortJobs() {
	slices.SortStableFunc(w.Jobs, func(a, b Job) int {
		if a.Submit != b.Submit {
			if a.Submit < b.Submit {
				return -1
			}
			return 1
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// MaxTime is the latest simulated time a workload may name: 2⁵³ µs, about 285 years. Submit
// times, deadlines, utility targets and durations are checked against it, and so is each job's
// submit plus its critical path; the workload's total task time after its last submit must stay
// below half of int64, so the engine's clock (which adds durations to the clock) cannot
// overflow however the policy orders the work.
const MaxTime Time = 1 << 53

// Validate checks everything the engine relies on: jobs sorted by submit time, times within
// [0, MaxTime], well-formed placement constraints (a known kind; a finite slowdown, ≥ 1 when
// soft), well-formed utilities (a known kind, finite non-negative priority and decay, a finite
// non-positive slope), stages with at least one task, positive durations, demands that fit on
// one machine (in pooled mode: within the cluster's total), parents in range, an acyclic DAG,
// and task histories (when present) with one entry per task, at least one attempt, no more
// evictions than attempts and a known outcome. The first problem found is returned as an
// *InvalidError.
func (w *Workload) Validate() error {
	c, err := NewChecker(w.Dims, &w.Cluster)
	if err != nil {
		return err
	}
	for ji := range w.Jobs {
		if err := c.Job(ji, &w.Jobs[ji]); err != nil {
			return err
		}
	}
	if err := w.checkCluster(); err != nil {
		return err
	}
	if err := w.checkFaults(); err != nil {
		return err
	}
	if err := w.checkPlacements(); err != nil {
		return err
	}
	return c.Done()
}

// A Checker validates a workload one job at a time, in order, as Validate does, for readers that
// stream jobs without holding the whole workload: NewChecker checks the dimensions and the
// cluster, Job each job, Done what only the whole workload shows.
type Checker struct {
	dims   int
	pooled bool
	total  Vec
	caps   []Vec // the machines' distinct capacities that no other machine's dominates
	fits   map[Vec]bool
	any    bool // no cluster: demands are not checked against one
	prev   Time
	last   Time // the latest submit
	work   Time // all jobs' task time, saturating
}

// NewChecker checks the resource dimensions and the cluster and returns a Checker for the jobs. A
// nil cluster checks the jobs without one (whether demands fit is left to a later Validate), for
// readers whose caller may still change the cluster.
func NewChecker(dims []string, cl *Cluster) (*Checker, error) {
	if len(dims) == 0 || len(dims) > MaxDims {
		return nil, &InvalidError{Job: -1, Field: "dims", Msg: fmt.Sprintf("need 1..%d resource dimensions, have %d", MaxDims, len(dims))}
	}
	if cl == nil {
		return &Checker{dims: len(dims), prev: math.MinInt64, any: true}, nil
	}
	if len(cl.Machines) == 0 {
		return nil, &InvalidError{Job: -1, Field: "cluster", Msg: "no machines"}
	}
	c := &Checker{dims: len(dims), pooled: cl.Pooled, prev: math.MinInt64}
	distinct := map[Vec]bool{}
	for i, m := range cl.Machines {
		if m.Capacity.AnyNegative() {
			return nil, &InvalidError{Job: -1, Field: fmt.Sprintf("cluster.machines[%d].capacity", i), Msg: "negative"}
		}
		for d := range c.total {
			// Capacities stay within the fixed-point range and the cluster's total below half
			// of int64, so sums of allocations and free capacity never overflow.
			if m.Capacity[d] > MaxAmount || c.total[d] > math.MaxInt64/2-m.Capacity[d] {
				return nil, &InvalidError{Job: -1, Field: fmt.Sprintf("cluster.machines[%d].capacity", i), Msg: fmt.Sprintf("%s: beyond the fixed-point range (at most %.4g per machine, and a cluster total below %.4g)", m.Capacity.Format(len(dims)), float64(MaxAmount)/float64(Unit), float64(math.MaxInt64/2)/float64(Unit))}
			}
			c.total[d] += m.Capacity[d]
		}
		distinct[m.Capacity] = true
	}
	// A demand fits on some machine iff it fits on a capacity no other capacity dominates. In
	// descending lexicographic order a capacity's dominators come before it.
	all := make([]Vec, 0, len(distinct))
	for v := range distinct {
		all = append(all, v)
	}
	slices.SortFunc(all, func(a, b Vec) int { return -slices.Compare(a[:], b[:]) })
	for _, v := range all {
		if !slices.ContainsFunc(c.caps, func(k Vec) bool { return v.Fits(k) }) {
			c.caps = append(c.caps, v)
		}
	}
	if len(c.caps) > 8 {
		c.fits = map[Vec]bool{}
	}
	return c, nil
}

// fitsOne reports whether demand d fits on one machine.
func (c *Checker) fitsOne(d Vec) bool {
	if ok, seen := c.fits[d]; seen {
		return ok
	}
	ok := slices.ContainsFunc(c.caps, func(k Vec) bool { return d.Fits(k) })
	if c.fits != nil && len(c.fits) < 1<<16 {
		c.fits[d] = ok
	}
	return ok
}

// capacities lists the cluster's undominated machine capacities, the first three of them.
func (c *Checker) capacities() string {
	var parts []string
	for i, k := range c.caps {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(c.caps)-3))
			break
		}
		parts = append(parts, k.Format(c.dims))
	}
	return strings.Join(parts, ", ")
}

// Job checks job j, at index ji of the workload; jobs must be checked in order.
func (c *Checker) Job(ji int, j *Job) error {
	bad := func(stage int, field, format string, args ...any) error {
		return &InvalidError{Job: ji, JobID: j.ID, Stage: stage, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	beyond := func(stage int, field string, t Time) error {
		return bad(stage, field, "%d µs is beyond the clock's range (at most %d µs, about %.0f years)", t, MaxTime, Seconds(MaxTime)/(365.25*24*3600))
	}
	if j.Submit < 0 {
		return bad(-1, "submit", "negative time %d", j.Submit)
	}
	if j.Submit > MaxTime {
		return beyond(-1, "submit", j.Submit)
	}
	if j.Submit < c.prev {
		return bad(-1, "submit", "jobs not sorted by submit time (%d after %d)", j.Submit, c.prev)
	}
	c.prev = j.Submit
	if j.Deadline != 0 && j.Deadline < j.Submit {
		return bad(-1, "deadline", "%d before submit %d", j.Deadline, j.Submit)
	}
	if j.Deadline > MaxTime {
		return beyond(-1, "deadline", j.Deadline)
	}
	if j.Weight < 0 || math.IsNaN(j.Weight) || math.IsInf(j.Weight, 0) {
		return bad(-1, "weight", "must be a finite number ≥ 0, got %v", j.Weight)
	}
	if u := j.Utility; u != nil {
		finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		switch {
		case u.Kind != UtilitySigmoid && u.Kind != UtilityLinear && u.Kind != UtilityConstant:
			return bad(-1, "utility.kind", "unknown kind %q (want %s, %s or %s)", u.Kind, UtilitySigmoid, UtilityLinear, UtilityConstant)
		case !finite(u.Priority) || u.Priority < 0:
			return bad(-1, "utility.priority", "must be a finite number ≥ 0, got %v", u.Priority)
		case !finite(u.Decay) || u.Decay < 0:
			return bad(-1, "utility.decay", "must be a finite number ≥ 0, got %v", u.Decay)
		case !finite(u.Slope) || u.Slope > 0:
			return bad(-1, "utility.slope", "must be a finite number ≤ 0, got %v", u.Slope)
		case u.Target < 0:
			return bad(-1, "utility.target", "negative time %d", u.Target)
		case u.Target > MaxTime:
			return beyond(-1, "utility.target", u.Target)
		}
	}
	if err := checkPlacement(j.Placement); err != "" {
		return bad(-1, "placement", "%s", err)
	}
	if len(j.Stages) == 0 {
		return bad(-1, "stages", "job has no stages")
	}
	var work Time // the job's task time, saturating
	for si := range j.Stages {
		s := &j.Stages[si]
		if s.Tasks <= 0 {
			return bad(si, "tasks", "must be positive, got %d", s.Tasks)
		}
		if s.Duration <= 0 && s.TaskDurations == nil {
			return bad(si, "duration", "must be positive, got %d", s.Duration)
		}
		if s.Duration > MaxTime {
			return beyond(si, "duration", s.Duration)
		}
		if s.TaskDurations != nil {
			if len(s.TaskDurations) != int(s.Tasks) {
				return bad(si, "task_durations", "%d durations for %d tasks", len(s.TaskDurations), s.Tasks)
			}
			for ti, d := range s.TaskDurations {
				if d <= 0 {
					return bad(si, "task_durations", "task %d: must be positive, got %d", ti, d)
				}
				if d > MaxTime {
					return bad(si, "task_durations", "task %d: %d µs is beyond the clock's range (at most %d µs)", ti, d, MaxTime)
				}
				work = addSat(work, d)
			}
		} else {
			// Both factors are at most 2⁵³ and 2³¹: the product is checked by division.
			if s.Duration > (math.MaxInt64-work)/Time(s.Tasks) {
				work = math.MaxInt64
			} else {
				work += Time(s.Tasks) * s.Duration
			}
		}
		if s.History != nil {
			if len(s.History) != int(s.Tasks) {
				return bad(si, "history", "%d task histories for %d tasks", len(s.History), s.Tasks)
			}
			for ti, th := range s.History {
				switch {
				case th.Attempts < 1:
					return bad(si, "history", "task %d: %d attempts, want ≥ 1", ti, th.Attempts)
				case th.Evictions < 0 || th.Evictions > th.Attempts:
					return bad(si, "history", "task %d: %d evictions in %d attempts", ti, th.Evictions, th.Attempts)
				case th.Outcome < 0 || th.Outcome >= NumTaskOutcomes:
					return bad(si, "history", "task %d: unknown outcome %d", ti, th.Outcome)
				}
			}
		}
		if s.Estimate < 0 {
			return bad(si, "estimate", "negative: %d", s.Estimate)
		}
		if s.Estimate > MaxTime {
			return beyond(si, "estimate", s.Estimate)
		}
		if s.Demand.AnyNegative() {
			return bad(si, "demand", "negative: %v", s.Demand.Format(c.dims))
		}
		if s.Demand.IsZero() {
			return bad(si, "demand", "all dimensions zero")
		}
		switch {
		case c.any:
			// No cluster: a later Validate checks the demand against the one the workload runs on.
		case c.pooled && !s.Demand.Fits(c.total):
			return bad(si, "demand", "%s exceeds the pooled cluster's total %s", s.Demand.Format(c.dims), c.total.Format(c.dims))
		case !c.pooled && !c.fitsOne(s.Demand):
			return bad(si, "demand", "%s fits on no machine (machine capacities %s)", s.Demand.Format(c.dims), c.capacities())
		}
		for _, p := range s.Parents {
			if p < 0 || int(p) >= len(j.Stages) {
				return bad(si, "parents", "parent %d out of range (job has %d stages)", p, len(j.Stages))
			}
			if int(p) == si {
				return bad(si, "parents", "stage depends on itself")
			}
		}
	}
	if cyc := cycle(j); cyc >= 0 {
		return bad(cyc, "parents", "dependency cycle through stage %q", j.Stages[cyc].Name)
	}
	if cp := j.CriticalPath(false); cp > MaxTime-j.Submit {
		return bad(-1, "stages", "submit plus the job's critical path (%s) is beyond the clock's range (at most %d µs)", fmtSat(cp), MaxTime)
	}
	c.last = j.Submit
	c.work = addSat(c.work, work)
	return nil
}

// fmtSat renders a saturated task time.
func fmtSat(t Time) string {
	if t == math.MaxInt64 {
		return "over 2⁶³ µs"
	}
	return fmt.Sprintf("%d µs", t)
}

// Done checks what only the whole workload shows: its task time after the last submit stays
// within half the int64 clock, whatever order the jobs run in.
func (c *Checker) Done() error {
	if c.work > math.MaxInt64/2-c.last {
		return &InvalidError{Job: -1, Field: "tasks", Msg: fmt.Sprintf("the last submit (%d µs) plus all jobs' task time (%s) is beyond the clock's range (at most %d µs)", c.last, fmtSat(c.work), Time(math.MaxInt64/2))}
	}
	return nil
}

// checkPlacement describes what is wrong with p, or returns "".
func checkPlacement(p Placement) string {
	s := p.Slowdown
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return fmt.Sprintf("slowdown must be finite, got %v", s)
	case p.Kind == PlacementNone:
		if p.Hard || s != 0 {
			return fmt.Sprintf("no kind, but hard = %v and slowdown %v (want neither)", p.Hard, s)
		}
	case p.Kind != PlacementGPU && p.Kind != PlacementRack:
		return fmt.Sprintf("unknown kind %q (want %q, %q or none)", p.Kind, PlacementGPU, PlacementRack)
	case !p.Hard && s < 1:
		return fmt.Sprintf("soft %s constraint needs slowdown ≥ 1, got %v", p.Kind, s)
	case p.Hard && s != 0 && s < 1:
		return fmt.Sprintf("hard %s constraint with slowdown %v (want 0, or ≥ 1)", p.Kind, s)
	}
	return ""
}

// cycle returns a stage on a dependency cycle, or -1 if the DAG is acyclic.
func cycle(j *Job) int {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(j.Stages))
	// Iterative DFS so deep chains cannot overflow the stack.
	type frame struct{ s, next int }
	for root := range j.Stages {
		if color[root] != white {
			continue
		}
		stack := []frame{{root, 0}}
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			parents := j.Stages[top.s].Parents
			if top.next == len(parents) {
				color[top.s] = black
				stack = stack[:len(stack)-1]
				continue
			}
			p := int(parents[top.next])
			top.next++
			switch color[p] {
			case grey:
				return p
			case white:
				color[p] = grey
				stack = append(stack, frame{p, 0})
			}
		}
	}
	return -1
}

// Hash returns a hex SHA-256 over the workload's content (cluster, dims and every job field the
// replay reads), independent of its name and source. Results record it as provenance, and the
// sweep cache keys cells on it.
func (w *Workload) Hash() string {
	h := sha256.New()
	var buf [8]byte
	i64 := func(x int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		h.Write(buf[:])
	}
	f64 := func(x float64) { i64(int64(math.Float64bits(x))) }
	str := func(s string) {
		i64(int64(len(s)))
		h.Write([]byte(s))
	}
	vec := func(v Vec) {
		for _, x := range v {
			i64(x)
		}
	}
	i64(int64(len(w.Dims)))
	for _, d := range w.Dims {
		str(d)
	}
	i64(int64(len(w.Cluster.Machines)))
	if w.Cluster.Pooled {
		i64(1)
	} else {
		i64(0)
	}
	for _, m := range w.Cluster.Machines {
		str(m.Name)
		vec(m.Capacity)
		str(m.Rack)
		str(m.Platform)
		if m.GPU {
			i64(1)
		} else {
			i64(0)
		}
	}
	i64(int64(len(w.Jobs)))
	for ji := range w.Jobs {
		hashJob(h, &w.Jobs[ji], i64, f64, str, vec)
	}
	w.hashCluster(h, i64, vec)
	w.hashPlacements(h, i64)
	return hex.EncodeToString(h.Sum(nil))
}

func hashJob(h hash.Hash, j *Job, i64 func(int64), f64 func(float64), str func(string), vec func(Vec)) {
	i64(j.ID)
	str(j.Name)
	i64(j.Submit)
	str(j.Queue)
	str(j.Class)
	i64(int64(j.Priority))
	f64(j.Weight)
	str(j.Features.User)
	str(j.Features.JobName)
	str(j.Features.LogicalJobName)
	i64(j.Deadline)
	if u := j.Utility; u != nil {
		str(string(u.Kind))
		f64(u.Priority)
		f64(u.Decay)
		f64(u.Slope)
		i64(u.Target)
	} else {
		str("")
	}
	// A placement constraint is hashed only when present, behind a -1 marker that no stage count
	// can equal, so workloads without constraints keep the hashes they had before the field.
	if p := j.Placement; !p.IsZero() {
		i64(-1)
		str(p.Kind)
		if p.Hard {
			i64(1)
		} else {
			i64(0)
		}
		f64(p.Slowdown)
	}
	i64(int64(len(j.Stages)))
	for si := range j.Stages {
		s := &j.Stages[si]
		str(s.Name)
		i64(int64(s.Tasks))
		vec(s.Demand)
		i64(s.Duration)
		i64(s.Estimate)
		i64(int64(len(s.TaskDurations)))
		for _, d := range s.TaskDurations {
			i64(d)
		}
		i64(int64(len(s.Parents)))
		for _, p := range s.Parents {
			i64(int64(p))
		}
		// Task histories are hashed only when present, behind a -1 marker that no string length
		// (the next stage's name) can equal, so workloads without them keep their hashes.
		if s.History != nil {
			i64(-1)
			i64(int64(len(s.History)))
			for _, th := range s.History {
				i64(int64(th.Attempts))
				i64(int64(th.Evictions))
				i64(int64(th.Outcome))
			}
		}
	}
}
