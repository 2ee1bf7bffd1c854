//go:build invariants

package replay_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// TestConservationWithMechanics replays the inert cases (preemption with a delay and kept work,
// soft placement slowdowns, scheduling cycles, pooled and placed clusters) with every execution
// mechanic on: the invariants build checks after each run that the resource-seconds held equal
// Σ (start-up + work + release) × demand, and fails the run otherwise.
func TestConservationWithMechanics(t *testing.T) {
	for _, c := range inertCases {
		for _, model := range []replay.DurationModel{nil, replay.Contention{Slope: 0.7}} {
			if model != nil && c.policy != "sp" && c.policy != "srpt" {
				continue // the model's path with preemption and with soft placement is enough
			}
			cfg := c.cfg
			cfg.Seed = 5
			cfg.Holding = replay.Holding{Startup: 2 * traces.Second, Release: 3 * traces.Second, Dist: replay.HoldLognormal, CV: 0.8}
			cfg.Variance = replay.Variance{Sigma: 0.5, StragglerP: 0.05, StragglerFactor: 3}
			cfg.Durations = model
			line := inertDigest(t, c.name, c.policy, c.machines, cfg, c.params)
			if c.policy == "sp" && strings.Contains(line, "preemptions=0 ") {
				t.Errorf("%s: no preemption exercised: %s", c.name, line)
			}
		}
	}
}
