// Package grant turns a utility-driven policy's decision — jobs in priority order, each with an
// optional share of the cluster — into task starts: first every job up to its share, in order,
// then what is still free to jobs in the same order (work conservation). A job never gets more
// tasks than it has runnable, and stages start lowest first, so the engine's dependencies hold.
package grant

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Filler places tasks while a plan is built. It keeps the free capacity of every machine less
// what the plan has started; set it up once per scheduling point with Reset.
type Filler struct {
	free    []traces.Vec
	taken   map[stageKey]int32            // tasks started per stage in this plan
	planned map[policies.JobID]traces.Vec // resources started per job in this plan
	// Why, when set, explains the starts of the job at position pos of Fill's order.
	Why     func(j policies.JobID, pos int) policies.Reason
	pos     int  // position of the job Start serves in Fill's order
	explain bool // the run records reasons (policies.Explains)
}

type stageKey struct {
	job   policies.JobID
	stage int32
}

// Reset reads the View's free capacity. It costs O(machines).
func (f *Filler) Reset(v policies.View) {
	n := v.NumMachines()
	if cap(f.free) < n {
		f.free = make([]traces.Vec, n)
	}
	f.free = f.free[:n]
	f.explain = policies.Explains(v)
	for m := range f.free {
		f.free[m] = v.Free(m)
	}
	if f.taken == nil {
		f.taken = map[stageKey]int32{}
		f.planned = map[policies.JobID]traces.Vec{}
	}
	clear(f.taken)
	clear(f.planned)
}

// Start starts runnable tasks of job j, lowest stage first, while they fit on some machine and,
// when limit is not nil, while the job's allocation (running tasks plus those started here)
// stays within *limit in every dimension. It returns how many tasks it started.
func (f *Filler) Start(v policies.View, p *policies.Plan, j policies.JobID, limit *traces.Vec) int {
	info := v.Job(j)
	var alloc traces.Vec
	if limit != nil {
		alloc = v.JobState(j).Alloc.Add(f.planned[j])
	}
	started := 0
	for _, s := range v.RunnableStages(j) {
		d := info.Stages[s].Demand
		k := stageKey{j, s}
		left := v.StageState(j, s).Pending - f.taken[k]
		for left > 0 {
			if limit != nil && !alloc.Add(d).Fits(*limit) {
				return started
			}
			m := f.fit(d)
			if m < 0 {
				break
			}
			f.free[m] = f.free[m].Sub(d)
			alloc = alloc.Add(d)
			f.planned[j] = f.planned[j].Add(d)
			f.taken[k]++
			left--
			started++
			if n := len(p.Starts); n > 0 {
				if last := &p.Starts[n-1]; last.Job == j && last.Stage == s && int(last.Machine) == m {
					last.Count++
					continue
				}
			}
			if f.explain && f.Why != nil {
				p.StartBecause(policies.Start{Job: j, Stage: s, Machine: int32(m), Count: 1}, f.Why(j, f.pos))
			} else {
				p.Starts = append(p.Starts, policies.Start{Job: j, Stage: s, Machine: int32(m), Count: 1})
			}
		}
	}
	return started
}

// fit returns the lowest machine whose remaining free capacity fits d, or -1.
func (f *Filler) fit(d traces.Vec) int {
	for m := range f.free {
		if d.Fits(f.free[m]) {
			return m
		}
	}
	return -1
}

// Full reports whether no machine has any free capacity left in some dimension every task needs
// — a cheap test for ending a fill early: true when every machine's free vector is zero.
func (f *Filler) Full() bool {
	for _, fr := range f.free {
		if !fr.IsZero() {
			return false
		}
	}
	return true
}

// Fill starts tasks for jobs in order: first each job up to shares[k] (nil: no share phase for
// that job), then, with what is left, each job without limit.
func (f *Filler) Fill(v policies.View, p *policies.Plan, order []policies.JobID, shares []*traces.Vec) {
	f.Reset(v)
	if shares != nil {
		for k, j := range order {
			if shares[k] != nil {
				f.pos = k
				f.Start(v, p, j, shares[k])
			}
		}
	}
	for k, j := range order {
		if f.Full() {
			return
		}
		f.pos = k
		f.Start(v, p, j, nil)
	}
}
