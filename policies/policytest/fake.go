// Package policytest provides Fake, an in-memory test double of policies.View for table tests of
// policy packages, plus the operations a test needs to drive it through several scheduling points:
// applying a policy's Plan (validated the way the replay engine validates it), finishing tasks,
// releasing preempted resources, and advancing simulated time.
//
// Fake is a test double, not a simulator: it keeps no event queue, finishes tasks only when a
// test says so, and favours obviously correct code over speed (FirstFit scans machines linearly).
// Build one from a traces.Workload with FromWorkload, or from literals with New and AddJob.
package policytest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Errors wrapped by Apply and the other mutating methods, so tests can assert why a plan was
// rejected.
var (
	// ErrUnknownJob: the job index is out of range, has not arrived, or is done.
	ErrUnknownJob = errors.New("policytest: unknown job")
	// ErrUnknownStage: the stage index is out of range for the job.
	ErrUnknownStage = errors.New("policytest: unknown stage")
	// ErrUnknownMachine: the machine index is out of range.
	ErrUnknownMachine = errors.New("policytest: unknown machine")
	// ErrLockedStage: a start names a stage whose parents have not all finished.
	ErrLockedStage = errors.New("policytest: stage is locked")
	// ErrBadCount: a start asks for fewer than one task.
	ErrBadCount = errors.New("policytest: task count must be positive")
	// ErrTooMany: the plan starts more tasks of a stage than it has pending.
	ErrTooMany = errors.New("policytest: more tasks than pending")
	// ErrOvercommit: the plan's starts on a machine exceed its free capacity.
	ErrOvercommit = errors.New("policytest: machine over-committed")
	// ErrNotRunning: a preemption or finish names a task that is not running.
	ErrNotRunning = errors.New("policytest: task is not running")
	// ErrTime: a call would move simulated time backwards.
	ErrTime = errors.New("policytest: time moves backwards")
	// ErrBadJob: AddJob was given a job the model does not allow.
	ErrBadJob = errors.New("policytest: invalid job")
	// ErrPlacement: a start puts a hard-constrained job off its preferred resources (a machine
	// without a GPU for kind gpu; a second rack for kind rack). Checked with several machines
	// only, as the engine does.
	ErrPlacement = errors.New("policytest: hard placement constraint broken")
)

// Fake is an in-memory policies.View. The zero value is not usable; call New or FromWorkload.
//
// Resource accounting follows the engine's contract: starting a task takes its stage's demand
// from the machine's free capacity; finishing returns it; preempting returns the task to its
// stage's pending set at once but keeps its resources allocated until they are released (by
// Advance once PreemptDelay has passed, or by Release).
type Fake struct {
	// PreemptDelay is how long a preempted task's resources stay allocated. Advance frees them
	// once now ≥ preemption time + PreemptDelay; Release frees them at once.
	PreemptDelay traces.Time
	// HideMachineChanges makes Schedule and Step pass the policy a View without the optional
	// ChangedMachines ability, as an engine that lacks it would.
	HideMachineChanges bool
	// IsOracle is what Oracle reports. It also selects, when a job is added, whether
	// StageInfo.Estimate carries the stage's true Duration (true) or its Estimate (false).
	IsOracle bool

	now       traces.Time
	dims      []string
	machines  []traces.Machine
	free      []traces.Vec
	capacity  traces.Vec
	freeTotal traces.Vec
	// Machines whose free capacity changed since ClearChanged, in order of first change.
	changedMachines []int32
	machineMarked   []bool
	queues          []string
	jobs            []*fakeJob
	changed         []policies.JobID
	releases        []release

	// Scratch space for Apply, reused so a steady stream of plans makes no garbage.
	applyReturned map[stageKey]int32
	applySeen     map[policies.TaskRef]bool
	applyTaken    map[stageKey]int32
	applyFree     []traces.Vec
	applyRack     map[policies.JobID]string
}

type release struct {
	at      traces.Time
	machine int32
	amount  traces.Vec
}

