package google2011

import (
	"math"

	"github.com/schedlab/schedlab/traces"
)

// taskRun is what a task-level scan keeps of one task: counters over its whole history and its
// last run (the last SCHEDULE and the terminal event that ended it).
type taskRun struct {
	index     int32
	attempts  int32 // SCHEDULE events
	evictions int32 // EVICT events
	priority  int8  // at the last SCHEDULE (before it: the latest seen)
	end       EventType
	life      life // the task's state in its life cycle
	// sched is the last SCHEDULE's time, -1 before the first; stop is the time of the terminal
	// event that ended that run (its type in end), -1 while it runs.
	sched, stop traces.Time
	// first is the time the task was first seen.
	first traces.Time
	// machine is the trace machine ID of the last SCHEDULE, -1 when it names none.
	machine int64
	// cpu and mem are the request the last run was scheduled with, in fixed point (traces.Unit
	// per largest machine); reqCPU and reqMem the latest request seen. -1: none seen.
	cpu, mem, reqCPU, reqMem int32
}

// denseTasks bounds the task indices a taskTable maps through its dense array; larger ones (real
// jobs have fewer than 100,000 tasks) go to a map.
const denseTasks = 1 << 20

// taskTable holds the taskRuns of one job, in order of first appearance, with an index from
// task index to position: a dense array for the usual indices 0..n-1, a map for the rest.
type taskTable struct {
	runs []taskRun
	pos  []int32 // task index -> 1 + position in runs; 0: not seen
	big  map[int32]int32
}

// get returns the run of task index, creating it (first seen at t) if new.
func (tt *taskTable) get(index int32, t traces.Time) *taskRun {
	if int(index) < len(tt.pos) {
		if p := tt.pos[index]; p > 0 {
			return &tt.runs[p-1]
		}
	} else if p, ok := tt.big[index]; ok {
		return &tt.runs[p]
	}
	p := int32(len(tt.runs))
	tt.runs = append(tt.runs, taskRun{index: index, sched: -1, stop: -1, first: t, machine: -1, cpu: -1, mem: -1, reqCPU: -1, reqMem: -1, priority: -1, end: Submit, life: unseen})
	switch {
	case int(index) < len(tt.pos):
		tt.pos[index] = p + 1
	case index < denseTasks && int(index) < 4*len(tt.runs)+64:
		// Grow the dense array to cover index, moving map entries it now covers.
		n := max(int(index)+1, 2*len(tt.pos))
		if n > denseTasks {
			n = denseTasks
		}
		if cap(tt.pos) >= n {
			tt.pos = tt.pos[:n]
		} else {
			tt.pos = append(tt.pos[:cap(tt.pos)], make([]int32, n-cap(tt.pos))...)
		}
		tt.pos[index] = p + 1
		for k, q := range tt.big {
			if int(k) < n {
				tt.pos[k] = q + 1
				delete(tt.big, k)
			}
		}
	default:
		if tt.big == nil {
			tt.big = make(map[int32]int32)
		}
		tt.big[index] = p
	}
	return &tt.runs[p]
}

// reset empties the table for a recycled job. Small arrays are kept for the next job; those of
// a large job are dropped, lest the recycled states keep the largest jobs' memory for good.
func (tt *taskTable) reset() {
	const keep = 256
	if cap(tt.pos) > 4*keep {
		tt.pos = nil
	} else {
		clear(tt.pos)
		tt.pos = tt.pos[:0]
	}
	if cap(tt.runs) > keep {
		tt.runs = nil
	} else {
		tt.runs = tt.runs[:0]
	}
	tt.big = nil
}

// fixed converts a normalized request to fixed point, -1 for a missing one (NaN).
func fixed(x float64) int32 {
	if math.IsNaN(x) {
		return -1
	}
	return int32(min(math.Round(x*float64(traces.Unit)), math.MaxInt32))
}

// taskRunEvent applies a task event to its task's run in a task-level scan.
func (s *jobScanner) taskRunEvent(st *jobState, e *taskEvent) error {
	r := st.runs.get(e.index, e.time)
	if err := s.checkTask(r.life, e); err != nil {
		return err
	}
	if s.initial != nil {
		s.initial.observe(r.life, e, s.tasks.fromStart())
	}
	r.life = after(e.ev.Type)
	if c, m := fixed(e.ev.CPURequest), fixed(e.ev.MemRequest); c >= 0 || m >= 0 {
		if c >= 0 {
			r.reqCPU = c
		}
		if m >= 0 {
			r.reqMem = m
		}
	}
	if r.sched < 0 || e.ev.Type == Schedule {
		r.priority = e.ev.Priority
	}
	switch typ := e.ev.Type; {
	case typ == Schedule:
		r.attempts++
		r.sched, r.stop, r.end = e.time, -1, Schedule
		r.cpu, r.mem = r.reqCPU, r.reqMem
		r.machine = e.ev.Machine
		if e.ev.Machine >= 0 {
			s.machines[e.ev.Machine] = struct{}{}
		}
	case typ.Terminal():
		if typ == Evict {
			r.evictions++
		}
		s.noteFault(st, r, e)
		if r.sched >= 0 && r.stop < 0 {
			r.stop, r.end = e.time, typ
		}
	}
	return nil
}
