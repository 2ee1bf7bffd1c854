package bpf

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// victim is a running task considered for preemption.
type victim struct {
	policies.RunningTask
	demand traces.Vec
}

// preemptFor frees room of size need for a guaranteed queue blocked on free capacity (in pooled
// mode all its guarantee still allows its head job to start; with several machines its next
// task), by preempting
// running tasks of rejected queues first, then of elastic queues from the largest dominant share
// down (ties: higher queue index first); within a queue, the most recently started task first
// (ties: higher job, stage, task). Each candidate's demand is tallied on its machine; at the
// first machine whose plan-adjusted free capacity plus its tally fits need, exactly the tallied
// candidates on that machine are preempted. Tasks of guaranteed queues are never preempted.
//
// The engine frees preempted resources after its preemption delay; meanwhile the blocked queue's
// reservation keeps them from lower classes, and no further preemption is planned until nothing
// is in flight (capacity neither free nor held by a running task), so one blocked burst does not
// preempt repeatedly for the same room.
func (b *BPF) preemptFor(v policies.View, p *policies.Plan, need traces.Vec, why policies.Reason) error {
	c := &b.c
	order := append(b.order[:0], b.rejected...)
	mark := len(order)
	order = append(order, b.elastic...)
	b.order = order
	el := order[mark:]
	slices.SortStableFunc(el, func(x, y *queue) int {
		return cmp.Or(cmp.Compare(c.share(y), c.share(x)), cmp.Compare(y.idx, x.idx))
	})
	n := c.pl.n
	if len(b.tally) < n {
		b.tally = make([]traces.Vec, n)
		b.tallyStamp = make([]uint64, n)
	}
	b.tallyN++
	b.victims = b.victims[:0]
	for _, q := range order {
		start := len(b.victims)
		for _, j := range q.running {
			info := v.Job(j)
			if info == nil {
				return c.errorf("the view has no job %d", j)
			}
			for _, t := range v.RunningTasks(j) {
				if t.Stage < 0 || int(t.Stage) >= len(info.Stages) || t.Machine < 0 || int(t.Machine) >= n {
					return c.errorf("job %d: running task %+v out of range", j, t.TaskRef)
				}
				b.victims = append(b.victims, victim{RunningTask: t, demand: info.Stages[t.Stage].Demand})
			}
		}
		batch := b.victims[start:]
		slices.SortFunc(batch, func(x, y victim) int {
			return cmp.Or(cmp.Compare(y.Start, x.Start), cmp.Compare(y.Job, x.Job), cmp.Compare(y.Stage, x.Stage), cmp.Compare(y.Task, x.Task))
		})
		for i := range batch {
			m := batch[i].Machine
			if b.tallyStamp[m] != b.tallyN {
				b.tallyStamp[m] = b.tallyN
				b.tally[m] = traces.Vec{}
			}
			b.tally[m] = b.tally[m].Add(batch[i].demand)
			if !need.Fits(c.pl.free(int(m)).Add(b.tally[m])) {
				continue
			}
			for _, vt := range b.victims[:start+i+1] {
				if vt.Machine == m {
					p.PreemptBecause(vt.TaskRef, why)
				}
			}
			c.inflight = true
			return nil
		}
	}
	return nil
}
