package experiments

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestUsageAndJobWhereFields(t *testing.T) {
	head := "axes:\n  - {key: policy.name, values: [fifo, drf]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	s, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" +
		"  - {id: u, kind: stacked, y: usage.mem, where: {policy: drf}, x_range: [0, 600]}\n" +
		"  - {id: l, kind: line, y: usage.cpu, where: {policy: drf}}\n" +
		"  - {id: c, kind: cdf, y: job.jct_s, job_where: {class: lq, job.queue: [a, b]}}\n"})
	if err != nil {
		t.Fatal(err)
	}
	u, l, c := &s.Figures[0], &s.Figures[1], &s.Figures[2]
	if !u.IsUsage() || !l.IsUsage() || c.IsUsage() || !slices.Equal(u.XRange, []float64{0, 600}) {
		t.Errorf("usage figures: %+v %+v", u, l)
	}
	if !slices.Equal(c.JobWhere["class"], []string{"lq"}) || !slices.Equal(c.JobWhere["queue"], []string{"a", "b"}) {
		t.Errorf("job_where = %v", c.JobWhere)
	}
	for _, tt := range []struct{ body, want string }{
		{"  - {id: a, kind: cdf, y: usage.mem}\n", "spec.yaml:6: figure a.y: usage series usage.mem only in stacked and line figures"},
		{"  - {id: a, kind: stacked, y: usage.}\n", "spec.yaml:6: figure a.y: \"usage.\": want usage.<resource dimension>"},
		{"  - {id: a, kind: stacked, x: policy, y: usage.mem}\n", "spec.yaml:6: figure a.x: a usage figure's x is time"},
		{"  - {id: a, kind: stacked, y: usage.mem, series: policy}\n", "spec.yaml:6: figure a.series: a usage figure's x is time and its layers are the queues"},
		{"  - {id: a, kind: stacked, y: usage.mem, x_range: [5, 1]}\n", "spec.yaml:6: figure a.x_range: want from < to"},
		{"  - {id: a, kind: bars, x: policy, y: avg_jct_s, x_range: [0, 1]}\n", "spec.yaml:6: figure a.x_range: only for usage"},
		{"  - {id: a, kind: bars, x: policy, y: avg_jct_s, job_where: {class: lq}}\n", "spec.yaml:6: figure a.job_where: only for per-job"},
		{"  - {id: a, kind: cdf, y: job.jct_s, job_where: {colour: lq}}\n", "spec.yaml:6: figure a.job_where: \"colour\" is not a string column of jobs.parquet"},
	} {
		_, err := parse(t, map[string]string{"spec.yaml": head + "figures:\n" + tt.body})
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error\n  %v\nwant it to contain\n  %s", strings.TrimSpace(tt.body), err, tt.want)
		}
	}
}
