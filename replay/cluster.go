package replay

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// A cluster that changes (traces.Workload.ClusterEvents, Config.Failures) and load from before the
// workload (traces.Workload.Initial) are replayed here, on the engine's own copy of the machines:
//
//   - An initial hold takes its demand from its machine at its start and gives it back at its
//     end. One that does not fit its machine's free capacity at its start is left out and counted
//     (ClusterStats.HoldsRejected): the trace's cell overcommits, the replay places exactly.
//   - A removed machine's running tasks are killed: each becomes pending again, restarts from
//     zero (work kept by earlier preemptions under PreemptKeepsWork stays kept), and its
//     elapsed run is counted as work lost. Its holds end early (HoldsDropped). The machine's
//     capacity becomes zero, so View.Machine, View.Free, View.Capacity and FirstFit all see it go.
//     A preempted task still draining on it (PreemptDelay) frees nothing when its release comes.
//   - A resized machine takes its new capacity; if what runs no longer fits, the most recently
//     started tasks are killed until it does, then holds are dropped.
//   - An added machine (down from the start when its first event is an add) comes up with the
//     event's capacity.
//
// Changes at one instant are applied after the finishes and releases of that instant and before
// the policy's scheduling point, in the order hold ends, machine events, hold starts. Changed
// machines are reported through ChangedMachines and trigger a scheduling point.

// ClusterStats counts what the changing cluster and the initial load did in a run.
type ClusterStats struct {
	Holds         int64 `json:"holds"`          // initial holds taken
	HoldsRejected int64 `json:"holds_rejected"` // did not fit their machine at their start
	HoldsDropped  int64 `json:"holds_dropped"`  // ended early by a removal or a shrink
	// HeldAtStart is the demand the holds starting at the run's first instant took, per dimension.
	HeldAtStart traces.Vec `json:"-"`
	Added       int64      `json:"machines_added"`
	Removed     int64      `json:"machines_removed"`
	Resized     int64      `json:"machines_resized"`
	Failures    int64      `json:"failures"` // removals drawn by the failure model (in Removed)
	// Kills counts task attempts killed by the cluster (removals, shrinks) and by replayed trace
	// evictions; WorkLost their elapsed run time.
	Kills int64 `json:"kills"`
	// TraceKills counts the trace's evictions, failures and kills replayed on a running task
	// (Config.TraceEvictions; in Kills); FaultsMissed those whose task was not running then.
	TraceKills, FaultsMissed int64
	WorkLost                 traces.Time `json:"-"`
	// ByClass splits kills (restarts) and work lost by job class.
	ByClass map[string]*ClassLoss `json:"by_class,omitempty"`
	// HoldsSaturated counts the holds (in Holds) that did not fit their machine and took what
	// was free there (Config.SaturateHolds); SaturatedLeft sums the demand they left out.
	HoldsSaturated int64      `json:"holds_saturated"`
	SaturatedLeft  traces.Vec `json:"-"`
	// Taken is, per initial hold of the workload, the demand the replay took (zero: rejected;
	// less than the hold's demand: saturated), nil when it took none: a check against the trace
	// (experiments/tracecheck) rebuilds the held load from it.
	Taken []traces.Vec `json:"-"`
}

// ClassLoss is what kills cost one job class.
type ClassLoss struct {
	Restarts int64       `json:"restarts"`
	WorkLost traces.Time `json:"-"`
}

// timeline operations at one instant, in the order they apply.
const (
	opHoldEnd uint8 = iota
	opFault
	opMachine
	opHoldStart
)

type tlEntry struct {
	t  traces.Time
	op uint8
	i  int32 // hold or cluster event index
}

// clusterRT is the engine's state for a changing cluster; nil when the workload has neither
// initial holds nor cluster events and no failure model is set.
type clusterRT struct {
	tl     []tlEntry
	next   int
	queued bool // a timeline event sits in the heap
	holds  []traces.Hold
	events []traces.ClusterEvent
	faults []traces.TaskFault
	jobOf  map[int64]int32 // job ID → index, for faults
	active []bool          // per hold: taken and not yet ended
	byMach [][]int32       // per machine: holds taken (may list ended ones; active says)
	down   []bool
	owe    []traces.Vec // per machine: releases still to come that free nothing (draining on a gone machine)
	fail   traces.FailureModel
	rng    *rand.Rand
	stats  ClusterStats
}

