// Package replay is schedlab's deterministic discrete-event engine. It replays a workload
// (package traces) on a cluster under a scheduling policy (package policies): it owns all state,
// asks the policy for a plan at each scheduling point, validates the plan and applies it.
//
// Events are ordered by (time, kind, sequence number); simulated time is int64 microseconds and
// the engine never reads the wall clock. Per-event cost does not grow with the workload: arrivals
// stream from the submit-ordered job list, pending work is indexed per job and stage, and machine
// placement queries use a segment tree (FirstFit).
package replay

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/internal/fit"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Config controls an engine run.
type Config struct {
	// Cycle is the scheduling period. 0 schedules event-driven: once at every instant at which
	// something changed (an arrival, a finish, a release).
	Cycle traces.Time
	// PreemptDelay is how long a preempted task's resources stay held before they are free again.
	PreemptDelay traces.Time
	// PreemptKeepsWork resumes a preempted task where it stopped; by default it restarts from zero.
	PreemptKeepsWork bool
	// Horizon stops the run at this time; 0 runs until every job completed.
	Horizon traces.Time
	// Oracle shows policies true durations instead of estimates.
	Oracle bool
	// StopAfterQueue, when set, stops submitting jobs once every job of this queue finished;
	// the run ends when the jobs already submitted finish (stoprule.go).
	StopAfterQueue string
	// Pooled treats the cluster as one capacity vector even if the workload lists machines.
	Pooled bool
	// UsageWindow is the length of the windows over which per-queue resource usage is averaged
	// (the usage-over-time series). 0 disables the series.
	UsageWindow traces.Time
	// Estimator, when set (and Oracle is not), replaces each job's estimates at submission with
	// its prediction and learns from every completion.
	Estimator Estimator
	// Log, when set, receives every event as it happens (scenario tests, debugging).
	Log func(LogEntry)
	// DecisionTime, when set, charges each scheduling call's decision time to the simulated
	// clock: the plan takes effect that much later (decision.go).
	DecisionTime DecisionTimer
	// Yarn switches on the execution mechanics of a YARN cluster (yarn.go); its zero value
	// leaves every one off.
	Yarn YarnConfig
	// Seed is the experiment seed the random execution mechanics draw from (draws.go).
	Seed int64
	// Holding holds resources without progress before and after each task's work (holding.go).
	Holding Holding
	// Variance spreads true task durations and makes stragglers (durations.go).
	Variance Variance
	// Durations, when set, decides each task attempt's work when it starts (durations.go).
	Durations DurationModel
	// Recorder, when set, receives every task attempt and scheduling call (record.go).
	Recorder Recorder
	// Failures, when its MTTF is set, removes and re-adds machines at random (cluster.go), drawing
	// from FailureRand.
	Failures    traces.FailureModel
	FailureRand *rand.Rand
	// IgnoreInitial starts on an empty cluster whatever the workload's initial holds;
	// IgnoreClusterEvents keeps its cluster fixed whatever its cluster events.
	IgnoreInitial, IgnoreClusterEvents bool
	// TraceEvictions replays the workload's Faults (the trace's evictions, failures and kills of
	// earlier runs): a task running at a fault's time is killed and requeued (cluster.go).
	TraceEvictions bool
	// SaturateHolds places an initial hold that does not fit its machine with what is free there
	// instead of leaving it out (cluster.go: an overcommitted cell's running state).
	SaturateHolds bool
}

// Estimator predicts job runtimes online, as a runtime predictor does in a real cluster: Predict
// is called when a job is submitted and may use only jobs observed before; Observe is called when
// a job completes with its runtime (completion minus first task start).
//
// A job-level prediction p is spread over the job's stages in proportion to their true durations:
// each stage's estimate becomes duration × p / critical path, so for a single-stage job the task
// estimate is exactly p.
type Estimator interface {
	Predict(j *traces.Job, now traces.Time) traces.Time
	Observe(j *traces.Job, runtime traces.Time)
}

// LogEntry is one event as the engine saw it.
type LogEntry struct {
	T       traces.Time
	Kind    Kind
	Job     int32 // -1 when not about a job
	Stage   int32
	Task    int32
	Machine int32
}

