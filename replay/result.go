package replay

import (
	"math"

	"github.com/schedlab/schedlab/traces"
)

// JobRecord is the outcome of one job.
type JobRecord struct {
	Index       int32 // position in the workload
	ID          int64 // the trace's id
	Name        string
	Queue       string
	Class       string
	Priority    int
	Submit      traces.Time
	FirstStart  traces.Time // -1 if no task ever started
	Finish      traces.Time // -1 if unfinished
	Completed   bool
	Deadline    traces.Time // 0 = none
	Tasks       int64
	Finished    int64 // tasks completed
	Work        traces.Time
	Preemptions int32
	// AMStart is when the job's application-master container was placed (YarnConfig.AM), -1
	// without one. Submit → AMStart is the AM admission wait; FirstStart is the first task's.
	AMStart traces.Time
	// SlowedStarts counts task starts that ran Slowdown times longer (a soft-constrained job
	// off its preferred resources).
	SlowedStarts int32
	Utility      float64 // utility at completion (0 if unfinished); NaN when the job has no utility
	// Target is the target completion time the job is judged against: its utility's target
	// when it has one, else its deadline; 0 = none. Delta is completion − target.
	Target traces.Time
	// TimedUtility reports a utility that depends on the completion time (see
	// traces.Utility.TimeSensitive).
	TimedUtility bool
}

// Delta returns completion − target, and whether both exist.
func (r *JobRecord) Delta() (traces.Time, bool) {
	if !r.Completed || r.Target == 0 {
		return 0, false
	}
	return r.Finish - r.Target, true
}

// JCT is the job completion time (finish - submit), or -1 if unfinished.
func (r *JobRecord) JCT() traces.Time {
	if !r.Completed {
		return -1
	}
	return r.Finish - r.Submit
}

// DeadlineMet reports whether a job with a deadline completed by it.
func (r *JobRecord) DeadlineMet() bool {
	return r.Deadline != 0 && r.Completed && r.Finish <= r.Deadline
}

// Result is everything a run produced.
type Result struct {
	Jobs      []JobRecord
	Queues    []string
	Dims      []string
	Capacity  traces.Vec
	Start     traces.Time // first submit
	End       traces.Time // clock when the run stopped
	AtHorizon bool        // stopped by the horizon with work left
	Stats     Stats

	// AllocIntegral is ∫ allocated resources dt per dimension, in units·µs.
	AllocIntegral [traces.MaxDims]float64
	// QueueShareIntegral is ∫ dominant share dt per queue, in µs.
	QueueShareIntegral []float64
	// QueueAllocIntegral is ∫ allocation dt per queue and dimension, in units·µs.
	QueueAllocIntegral [][traces.MaxDims]float64
	// UsageWindow is the window length of Usage; Usage[q][w][d] is queue q's average allocation of
	// dimension d over window w as a fraction of cluster capacity.
	UsageWindow traces.Time
	Usage       [][][traces.MaxDims]float64
	// Cluster counts initial holds, machine changes and the tasks they killed (cluster.go); nil
	// when the workload has none and no failure model is set.
	Cluster *ClusterStats
}

func (e *Engine) result() *Result {
	m := e.m
	// The run ends at the last completion when every job finished (trailing ticks and releases
	// do not stretch it), else at the clock's final value (the horizon, or a stall).
	end := e.now
	if e.nActive == 0 && e.nextArr == len(e.jobs) && len(e.jobs) > 0 {
		end = e.lastFinish
	}
	for q := range m.qAlloc {
		m.flushQueue(q, end)
	}
	r := &Result{
		Queues: e.queues, Dims: e.dims, Capacity: e.cap, Start: m.start, End: end,
		Stats: e.stats, AllocIntegral: m.allocInt, QueueShareIntegral: m.qShareInt,
		QueueAllocIntegral: m.qAllocInt, UsageWindow: m.window,
		Jobs: make([]JobRecord, len(e.jobs)), Cluster: e.clusterStats(),
	}
	for ji := range e.jobs {
		jr := &e.jobs[ji]
		src := &e.w.Jobs[ji]
		rec := JobRecord{
			Index: int32(ji), ID: src.ID, Name: src.Name, Queue: src.Queue, Class: src.Class,
			Priority: src.Priority, Submit: src.Submit, FirstStart: jr.firstStart, Finish: -1,
			Completed: jr.done, Deadline: src.Deadline, Tasks: jr.info.Tasks, Finished: jr.finished,
			Work: src.Work(), Preemptions: jr.preemptions, Utility: math.NaN(), Target: src.Deadline,
			AMStart: e.amStart(ji),
		}
		if jr.pl != nil {
			rec.SlowedStarts = jr.pl.slowed
		}
		if jr.done {
			rec.Finish = jr.finish
		} else {
			r.AtHorizon = r.AtHorizon || e.cfg.Horizon > 0
		}
		if u := src.Utility; u != nil {
			if u.Target != 0 {
				rec.Target = u.Target
			}
			rec.TimedUtility = u.TimeSensitive()
			rec.Utility = 0
			if jr.done {
				rec.Utility = u.Value(src.Submit, jr.finish)
			}
		}
		r.Jobs[ji] = rec
	}
	if m.window > 0 {
		r.Usage = make([][][traces.MaxDims]float64, len(m.usage))
		for q, ws := range m.usage {
			r.Usage[q] = make([][traces.MaxDims]float64, len(ws))
			for w, v := range ws {
				for d := range v {
					if e.cap[d] > 0 {
						r.Usage[q][w][d] = v[d] / (float64(e.cap[d]) * float64(m.window))
					}
				}
			}
		}
	}
	return r
}
