package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzParseSpec feeds arbitrary bytes to the spec parser as a spec file (which may include a
// fixed fragment, _inc.yaml): it must return a spec whose labels apply, or a configuration error
// — never panic, loop or expand aliases without bound.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(validSpec))
	f.Add([]byte("include: _inc.yaml\naxes:\n  - {key: policy.name, values: [fifo, &p drf]}\nlabels: {quick: {axes: {policy.name: [*p]}}, paper: {}}\n"))
	f.Add([]byte("axes:\n  - {key: policy.name, values: [fifo, drf]}\nsensitivity:\n  - {key: workload.machines, values: [5, 10]}\n  - {key: engine.cycle_s, values: [1]}\nseeds: [1]\nlabels: {quick: {sensitivity: {workload.machines: [], engine.cycle_s: [2]}}, paper: {}}\n"))
	f.Add([]byte("axes:\n  - {key: policy.name, values: [fifo, drf]}\nsensitivity:\n  - {key: engine.straggler_p, values: [0.05, 0.05], with: {engine.straggler_factor: [2, 8]}}\n  - {key: engine.duration_model, values: [contention], with: {engine.contention_slope: [0.3]}}\nseeds: [1]\nlabels: {quick: {sensitivity: {engine.straggler_p: []}}, paper: {}}\n"))
	for _, name := range []string{"alias-bomb.yaml", "alias-cycle.yaml", "two-documents.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "specload", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	inc := []byte("seeds: {count: 2}\nbase: {workload: {name: tpch-fb}}\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{"spec.yaml": {Data: data}, "_inc.yaml": {Data: inc}}
		s, err := ParseSpec(fsys, "spec.yaml", "", "fuzz/spec")
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error is not a configuration error: %v", err)
			}
			return
		}
		for _, l := range s.LabelNames() {
			if _, err := s.WithLabel(l); err != nil && !errors.Is(err, ErrConfig) {
				t.Fatalf("label %s: error is not a configuration error: %v", l, err)
			}
		}
	})
}