// Failure events in the heap carry these job markers; timeline events carry jobTimeline.
const (
	jobTimeline int32 = -1
	jobFailure  int32 = -2
	jobRepair   int32 = -3
)

// initCluster sets up the changing cluster after New has built the machines. The engine copies
// the machines it changes, never the workload's.
func (e *Engine) initCluster() error {
	w := e.w
	f := e.cfg.Failures
	holds, events := w.Initial, w.ClusterEvents
	var faults []traces.TaskFault
	if e.cfg.TraceEvictions {
		faults = w.Faults
	}
	if e.cfg.IgnoreInitial {
		holds = nil
	}
	if e.cfg.IgnoreClusterEvents {
		events = nil
	}
	if len(holds) == 0 && len(events) == 0 && len(faults) == 0 && f.MTTF == 0 {
		return nil
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	pooled := e.cfg.Pooled || w.Cluster.Pooled
	if pooled && (len(events) > 0 || f.MTTF > 0) {
		return fmt.Errorf("replay: cluster events and failures need machines; the cluster is pooled")
	}
	if f.MTTF > 0 && len(events) > 0 {
		return fmt.Errorf("replay: the workload has its own cluster events; a failure model would contradict them")
	}
	if f.MTTF > 0 && e.cfg.FailureRand == nil {
		return fmt.Errorf("replay: a failure model needs Config.FailureRand")
	}
	if e.cfg.SaturateHolds {
		holds = slices.Clone(holds) // a saturated hold's demand becomes what it took
	}
	c := &clusterRT{holds: holds, events: events, faults: faults, fail: f, rng: e.cfg.FailureRand}
	if len(faults) > 0 {
		c.jobOf = make(map[int64]int32, len(w.Jobs))
		for i := range w.Jobs {
			c.jobOf[w.Jobs[i].ID] = int32(i)
		}
	}
	e.mach = slices.Clone(e.mach)
	n := len(e.mach)
	c.active = make([]bool, len(holds))
	c.byMach = make([][]int32, n)
	c.down = make([]bool, n)
	c.owe = make([]traces.Vec, n)
	c.tl = make([]tlEntry, 0, 2*len(holds)+len(events)+len(faults))
	for i, f := range faults {
		c.tl = append(c.tl, tlEntry{f.T, opFault, int32(i)})
	}
	for i, h := range holds {
		c.tl = append(c.tl, tlEntry{h.Start, opHoldStart, int32(i)}, tlEntry{h.End, opHoldEnd, int32(i)})
	}
	for i, ev := range events {
		c.tl = append(c.tl, tlEntry{ev.T, opMachine, int32(i)})
	}
	slices.SortFunc(c.tl, func(a, b tlEntry) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		if a.op != b.op {
			return cmp.Compare(a.op, b.op)
		}
		return cmp.Compare(a.i, b.i)
	})
	e.cl = c
	for m, d := range traces.InitiallyDown(n, events) {
		if d {
			e.setCapacity(int32(m), traces.Vec{})
			c.down[m] = true
		}
	}
	return nil
}

// startCluster queues the first timeline event and, with a failure model, every machine's first
// failure. Called once when the run starts.
func (e *Engine) startCluster() {
	c := e.cl
	if c == nil {
		return
	}
	c.queueNext(e)
	if c.fail.MTTF > 0 {
		var t0 traces.Time
		if len(e.w.Jobs) > 0 {
			t0 = e.w.Jobs[0].Submit
		}
		for m := range e.mach {
			e.heap.push(event{t: t0 + c.draw(c.fail.MTTF), kind: KindCluster, job: jobFailure, machine: int32(m)})
		}
	}
}

func (c *clusterRT) draw(mean traces.Time) traces.Time {
	return max(1, traces.Time(math.Round(c.rng.ExpFloat64()*float64(mean))))
}

// workLeft reports whether jobs are still to arrive or unfinished: past that, cluster changes
// cannot matter and are no longer queued.
func (e *Engine) workLeft() bool { return e.nActive > 0 || e.nextArr < len(e.jobs) }

// busy reports whether a task runs or a job is still to arrive. The failure model draws new
// failures only then: a run whose pending work nothing will start ends instead of failing and
// repairing machines forever. Once every job has completed it is false: release holds ending
// after the last completion stay in the meter's allocation (freeTask, trailing) and would
// otherwise keep the failure model going forever.
func (e *Engine) busy() bool {
	return (!e.m.alloc.IsZero() && !e.trailing()) || e.nextArr < len(e.jobs)
}