func (e LogEntry) String() string {
	if s, ok := yarnLogString(e); ok {
		return s
	}
	switch e.Kind {
	case KindTick, KindHorizon, KindStop:
		return fmt.Sprintf("t=%d %s", e.T, e.Kind)
	case KindMachineAdd, KindMachineRemove, KindMachineResize:
		return fmt.Sprintf("t=%d %s machine=%d", e.T, e.Kind, e.Machine)
	case KindArrival, KindComplete:
		return fmt.Sprintf("t=%d %s job=%d", e.T, e.Kind, e.Job)
	case KindUnlock:
		return fmt.Sprintf("t=%d %s job=%d stage=%d", e.T, e.Kind, e.Job, e.Stage)
	}
	return fmt.Sprintf("t=%d %s job=%d stage=%d task=%d machine=%d", e.T, e.Kind, e.Job, e.Stage, e.Task, e.Machine)
}

// PlanError reports a plan the engine rejected.
type PlanError struct {
	Policy   string
	T        traces.Time
	Decision string // e.g. "start #3 {job 5 stage 1 machine 0 count 2}"
	Reason   string
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("replay: policy %q at t=%d: %s: %s", e.Policy, e.T, e.Decision, e.Reason)
}

// ErrInvalidPlan is wrapped by every *PlanError.
var ErrInvalidPlan = errors.New("replay: invalid plan")

func (e *PlanError) Unwrap() error { return ErrInvalidPlan }

type taskStatus uint8

const (
	taskPending taskStatus = iota
	taskRunning
	taskDone
)

type stageRT struct {
	info        *policies.StageInfo
	src         *traces.Stage
	parentsLeft int32
	pending     int32 // runnable-or-not tasks not running and not done
	running     int32
	finished    int32
	next        int32   // lowest never-started task
	requeued    []int32 // preempted tasks waiting to restart, FIFO
	children    []int32
	ready       bool // listed in its job's ready list
	live        bool // listed in its job's live list
	// per-task state, allocated when the stage first starts a task
	status  []taskStatus
	machine []int32
	started []traces.Time
	attempt []uint32
	worked  []traces.Time // work kept across preemptions (PreemptKeepsWork)
	slowed  []bool        // soft-constrained jobs: the attempt runs Slowdown times longer
	rec     *stageRec     // recording only (record.go)
}

type jobRT struct {
	info    policies.JobInfo
	stages  []stageRT
	arrived bool
	done    bool
	running int32
	pending int32 // pending tasks in runnable stages
	// ready lists the runnable stages that may have pending tasks (a superset of those that
	// do), so RunnableStages costs what is runnable, not the job's stage count: a chain of n
	// stages would otherwise cost n² over its replay.
	ready []int32
	// live lists the stages that may have running tasks (a superset of those that do), so
	// RunningTasks costs the stages running, not the job's stage count.
	live         []int32
	finished     int64
	alloc        traces.Vec
	remEst       traces.Time
	firstStart   traces.Time
	finish       traces.Time
	changedEpoch uint64
	preemptions  int32
	pl           *placeRT // placement constraint in force; nil for none (and in pooled mode)
}

// markReady adds runnable stage s to the job's ready list unless it is there.
func (jr *jobRT) markReady(s int32) {
	if st := &jr.stages[s]; !st.ready {
		st.ready = true
		jr.ready = append(jr.ready, s)
	}
}

