package external

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// machineChanges is the engine's optional report of the machines whose free capacity changed
// since the previous call (the same ability policies/baseline.MachineChanges names).
type machineChanges interface {
	ChangedMachines() []int32
}

// tracker remembers what the scheduler has been told, so that each call carries only what
// changed: the cost of a call follows the changed jobs and machines, not the cluster.
type tracker struct {
	called    bool
	queues    int                       // queue names sent
	arrived   []bool                    // by JobID: description sent
	running   [][]policies.RunningTask  // by JobID: running tasks as last sent
	preempted map[policies.TaskRef]bool // asked for by a plan, not yet reported ended
	free      []traces.Vec              // by machine: as last sent

	started  []policies.RunningTask
	finished []policies.TaskRef
	stopped  []policies.TaskRef // preempted
}

func byTask(a, b policies.RunningTask) int {
	return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Task, b.Task))
}

// planned records the preemptions of a plan the engine is about to apply.
func (t *tracker) planned(p *policies.Plan) {
	if len(p.Preempts) == 0 {
		return
	}
	if t.preempted == nil {
		t.preempted = map[policies.TaskRef]bool{}
	}
	for _, r := range p.Preempts {
		t.preempted[r] = true
	}
}

// encodeCall appends the schedule message for the current scheduling point to e.
func (t *tracker) encodeCall(e *enc, v policies.View, call int64) {
	nd := len(v.Dims())
	if d, ok := v.(policies.PlanDrops); ok {
		for _, r := range d.DroppedPreempts() {
			delete(t.preempted, r) // it finished before the plan landed (engine.decision_time)
		}
	}
	e.raw(`{"type":"schedule","call":`)
	e.int(call)
	e.raw(`,"now":`)
	e.int(v.Now())
	if qs := v.Queues(); len(qs) > t.queues {
		e.raw(`,"queues":[`)
		for i, q := range qs[t.queues:] {
			e.comma(i)
			e.str(q)
		}
		e.raw(`]`)
		t.queues = len(qs)
	}
	changed := v.Changed()
	e.raw(`,"arrivals":[`)
	n := 0
	for _, j := range changed {
		if int(j) >= len(t.arrived) {
			grow := max(int(j)+1, 2*len(t.arrived), 64)
			t.arrived = append(t.arrived, make([]bool, grow-len(t.arrived))...)
			t.running = append(t.running, make([][]policies.RunningTask, grow-len(t.running))...)
		}
		if !t.arrived[j] {
			t.arrived[j] = true
			e.comma(n)
			n++
			e.job(j, v.Job(j), nd)
		}
	}
	e.raw(`],"jobs":[`)
	t.started, t.finished, t.stopped = t.started[:0], t.finished[:0], t.stopped[:0]
	for i, j := range changed {
		js := v.JobState(j)
		e.comma(i)
		e.raw(`{"job":`)
		e.int(int64(j))
		e.raw(`,"running":`)
		e.int(int64(js.Running))
		e.raw(`,"pending":`)
		e.int(int64(js.Pending))
		e.raw(`,"finished":`)
		e.int(js.Finished)
		e.raw(`,"remaining_estimate":`)
		e.int(js.RemainingEstimate)
		e.raw(`,"first_start":`)
		e.int(js.FirstStart)
		e.raw(`,"done":`)
		e.bool(js.Done)
		e.raw(`,"alloc":`)
		e.vec(js.Alloc, nd)
		e.raw(`,"stages":[`)
		ns := int32(len(v.Job(j).Stages))
		for s := int32(0); s < ns; s++ {
			st := v.StageState(j, s)
			e.comma(int(s))
			e.b = append(e.b, '[')
			e.int(int64(st.Pending))
			e.b = append(e.b, ',')
			e.int(int64(st.Running))
			e.b = append(e.b, ',')
			e.int(int64(st.Finished))
			e.b = append(e.b, ',')
			if st.Runnable {
				e.b = append(e.b, '1')
			} else {
				e.b = append(e.b, '0')
			}
			e.b = append(e.b, ']')
		}
		e.raw(`]}`)
		t.diffRunning(v, j, js.Running)
	}
	e.raw(`],"started":[`)
	for i, r := range t.started {
		e.comma(i)
		taskRefOpen(e, policies.TaskRef{Job: r.Job, Stage: r.Stage, Task: r.Task})
		e.b = append(e.b, ',')
		e.int(int64(r.Machine))
		e.b = append(e.b, ',')
		e.int(r.Start)
		e.b = append(e.b, ',')
		if r.Slowed {
			e.b = append(e.b, '1')
		} else {
			e.b = append(e.b, '0')
		}
		e.b = append(e.b, ']')
	}
	e.raw(`],"finished":`)
	taskRefs(e, t.finished)
	e.raw(`,"preempted":`)
	taskRefs(e, t.stopped)
	e.raw(`,"free":[`)
	t.encodeFree(e, v, nd)
	e.raw("]}\n")
	t.called = true
}

