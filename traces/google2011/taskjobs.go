package google2011

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// TaskStats describes a task-level conversion.
type TaskStats struct {
	// Seen counts the distinct tasks (job ID, task index) of the reported jobs; Imported those in
	// the workload; NeverScheduled those without a SCHEDULE in the input, which are left out.
	Seen, Imported, NeverScheduled int64
	// Outcomes counts imported tasks by how their last run ended (traces.TaskOutcome):
	// Outcomes[traces.TaskRunning] are right-censored at the end of the input.
	Outcomes [traces.NumTaskOutcomes]int64
	// StartedBefore counts imported tasks whose last run began before the trace window
	// (SCHEDULE at time 0): their run counts from time 0.
	StartedBefore int64
	// Attempts and Evictions sum the imported tasks' SCHEDULE and EVICT events.
	Attempts, Evictions int64
	// DefaultRequest counts imported tasks without a CPU or memory request in the input, which
	// get the default demand in that dimension; ZeroRequest those that asked for no CPU and no
	// memory, which get the smallest demand (1e-6 of the largest machine's CPU); ClampedRequest
	// those whose request exceeded the largest machine in some dimension.
	DefaultRequest, ZeroRequest, ClampedRequest int64
	// LateTasks counts imported tasks first seen more than LateTask after their job's submit
	// time: the replay makes them runnable with the job.
	LateTasks int64
	// NoRunJobs counts jobs none of whose tasks was scheduled in the input (left out);
	// MultiStageJobs imported jobs whose tasks asked for different requests (one stage per
	// request); MixedPriorityJobs imported jobs whose tasks ran at different priorities (the job
	// takes the highest).
	NoRunJobs, MultiStageJobs, MixedPriorityJobs int64
	// Machines counts the distinct machines tasks were scheduled on.
	Machines int
	// End is the input's end: the time of the last task event (before AfterWindow), at which
	// tasks still running are cut.
	End traces.Time
}

// LateTask is how long after its job's submit time a task may first appear before it counts as
// late (TaskStats.LateTasks).
const LateTask = traces.Minute

// taskJobs turns the task-level scan's complete jobs into workload jobs.
type taskJobs struct {
	scan    *jobScanner
	st      *TaskStats
	largest traces.Vec
	deflt   [2]int64 // default demand per dimension, fixed point
	emit    func(*traces.Job) error
	faults  *[]traces.TaskFault // the workload's faults (faults.go)
	// placements, when kept (Options.Placements), collects the imported tasks' last SCHEDULEs
	// by trace machine ID (placements.go).
	placements *[]rawPlacement

	keep  []int32 // positions (in the job's runs) of the tasks kept
	tasks []builtTask
	job   traces.Job
}

// builtTask is a kept task on its way into a stage.
type builtTask struct {
	index    int32
	demand   [2]int64
	duration traces.Time
	history  traces.TaskHistory
	priority int8
	machine  int64       // the last SCHEDULE's machine ID, -1 if none
	sched    traces.Time // the last SCHEDULE's time
}

// PriorityBand names the band of a 2011 trace priority, after the trace's documentation
// (google/cluster-data, ClusterData2011_2.md): 0-1 are "free", 9-11 "production" (10 is also
// the monitoring priority), and the priorities between them, used mostly by batch work, are
// "middle". Unknown priorities (< 0) have no band ("").
func PriorityBand(p int) string {
	switch {
	case p < 0:
		return ""
	case p <= 1:
		return BandFree
	case p >= 9:
		return BandProduction
	}
	return BandMiddle
}

// Priority bands, as PriorityBand names them; task-level imports use them as job queues.
const (
	BandFree       = "free"
	BandMiddle     = "middle"
	BandProduction = "production"
)

// outcomeOf maps the terminal event that ended a run to its outcome.
func outcomeOf(e EventType) traces.TaskOutcome {
	switch e {
	case Finish:
		return traces.TaskFinished
	case Evict:
		return traces.TaskEvicted
	case Fail:
		return traces.TaskFailed
	case Kill:
		return traces.TaskKilled
	case Lost:
		return traces.TaskLost
	}
	return traces.TaskRunning
}