// Engine replays one workload under one policy. Create it with New and call Run once.
type Engine struct {
	cfg     Config
	w       *traces.Workload
	policy  policies.Policy
	jobs    []jobRT
	queues  []string
	dims    []string
	mach    []traces.Machine
	free    []traces.Vec
	cap     traces.Vec
	freeSum traces.Vec
	fit     *fit.Tree
	// Placement constraints (placement.go); nil in pooled mode.
	rackOf    []int32
	gpu       []bool
	rackNames []string
	deferred  []deferredStart

	now     traces.Time
	heap    eventHeap
	nextArr int // index of the next job to arrive

	epoch       uint64
	changed     []policies.JobID
	changedMach []int32
	machEpoch   []uint64
	active      []policies.JobID
	nActive     int
	dirty       bool
	freedNow    []int32 // machines a zero-delay preemption freed at this instant (followup.go)
	plan        policies.Plan
	buf         []int32
	runBuf      []policies.RunningTask

	stats      Stats
	m          *meter
	lastFinish traces.Time
	ran        bool
	dt         decisionState // a busy scheduler's held plan (decision.go)
	y          *yarnRT       // YARN mechanics (yarn.go); nil when all are off
	stop       stopRule

	rnd       *draws                  // execution mechanics' draws (draws.go); nil when all are off
	mech      map[*stageRT][]taskMech // execution mechanics' per-task state (durations.go)
	executors executorTable           // duration models: the executors each job holds (durations.go)
	acct      *conservation           // invariants build: held resource-seconds (invariants_conservation.go)
	rec       *recording              // nil unless Config.Recorder is set
	cl        *clusterRT              // a changing cluster and initial holds (cluster.go); nil without
	wakeAt    traces.Time             // the pending wake-up a Waker policy asked for (wake.go); 0: none
}

// Stats counts what the engine did.
type Stats struct {
	Events          int64 // all events processed or emitted (arrivals, starts, finishes, ...)
	SchedulingCalls int64
	Starts          int64
	Preemptions     int64
	StaleFinishes   int64 // finish events of preempted task attempts, discarded
	SlowedStarts    int64 // task starts of soft-constrained jobs off their preferred resources
	// With a DecisionTimer: the simulated time charged, the calls that fell due while the
	// scheduler was busy, and the plan elements dropped (decision.go).
	DecisionTime    traces.Time
	DelayedCalls    int64
	DroppedPreempts int64
	DroppedStarts   int64 // tasks
}

var _ policies.View = (*Engine)(nil)

// New prepares a replay of w under p. The workload must be valid (traces.Workload.Validate).
func New(w *traces.Workload, p policies.Policy, cfg Config) (*Engine, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if cfg.Cycle < 0 || cfg.PreemptDelay < 0 || cfg.Horizon < 0 || cfg.UsageWindow < 0 {
		return nil, fmt.Errorf("replay: cycle, preempt delay, horizon and usage window must be ≥ 0")
	}
	e := &Engine{cfg: cfg, w: w, policy: p, dims: w.Dims}
	if err := e.initMechanics(); err != nil {
		return nil, err
	}
	if cfg.Pooled || w.Cluster.Pooled {
		total := w.Cluster.Total()
		e.mach = []traces.Machine{{Name: "pool", Capacity: total}}
	} else {
		e.mach = w.Cluster.Machines
		e.indexMachines()
	}
	e.free = make([]traces.Vec, len(e.mach))
	for i, m := range e.mach {
		e.free[i] = m.Capacity
		e.cap = e.cap.Add(m.Capacity)
	}
	e.freeSum = e.cap
	e.fit = fit.New(e.free)
	e.machEpoch = make([]uint64, len(e.mach))
	if err := e.initCluster(); err != nil {
		return nil, err
	}

	queueIdx := map[string]int{}
	e.jobs = make([]jobRT, len(w.Jobs))
	for ji := range w.Jobs {
		src := &w.Jobs[ji]
		q, ok := queueIdx[src.Queue]
		if !ok {
			q = len(e.queues)
			queueIdx[src.Queue] = q
			e.queues = append(e.queues, src.Queue)
		}
		j := &e.jobs[ji]
		j.info = policies.JobInfo{
			ID: src.ID, Name: src.Name, Submit: src.Submit, Queue: q, Class: src.Class,
			Priority: src.Priority, Weight: src.Weight, Features: src.Features,
			Deadline: src.Deadline, Utility: src.Utility, Placement: src.Placement, Tasks: src.Tasks(),
			Stages: make([]policies.StageInfo, len(src.Stages)),
		}
		j.stages = make([]stageRT, len(src.Stages))
		j.firstStart = -1
		j.pl = e.newPlaceRT(src.Placement)
		for si := range src.Stages {
			s := &src.Stages[si]
			est := s.Estimate
			if cfg.Oracle {
				est = s.Duration
			}
			j.info.Stages[si] = policies.StageInfo{Name: s.Name, Tasks: s.Tasks, Demand: s.Demand, Estimate: est, Parents: s.Parents}
			st := &j.stages[si]
			st.src = s
			st.info = &j.info.Stages[si]
			st.parentsLeft = int32(len(s.Parents))
			st.pending = s.Tasks
			for _, par := range s.Parents {
				j.stages[par].children = append(j.stages[par].children, int32(si))
			}
			j.remEst += traces.Time(s.Tasks) * est
		}
	}
	e.m = newMeter(e)
	if err := e.initStopRule(); err != nil {
		return nil, err
	}
	if err := e.initYarn(); err != nil {
		return nil, err
	}
	if err := e.checkDecisionCluster(); err != nil {
		return nil, err
	}
	if cfg.Recorder != nil {
		e.rec = newRecording(cfg.Recorder)
	}
	return e, nil
}

