package experiments

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestDistributionCurves parses cdf and ccdf figures whose y is a list of metrics (one curve
// each) with a legend naming the curves, and the errors of such lists elsewhere.
func TestDistributionCurves(t *testing.T) {
	head := "axes:\n  - {key: policy.name, values: [fifo, drf]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	s, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" +
		"  - id: c\n    kind: ccdf\n    y: [table.shadow.gain_a, table.shadow.gain_b, job.jct_s]\n    legend: [A, B, JCT]\n" +
		"  - {id: d, kind: cdf, y: [job.jct_s, job.wait_s], series: policy, job_where: {class: lq}}\n" +
		"  - {id: e, kind: ccdf, y: job.jct_s, legend: [completion time]}\n"})
	if err != nil {
		t.Fatal(err)
	}
	c, d, e := &s.Figures[0], &s.Figures[1], &s.Figures[2]
	if !slices.Equal(c.Y, []string{"table.shadow.gain_a", "table.shadow.gain_b", "job.jct_s"}) || !slices.Equal(c.Legend, []string{"A", "B", "JCT"}) {
		t.Errorf("c: y %v, legend %v", c.Y, c.Legend)
	}
	if !slices.Equal(d.Y, []string{"job.jct_s", "job.wait_s"}) || d.Legend != nil || d.Series != "policy.name" {
		t.Errorf("d: y %v, legend %v, series %q", d.Y, d.Legend, d.Series)
	}
	if !slices.Equal(e.Y, []string{"job.jct_s"}) || !slices.Equal(e.Legend, []string{"completion time"}) {
		t.Errorf("e: y %v, legend %v", e.Y, e.Legend)
	}
	for _, tt := range []struct{ body, want string }{
		{"  - {id: a, kind: bars, x: policy, y: [avg_jct_s, p95_jct_s]}\n", "spec.yaml:6: figure a.y: a list of metrics only in table, cdf and ccdf figures (a bars figure plots one)"},
		{"  - {id: a, kind: ccdf, y: []}\n", "spec.yaml:6: figure a.y: want at least one metric"},
		{"  - {id: a, kind: ccdf, y: [job.jct_s, job.jct_s]}\n", "figure a.y[1]: job.jct_s is listed twice"},
		{"  - {id: a, kind: ccdf, y: [job.jct_s, job.wait_s], legend: [A]}\n", "spec.yaml:6: figure a.legend: want a list of 2 curve names, one per y"},
		{"  - {id: a, kind: ccdf, y: [job.jct_s], legend: A}\n", "figure a.legend: want a list of 1 curve names"},
		{"  - {id: a, kind: table, x: policy, y: [avg_jct_s], legend: [A]}\n", "spec.yaml:6: figure a.legend: only for cdf and ccdf figures"},
		{"  - {id: a, kind: ccdf, y: [job.jct_s, avg_jct_s], job_where: {class: lq}}\n", "figure a.job_where: only for per-job (job.*) figures; avg_jct_s is not one"},
		{"  - {id: a, kind: ccdf, y: [job.jct_s, \"bad name\"]}\n", "figure a.y: bad metric name \"bad name\""},
	} {
		_, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" + tt.body})
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error\n  %v\nwant it to contain\n  %s", strings.TrimSpace(tt.body), err, tt.want)
		}
	}
}