func (c *clusterRT) queueNext(e *Engine) {
	if c.next < len(c.tl) && !c.queued {
		e.heap.push(event{t: max(c.tl[c.next].t, e.now), kind: KindCluster, job: jobTimeline})
		c.queued = true
	}
}

// clusterEvent handles a KindCluster event: the timeline's entries at this instant, or a
// failure-model failure or repair.
func (e *Engine) clusterEvent(ev *event) error {
	c := e.cl
	e.stats.Events++
	switch ev.job {
	case jobWake:
		e.wake() // wake.go
		return nil
	case jobFailure:
		if !e.busy() {
			return nil // nothing runs or is to arrive: the failure process ends (no endless stall)
		}
		c.stats.Failures++
		e.removeMachine(ev.machine)
		e.heap.push(event{t: e.now + c.draw(c.fail.MTTR), kind: KindCluster, job: jobRepair, machine: ev.machine})
		return nil
	case jobRepair:
		e.addMachine(ev.machine, e.w.Cluster.Machines[ev.machine].Capacity)
		if !e.busy() && !e.workLeft() {
			return nil
		}
		e.heap.push(event{t: e.now + c.draw(c.fail.MTTF), kind: KindCluster, job: jobFailure, machine: ev.machine})
		return nil
	}
	c.queued = false
	for c.next < len(c.tl) && c.tl[c.next].t <= e.now {
		en := c.tl[c.next]
		c.next++
		switch en.op {
		case opHoldStart:
			e.holdStart(en.i)
		case opHoldEnd:
			e.holdEnd(en.i)
		case opFault:
			e.fault(&c.faults[en.i])
		case opMachine:
			ce := &c.events[en.i]
			switch ce.Kind {
			case traces.MachineAdd:
				e.addMachine(ce.Machine, ce.Capacity)
			case traces.MachineRemove:
				e.removeMachine(ce.Machine)
			case traces.MachineResize:
				e.resizeMachine(ce.Machine, ce.Capacity)
			default:
				return fmt.Errorf("replay: internal: cluster event %d of kind %d", en.i, ce.Kind)
			}
		}
	}
	if e.workLeft() {
		c.queueNext(e)
	}
	return nil
}

func (e *Engine) holdStart(i int32) {
	c := e.cl
	h := &c.holds[i]
	m := h.Machine
	if e.cfg.Pooled || e.w.Cluster.Pooled {
		m = 0
	}
	if c.down[m] || !h.Demand.Fits(e.free[m]) {
		if c.down[m] || !e.cfg.SaturateHolds || !e.saturate(h, m) {
			c.stats.HoldsRejected++
			return
		}
		c.stats.HoldsSaturated++
	}
	c.active[i] = true
	c.byMach[m] = append(c.byMach[m], i)
	c.stats.Holds++
	if c.stats.Taken == nil {
		c.stats.Taken = make([]traces.Vec, len(c.holds))
	}
	c.stats.Taken[i] = h.Demand
	if len(e.w.Jobs) == 0 || h.Start <= e.w.Jobs[0].Submit {
		c.stats.HeldAtStart = c.stats.HeldAtStart.Add(h.Demand)
	}
	e.take(m, h.Demand)
}

func (e *Engine) holdEnd(i int32) {
	c := e.cl
	if !c.active[i] {
		return
	}
	c.active[i] = false
	m := c.holds[i].Machine
	if e.cfg.Pooled || e.w.Cluster.Pooled {
		m = 0
	}
	c.byMach[m] = slices.DeleteFunc(c.byMach[m], func(k int32) bool { return k == i })
	e.release(m, c.holds[i].Demand)
	e.dirty = e.dirty || e.workLeft()
}

// # Saturated holds
//
// A mid-trace window of the Google 2011 trace begins with more running requests than capacity:
// Borg overcommits (Verma et al., EuroSys 2015, §5.5: the scheduler admits non-prod tasks
// against the reservations of the tasks already running, not their limits, so requests on a
// machine can exceed its capacity). An exact replay cannot hold more than a machine's capacity.
// By default (reject) a hold that does not fit its machine at its start is left out, and the
// machine starts with room the cell did not have; with Config.SaturateHolds it takes, in each
// dimension, what is free there (at most its demand), so the machine starts full, as it was, and
// gives that back when the hold ends. Neither keeps the excess: what a saturated hold leaves out
// is counted (ClusterStats.SaturatedLeft).