// Run replays the workload to completion (or the horizon) and returns the results.
func (e *Engine) Run() (*Result, error) {
	if e.ran {
		return nil, errors.New("replay: Run called twice")
	}
	e.ran = true
	e.startCluster()
	if e.cfg.Cycle > 0 && len(e.jobs) > 0 {
		e.heap.push(event{t: firstTick(e.w.Jobs[0].Submit, e.cfg.Cycle), kind: KindTick})
	}
	for {
		t, ok := e.nextStop()
		if !ok {
			break
		}
		if e.cfg.Horizon > 0 && t > e.cfg.Horizon {
			e.advance(e.cfg.Horizon)
			e.log(LogEntry{T: e.now, Kind: KindHorizon, Job: -1})
			e.stats.Events++
			break
		}
		if t < e.now {
			return nil, fmt.Errorf("replay: event at t=%d is before the clock (t=%d)", t, e.now)
		}
		e.advance(t)
		tick := false
		for {
			t2, ok := e.nextTime()
			if !ok || t2 != t {
				break
			}
			if isTick, err := e.processOne(); err != nil {
				return nil, err
			} else if isTick {
				tick = true
			}
		}
		if e.y != nil {
			e.yarnInstant()
		}
		call, err := e.decisionPoint((e.cfg.Cycle == 0 && e.dirty) || tick)
		if err != nil {
			return nil, err
		}
		if call {
			if err := e.schedule(); err != nil {
				return nil, err
			}
		}
		if err := e.followUp(call); err != nil {
			return nil, err
		}
		if tick && e.moreTicks() {
			e.heap.push(event{t: e.now + e.cfg.Cycle, kind: KindTick})
		}
		if invariants {
			if err := e.checkInvariants(); err != nil {
				return nil, err
			}
		}
	}
	if invariants {
		if err := e.checkConservation(); err != nil {
			return nil, err
		}
	}
	if e.rec != nil {
		e.recUnfinished()
	}
	return e.result(), nil
}

// moreTicks reports whether another scheduling cycle can change anything: work is still in
// flight or to arrive, or the last plan acted. A cycle that found nothing to do with nothing in
// flight would repeat forever, so the run ends there with its unfinished jobs reported.
func (e *Engine) moreTicks() bool {
	if e.nActive == 0 && e.nextArr == len(e.jobs) && !e.yarnWaiting() {
		return false
	}
	return e.heap.Len() > 0 || e.nextArr < len(e.jobs) || len(e.plan.Starts) > 0 || len(e.plan.Preempts) > 0 || e.dt.busy
}

func firstTick(submit, cycle traces.Time) traces.Time {
	return (submit + cycle - 1) / cycle * cycle
}