type fakeJob struct {
	info       policies.JobInfo
	children   [][]int32 // per stage: stages that list it as a parent
	arrived    bool
	done       bool
	inChanged  bool
	stages     []fakeStage
	running    int32
	pending    int32
	finished   int64
	alloc      traces.Vec
	remaining  traces.Time
	firstStart traces.Time
	scratch    []int32
	runScratch []policies.RunningTask
}

type fakeStage struct {
	parentsLeft int
	fresh       int32   // tasks [fresh, Tasks) have never started
	returned    []int32 // preempted tasks waiting to run again, ascending; all < fresh
	running     []policies.RunningTask
	finished    int32
}

func (s *fakeStage) pending(tasks int32) int32 { return tasks - s.fresh + int32(len(s.returned)) }

// New returns a Fake with one machine per capacity (named m0, m1, …), resource dimensions
// "cpu" and "mem", time 0 and no jobs. One capacity models pooled mode.
func New(capacities ...traces.Vec) *Fake {
	ms := make([]traces.Machine, len(capacities))
	for i, c := range capacities {
		ms[i] = traces.Machine{Name: fmt.Sprintf("m%d", i), Capacity: c}
	}
	return NewMachines([]string{"cpu", "mem"}, ms)
}

// NewMachines returns a Fake over the given resource dimensions and machines.
func NewMachines(dims []string, machines []traces.Machine) *Fake {
	f := &Fake{dims: slices.Clone(dims), machines: slices.Clone(machines)}
	f.free = make([]traces.Vec, len(machines))
	f.machineMarked = make([]bool, len(machines))
	for i := range machines {
		f.free[i] = machines[i].Capacity
		f.capacity = f.capacity.Add(machines[i].Capacity)
	}
	f.freeTotal = f.capacity
	return f
}