// saturate shrinks hold h to what is free on machine m; false when nothing is.
func (e *Engine) saturate(h *traces.Hold, m int32) bool {
	var d traces.Vec
	for k := range d {
		d[k] = min(h.Demand[k], max(e.free[m][k], 0))
	}
	if d.IsZero() {
		return false
	}
	e.cl.stats.SaturatedLeft = e.cl.stats.SaturatedLeft.Add(h.Demand.Sub(d))
	h.Demand = d
	return true
}

// take removes d from machine m's free capacity.
func (e *Engine) take(m int32, d traces.Vec) {
	e.machineChanged(m)
	e.free[m] = e.free[m].Sub(d)
	e.freeSum = e.freeSum.Sub(d)
	e.fit.Set(int(m), e.free[m])
}

// swallowRelease is called by release: on a machine owing releases (a preempted task draining
// when the machine went or shrank), the part owed frees nothing. It returns what remains to free.
func (e *Engine) swallowRelease(m int32, d traces.Vec) traces.Vec {
	o := &e.cl.owe[m]
	for k := range d {
		s := min(d[k], o[k])
		if s > 0 {
			o[k] -= s
			d[k] -= s
		}
	}
	return d
}

// setCapacity changes machine m's capacity to c, its free capacity by the difference.
func (e *Engine) setCapacity(m int32, c traces.Vec) {
	delta := c.Sub(e.mach[m].Capacity)
	e.mach[m].Capacity = c
	e.cap = e.cap.Add(delta)
	e.machineChanged(m)
	e.free[m] = e.free[m].Add(delta)
	e.freeSum = e.freeSum.Add(delta)
	e.fit.Set(int(m), e.free[m])
	e.dirty = e.dirty || e.workLeft()
}

func (e *Engine) addMachine(m int32, capacity traces.Vec) {
	c := e.cl
	c.down[m] = false
	c.stats.Added++
	e.log(LogEntry{T: e.now, Kind: KindMachineAdd, Job: -1, Machine: m})
	e.setCapacity(m, capacity)
}

func (e *Engine) removeMachine(m int32) {
	c := e.cl
	c.stats.Removed++
	e.log(LogEntry{T: e.now, Kind: KindMachineRemove, Job: -1, Machine: m})
	for _, t := range e.tasksOn(m) {
		e.kill(t)
	}
	for _, i := range c.byMach[m] {
		if c.active[i] {
			c.active[i] = false
			c.stats.HoldsDropped++
			e.release(m, c.holds[i].Demand)
		}
	}
	c.byMach[m] = c.byMach[m][:0]
	c.down[m] = true
	e.setCapacity(m, traces.Vec{})
	e.settleDeficit(m)
}

func (e *Engine) resizeMachine(m int32, capacity traces.Vec) {
	c := e.cl
	c.stats.Resized++
	e.log(LogEntry{T: e.now, Kind: KindMachineResize, Job: -1, Machine: m})
	e.setCapacity(m, capacity)
	if !e.free[m].AnyNegative() {
		return
	}
	// Kill the most recently started tasks until what runs fits, then drop holds.
	ts := e.tasksOn(m)
	slices.SortStableFunc(ts, func(a, b runningRef) int { return cmp.Compare(b.start, a.start) })
	for _, t := range ts {
		if !e.free[m].AnyNegative() {
			break
		}
		e.kill(t)
	}
	for k := len(c.byMach[m]) - 1; k >= 0 && e.free[m].AnyNegative(); k-- {
		i := c.byMach[m][k]
		if c.active[i] {
			c.active[i] = false
			c.stats.HoldsDropped++
			e.release(m, c.holds[i].Demand)
		}
		c.byMach[m] = c.byMach[m][:k]
	}
	e.settleDeficit(m)
}

// settleDeficit turns a negative free capacity left on machine m (resources of preempted tasks
// still draining there) into releases owed: those releases will free nothing.
func (e *Engine) settleDeficit(m int32) {
	f := e.free[m]
	if !f.AnyNegative() {
		return
	}
	var d traces.Vec
	for k := range f {
		if f[k] < 0 {
			d[k] = -f[k]
		}
	}
	e.cl.owe[m] = e.cl.owe[m].Add(d)
	e.free[m] = f.Add(d)
	e.freeSum = e.freeSum.Add(d)
	e.fit.Set(int(m), e.free[m])
}

