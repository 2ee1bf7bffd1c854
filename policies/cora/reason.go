package cora

import "github.com/schedlab/schedlab/policies"

// startReason explains a start of job j: the completion slot the decision in force plans for it,
// or the fallback order when it has none.
func (p *CORA) startReason(j policies.JobID, _ int) policies.Reason {
	if s, ok := p.slots[j]; ok {
		return policies.BecauseValue("planned completion slot", float64(s))
	}
	return policies.Because("fallback: submission order")
}