func taskRefs(e *enc, rs []policies.TaskRef) {
	e.b = append(e.b, '[')
	for i, r := range rs {
		e.comma(i)
		taskRefOpen(e, r)
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, ']')
}

// taskRefOpen writes "[job,stage,task" — a task's reference, its array left open for more.
func taskRefOpen(e *enc, r policies.TaskRef) {
	e.b = append(e.b, '[')
	e.int(int64(r.Job))
	e.b = append(e.b, ',')
	e.int(int64(r.Stage))
	e.b = append(e.b, ',')
	e.int(int64(r.Task))
}

// diffRunning compares job j's running tasks with those last sent, collecting starts and ends.
// A task that ended was preempted if a plan asked for it, and finished otherwise.
func (t *tracker) diffRunning(v policies.View, j policies.JobID, running int32) {
	old := t.running[j]
	if running == 0 && len(old) == 0 {
		return
	}
	var cur []policies.RunningTask
	if running > 0 {
		cur = v.RunningTasks(j)
		if !slices.IsSortedFunc(cur, byTask) {
			cur = slices.Clone(cur)
			slices.SortFunc(cur, byTask)
		}
	}
	ended := func(r policies.RunningTask) {
		if t.preempted[r.TaskRef] {
			delete(t.preempted, r.TaskRef)
			t.stopped = append(t.stopped, r.TaskRef)
		} else {
			t.finished = append(t.finished, r.TaskRef)
		}
	}
	a, b := 0, 0
	for a < len(old) || b < len(cur) {
		switch {
		case b == len(cur) || (a < len(old) && byTask(old[a], cur[b]) < 0):
			ended(old[a])
			a++
		case a == len(old) || byTask(old[a], cur[b]) > 0:
			t.started = append(t.started, cur[b])
			b++
		default:
			if old[a].Start != cur[b].Start || old[a].Machine != cur[b].Machine {
				ended(old[a]) // preempted and restarted between two calls
				t.started = append(t.started, cur[b])
			}
			a++
			b++
		}
	}
	t.running[j] = append(old[:0], cur...)
}

// encodeFree writes [machine, free] for every machine whose free capacity differs from what
// the scheduler was last told: the machines the engine reports changed, or all on the first call
// and with a View that does not report changes.
func (t *tracker) encodeFree(e *enc, v policies.View, nd int) {
	n := 0
	put := func(m int) {
		f := v.Free(m)
		if t.called && f == t.free[m] {
			return
		}
		t.free[m] = f
		e.comma(n)
		n++
		e.b = append(e.b, '[')
		e.int(int64(m))
		e.b = append(e.b, ',')
		e.vec(f, nd)
		e.b = append(e.b, ']')
	}
	mc, ok := v.(machineChanges)
	if !t.called || !ok || len(t.free) != v.NumMachines() {
		if len(t.free) != v.NumMachines() {
			t.free = make([]traces.Vec, v.NumMachines())
			t.called = false
		}
		for m := range t.free {
			put(m)
		}
		return
	}
	for _, m := range mc.ChangedMachines() {
		if m >= 0 && int(m) < len(t.free) {
			put(int(m))
		}
	}
}