// nextTime is the time of the next event: the heap top or the next arrival.
func (e *Engine) nextTime() (traces.Time, bool) {
	hasArr := e.nextArr < len(e.jobs)
	if e.heap.Len() == 0 {
		if !hasArr {
			return 0, false
		}
		return e.w.Jobs[e.nextArr].Submit, true
	}
	top := e.heap.top()
	if hasArr {
		if a := e.w.Jobs[e.nextArr].Submit; a < top.t || (a == top.t && KindArrival < top.kind) {
			return a, true
		}
	}
	return top.t, true
}

func (e *Engine) advance(t traces.Time) {
	if t > e.now {
		if invariants {
			e.acct.advance(e, t)
		}
		if e.rnd == nil || !e.trailing() {
			e.m.advance(e.now, t)
		}
		e.now = t
	}
}

// processOne handles the next event at the current time. It reports whether it was a tick.
func (e *Engine) processOne() (bool, error) {
	if e.nextArr < len(e.jobs) {
		a := e.w.Jobs[e.nextArr].Submit
		if e.heap.Len() == 0 || a < e.heap.top().t || (a == e.heap.top().t && KindArrival < e.heap.top().kind) {
			e.arrive(int32(e.nextArr))
			e.nextArr++
			return false, nil
		}
	}
	ev := e.heap.pop()
	switch ev.kind {
	case KindFinish:
		return false, e.finish(&ev)
	case KindRelease:
		e.releaseEvent(&ev)
		e.stats.Events++
		e.log(LogEntry{T: e.now, Kind: KindRelease, Job: ev.job, Stage: ev.stage, Task: ev.task, Machine: ev.machine})
		e.dirty = true
	case KindCluster:
		return false, e.clusterEvent(&ev)
	case KindTick:
		e.stats.Events++
		e.log(LogEntry{T: e.now, Kind: KindTick, Job: -1})
		return true, nil
	default:
		if e.y != nil && e.yarnEvent(&ev) {
			return false, nil
		}
		return false, fmt.Errorf("replay: internal: unexpected %s event in heap", ev.kind)
	}
	return false, nil
}

func (e *Engine) log(l LogEntry) {
	if e.cfg.Log != nil {
		e.cfg.Log(l)
	}
}

// machineChanged records that machine m's free capacity changes now (ChangedMachines).
func (e *Engine) machineChanged(m int32) {
	if e.machEpoch[m] != e.epoch+1 {
		e.machEpoch[m] = e.epoch + 1
		e.changedMach = append(e.changedMach, m)
	}
}

func (e *Engine) markChanged(j int32) {
	jr := &e.jobs[j]
	if jr.changedEpoch != e.epoch+1 {
		jr.changedEpoch = e.epoch + 1
		e.changed = append(e.changed, policies.JobID(j))
	}
	e.dirty = true
}

func (e *Engine) arrive(j int32) {
	if e.y != nil && e.y.am != nil && e.amSubmit(j) {
		return // the job reaches the policy once its AM is up (am.go)
	}
	jr := &e.jobs[j]
	jr.arrived = true
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindArrival, Job: j})
	if e.cfg.Estimator != nil && !e.cfg.Oracle {
		e.applyPrediction(j)
	}
	e.active = append(e.active, policies.JobID(j))
	e.nActive++
	for si := range jr.stages {
		if jr.stages[si].parentsLeft == 0 {
			jr.pending += jr.stages[si].pending
			jr.markReady(int32(si))
		}
	}
	if e.y != nil && e.y.slow != nil {
		e.slowArrive(j)
	}
	if e.rec != nil {
		e.rec.pending += int64(jr.pending)
	}
	e.markChanged(j)
}

// applyPrediction replaces job j's stage estimates with the estimator's job-level prediction.
func (e *Engine) applyPrediction(j int32) {
	src := &e.w.Jobs[j]
	jr := &e.jobs[j]
	pred := e.cfg.Estimator.Predict(src, e.now)
	truth := src.CriticalPath(false)
	if pred <= 0 || truth <= 0 {
		return // no prediction: keep the workload's estimates
	}
	ratio := float64(pred) / float64(truth)
	jr.remEst = 0
	for si := range src.Stages {
		est := max(1, traces.Time(math.Round(float64(src.Stages[si].Duration)*ratio)))
		jr.info.Stages[si].Estimate = est
		jr.remEst += traces.Time(src.Stages[si].Tasks) * est
	}
}

