package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
)

// TestScopedParamsInASweep: a sensitivity point on policy.params_for.sp.preempt reaches the sp
// cells and leaves the fifo cells as at the base point (same config key); a scope no cell runs
// is refused, naming the spec and the key.
func TestScopedParamsInASweep(t *testing.T) {
	wl, err := filepath.Abs("testdata/tiny-tpch.txt")
	if err != nil {
		t.Fatal(err)
	}
	write := func(extra string) *experiments.Spec {
		t.Helper()
		spec := filepath.Join(t.TempDir(), "scoped.yaml")
		body := "base: {workload: {name: " + wl + ", machines: 3}}\naxes:\n  - {key: policy.name, values: [fifo, sp]}\n" +
			extra + "seeds: [1]\nlabels: {quick: {}, paper: {}}\n"
		if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := experiments.LoadSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := NewPlan(write("sensitivity:\n  - {key: policy.params_for.sp.preempt, values: [true]}\n"), "quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(p.Cells))
	}
	keys := map[string]string{}
	for _, c := range p.Cells {
		point := "base"
		if c.Values[1] != nil {
			point = "preempt"
		}
		keys[c.Config.Policy.Name+"/"+point] = c.ConfigKey
		_, has := c.Config.Policy.Params["preempt"]
		if want := c.Config.Policy.Name == "sp" && point == "preempt"; has != want {
			t.Errorf("%s at %s: params %v", c.Config.Policy.Name, point, c.Config.Policy.Params)
		}
	}
	if keys["fifo/base"] != keys["fifo/preempt"] || keys["sp/base"] == keys["sp/preempt"] {
		t.Errorf("config keys %v: want fifo's equal at both points, sp's different", keys)
	}
	_, err = NewPlan(write("  - {key: policy.params_for.jvusched.be_value, values: [node]}\n"), "quick", nil)
	if err == nil || !strings.Contains(err.Error(), "scoped.yaml: policy.params_for.jvusched.be_value: no cell runs policy jvusched") {
		t.Errorf("a scope no cell runs: %v", err)
	}
}
