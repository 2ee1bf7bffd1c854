package jvusched

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/jvusched/milp"
	"github.com/schedlab/schedlab/policies/jvusched/strl"
)

// kills returns the running jobs' pSTRL terms (flag p) and, by label, the jobs each stands for.
//
// A job's term is killnck over the machines it holds, returned from the engine's preemption
// delay on through its expected completion, at its preemption cost. Single-task jobs that the
// MILP cannot tell apart — same partition (the same GPU flag if the options select by GPU, the
// same rack if they select that rack), same returned slices, same cost — are offered together
// as one linear KillnCk over their machines, at the same cost per machine: "kill any n of
// these" is exactly the choice among identical binaries, with one integer in place of n
// binaries. Running jobs whose kill would return nothing inside the window offer none.
// options are every allocation leaf of the MILP (they decide its partitions).
func (p *Policy) kills(c *cycle, options []strl.Expr) ([]strl.Expr, map[string][]*running) {
	gpuSets, rackSets := false, map[string]bool{}
	for _, o := range options {
		strl.Walk(o, func(e strl.Expr) {
			if n, ok := e.(*strl.NCk); ok {
				for _, it := range n.Set.Items {
					switch it.Kind {
					case strl.ItemGPU:
						gpuSets = true
					case strl.ItemRack:
						rackSets[it.Name] = true
					}
				}
			}
		})
	}
	back := int((p.delay + p.quantum - 1) / p.quantum)
	type key struct {
		rack string
		gpu  bool
		last int
		cost float64
	}
	groups := map[key][]*running{}
	var keys []key
	var terms []strl.Expr
	byTag := map[string][]*running{}
	for i := range c.running {
		r := &c.running[i]
		if !r.killable || c.killed[r.id] {
			continue
		}
		last := min(r.busy, c.grid.Slices) - 1
		if back > last {
			continue
		}
		if len(r.tasks) == 1 {
			m := p.cl.machines[r.tasks[0].Machine]
			k := key{gpu: gpuSets && m.GPU, last: last, cost: r.cost}
			if rackSets[m.Rack] {
				k.rack = m.Rack
			}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], r)
			continue
		}
		tag := "k" + strconv.Itoa(int(r.id))
		terms = append(terms, p.killTerm(c, tag, []*running{r}, back, last, false))
		byTag[tag] = []*running{r}
	}
	for _, k := range keys { // first-seen order: deterministic
		g := groups[k]
		tag := "k" + strconv.Itoa(int(g[0].id))
		if len(g) > 1 {
			tag = "kg" + strconv.Itoa(int(g[0].id))
		}
		terms = append(terms, p.killTerm(c, tag, g, back, k.last, len(g) > 1))
		byTag[tag] = g
	}
	return terms, byTag
}

// killTerm is the KillnCk of jobs (linear when it offers any number of them).
func (p *Policy) killTerm(c *cycle, tag string, jobs []*running, back, last int, linear bool) *strl.KillNCk {
	var names []string
	cost := 0.0
	for _, r := range jobs {
		for _, t := range r.tasks {
			names = append(names, p.cl.machines[t.Machine].Name)
		}
		cost += r.cost
	}
	return &strl.KillNCk{Tag: tag, Set: strl.Machines(names...), K: len(names), StartP: c.grid.Start(back),
		FinishP: c.grid.Start(last), Cost: cost, Linear: linear}
}

// victims returns the jobs a chosen kill preempts: all of a single job's; for a group, as many
// of its jobs as the solution kills in each partition, the most recently started first (the
// least work lost), then the higher JobID.
func (p *Policy) victims(prog *milp.Program, l *milp.Leaf, ch milp.Choice, group []*running) ([]*running, error) {
	if !l.Expr.(*strl.KillNCk).Linear {
		return group, nil
	}
	part := map[int32]int{} // machine → partition
	for x := range prog.Partitions {
		for _, m := range prog.Partitions[x].Machines {
			part[int32(m)] = x
		}
	}
	order := slices.Clone(group)
	slices.SortStableFunc(order, func(a, b *running) int {
		return cmp.Or(cmp.Compare(b.tasks[0].Start, a.tasks[0].Start), cmp.Compare(b.id, a.id))
	})
	var out []*running
	for i, pv := range l.Parts {
		need := ch.Counts[i]
		for _, r := range order {
			if need == 0 {
				break
			}
			if part[r.tasks[0].Machine] == pv.Partition {
				out = append(out, r)
				need--
			}
		}
		if need > 0 {
			return nil, fmt.Errorf("kill %s: %d job(s) short in partition %d", l.Expr.Label(), need, pv.Partition)
		}
	}
	return out, nil
}

// preempt preempts every task of r; with no preemption delay its machines are free at once.
func (p *Policy) preempt(c *cycle, plan *policies.Plan, r *running, freed []bool, why policies.Reason) {
	back := int((p.delay + p.quantum - 1) / p.quantum)
	c.killed[r.id] = true
	p.stats.preempted++
	for _, t := range r.tasks {
		plan.PreemptBecause(t.TaskRef, why)
		p.releaseAt[t.Machine] = c.now + p.delay
		if back == 0 {
			freed[t.Machine] = true
			c.busy[t.Machine] = 0
		} else {
			c.busy[t.Machine] = back
		}
	}
}
