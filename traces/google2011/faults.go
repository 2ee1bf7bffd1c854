package google2011

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// # Evictions, failures and kills
//
// A task's workload duration is its last run; the runs before it ended by EVICT, FAIL or KILL
// (LOST is not a fault the cell caused) are kept as the workload's Faults, by job ID, stage and
// task, at the times the trace ended them. The replay kills the task then, if it runs, when asked
// to (engine.trace_evictions: replay), and otherwise ignores them.

// rawFault is an EVICT, FAIL or KILL that ended a task's run, on its way to the workload.
type rawFault struct {
	t     traces.Time
	index int32
	kind  traces.TaskOutcome
}

// noteFault records a terminal event that ends a running run of task r of job st.
func (s *jobScanner) noteFault(st *jobState, r *taskRun, e *taskEvent) {
	if s.faults == nil || r.sched < 0 || r.stop >= 0 || e.time == AfterWindow {
		return
	}
	var kind traces.TaskOutcome
	switch e.ev.Type {
	case Evict:
		kind = traces.TaskEvicted
	case Fail:
		kind = traces.TaskFailed
	case Kill:
		kind = traces.TaskKilled
	default:
		return
	}
	s.faults[st.rec.ID] = append(s.faults[st.rec.ID], rawFault{t: e.time, index: r.index, kind: kind})
}

// addFaults turns job js's faults of runs before each task's last into the workload's, given
// where add put each task (stage and position by task index).
func (c *taskJobs) addFaults(js *jobState, where func(index int32) (stage, task int32, ok bool)) {
	fs := c.scan.faults[js.rec.ID]
	if len(fs) == 0 {
		return
	}
	delete(c.scan.faults, js.rec.ID)
	last := make(map[int32]traces.Time, len(fs))
	for i := range js.runs.runs {
		r := &js.runs.runs[i]
		last[r.index] = r.sched
	}
	for _, f := range fs {
		if f.t >= last[f.index] {
			continue // the last run's own end: its duration already stops there
		}
		stage, task, ok := where(f.index)
		if !ok {
			continue
		}
		*c.faults = append(*c.faults, traces.TaskFault{T: f.t, Job: js.rec.ID, Stage: stage, Task: task, Kind: f.kind})
	}
}

// sortFaults orders faults by time, then job, stage and task.
func sortFaults(fs []traces.TaskFault) {
	slices.SortFunc(fs, func(a, b traces.TaskFault) int {
		if c := cmp.Compare(a.T, b.T); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Stage, b.Stage); c != 0 {
			return c
		}
		return cmp.Compare(a.Task, b.Task)
	})
}
