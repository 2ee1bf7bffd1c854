// Package decimadp is decima-sim's dynamic-partition scheduler (Mao et al., SIGCOMM'19;
// github.com/hongzimao/decima-sim heuristic_agent.py, DynamicPartitionAgent), the "fair" baseline
// Decima's results compare against, for clusters of single-task machines (executors).
//
// Each machine is an executor that belongs to at most one job. A job keeps its executors while it
// has a frontier stage — one with tasks not yet started whose parent stages have all their tasks
// started — running its tasks, or idle when the frontier is not runnable yet (its parents'
// tasks still run); an executor of a job without a frontier is given up. Executors no job holds
// go to jobs in arrival order that hold fewer than the cap, ceil(machines / jobs with tasks not
// yet started), each taking at most as many as its frontier stage has tasks not started. Unlike
// Hadoop-style fair sharing (policy fair) it is not work-conserving across jobs: an executor
// waiting for its job's next stage is not lent to another job.
package decimadp

import (
	"fmt"

	"github.com/schedlab/schedlab/policies"
)

// Name is the policy's registry name.
const Name = "decimadp"

// Policy is the dynamic-partition scheduler.
type Policy struct {
	owner []policies.JobID // per machine: the job holding it, −1 for none
	held  map[policies.JobID]int
	buf   []int32
}

// New builds the policy; it takes no parameters.
func New(o policies.Options) (policies.Policy, error) {
	if len(o.Params) > 0 {
		return nil, fmt.Errorf("%s: takes no params, got %v", Name, o.Params)
	}
	return &Policy{held: map[policies.JobID]int{}}, nil
}

// Name returns Name.
func (p *Policy) Name() string { return Name }

// frontier appends to buf the stages of j with tasks not started whose parents have all their
// tasks started, the runnable ones (parents finished) first, in stage order.
func frontier(v policies.View, j policies.JobID, buf []int32) []int32 {
	info := v.Job(j)
	buf = buf[:0]
	for pass := 0; pass < 2; pass++ {
		for s := range info.Stages {
			st := v.StageState(j, int32(s))
			if st.Pending == 0 || st.Runnable != (pass == 0) {
				continue
			}
			sat := true
			for _, par := range info.Stages[s].Parents {
				if v.StageState(j, par).Pending > 0 {
					sat = false
					break
				}
			}
			if sat {
				buf = append(buf, int32(s))
			}
		}
	}
	return buf
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(v policies.View, plan *policies.Plan) error {
	n := v.NumMachines()
	if p.owner == nil {
		p.owner = make([]policies.JobID, n)
		for m := range p.owner {
			p.owner[m] = -1
		}
	}
	active := v.Active()
	unfinished := 0
	for _, j := range active {
		if js := v.JobState(j); js.Pending > 0 || hasUnstarted(v, j) {
			unfinished++
		}
	}
	cap := (n + max(1, unfinished) - 1) / max(1, unfinished)
	// Free executors by holder; executors of completed or frontier-less jobs are given up.
	idle := map[policies.JobID][]int32{}
	var unheld []int32
	for m := 0; m < n; m++ {
		o := p.owner[m]
		if o >= 0 && v.JobState(o).Done {
			p.release(m)
			o = -1
		}
		if !fits(v, m) {
			continue
		}
		if o >= 0 {
			if p.buf = frontier(v, o, p.buf); len(p.buf) > 0 {
				idle[o] = append(idle[o], int32(m))
				continue
			}
			p.release(m)
		}
		unheld = append(unheld, int32(m))
	}
	// A job's own idle executors run its runnable tasks.
	for _, j := range active {
		ms := idle[j]
		for _, s := range v.RunnableStages(j) {
			left := v.StageState(j, s).Pending
			for left > 0 && len(ms) > 0 {
				p.start(plan, j, s, ms[0])
				ms, left = ms[1:], left-1
			}
		}
	}
	// Executors no job holds go to jobs under the cap, in arrival order.
	for _, j := range active {
		if len(unheld) == 0 {
			break
		}
		if p.held[j] >= cap {
			continue
		}
		p.buf = frontier(v, j, p.buf)
		for _, s := range p.buf {
			st := v.StageState(j, s)
			want := min(cap-p.held[j], int(st.Pending)-started(plan, j, s), len(unheld))
			for range max(want, 0) {
				m := unheld[0]
				unheld = unheld[1:]
				if st.Runnable {
					p.start(plan, j, s, m)
				} else {
					p.owner[m] = j
					p.held[j]++
				}
			}
		}
	}
	return nil
}

// hasUnstarted reports whether job j has a stage with tasks not started (locked ones included).
func hasUnstarted(v policies.View, j policies.JobID) bool {
	for s := range v.Job(j).Stages {
		if v.StageState(j, int32(s)).Pending > 0 {
			return true
		}
	}
	return false
}

// fits reports whether machine m is a free executor: it fits one task.
func fits(v policies.View, m int) bool {
	return !v.Free(m).IsZero() && v.Free(m) == v.Machine(m).Capacity
}

func (p *Policy) start(plan *policies.Plan, j policies.JobID, s int32, m int32) {
	if p.owner[m] != j {
		if p.owner[m] >= 0 {
			p.held[p.owner[m]]--
		}
		p.owner[m] = j
		p.held[j]++
	}
	plan.Starts = append(plan.Starts, policies.Start{Job: j, Stage: s, Machine: m, Count: 1})
}

func (p *Policy) release(m int) {
	if o := p.owner[m]; o >= 0 {
		p.held[o]--
		if p.held[o] == 0 {
			delete(p.held, o)
		}
		p.owner[m] = -1
	}
}

// started counts the plan's starts of job j's stage s so far.
func started(plan *policies.Plan, j policies.JobID, s int32) int {
	k := 0
	for _, st := range plan.Starts {
		if st.Job == j && st.Stage == s {
			k += int(st.Count)
		}
	}
	return k
}