func (e *Engine) finish(ev *event) error {
	jr := &e.jobs[ev.job]
	st := &jr.stages[ev.stage]
	if st.attempt[ev.task] != ev.attempt || st.status[ev.task] != taskRunning {
		e.stats.StaleFinishes++
		return nil
	}
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindFinish, Job: ev.job, Stage: ev.stage, Task: ev.task, Machine: ev.machine})
	if e.dt.busy {
		e.taskFinished(ev)
	}
	st.status[ev.task] = taskDone
	if invariants {
		e.acct.finished(ev.job, ev.stage, ev.task)
	}
	st.running--
	st.finished++
	jr.running--
	jr.finished++
	jr.remEst -= st.info.Estimate
	if e.rec != nil {
		e.recEnd(ev.job, ev.stage, ev.task, AttemptFinished, 0, policies.Reason{})
	}
	if jr.pl != nil {
		e.placed(jr.pl, ev.machine, -1)
	}
	d := st.src.Demand
	e.freeAfterWork(ev, d)
	e.markChanged(ev.job)
	if e.y != nil && e.y.slow != nil {
		e.slowProgress(ev.job, ev.stage)
	}
	if st.finished == st.src.Tasks {
		for _, c := range st.children {
			cs := &jr.stages[c]
			if cs.parentsLeft == 0 { // slow-started early (slowstart.go)
				e.slowParentDone(ev.job, c)
				continue
			}
			cs.parentsLeft--
			if cs.parentsLeft == 0 {
				if e.rec != nil {
					e.recUnlock(jr, c)
				}
				jr.pending += cs.pending
				jr.markReady(c)
				e.stats.Events++
				e.log(LogEntry{T: e.now, Kind: KindUnlock, Job: ev.job, Stage: c})
			}
		}
	}
	if jr.finished == jr.info.Tasks {
		if e.y != nil && e.y.am != nil {
			e.amTeardown(ev.job) // the job completes after its AM's teardown (am.go)
			return nil
		}
		e.completeJob(ev.job)
	}
	return nil
}

// completeJob records that job j completed now.
func (e *Engine) completeJob(j int32) {
	jr := &e.jobs[j]
	jr.done = true
	jr.finish = e.now
	e.lastFinish = e.now
	e.nActive--
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindComplete, Job: j})
	if e.cfg.Estimator != nil {
		e.cfg.Estimator.Observe(&e.w.Jobs[j], e.now-jr.firstStart)
	}
	e.stopRuleJobDone(j)
}

func (e *Engine) release(m int32, d traces.Vec) {
	if e.cl != nil {
		d = e.swallowRelease(m, d)
	}
	e.machineChanged(m)
	e.free[m] = e.free[m].Add(d)
	e.freeSum = e.freeSum.Add(d)
	e.fit.Set(int(m), e.free[m])
}

func (e *Engine) schedule() error {
	e.stats.SchedulingCalls++
	e.plan.Reset()
	e.fit.BeginPlan() // the policy may plan on the engine's tree (PlanFit)
	defer e.fit.EndPlan(e.free)
	if err := e.policy.Schedule(e, &e.plan); err != nil {
		return fmt.Errorf("replay: policy %q at t=%d: %w", e.policy.Name(), e.now, err)
	}
	e.askWake() // wake.go
	// Everything the policy saw is consumed; changes made by applying the plan are reported
	// at the next scheduling point.
	e.epoch++
	e.changed = e.changed[:0]
	e.changedMach = e.changedMach[:0]
	e.dirty = false
	if e.decisionHold() {
		return nil // applied when the decision time is over (decision.go)
	}
	for i, p := range e.plan.Preempts {
		if err := e.preempt(i, p); err != nil {
			return err
		}
	}
	for i, s := range e.plan.Starts {
		if err := e.start(i, s); err != nil {
			return err
		}
	}
	if len(e.deferred) > 0 {
		e.settleDeferred()
	}
	if e.rec != nil {
		e.recCall()
	}
	return nil
}

