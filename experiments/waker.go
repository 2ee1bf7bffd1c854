package experiments

import "github.com/schedlab/schedlab/policies"

// withWaker returns wrapped — the policy as the run wraps it (progress, decision time) — still a
// policies.Waker when the configured policy inner is one: the engine asks its policy for
// wake-ups (replay's wake.go), and a wrapper that hid them would leave the trace policy's starts
// to whatever event came next.
func withWaker(wrapped, inner policies.Policy) policies.Policy {
	if wk, ok := inner.(policies.Waker); ok && wrapped != inner {
		return wakingPolicy{Policy: wrapped, Waker: wk}
	}
	return wrapped
}

// wakingPolicy is a wrapped policy with its inner policy's wake-ups.
type wakingPolicy struct {
	policies.Policy
	policies.Waker
}