// FromWorkload returns a Fake over w's cluster (one machine holding the total capacity when
// the cluster is pooled) with all of w's jobs added in order, none arrived yet: call Advance to
// admit them. Queues are numbered in order of first appearance. The workload must validate.
func FromWorkload(w *traces.Workload, oracle bool) (*Fake, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	ms := w.Cluster.Machines
	if w.Cluster.Pooled {
		ms = []traces.Machine{{Name: "pool", Capacity: w.Cluster.Total()}}
	}
	f := NewMachines(w.Dims, ms)
	f.IsOracle = oracle
	for i := range w.Jobs {
		if _, err := f.AddJob(w.Jobs[i]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// AddQueue registers a queue name (if new) and returns its index, so tests can fix the order
// of View.Queues before adding jobs.
func (f *Fake) AddQueue(name string) int {
	if i := slices.Index(f.queues, name); i >= 0 {
		return i
	}
	f.queues = append(f.queues, name)
	return len(f.queues) - 1
}

// AddJob adds j as the next JobID, not yet arrived. It rejects jobs without stages, stages
// without tasks, negative demands, and parents that are out of range or form a cycle.
func (f *Fake) AddJob(j traces.Job) (policies.JobID, error) {
	id := policies.JobID(len(f.jobs))
	bad := func(format string, a ...any) (policies.JobID, error) {
		return 0, fmt.Errorf("%w: job %d (id %d): %s", ErrBadJob, id, j.ID, fmt.Sprintf(format, a...))
	}
	if len(j.Stages) == 0 {
		return bad("no stages")
	}
	fj := &fakeJob{firstStart: -1}
	fj.info = policies.JobInfo{
		ID: j.ID, Name: j.Name, Submit: j.Submit, Queue: f.AddQueue(j.Queue), Class: j.Class,
		Priority: j.Priority, Weight: j.Weight, Features: j.Features, Deadline: j.Deadline, Placement: j.Placement,
		Utility: j.Utility, Tasks: j.Tasks(),
	}
	fj.info.Stages = make([]policies.StageInfo, len(j.Stages))
	fj.stages = make([]fakeStage, len(j.Stages))
	fj.children = make([][]int32, len(j.Stages))
	for s := range j.Stages {
		st := &j.Stages[s]
		if st.Tasks < 1 {
			return bad("stage %d has %d tasks", s, st.Tasks)
		}
		if st.Demand.AnyNegative() {
			return bad("stage %d has a negative demand", s)
		}
		est := st.Estimate
		if f.IsOracle {
			est = st.Duration
		}
		fj.info.Stages[s] = policies.StageInfo{
			Name: st.Name, Tasks: st.Tasks, Demand: st.Demand, Estimate: est, Parents: slices.Clone(st.Parents),
		}
		for _, p := range st.Parents {
			if p < 0 || int(p) >= len(j.Stages) || int(p) == s {
				return bad("stage %d has parent %d", s, p)
			}
			fj.children[p] = append(fj.children[p], int32(s))
		}
		fj.stages[s].parentsLeft = len(st.Parents)
		fj.remaining += est * traces.Time(st.Tasks)
	}
	if cyclic(fj.children) {
		return bad("stage graph has a cycle")
	}
	for s := range fj.stages {
		if fj.stages[s].parentsLeft == 0 {
			fj.pending += fj.info.Stages[s].Tasks
		}
	}
	f.jobs = append(f.jobs, fj)
	return id, nil
}

// cyclic reports whether the graph given by child lists has a cycle (Kahn's algorithm).
func cyclic(children [][]int32) bool {
	indeg := make([]int, len(children))
	for _, cs := range children {
		for _, c := range cs {
			indeg[c]++
		}
	}
	var queue []int32
	for s, d := range indeg {
		if d == 0 {
			queue = append(queue, int32(s))
		}
	}
	seen := 0
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		seen++
		for _, c := range children[s] {
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	return seen != len(children)
}

// addFree changes machine m's free capacity by delta and records the machine as changed.
func (f *Fake) addFree(m int32, delta traces.Vec) {
	f.free[m] = f.free[m].Add(delta)
	f.freeTotal = f.freeTotal.Add(delta)
	if !f.machineMarked[m] {
		f.machineMarked[m] = true
		f.changedMachines = append(f.changedMachines, m)
	}
}

func (f *Fake) mark(j policies.JobID) {
	if fj := f.jobs[j]; !fj.inChanged {
		fj.inChanged = true
		f.changed = append(f.changed, j)
	}
}

// job returns the job for id if it exists (arrived or not).
func (f *Fake) job(j policies.JobID) (*fakeJob, bool) {
	if j < 0 || int(j) >= len(f.jobs) {
		return nil, false
	}
	return f.jobs[j], true
}

// liveJob returns the job if it has arrived and is not done, or an ErrUnknownJob error.
func (f *Fake) liveJob(j policies.JobID) (*fakeJob, error) {
	fj, ok := f.job(j)
	if !ok {
		return nil, fmt.Errorf("%w %d (have %d jobs)", ErrUnknownJob, j, len(f.jobs))
	}
	if !fj.arrived || fj.done {
		return nil, fmt.Errorf("%w %d (arrived %t, done %t)", ErrUnknownJob, j, fj.arrived, fj.done)
	}
	return fj, nil
}

// Arrive admits the given jobs now, whatever their submit times, and records them as changed.
func (f *Fake) Arrive(ids ...policies.JobID) error {
	for _, j := range ids {
		fj, ok := f.job(j)
		if !ok {
			return fmt.Errorf("%w %d", ErrUnknownJob, j)
		}
		if !fj.arrived {
			fj.arrived = true
			f.mark(j)
		}
	}
	return nil
}

// Advance moves simulated time to t, frees the resources of preempted tasks whose delay has
// passed, and admits (in JobID order) every job submitted at or before t.
func (f *Fake) Advance(t traces.Time) error {
	if t < f.now {
		return fmt.Errorf("%w: from %d to %d", ErrTime, f.now, t)
	}
	f.now = t
	kept := f.releases[:0]
	for _, r := range f.releases {
		if r.at <= t {
			f.addFree(r.machine, r.amount)
		} else {
			kept = append(kept, r)
		}
	}
	f.releases = kept
	for j, fj := range f.jobs {
		if !fj.arrived && fj.info.Submit <= t {
			fj.arrived = true
			f.mark(policies.JobID(j))
		}
	}
	return nil
}

// Release frees the resources of every preempted task at once, whatever PreemptDelay says.
func (f *Fake) Release() {
	for _, r := range f.releases {
		f.addFree(r.machine, r.amount)
	}
	f.releases = f.releases[:0]
}

// Releasing reports how many preempted tasks still hold resources.
func (f *Fake) Releasing() int { return len(f.releases) }

// SetChanged replaces the Changed list (for tests that build state and then want a policy to
// see only some jobs as changed).
func (f *Fake) SetChanged(ids ...policies.JobID) {
	f.ClearChanged()
	for _, j := range ids {
		if _, ok := f.job(j); ok {
			f.mark(j)
		}
	}
}

// ClearChanged empties the Changed and ChangedMachines lists, as the engine does after each
// Schedule call.
func (f *Fake) ClearChanged() {
	for _, j := range f.changed {
		f.jobs[j].inChanged = false
	}
	f.changed = f.changed[:0]
	for _, m := range f.changedMachines {
		f.machineMarked[m] = false
	}
	f.changedMachines = f.changedMachines[:0]
}

// Schedule calls pol.Schedule with a fresh plan, then clears the Changed list. It does not apply
// the plan.
func (f *Fake) Schedule(pol policies.Policy) (policies.Plan, error) {
	var p policies.Plan
	var v policies.View = f
	if f.HideMachineChanges {
		v = WithoutMachineChanges(f)
	}
	err := pol.Schedule(v, &p)
	f.ClearChanged()
	return p, err
}

// Step is Schedule followed by Apply.
func (f *Fake) Step(pol policies.Policy) (policies.Plan, error) {
	p, err := f.Schedule(pol)
	if err != nil {
		return p, err
	}
	return p, f.Apply(&p)
}

type stageKey struct {
	job   policies.JobID
	stage int32
}

// Apply validates p the way the engine does and, if it is valid, applies it: preemptions first
// (each names a running task, at most once), then starts (each names an arrived, unfinished job,
// an unlocked stage, a machine, and a positive count; per stage the counts may not exceed its
// pending tasks, and per machine the demands may not exceed its free capacity). An invalid plan
// changes nothing.
func (f *Fake) Apply(p *policies.Plan) error {
	if f.applyReturned == nil {
		f.applyReturned = make(map[stageKey]int32)
		f.applySeen = make(map[policies.TaskRef]bool)
		f.applyTaken = make(map[stageKey]int32)
	}
	if f.applyRack == nil {
		f.applyRack = make(map[policies.JobID]string)
	}
	clear(f.applyRack)
	returned, seen, taken := f.applyReturned, f.applySeen, f.applyTaken
	clear(returned)
	clear(seen)
	clear(taken)
	for i, t := range p.Preempts {
		fj, err := f.liveJob(t.Job)
		if err != nil {
			return fmt.Errorf("preempt %d: %w", i, err)
		}
		if t.Stage < 0 || int(t.Stage) >= len(fj.stages) {
			return fmt.Errorf("preempt %d: %w %d of job %d", i, ErrUnknownStage, t.Stage, t.Job)
		}
		if seen[t] || runningIndex(fj.stages[t.Stage].running, t.Task) < 0 {
			return fmt.Errorf("preempt %d: %w: job %d stage %d task %d", i, ErrNotRunning, t.Job, t.Stage, t.Task)
		}
		seen[t] = true
		returned[stageKey{t.Job, t.Stage}]++
	}
	f.applyFree = append(f.applyFree[:0], f.free...)
	free := f.applyFree
	for i, s := range p.Starts {
		fj, err := f.liveJob(s.Job)
		if err != nil {
			return fmt.Errorf("start %d: %w", i, err)
		}
		if s.Stage < 0 || int(s.Stage) >= len(fj.stages) {
			return fmt.Errorf("start %d: %w %d of job %d", i, ErrUnknownStage, s.Stage, s.Job)
		}
		if fj.stages[s.Stage].parentsLeft > 0 {
			return fmt.Errorf("start %d: %w: job %d stage %d", i, ErrLockedStage, s.Job, s.Stage)
		}
		if s.Count < 1 {
			return fmt.Errorf("start %d: %w: %d", i, ErrBadCount, s.Count)
		}
		if s.Machine < 0 || int(s.Machine) >= len(free) {
			return fmt.Errorf("start %d: %w %d", i, ErrUnknownMachine, s.Machine)
		}
		k := stageKey{s.Job, s.Stage}
		pend := fj.stages[s.Stage].pending(fj.info.Stages[s.Stage].Tasks) + returned[k]
		if taken[k]+s.Count > pend {
			return fmt.Errorf("start %d: %w: job %d stage %d: %d started in this plan, %d pending",
				i, ErrTooMany, s.Job, s.Stage, taken[k]+s.Count, pend)
		}
		taken[k] += s.Count
		if err := f.checkHard(fj, s, seen); err != nil {
			return fmt.Errorf("start %d: %w", i, err)
		}
		need := fj.info.Stages[s.Stage].Demand.Scale(int64(s.Count))
		if !need.Fits(free[s.Machine]) {
			return fmt.Errorf("start %d: %w: machine %d: need %s, free %s", i, ErrOvercommit, s.Machine,
				need.Format(len(f.dims)), free[s.Machine].Format(len(f.dims)))
		}
		free[s.Machine] = free[s.Machine].Sub(need)
	}
	for _, t := range p.Preempts {
		f.preempt(t)
	}
	for _, s := range p.Starts {
		f.start(s)
	}
	return nil
}

// checkHard validates start s of a hard-constrained job against its constraint, given the tasks
// preempted by the plan (seen).
func (f *Fake) checkHard(fj *fakeJob, s policies.Start, seen map[policies.TaskRef]bool) error {
	c := fj.info.Placement
	if !c.Hard || len(f.machines) < 2 {
		return nil
	}
	m := &f.machines[s.Machine]
	switch c.Kind {
	case traces.PlacementGPU:
		if !m.GPU {
			return fmt.Errorf("%w: job %d is hard gpu, machine %d has no GPU", ErrPlacement, s.Job, s.Machine)
		}
	case traces.PlacementRack:
		rack, ok := f.applyRack[s.Job]
		if !ok {
			for si := range fj.stages {
				for _, rt := range fj.stages[si].running {
					if !seen[rt.TaskRef] {
						rack, ok = f.machines[rt.Machine].Rack, true
					}
				}
			}
		}
		if ok && rack != m.Rack {
			return fmt.Errorf("%w: job %d is hard rack on rack %q, machine %d is on rack %q", ErrPlacement, s.Job, rack, s.Machine, m.Rack)
		}
		f.applyRack[s.Job] = m.Rack
	}
	return nil
}

func runningIndex(rs []policies.RunningTask, task int32) int {
	return slices.IndexFunc(rs, func(r policies.RunningTask) bool { return r.Task == task })
}

func (f *Fake) preempt(t policies.TaskRef) {
	fj := f.jobs[t.Job]
	st := &fj.stages[t.Stage]
	i := runningIndex(st.running, t.Task)
	rt := st.running[i]
	st.running = slices.Delete(st.running, i, i+1)
	at, _ := slices.BinarySearch(st.returned, t.Task)
	st.returned = slices.Insert(st.returned, at, t.Task)
	d := fj.info.Stages[t.Stage].Demand
	fj.running--
	fj.pending++
	fj.alloc = fj.alloc.Sub(d)
	f.releases = append(f.releases, release{at: f.now + f.PreemptDelay, machine: rt.Machine, amount: d})
	f.mark(t.Job)
}

func (f *Fake) start(s policies.Start) {
	fj := f.jobs[s.Job]
	st := &fj.stages[s.Stage]
	d := fj.info.Stages[s.Stage].Demand
	for range s.Count {
		var task int32
		if len(st.returned) > 0 {
			task = st.returned[0]
			st.returned = st.returned[1:]
		} else {
			task = st.fresh
			st.fresh++
		}
		st.running = append(st.running, policies.RunningTask{
			TaskRef: policies.TaskRef{Job: s.Job, Stage: s.Stage, Task: task}, Machine: s.Machine, Start: f.now,
		})
	}
	need := d.Scale(int64(s.Count))
	f.addFree(s.Machine, traces.Vec{}.Sub(need))
	fj.alloc = fj.alloc.Add(need)
	fj.running += s.Count
	fj.pending -= s.Count
	if fj.firstStart < 0 {
		fj.firstStart = f.now
	}
	f.mark(s.Job)
}

// Finish completes the n running tasks of a stage that started first (in the order they were
// started), freeing their resources, unlocking child stages and completing the job when its last
// task finishes.
func (f *Fake) Finish(j policies.JobID, stage int32, n int) error {
	fj, err := f.liveJob(j)
	if err != nil {
		return err
	}
	if stage < 0 || int(stage) >= len(fj.stages) {
		return fmt.Errorf("%w %d of job %d", ErrUnknownStage, stage, j)
	}
	st := &fj.stages[stage]
	if n < 0 || n > len(st.running) {
		return fmt.Errorf("%w: job %d stage %d: finish %d of %d running", ErrNotRunning, j, stage, n, len(st.running))
	}
	for range n {
		f.finish(st.running[0].TaskRef)
	}
	return nil
}

// FinishTask completes one running task.
func (f *Fake) FinishTask(t policies.TaskRef) error {
	fj, err := f.liveJob(t.Job)
	if err != nil {
		return err
	}
	if t.Stage < 0 || int(t.Stage) >= len(fj.stages) {
		return fmt.Errorf("%w %d of job %d", ErrUnknownStage, t.Stage, t.Job)
	}
	if runningIndex(fj.stages[t.Stage].running, t.Task) < 0 {
		return fmt.Errorf("%w: job %d stage %d task %d", ErrNotRunning, t.Job, t.Stage, t.Task)
	}
	f.finish(t)
	return nil
}

func (f *Fake) finish(t policies.TaskRef) {
	fj := f.jobs[t.Job]
	st := &fj.stages[t.Stage]
	i := runningIndex(st.running, t.Task)
	rt := st.running[i]
	st.running = slices.Delete(st.running, i, i+1)
	info := &fj.info.Stages[t.Stage]
	f.addFree(rt.Machine, info.Demand)
	fj.alloc = fj.alloc.Sub(info.Demand)
	fj.running--
	fj.finished++
	fj.remaining -= info.Estimate
	st.finished++
	if st.finished == info.Tasks {
		for _, c := range fj.children[t.Stage] {
			cs := &fj.stages[c]
			if cs.parentsLeft--; cs.parentsLeft == 0 {
				fj.pending += cs.pending(fj.info.Stages[c].Tasks)
			}
		}
	}
	if fj.finished == fj.info.Tasks {
		fj.done = true
	}
	f.mark(t.Job)
}

// Now is the current simulated time.
func (f *Fake) Now() traces.Time { return f.now }

// Oracle reports IsOracle.
func (f *Fake) Oracle() bool { return f.IsOracle }

// Dims names the resource dimensions.
func (f *Fake) Dims() []string { return f.dims }

// NumMachines is the number of machines.
func (f *Fake) NumMachines() int { return len(f.machines) }

// Machine describes machine m, or returns nil when m is out of range.
func (f *Fake) Machine(m int) *traces.Machine {
	if m < 0 || m >= len(f.machines) {
		return nil
	}
	return &f.machines[m]
}

// Capacity is the summed capacity of all machines.
func (f *Fake) Capacity() traces.Vec { return f.capacity }

// Free is machine m's unallocated capacity (zero when m is out of range).
func (f *Fake) Free(m int) traces.Vec {
	if m < 0 || m >= len(f.free) {
		return traces.Vec{}
	}
	return f.free[m]
}

// FreeTotal is the unallocated capacity summed over machines.
func (f *Fake) FreeTotal() traces.Vec { return f.freeTotal }

// ChangedMachines lists, once each and in order of first change, the machines whose free
// capacity changed since the lists were last cleared. It is an optional View ability (see
// package baseline); wrap the fake with WithoutMachineChanges to test a policy without it.
func (f *Fake) ChangedMachines() []int32 { return f.changedMachines }

// WithoutMachineChanges returns v as a View that offers only the policies.View methods, hiding
// optional abilities such as ChangedMachines.
func WithoutMachineChanges(v policies.View) policies.View { return plainView{v} }

type plainView struct{ policies.View }

// FirstFit returns the lowest machine whose free capacity fits d, scanning linearly.
func (f *Fake) FirstFit(d traces.Vec) (int, bool) {
	for m, v := range f.free {
		if d.Fits(v) {
			return m, true
		}
	}
	return 0, false
}

// Queues lists the queue names; JobInfo.Queue indexes it.
func (f *Fake) Queues() []string { return f.queues }

// Job describes job j, or returns nil for an unknown job.
func (f *Fake) Job(j policies.JobID) *policies.JobInfo {
	fj, ok := f.job(j)
	if !ok {
		return nil
	}
	return &fj.info
}

// JobState is job j's dynamic state (the zero state for an unknown job).
func (f *Fake) JobState(j policies.JobID) policies.JobState {
	fj, ok := f.job(j)
	if !ok {
		return policies.JobState{FirstStart: -1}
	}
	return policies.JobState{
		Arrived: fj.arrived, Done: fj.done, Running: fj.running, Pending: fj.pending, Finished: fj.finished,
		Alloc: fj.alloc, RemainingEstimate: fj.remaining, FirstStart: fj.firstStart,
	}
}

// StageState is stage s of job j's dynamic state (the zero state when either is unknown).
func (f *Fake) StageState(j policies.JobID, s int32) policies.StageState {
	fj, ok := f.job(j)
	if !ok || s < 0 || int(s) >= len(fj.stages) {
		return policies.StageState{}
	}
	st := &fj.stages[s]
	return policies.StageState{
		Runnable: st.parentsLeft == 0,
		Pending:  st.pending(fj.info.Stages[s].Tasks),
		Running:  int32(len(st.running)),
		Finished: st.finished,
	}
}

// RunnableStages lists j's unlocked stages with pending tasks, ascending.
func (f *Fake) RunnableStages(j policies.JobID) []int32 {
	fj, ok := f.job(j)
	if !ok {
		return nil
	}
	fj.scratch = fj.scratch[:0]
	for s := range fj.stages {
		st := &fj.stages[s]
		if st.parentsLeft == 0 && st.pending(fj.info.Stages[s].Tasks) > 0 {
			fj.scratch = append(fj.scratch, int32(s))
		}
	}
	return fj.scratch
}

// RunningTasks lists j's running tasks, stage by stage in start order.
func (f *Fake) RunningTasks(j policies.JobID) []policies.RunningTask {
	fj, ok := f.job(j)
	if !ok {
		return nil
	}
	fj.runScratch = fj.runScratch[:0]
	for s := range fj.stages {
		fj.runScratch = append(fj.runScratch, fj.stages[s].running...)
	}
	return fj.runScratch
}

// Active lists arrived, unfinished jobs by (submit time, JobID).
func (f *Fake) Active() []policies.JobID {
	var out []policies.JobID
	for j, fj := range f.jobs {
		if fj.arrived && !fj.done {
			out = append(out, policies.JobID(j))
		}
	}
	slices.SortStableFunc(out, func(a, b policies.JobID) int {
		return cmp.Compare(f.jobs[a].info.Submit, f.jobs[b].info.Submit)
	})
	return out
}

// Changed lists the jobs changed since the list was last cleared, in order of first change.
func (f *Fake) Changed() []policies.JobID { return f.changed }

var _ policies.View = (*Fake)(nil)
