package experiments

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestGanttFigureFields: a gantt figure's y is tasks, it takes x_range and where but neither x
// nor series; tasks is no other kind's y.
func TestGanttFigureFields(t *testing.T) {
	head := "axes:\n  - {key: policy.name, values: [fifo, drf]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	s, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" +
		"  - {id: g, kind: gantt, y: tasks, where: {policy: drf}, x_range: [10, 60]}\n"})
	if err != nil {
		t.Fatal(err)
	}
	if g := &s.Figures[0]; g.Kind != KindGantt || !slices.Equal(g.XRange, []float64{10, 60}) {
		t.Errorf("gantt figure: %+v", g)
	}
	for _, tt := range []struct{ body, want string }{
		{"  - {id: a, kind: gantt, y: avg_jct_s}\n", "spec.yaml:6: figure a.y: y tasks goes with kind gantt"},
		{"  - {id: a, kind: bars, x: policy, y: tasks}\n", "spec.yaml:6: figure a.y: y tasks goes with kind gantt"},
		{"  - {id: a, kind: gantt, x: policy, y: tasks}\n", "spec.yaml:6: figure a.x: a usage figure's x is time"},
	} {
		_, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" + tt.body})
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error\n  %v\nwant it to contain\n  %s", strings.TrimSpace(tt.body), err, tt.want)
		}
	}
}