func (e *Engine) planError(decision, format string, args ...any) error {
	return &PlanError{Policy: e.policy.Name(), T: e.now, Decision: decision, Reason: fmt.Sprintf(format, args...)}
}

func (e *Engine) lookupStage(j policies.JobID, s int32) (*jobRT, *stageRT, string) {
	if j < 0 || int(j) >= len(e.jobs) {
		return nil, nil, fmt.Sprintf("unknown job (workload has %d jobs)", len(e.jobs))
	}
	jr := &e.jobs[j]
	if !jr.arrived {
		return nil, nil, "job has not arrived yet"
	}
	if s < 0 || int(s) >= len(jr.stages) {
		return nil, nil, fmt.Sprintf("unknown stage (job has %d stages)", len(jr.stages))
	}
	return jr, &jr.stages[s], ""
}

func (e *Engine) start(i int, s policies.Start) error {
	decision := func() string {
		return fmt.Sprintf("start #%d {job %d stage %d machine %d count %d}", i, s.Job, s.Stage, s.Machine, s.Count)
	}
	jr, st, why := e.lookupStage(s.Job, s.Stage)
	if why != "" {
		return e.planError(decision(), "%s", why)
	}
	if jr.done {
		return e.planError(decision(), "job already completed")
	}
	if st.parentsLeft > 0 {
		return e.planError(decision(), "stage locked: %d parent stage(s) unfinished", st.parentsLeft)
	}
	if s.Count <= 0 {
		return e.planError(decision(), "count must be positive")
	}
	if s.Count > st.pending {
		return e.planError(decision(), "only %d task(s) pending (%d running, %d done): cannot start %d", st.pending, st.running, st.finished, s.Count)
	}
	if s.Machine < 0 || int(s.Machine) >= len(e.mach) {
		return e.planError(decision(), "unknown machine (cluster has %d)", len(e.mach))
	}
	d := st.src.Demand
	need := d.Scale(int64(s.Count))
	if e.y != nil && e.y.resv != nil {
		if s.Count = e.reserveAdmit(s, jr, d); s.Count == 0 {
			return nil // the node is reserved for another container, or now for this one
		}
		need = d.Scale(int64(s.Count))
	}
	if !need.Fits(e.free[s.Machine]) {
		return e.planError(decision(), "over-commit: needs %s, machine has %s free", need.Format(len(e.dims)), e.free[s.Machine].Format(len(e.dims)))
	}
	pl := jr.pl
	if pl != nil && pl.hard {
		if why := e.checkHard(pl, s.Machine); why != "" {
			return e.planError(decision(), "%s", why)
		}
	}
	soft := pl != nil && !pl.hard
	if st.status == nil {
		n := st.src.Tasks
		st.status = make([]taskStatus, n)
		st.machine = make([]int32, n)
		st.started = make([]traces.Time, n)
		st.attempt = make([]uint32, n)
		if e.cfg.PreemptKeepsWork {
			st.worked = make([]traces.Time, n)
		}
		if soft {
			st.slowed = make([]bool, n)
		}
	}
	for c := int32(0); c < s.Count; c++ {
		var task int32
		if len(st.requeued) > 0 {
			task = st.requeued[0]
			st.requeued = st.requeued[1:]
		} else {
			task = st.next
			st.next++
		}
		st.status[task] = taskRunning
		st.machine[task] = s.Machine
		st.started[task] = e.now
		st.attempt[task]++
		work := st.src.TaskDuration(task)
		if e.rnd != nil {
			work = e.mechanicsWork(jr, st, int32(s.Job), s.Stage, task, s.Machine, c)
		}
		if e.rec != nil {
			e.recStart(int32(s.Job), s.Stage, task, i)
		}
		if soft {
			// The duration depends on where the whole plan puts the job: settled after its
			// last start (settleDeferred).
			e.deferred = append(e.deferred, deferredStart{job: int32(s.Job), stage: s.Stage, task: task})
		} else {
			dur := work
			if st.worked != nil {
				dur -= st.worked[task]
			}
			if e.y == nil {
				e.pushFinish(event{t: e.now + e.startupOf(st, task) + dur, kind: KindFinish, job: int32(s.Job), stage: s.Stage, task: task, machine: s.Machine, attempt: st.attempt[task]})
			} else {
				e.yarnPushFinish(int32(s.Job), s.Stage, task, s.Machine, e.startupOf(st, task)+dur) // yarn.go
			}
		}
		e.stats.Events++
		e.stats.Starts++
		e.log(LogEntry{T: e.now, Kind: KindStart, Job: int32(s.Job), Stage: s.Stage, Task: task, Machine: s.Machine})
	}
	if pl != nil {
		e.placed(pl, s.Machine, s.Count)
	}
	st.pending -= s.Count
	st.running += s.Count
	if !st.live {
		st.live = true
		jr.live = append(jr.live, s.Stage)
	}
	jr.pending -= s.Count
	jr.running += s.Count
	jr.alloc = jr.alloc.Add(need)
	if jr.firstStart < 0 {
		jr.firstStart = e.now
	}
	e.machineChanged(s.Machine)
	e.free[s.Machine] = e.free[s.Machine].Sub(need)
	e.freeSum = e.freeSum.Sub(need)
	if !e.fit.Planned(int(s.Machine)) { // else set once the whole plan is in
		e.fit.Set(int(s.Machine), e.free[s.Machine])
	}
	e.m.allocChanged(int32(s.Job), need, +1)
	e.markChanged(int32(s.Job))
	e.dirty = false // starts alone do not call for another scheduling point
	return nil
}

