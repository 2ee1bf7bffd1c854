package experiments

import (
	"strings"
	"testing"
	"testing/fstest"
)

// withSpec has a sensitivity entry whose key moves together with another (with:): stragglers
// are a probability and a factor, set at once at each step.
const withSpec = `axes:
  - {key: policy.name, values: [fifo, drf]}
sensitivity:
  - {key: engine.task_startup_s, values: [1, 5]}
  - {key: engine.straggler_p, values: [0.05, 0.05, 0.02], with: {engine.straggler_factor: [2, 8, 8]}}
  - {key: engine.duration_model, values: [contention], with: {engine.contention_slope: [0.3]}}
seeds: [1]
labels: {quick: {sensitivity: {engine.straggler_p: [], engine.duration_model: []}}, paper: {}}
`

// TestSensitivityWith checks a with: entry: its points set both keys, the expanded axis group
// carries the companion as a zipped axis (null at every other point), and a cell is selected
// only at its own point.
func TestSensitivityWith(t *testing.T) {
	s, err := ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(withSpec)}}, "s.yaml", "", "s")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.WithLabel("paper")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps.SensitivityPoints() {
		names = append(names, p.Name())
	}
	want := "base|engine.task_startup_s=1|engine.task_startup_s=5|engine.straggler_p=0.05,engine.straggler_factor=2|engine.straggler_p=0.05,engine.straggler_factor=8|engine.straggler_p=0.02,engine.straggler_factor=8|engine.duration_model=contention,engine.contention_slope=0.3"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("points %s\nwant   %s", got, want)
	}
	g := ps.Axes[len(ps.Axes)-1]
	if len(g.Axes) != 5 || g.Axes[2].Key != "engine.straggler_factor" {
		t.Fatalf("expanded group %+v", g)
	}
	if got := FormatAxisValue(g.Axes[2].Values[4]); got != "8" || g.Axes[2].Values[0] != nil || g.Axes[2].Values[1] != nil {
		t.Errorf("companion values %v", g.Axes[2].Values)
	}
	cell := map[string]string{"engine.task_startup_s": "null", "engine.straggler_p": "0.05", "engine.straggler_factor": "8"}
	value := func(k string) string {
		if v, ok := cell[k]; ok {
			return v
		}
		return "null"
	}
	for i, p := range ps.SensitivityPoints() {
		if got := ps.SensitivitySelects(p, value); got != (i == 4) {
			t.Errorf("point %s selects the p=0.05 factor-8 cell: %v", p.Name(), got)
		}
	}
	q, err := s.WithLabel("quick")
	if err != nil {
		t.Fatal(err)
	}
	if pts := q.SensitivityPoints(); len(pts) != 3 {
		t.Errorf("quick drops the two with: entries: %d points", len(pts))
	}
	if g := q.Axes[len(q.Axes)-1]; len(g.Axes) != 1 {
		t.Errorf("quick's group has %d axes, want 1 (no companion)", len(g.Axes))
	}
}

// TestSensitivityWithErrors checks a with: entry's mistakes are named at the spec's line.
func TestSensitivityWithErrors(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"length", "  - {key: engine.straggler_p, values: [0.05, 0.1], with: {engine.straggler_factor: [2]}}\n", "one per value"},
		{"repeat", "  - {key: engine.straggler_p, values: [0.05, 0.05], with: {engine.straggler_factor: [2, 2]}}\n", "repeats step"},
		{"repeat without with", "  - {key: engine.straggler_p, values: [0.05, 0.05]}\n", "duplicate value"},
		{"swept", "  - {key: engine.straggler_p, values: [0.05], with: {policy.name: [drf]}}\n", "swept twice"},
		{"unknown", "  - {key: engine.straggler_p, values: [0.05], with: {engine.straggler_facter: [2]}}\n", "did you mean"},
		{"null", "  - {key: engine.straggler_p, values: [0.05], with: {engine.straggler_factor: [null]}}\n", "null"},
		{"bad value", "  - {key: engine.straggler_p, values: [0.05], with: {engine.straggler_factor: [-1]}}\n", "engine.straggler_factor"},
		{"bad pair", "  - {key: engine.duration_model, values: [none], with: {engine.contention_slope: [0.2]}}\n", "no effect unless"},
		{"label", "  - {key: engine.straggler_p, values: [0.05], with: {engine.straggler_factor: [2]}}\nlabels: {quick: {sensitivity: {engine.straggler_p: [0.1]}}, paper: {}}\n", "only drop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "axes:\n  - {key: policy.name, values: [fifo, srpt]}\nseeds: [1]\nsensitivity:\n" + tc.block
			if !strings.Contains(tc.block, "labels:") {
				src += "labels: {quick: {}, paper: {}}\n"
			}
			_, err := ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(src)}}, "s.yaml", "", "s")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.yaml:") {
				t.Errorf("got %v, want an error with %q at s.yaml:line", err, tc.want)
			}
		})
	}
}
