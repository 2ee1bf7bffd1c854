package baseline

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// addRanked adds job j to the running set of its class rank.
func (c *core) addRanked(j policies.JobID, r *jobRec) {
	i, found := slices.BinarySearchFunc(c.ranks, r.rank, func(s rankSet, rank int64) int { return cmp.Compare(s.rank, rank) })
	if !found {
		c.ranks = slices.Insert(c.ranks, i, rankSet{rank: r.rank})
	}
	rs := &c.ranks[i]
	rs.jobs = append(rs.jobs, j)
	r.runIdx = int32(len(rs.jobs))
}

// removeRanked removes job j from the running set of its class rank.
func (c *core) removeRanked(j policies.JobID, r *jobRec) {
	if r.runIdx == 0 {
		return
	}
	i, found := slices.BinarySearchFunc(c.ranks, r.rank, func(s rankSet, rank int64) int { return cmp.Compare(s.rank, rank) })
	if !found {
		return
	}
	rs := &c.ranks[i]
	at := int(r.runIdx - 1)
	last := len(rs.jobs) - 1
	if at > last || rs.jobs[at] != j {
		return
	}
	if at != last {
		moved := rs.jobs[last]
		rs.jobs[at] = moved
		c.jobs[moved].runIdx = int32(at + 1)
	}
	rs.jobs = rs.jobs[:last]
	r.runIdx = 0
}

// lowerRunning reports whether jobs ranked strictly after rank have running tasks.
func (c *core) lowerRunning(rank int64) bool {
	for i := len(c.ranks) - 1; i >= 0 && c.ranks[i].rank > rank; i-- {
		if len(c.ranks[i].jobs) > 0 {
			return true
		}
	}
	return false
}

// expireHolds drops holds whose job no longer waits and holds whose victims have been
// released (the machine's free capacity reached what the hold expects).
func (c *core) expireHolds() {
	kept := c.pl.holds[:0]
	for _, h := range c.pl.holds {
		r := &c.jobs[h.job]
		if r.pending <= 0 || int(h.machine) >= c.pl.n {
			continue
		}
		if h.expected.Fits(c.pl.free(int(h.machine))) {
			continue
		}
		kept = append(kept, h)
	}
	c.pl.holds = kept
}

// hasHold reports whether job j waits for capacity it preempted.
func (c *core) hasHold(j policies.JobID) bool {
	for i := range c.pl.holds {
		if c.pl.holds[i].job == j {
			return true
		}
	}
	return false
}

// preemptFor frees room for blocked job j by preempting tasks of lower classes. Victims are
// taken lowest class first and, within a class, most recently started first (ties: higher
// JobID, stage, task first); each victim's demand is tallied on its machine, and at the first
// machine whose free capacity (less what other waiting jobs of j's class or above hold there)
// plus its tally fits j's next task, exactly the tallied victims on that machine are preempted.
// The freed capacity arrives after the engine's preemption delay; until then a hold keeps
// lower classes off the part of the machine j needs, and j preempts nothing more.
func (c *core) preemptFor(v policies.View, p *policies.Plan, j policies.JobID) error {
	r := &c.jobs[j]
	if c.hasHold(j) || !c.lowerRunning(r.rank) {
		return nil
	}
	info := v.Job(j)
	if info == nil {
		return c.errorf("the view has no job %d", j)
	}
	var need traces.Vec
	found := false
	for _, s := range v.RunnableStages(j) {
		if s >= 0 && int(s) < len(info.Stages) && v.StageState(j, s).Pending-r.takenOf(s, c.epoch) > 0 {
			need, found = info.Stages[s].Demand, true
			break
		}
	}
	if !found {
		return nil
	}
	usable := c.mayUse(v, info, j, r)
	n := c.pl.n
	if len(c.tally) < n {
		c.tally = make([]traces.Vec, n)
		c.tallyStamp = make([]uint64, n)
	}
	c.tallyN++
	c.victims = c.victims[:0]
	for ri := len(c.ranks) - 1; ri >= 0 && c.ranks[ri].rank > r.rank; ri-- {
		start := len(c.victims)
		for _, vj := range c.ranks[ri].jobs {
			vinfo := v.Job(vj)
			if vinfo == nil {
				continue
			}
			for _, t := range v.RunningTasks(vj) {
				if t.Stage < 0 || int(t.Stage) >= len(vinfo.Stages) || t.Machine < 0 || int(t.Machine) >= n {
					continue
				}
				if !usable.ok(int(t.Machine)) {
					continue // freeing it would not help j's constraint
				}
				if slices.Contains(p.Preempts, t.TaskRef) {
					continue
				}
				c.victims = append(c.victims, victim{RunningTask: t, demand: vinfo.Stages[t.Stage].Demand})
			}
		}
		batch := c.victims[start:]
		slices.SortFunc(batch, func(a, b victim) int {
			return cmp.Or(
				cmp.Compare(b.Start, a.Start),
				cmp.Compare(b.Job, a.Job),
				cmp.Compare(b.Stage, a.Stage),
				cmp.Compare(b.Task, a.Task),
			)
		})
		for i := range batch {
			m := batch[i].Machine
			if c.tallyStamp[m] != c.tallyN {
				c.tallyStamp[m] = c.tallyN
				c.tally[m] = traces.Vec{}
			}
			c.tally[m] = c.tally[m].Add(batch[i].demand)
			if !need.Fits(c.preemptAvail(int(m), j, r.rank).Add(c.tally[m])) {
				continue
			}
			var freed traces.Vec
			for _, vt := range c.victims[:start+i+1] {
				if vt.Machine == m {
					p.PreemptBecause(vt.TaskRef, preemptReason(info.ID))
					freed = freed.Add(vt.demand)
				}
			}
			amount := need.Sub(freed)
			for d := range amount {
				amount[d] = max(amount[d], 0)
			}
			c.pl.holds = append(c.pl.holds, hold{
				job: j, rank: r.rank, machine: m, amount: amount,
				expected: c.pl.free(int(m)).Add(freed),
			})
			return nil
		}
	}
	return nil
}

// preemptAvail is machine m's free capacity for blocked job j when choosing victims: less what
// other jobs of its class or above hold there, and never below zero.
func (c *core) preemptAvail(m int, j policies.JobID, rank int64) traces.Vec {
	f := c.pl.free(m)
	for i := range c.pl.holds {
		if h := &c.pl.holds[i]; int(h.machine) == m && h.job != j && h.rank <= rank {
			f = f.Sub(h.amount)
		}
	}
	for d := range f {
		f[d] = max(f[d], 0)
	}
	return f
}
