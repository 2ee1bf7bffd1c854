// Package builtin assembles the registry of every policy schedlab ships, as used by
// `schedlab policies` and `schedlab run`. Registration is explicit: each policy is listed here
// once, with a one-line description.
package builtin

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/policies/cora"
	"github.com/schedlab/schedlab/policies/decimadp"
	"github.com/schedlab/schedlab/policies/external"
	"github.com/schedlab/schedlab/policies/jvusched"
	"github.com/schedlab/schedlab/policies/rrh"
	"github.com/schedlab/schedlab/policies/tracepolicy"
)

// Entries lists the built-in policies in registration order.
func Entries() []policies.Entry {
	entries := []policies.Entry{
		{Name: baseline.FIFOName, Description: "first in, first out: the earliest job takes every task that fits before the next", New: baseline.NewFIFO},
		{Name: baseline.FairName, Description: "Hadoop-style fair sharing of running tasks in proportion to job or queue weight", New: baseline.NewFair},
		{Name: baseline.DRFName, Description: "dominant resource fairness by progressive filling over jobs or queues", New: baseline.NewDRF},
		{Name: baseline.SPName, Description: "strict priority between classes, DRF inside a class; preemption with params.preempt", New: baseline.NewSP},
		{Name: baseline.EDFName, Description: "earliest deadline first; jobs without a deadline last", New: baseline.NewEDF},
		{Name: baseline.SRPTName, Description: "shortest remaining estimated work first", New: baseline.NewSRPT},
	}
	entries = append(entries, bpf.Entries()...)
	entries = append(entries,
		policies.Entry{Name: cora.Name, Description: "CORA: lexicographic max-min of completion-time utilities at every event; params.solver exact (default) or lp (the paper's FINAL on HiGHS)", New: cora.New},
		policies.Entry{Name: rrh.Name, Description: "risk-reward heuristic (Irwin et al., FirstReward): discounted gain against utility-decay opportunity cost", New: rrh.New},
		policies.Entry{Name: external.Name, Description: "a scheduler outside schedlab (any language) over the line protocol of policies/external/PROTOCOL.md; params.command or params.socket", New: external.New},
		policies.Entry{Name: jvusched.Name, Description: "JamaisVu's JVuSched: per-cycle MILP over STRL/pSTRL space-time options with in-situ preemption and misestimate handling (HiGHS)", New: jvusched.New},
		policies.Entry{Name: tracepolicy.Name, Description: "the trace's own decisions: each task starts when and where the source trace started it (workload placements, --placements), else where and when it first fits", New: tracepolicy.New},
		policies.Entry{Name: decimadp.Name, Description: "decima-sim's dynamic partition (Decima's fair baseline): jobs keep their executors (single-task machines) while they have a frontier stage; free ones go to jobs under ceil(machines / jobs)", New: decimadp.New},
	)
	return entries
}

// Registry returns a new registry holding every built-in policy.
func Registry() *policies.Registry {
	r := new(policies.Registry)
	r.MustRegister(Entries()...)
	return r
}
