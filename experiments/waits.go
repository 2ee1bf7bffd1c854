package experiments

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Waits is how long tasks waited to start, and whether any job ever waited at all: summary.json's
// "waits" section. A task's wait runs from the moment it became runnable (its job's arrival, its
// stage's unlock, or its preemption) to its start. A job waited when one of its tasks was not
// started at the first scheduling point after it became runnable (event-driven: at once; with
// engine.cycle_s: at the next tick), including tasks still waiting when the run ended.
type Waits struct {
	// WaitedJobs counts the jobs that waited; WaitedTasks the task starts that did, and
	// UnstartedTasks the runnable tasks that never started before the run ended.
	WaitedJobs     int   `json:"waited_jobs"`
	WaitedTasks    int64 `json:"waited_tasks"`
	UnstartedTasks int64 `json:"unstarted_tasks"`
	// Tasks summarizes every task start's wait; ByQueue splits it by the jobs' queues (for a
	// task-level Google 2011 import, the priority bands).
	Tasks   WaitGroup            `json:"tasks"`
	ByQueue map[string]WaitGroup `json:"by_queue"`
	// Warning is set when no job waited: nothing ever contended for the cluster, so every
	// policy schedules alike.
	Warning string `json:"warning,omitempty"`
}

// WaitGroup summarizes the waits of a set of task starts, in seconds.
type WaitGroup struct {
	Starts int     `json:"starts"`
	Waited int     `json:"waited"` // starts later than the first scheduling point they could have had
	Avg    float64 `json:"avg_s"`
	P50    float64 `json:"p50_s"`
	P95    float64 `json:"p95_s"`
	P99    float64 `json:"p99_s"`
	Max    float64 `json:"max_s"`
}

// NoWait reports whether the replay ran without any job ever waiting for resources.
func (w *Waits) NoWait() bool { return w.WaitedJobs == 0 }

// waitProbe follows a replay through the engine's event log (replay.Config.Log): it knows, for
// every job, since when each stage's tasks have been runnable, and measures each start against
// it. Its cost is a few operations per event and a float per task start.
type waitProbe struct {
	w     *traces.Workload
	cycle traces.Time
	jobs  []probeJob
	// queue of each job (index into queues); per queue, every start's wait in seconds and the
	// number of starts that waited
	queueOf []int32
	queues  []string
	waits   [][]float64
	waited  []int
	// requeued holds the preemption time of preempted tasks until they start again.
	requeued map[taskRef]traces.Time
	st       Waits
}

type taskRef struct{ job, stage, task int32 }

type probeJob struct {
	since   []traces.Time // per stage: when its tasks became runnable; -1 while locked
	pending int64         // runnable tasks not started
	oldest  traces.Time   // when pending last rose from 0
	waited  bool
}

func newWaitProbe(w *traces.Workload, cycle traces.Time) *waitProbe {
	p := &waitProbe{w: w, cycle: cycle, jobs: make([]probeJob, len(w.Jobs)), queueOf: make([]int32, len(w.Jobs))}
	idx := map[string]int32{}
	for i := range w.Jobs {
		q := w.Jobs[i].Queue
		k, ok := idx[q]
		if !ok {
			k = int32(len(p.queues))
			idx[q] = k
			p.queues = append(p.queues, q)
			p.waits = append(p.waits, nil)
			p.waited = append(p.waited, 0)
		}
		p.queueOf[i] = k
	}
	return p
}

// firstChance is the first scheduling point at or after t: t itself when scheduling is
// event-driven, else the next tick (ticks fall on multiples of the cycle).
func (p *waitProbe) firstChance(t traces.Time) traces.Time {
	if p.cycle <= 0 {
		return t
	}
	return (t + p.cycle - 1) / p.cycle * p.cycle
}

func (p *waitProbe) runnable(j int32, tasks int64, t traces.Time) {
	pj := &p.jobs[j]
	if pj.pending == 0 && tasks > 0 {
		pj.oldest = t
	}
	pj.pending += tasks
}

// log is the engine's replay.Config.Log.
func (p *waitProbe) log(e replay.LogEntry) {
	switch e.Kind {
	case replay.KindArrival:
		pj := &p.jobs[e.Job]
		stages := p.w.Jobs[e.Job].Stages
		pj.since = make([]traces.Time, len(stages))
		var tasks int64
		for s := range stages {
			pj.since[s] = -1
			if len(stages[s].Parents) == 0 {
				pj.since[s] = e.T
				tasks += int64(stages[s].Tasks)
			}
		}
		p.runnable(e.Job, tasks, e.T)
	case replay.KindUnlock:
		p.jobs[e.Job].since[e.Stage] = e.T
		p.runnable(e.Job, int64(p.w.Jobs[e.Job].Stages[e.Stage].Tasks), e.T)
	case replay.KindPreempt:
		if p.requeued == nil {
			p.requeued = map[taskRef]traces.Time{}
		}
		p.requeued[taskRef{e.Job, e.Stage, e.Task}] = e.T
		p.runnable(e.Job, 1, e.T)
	case replay.KindStart:
		pj := &p.jobs[e.Job]
		from := pj.since[e.Stage]
		if t, ok := p.requeued[taskRef{e.Job, e.Stage, e.Task}]; ok {
			from = t
			delete(p.requeued, taskRef{e.Job, e.Stage, e.Task})
		}
		q := p.queueOf[e.Job]
		p.waits[q] = append(p.waits[q], traces.Seconds(e.T-from))
		if e.T > p.firstChance(from) {
			p.st.WaitedTasks++
			p.waited[q]++
			pj.waited = true
		}
		pj.pending--
	}
}

// finish summarizes the probe once the run ended at end.
func (p *waitProbe) finish(end traces.Time) Waits {
	st := p.st
	for i := range p.jobs {
		pj := &p.jobs[i]
		if pj.pending > 0 {
			st.UnstartedTasks += pj.pending
			if end > p.firstChance(pj.oldest) {
				pj.waited = true
			}
		}
		if pj.waited {
			st.WaitedJobs++
		}
	}
	var all []float64
	st.ByQueue = make(map[string]WaitGroup, len(p.queues))
	for q, name := range p.queues {
		st.ByQueue[name] = waitGroup(p.waits[q], p.waited[q])
		all = append(all, p.waits[q]...)
	}
	st.Tasks = waitGroup(all, int(st.WaitedTasks))
	if st.NoWait() && len(p.jobs) > 0 {
		st.Warning = fmt.Sprintf("no job ever waited for resources: all %d tasks of %d jobs started at their first scheduling point on %d machines, so every policy schedules this workload alike (a job-level import, a cluster larger than the load, or too few jobs)",
			len(all), len(p.jobs), len(p.w.Cluster.Machines))
	}
	return st
}

// waitGroup summarizes waits (sorted in place), of which waited were late; quantiles are
// nearest-rank.
func waitGroup(ws []float64, waited int) WaitGroup {
	g := WaitGroup{Starts: len(ws), Waited: waited}
	if len(ws) == 0 {
		return g
	}
	slices.Sort(ws)
	var sum float64
	for _, x := range ws {
		sum += x
	}
	g.Avg = sum / float64(len(ws))
	at := func(q float64) float64 {
		k := int(math.Ceil(q*float64(len(ws)))) - 1
		return ws[min(max(k, 0), len(ws)-1)]
	}
	g.P50, g.P95, g.P99, g.Max = at(0.5), at(0.95), at(0.99), ws[len(ws)-1]
	return g
}