func (e *Engine) preempt(i int, p policies.TaskRef) error {
	decision := fmt.Sprintf("preempt #%d {job %d stage %d task %d}", i, p.Job, p.Stage, p.Task)
	jr, st, why := e.lookupStage(p.Job, p.Stage)
	if why != "" {
		return e.planError(decision, "%s", why)
	}
	if p.Task < 0 || p.Task >= st.src.Tasks {
		return e.planError(decision, "unknown task (stage has %d)", st.src.Tasks)
	}
	if st.status == nil || st.status[p.Task] != taskRunning {
		return e.planError(decision, "task is not running")
	}
	m := st.machine[p.Task]
	st.status[p.Task] = taskPending
	st.attempt[p.Task]++ // its finish event becomes stale
	slowed := st.slowed != nil && st.slowed[p.Task]
	if e.rec != nil {
		e.recPreempt(i, p)
	}
	if st.worked != nil {
		work := st.worked[p.Task]
		if slowed {
			work += nominalWork(e.workDone(st, p), true, jr.pl.slow)
		} else {
			work += e.workDone(st, p)
		}
		// Rounding the slowed share must not count a preempted task as done.
		st.worked[p.Task] = min(work, e.fullWork(st, p.Task)-1)
	}
	if slowed {
		st.slowed[p.Task] = false
	}
	if jr.pl != nil {
		e.placed(jr.pl, m, -1)
	}
	st.requeued = append(st.requeued, p.Task)
	st.running--
	st.pending++
	jr.running--
	jr.pending++
	jr.markReady(p.Stage)
	jr.preemptions++
	d := st.src.Demand
	jr.alloc = jr.alloc.Sub(d)
	e.m.allocChanged(int32(p.Job), d, -1)
	e.stats.Events++
	e.stats.Preemptions++
	e.log(LogEntry{T: e.now, Kind: KindPreempt, Job: int32(p.Job), Stage: p.Stage, Task: p.Task, Machine: m})
	e.executorStopped(int32(p.Job), p.Stage)
	if invariants {
		e.acct.preempted(int32(p.Job), p.Stage, p.Task, e.now, d, e.cfg.PreemptDelay)
	}
	if e.cfg.PreemptDelay == 0 {
		e.release(m, d)
		e.freedNow = append(e.freedNow, m)
	} else {
		e.heap.push(event{t: e.now + e.cfg.PreemptDelay, kind: KindRelease, job: int32(p.Job), stage: p.Stage, task: p.Task, machine: m})
	}
	e.markChanged(int32(p.Job))
	return nil
}