// add converts one complete job (see the package documentation for the definitions).
func (c *taskJobs) add(js *jobState) error {
	rec := &js.rec
	st := c.st
	runs := js.runs.runs
	rec.Tasks = int32(len(runs))
	st.Seen += int64(len(runs))
	submit := rec.Submit
	if submit < 0 {
		submit = js.firstSeen
	}
	end := c.scan.lastTask
	c.tasks = c.tasks[:0]
	for i := range runs {
		r := &runs[i]
		if r.attempts == 0 {
			st.NeverScheduled++
			continue
		}
		t := builtTask{index: r.index, priority: r.priority, machine: r.machine, sched: r.sched}
		// Duration: the last run, from its SCHEDULE to the event that ended it, or to the end of
		// the input if it was still running then.
		stop, outcome := r.stop, outcomeOf(r.end)
		if stop < 0 || stop == AfterWindow {
			stop, outcome = max(end, r.sched), traces.TaskRunning
		}
		t.duration = max(stop-r.sched, 1)
		t.history = traces.TaskHistory{Attempts: r.attempts, Evictions: min(r.evictions, r.attempts), Outcome: outcome}
		if r.sched == BeforeWindow {
			st.StartedBefore++
		}
		// Demand: the request the last run was scheduled with, else the latest one seen.
		cpu, mem := r.cpu, r.mem
		if cpu < 0 {
			cpu = r.reqCPU
		}
		if mem < 0 {
			mem = r.reqMem
		}
		t.demand = [2]int64{int64(cpu), int64(mem)}
		if cpu < 0 || mem < 0 {
			st.DefaultRequest++
			for d, v := range t.demand {
				if v < 0 {
					t.demand[d] = c.deflt[d]
				}
			}
		}
		if t.demand == [2]int64{} {
			st.ZeroRequest++
			t.demand[0] = 1
		}
		if t.demand[0] > c.largest[0] || t.demand[1] > c.largest[1] {
			st.ClampedRequest++
			t.demand[0], t.demand[1] = min(t.demand[0], c.largest[0]), min(t.demand[1], c.largest[1])
		}
		if r.first-submit > LateTask {
			st.LateTasks++
		}
		c.tasks = append(c.tasks, t)
	}
	if len(c.tasks) == 0 {
		st.NoRunJobs++
		return nil
	}
	// One stage per distinct request, in order of the lowest task index asking for it; tasks in
	// index order within a stage.
	slices.SortFunc(c.tasks, func(a, b builtTask) int {
		if a.demand != b.demand {
			if a.demand[0] != b.demand[0] {
				return cmp.Compare(a.demand[0], b.demand[0])
			}
			return cmp.Compare(a.demand[1], b.demand[1])
		}
		return cmp.Compare(a.index, b.index)
	})
	type group struct{ lo, hi int }
	var groups []group
	for i := range c.tasks {
		if i == 0 || c.tasks[i].demand != c.tasks[i-1].demand {
			groups = append(groups, group{lo: i})
		}
		groups[len(groups)-1].hi = i + 1
	}
	slices.SortFunc(groups, func(a, b group) int { return cmp.Compare(c.tasks[a.lo].index, c.tasks[b.lo].index) })
	if c.placements != nil {
		// With placements a stage's tasks are in the order the trace started them (ties by
		// index), so that the engine's lowest-numbered pending task is the trace's next one.
		for _, gr := range groups {
			slices.SortStableFunc(c.tasks[gr.lo:gr.hi], func(a, b builtTask) int { return cmp.Compare(a.sched, b.sched) })
		}
	}
	if len(groups) > 1 {
		st.MultiStageJobs++
	}
	stages := make([]traces.Stage, len(groups))
	durations := make([]traces.Time, len(c.tasks))
	histories := make([]traces.TaskHistory, len(c.tasks))
	prio, mixed := int8(-1), false
	k := 0
	for g, gr := range groups {
		s := &stages[g]
		s.Name = "tasks"
		if g > 0 {
			s.Name = "tasks." + strconv.Itoa(g)
		}
		n := gr.hi - gr.lo
		s.Tasks = int32(n)
		s.Demand = traces.Vec{c.tasks[gr.lo].demand[0], c.tasks[gr.lo].demand[1]}
		s.TaskDurations, s.History = durations[k:k+n:k+n], histories[k:k+n:k+n]
		var sum float64
		same := true
		for i, t := range c.tasks[gr.lo:gr.hi] {
			s.TaskDurations[i], s.History[i] = t.duration, t.history
			sum += float64(t.duration)
			same = same && t.duration == c.tasks[gr.lo].duration
			if prio >= 0 && t.priority != prio {
				mixed = true
			}
			prio = max(prio, t.priority)
			st.Attempts += int64(t.history.Attempts)
			st.Evictions += int64(t.history.Evictions)
			st.Outcomes[t.history.Outcome]++
			if c.placements != nil && t.machine >= 0 {
				*c.placements = append(*c.placements, rawPlacement{job: rec.ID, stage: int32(g), task: int32(i), machine: t.machine, start: t.sched})
			}
		}
		s.Duration = max(traces.Time(math.Round(sum/float64(n))), 1)
		s.Estimate = s.Duration
		if same {
			s.TaskDurations = nil
		}
		k += n
	}
	if mixed {
		st.MixedPriorityJobs++
	}
	if c.faults != nil && len(c.scan.faults[rec.ID]) > 0 {
		c.addFaults(js, func(index int32) (int32, int32, bool) {
			for g, gr := range groups {
				for i, t := range c.tasks[gr.lo:gr.hi] {
					if t.index == index {
						return int32(g), int32(i), true
					}
				}
			}
			return 0, 0, false
		})
	}
	st.Imported += int64(len(c.tasks))
	class := ""
	if rec.SchedClass >= 0 {
		class = schedClasses[rec.SchedClass]
	}
	c.job = traces.Job{
		ID: rec.ID, Submit: submit, Class: class, Priority: int(prio), Queue: PriorityBand(int(prio)),
		Features: traces.Features{User: rec.User, JobName: rec.JobName, LogicalJobName: rec.LogicalJobName},
		Stages:   stages,
	}
	return c.emit(&c.job)
}