// runningRef is a running task found on a machine.
type runningRef struct {
	job, stage, task int32
	start            traces.Time
}

// tasksOn lists the tasks running on machine m, by job, stage and task. It scans the active jobs'
// running stages: machine events are rare next to starts and finishes, so the engine keeps no
// per-machine index for them.
func (e *Engine) tasksOn(m int32) []runningRef {
	var out []runningRef
	for _, j := range e.Active() {
		jr := &e.jobs[j]
		if jr.running == 0 {
			continue
		}
		for _, si := range jr.live {
			st := &jr.stages[si]
			if st.running == 0 {
				continue
			}
			for ti, s := range st.status {
				if s == taskRunning && st.machine[ti] == m {
					out = append(out, runningRef{job: int32(j), stage: si, task: int32(ti), start: st.started[ti]})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b runningRef) int {
		if a.job != b.job {
			return cmp.Compare(a.job, b.job)
		}
		if a.stage != b.stage {
			return cmp.Compare(a.stage, b.stage)
		}
		return cmp.Compare(a.task, b.task)
	})
	return out
}

// kill stops a running task outside the policy's plan (its machine went or shrank, or the trace
// evicted it): it becomes pending again at the front of its stage's restart queue, its
// resources are free at once, and the attempt's run is work lost.
func (e *Engine) kill(t runningRef) {
	jr := &e.jobs[t.job]
	st := &jr.stages[t.stage]
	m := st.machine[t.task]
	lost := e.now - st.started[t.task]
	if e.rec != nil {
		e.recEnd(t.job, t.stage, t.task, AttemptKilled, lost, policies.Reason{})
	}
	st.status[t.task] = taskPending
	st.attempt[t.task]++ // its finish event becomes stale
	if st.slowed != nil && st.slowed[t.task] {
		st.slowed[t.task] = false
	}
	if jr.pl != nil {
		e.placed(jr.pl, m, -1)
	}
	st.requeued = append(st.requeued, t.task)
	st.running--
	st.pending++
	jr.running--
	jr.pending++
	jr.markReady(t.stage)
	d := st.src.Demand
	jr.alloc = jr.alloc.Sub(d)
	e.m.allocChanged(t.job, d, -1)
	e.release(m, d)
	e.markChanged(t.job)
	c := e.cl
	c.stats.Kills++
	c.stats.WorkLost += lost
	if c.stats.ByClass == nil {
		c.stats.ByClass = map[string]*ClassLoss{}
	}
	cl := c.stats.ByClass[jr.info.Class]
	if cl == nil {
		cl = &ClassLoss{}
		c.stats.ByClass[jr.info.Class] = cl
	}
	cl.Restarts++
	cl.WorkLost += lost
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindKill, Job: t.job, Stage: t.stage, Task: t.task, Machine: m})
}

// fault replays a trace's eviction, failure or kill: the task is killed if it runs now.
func (e *Engine) fault(f *traces.TaskFault) {
	c := e.cl
	j, ok := c.jobOf[f.Job]
	if ok {
		st := &e.jobs[j].stages[f.Stage]
		if st.status != nil && st.status[f.Task] == taskRunning {
			c.stats.TraceKills++
			e.kill(runningRef{job: j, stage: f.Stage, task: f.Task, start: st.started[f.Task]})
			return
		}
	}
	c.stats.FaultsMissed++
}

// clusterStats returns a copy of the run's cluster statistics, nil without a changing cluster.
func (e *Engine) clusterStats() *ClusterStats {
	if e.cl == nil {
		return nil
	}
	s := e.cl.stats
	return &s
}

// clusterHeld adds, per machine, the capacity held by active initial holds and subtracts the
// releases owed, for the invariant check (free + held = capacity).
func (e *Engine) clusterHeld(held []traces.Vec) {
	c := e.cl
	if c == nil {
		return
	}
	for i, h := range c.holds {
		if c.active[i] {
			m := h.Machine
			if e.cfg.Pooled || e.w.Cluster.Pooled {
				m = 0
			}
			held[m] = held[m].Add(h.Demand)
		}
	}
	for m := range c.owe {
		held[m] = held[m].Sub(c.owe[m])
	}
}
