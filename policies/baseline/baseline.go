package baseline

import "github.com/schedlab/schedlab/policies"

// Registry names of the baselines.
const (
	FIFOName = "fifo"
	FairName = "fair"
	DRFName  = "drf"
	SPName   = "sp"
	EDFName  = "edf"
	SRPTName = "srpt"
)

// FIFO starts jobs in submit order: the earliest job takes every task that fits before the next
// job is considered.
type FIFO struct{ c *core }

// Fair shares running tasks between jobs or queues in proportion to their weights, as Hadoop's
// Fair Scheduler does.
type Fair struct{ c *core }

// DRF is dominant resource fairness by progressive filling, over jobs or queues.
type DRF struct{ c *core }

// SP is strict priority between classes with DRF inside a class, optionally preemptive.
type SP struct{ c *core }

// EDF starts jobs in order of deadline; jobs without a deadline come last.
type EDF struct{ c *core }

// SRPT starts jobs in order of remaining estimated work.
type SRPT struct{ c *core }

var (
	_ policies.Policy = (*FIFO)(nil)
	_ policies.Policy = (*Fair)(nil)
	_ policies.Policy = (*DRF)(nil)
	_ policies.Policy = (*SP)(nil)
	_ policies.Policy = (*EDF)(nil)
	_ policies.Policy = (*SRPT)(nil)
)

// NewFIFO builds a FIFO policy. It takes no parameters; Backfill applies.
func NewFIFO(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindFIFO, FIFOName, o)
	if err != nil {
		return nil, err
	}
	return &FIFO{c}, nil
}

// NewFair builds a Fair policy. Level picks jobs or queues; Params["weights"] weighs queues.
func NewFair(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindFair, FairName, o)
	if err != nil {
		return nil, err
	}
	return &Fair{c}, nil
}

// NewDRF builds a DRF policy. Level picks jobs or queues; Params["weights"] weighs queues.
func NewDRF(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindDRF, DRFName, o)
	if err != nil {
		return nil, err
	}
	return &DRF{c}, nil
}

// NewSP builds a strict-priority policy. ClassOrder ranks classes (empty: by job priority);
// Level picks what DRF shares between inside a class; Params["preempt"] enables preemption and
// Params["weights"] weighs queues.
func NewSP(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindSP, SPName, o)
	if err != nil {
		return nil, err
	}
	return &SP{c}, nil
}

// NewEDF builds an EDF policy. It takes no parameters; Backfill applies.
func NewEDF(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindEDF, EDFName, o)
	if err != nil {
		return nil, err
	}
	return &EDF{c}, nil
}

// NewSRPT builds an SRPT policy. It takes no parameters; Backfill applies.
func NewSRPT(o policies.Options) (policies.Policy, error) {
	c, err := newCore(kindSRPT, SRPTName, o)
	if err != nil {
		return nil, err
	}
	return &SRPT{c}, nil
}

// Name returns FIFOName.
func (p *FIFO) Name() string { return FIFOName }

// Schedule appends starts in FIFO order to plan.
func (p *FIFO) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }

// Name returns FairName.
func (p *Fair) Name() string { return FairName }

// Schedule appends fair-share starts to plan.
func (p *Fair) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }

// Name returns DRFName.
func (p *DRF) Name() string { return DRFName }

// Schedule appends DRF starts to plan.
func (p *DRF) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }

// Name returns SPName.
func (p *SP) Name() string { return SPName }

// Schedule appends strict-priority starts, and preemptions when enabled, to plan.
func (p *SP) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }

// Name returns EDFName.
func (p *EDF) Name() string { return EDFName }

// Schedule appends starts in deadline order to plan.
func (p *EDF) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }

// Name returns SRPTName.
func (p *SRPT) Name() string { return SRPTName }

// Schedule appends starts in remaining-work order to plan.
func (p *SRPT) Schedule(v policies.View, plan *policies.Plan) error { return p.c.schedule(v, plan) }
