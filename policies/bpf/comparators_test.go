package bpf_test

import (
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/bpf"
)

// comparator builds one of the policies the BPF paper compares: drf and sp share between queues
// (sp serves the LQ class first), and bpf, nbpf and mbvt take params.
func comparator(t testing.TB, name string, params map[string]any) policies.Policy {
	t.Helper()
	switch name {
	case "drf":
		p, err := baseline.NewDRF(policies.Options{Level: "queue"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	case "sp":
		p, err := baseline.NewSP(policies.Options{Level: "queue", ClassOrder: []string{"lq", "tq"}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, e := range bpf.Entries() {
		if e.Name == name {
			p, err := e.New(policies.Options{Params: params, Seed: 1})
			if err != nil {
				t.Fatalf("policy %s: %v", name, err)
			}
			return p
		}
	}
	t.Fatalf("unknown policy %q", name)
	return nil
}
