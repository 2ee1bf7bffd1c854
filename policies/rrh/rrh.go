package rrh

import (
	"cmp"
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/internal/grant"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/traces"
)

// Name is the registry name.
const Name = "rrh"

// Parameter keys (policy.params.*).
const (
	ParamAlpha    = "alpha"
	ParamDiscount = "discount_per_s"
)

// Params are the heuristic's weights.
type Params struct {
	Alpha    float64 // α: weight of the discounted gain against the opportunity cost
	Discount float64 // δ: discount rate per second
}

// DefaultParams are α = 0.5 and δ = 0.001 per second.
func DefaultParams() Params { return Params{Alpha: 0.5, Discount: 0.001} }

// Decay is the decay rate of a utility at its target completion time: the magnitude of its
// slope there (per second).
func Decay(u *traces.Utility) float64 {
	if u == nil {
		return 0
	}
	switch u.Kind {
	case traces.UtilitySigmoid:
		return u.Priority * u.Decay / 4
	case traces.UtilityLinear:
		return math.Abs(u.Slope)
	}
	return 0
}

// Rewards returns every job's reward at time now on a cluster of the given capacity.
func Rewards(now traces.Time, capacity traces.Vec, jobs []jobwork.Job, prm Params) []float64 {
	var total float64
	decay := make([]float64, len(jobs))
	for i := range jobs {
		decay[i] = Decay(jobs[i].Utility)
		total += decay[i]
	}
	out := make([]float64, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		rpt := j.Seconds(capacity)
		if rpt <= 0 {
			out[i] = math.Inf(1)
			continue
		}
		var gain float64
		if j.Utility != nil {
			gain = j.Utility.Value(j.Submit, now+traces.FromSeconds(rpt))
		}
		pv := gain / math.Pow(1+prm.Discount, rpt)
		cost := rpt * (total - decay[i])
		out[i] = (prm.Alpha*pv - (1-prm.Alpha)*cost) / rpt
	}
	return out
}

// Rank returns the job indices in RRH's priority order: decreasing reward, ties by index (the
// caller lists jobs in submit order).
func Rank(now traces.Time, capacity traces.Vec, jobs []jobwork.Job, prm Params) []int {
	r := Rewards(now, capacity, jobs, prm)
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r[b], r[a]) })
	return order
}

// RRH is the risk-reward heuristic policy.
type RRH struct {
	prm    Params
	fill   grant.Filler
	jobs   []jobwork.Job
	ids    []policies.JobID
	order  []policies.JobID
	active bool
}

var _ policies.Policy = (*RRH)(nil)

// New builds the policy from policy.params alpha and discount_per_s.
func New(o policies.Options) (policies.Policy, error) {
	if err := policies.CheckParams(o.Params, ParamAlpha, ParamDiscount); err != nil {
		return nil, err
	}
	prm, err := ParseParams(o.Params[ParamAlpha], o.Params[ParamDiscount], ParamAlpha, ParamDiscount)
	if err != nil {
		return nil, err
	}
	p := &RRH{prm: prm}
	p.fill.Why = rankReason
	return p, nil
}

// ParseParams reads α and δ from their raw parameter values (nil: the default), naming the keys
// they came from in errors.
func ParseParams(alpha, discount any, alphaKey, discountKey string) (Params, error) {
	prm := DefaultParams()
	if alpha != nil {
		a, ok := policies.ParamNumber(alpha)
		if !ok || a < 0 || a > 1 {
			return prm, policies.ParamError(alphaKey, "a weight in [0, 1]", alpha)
		}
		prm.Alpha = a
	}
	if discount != nil {
		d, ok := policies.ParamNumber(discount)
		if !ok || d < 0 || d > 1 {
			return prm, policies.ParamError(discountKey, "a rate per second in [0, 1]", discount)
		}
		prm.Discount = d
	}
	return prm, nil
}

// Name returns "rrh".
func (p *RRH) Name() string { return Name }

// Schedule ranks the active jobs by reward and serves them in that order.
func (p *RRH) Schedule(v policies.View, plan *policies.Plan) error {
	active := v.Active()
	if len(active) == 0 {
		return nil
	}
	// Rewards change only when some job changed (work, arrival, completion): reuse the order
	// otherwise (a periodic tick with nothing new).
	if len(v.Changed()) > 0 || !p.active {
		p.jobs, p.ids = p.jobs[:0], p.ids[:0]
		for _, j := range active {
			p.jobs = append(p.jobs, jobwork.Remaining(v, j))
			p.ids = append(p.ids, j)
		}
		p.order = p.order[:0]
		for _, k := range Rank(v.Now(), v.Capacity(), p.jobs, p.prm) {
			p.order = append(p.order, p.ids[k])
		}
		p.active = true
	}
	kept := p.order[:0]
	for _, j := range p.order {
		if js := v.JobState(j); js.Arrived && !js.Done {
			kept = append(kept, j)
		}
	}
	p.order = kept
	p.fill.Fill(v, plan, p.order, nil)
	return nil
}
