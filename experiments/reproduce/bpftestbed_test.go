package reproduce

import (
	"testing"

	"github.com/schedlab/schedlab/experiments/claim"
)

// TestReproduceBPFTestbedQuick reproduces bpf-testbed at the quick label (the authors' job list
// cut at 1200 s, two seeds, the calibrated testbed profile) and pins each claim's verdict, so a
// change to the scenario, the profile or a mechanism that moves a claim is seen by name. It
// needs no shared data: the job list is in the repository. The cells run in the schedlab binary
// (builtReport): the YARN mechanics they exercise are raced in replay's own tests.
func TestReproduceBPFTestbedQuick(t *testing.T) {
	dir := t.TempDir()
	rep := builtReport(t, dir, "bpf-testbed")
	checkEvaluated(t, rep, dir)
	specs := rep.Specs()
	if len(specs) != 1 || specs[0].Spec.ID != "bpf/testbed" {
		t.Fatalf("reproduced %d specs, want bpf/testbed", len(specs))
	}
	sr := specs[0]
	if !sr.SeedInvariant {
		t.Error("the two seeds disagree: the testbed scenario has a random element, but its job list and profile are fixed")
	}
	// Verdicts at the base point (the calibrated profile), by claim text.
	want := map[string]claim.Verdict{
		"BPF serves LQ-0 faster than SP (from submission)":                                                           claim.Held,
		"SP serves LQ-0 faster than DRF (from submission)":                                                           claim.Held,
		"BPF serves LQ-0 faster than SP (from the first task)":                                                       claim.Held,
		"SP serves LQ-0 faster than DRF (from the first task)":                                                       claim.Held,
		"BPF even outperforms SP for LQ-1 (from submission)":                                                         claim.Held,
		"The soft class serves LQ-1 faster than N-BPF, which leaves it elastic (from submission)":                    claim.Held,
		"DRF is the best for TQ-0 - faster than BPF (from submission)":                                               claim.NotHeld,
		"SP is the worst for the TQ - slower than DRF (from submission)":                                             claim.Held,
		"BPF protects the TQ against SP (from submission)":                                                           claim.Held,
		"BPF protects the TQ against SP (from the first task)":                                                       claim.Held,
		"SP starves the batch queue - TQ-0's share under SP is at least 20% below DRF's":                             claim.NotHeld,
		"BPF keeps TQ-0's share within 10% of DRF's":                                                                 claim.Held,
		"BPF admits LQ-0 to the hard class":                                                                          claim.Held,
		"BPF admits LQ-1 to the soft class":                                                                          claim.Held,
		"BPF admits LQ-2 as elastic":                                                                                 claim.Held,
		"Every run ends by the stop rule - all 20 TQ jobs finish in every cell (none ends in a slow-start deadlock)": claim.Held,
	}
	seen := 0
	for _, f := range sr.Figures {
		for _, c := range f.Claims {
			v, ok := want[c.Text]
			if !ok {
				t.Errorf("claim %q: no expected verdict", c.Text)
				continue
			}
			seen++
			if c.Verdict != v {
				t.Errorf("claim %q: %v, want %v", c.Text, c.Verdict, v)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d expected claims were judged", seen, len(want))
	}
}
