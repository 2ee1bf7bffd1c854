package rrh

import "github.com/schedlab/schedlab/policies"

// rankReason explains a start by the job's position in the reward-rate order, from 1.
func rankReason(_ policies.JobID, pos int) policies.Reason {
	return policies.BecauseValue("reward-rate rank", float64(pos+1))
}
