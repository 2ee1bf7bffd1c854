package experiments

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNames: human names of axis keys and values, queues and metrics, from a spec's entries
// (exact, then patterns) and the defaults.
func TestNames(t *testing.T) {
	n := Names{
		"drf": "DRF", "bursty*": "LQ-*", "batch*": "TQ-*", "batch0": "the TQ", "queries_bb*": "BigBench",
		"b*0": "short pattern", "H": "hard", "workload.bpf.tqs": "TQs", "by_queue.bursty1.avg_jct_s": "LQ-1 JCT (s)",
	}
	for _, tc := range []struct{ kind, in, want string }{
		{"value", "drf", "DRF"},
		{"value", "sp", "sp"},
		{"value", "bursty3", "LQ-3"},
		{"value", "batch0", "the TQ"},     // an exact entry wins over a pattern
		{"value", "bursty10", "LQ-10"},    // the longer literal part wins: bursty* over b*0
		{"value", "b10", "short pattern"}, // …which still matches what only it matches
		{"value", "../shared/data/tpc-dags/workload/queries_bb.txt", "BigBench"},
		{"value", "data:tpc-dags/workload/queries_tpch.txt", "queries_tpch.txt"},
		{"key", "policy.name", "policy"},
		{"key", "workload.machines", "machines"},
		{"key", "workload.bpf.tqs", "TQs"},
		{"key", "seed", "seed"},
		{"metric", "avg_jct_s", "avg JCT (s)"},
		{"metric", "p95_jct_s", "p95 JCT (s)"},
		{"metric", "by_queue.batch2.avg_run_s", "TQ-2 avg running time (s)"},
		{"metric", "by_queue.bursty0.avg_jct_s", "LQ-0 avg JCT (s)"},
		{"metric", "by_queue.bursty1.avg_jct_s", "LQ-1 JCT (s)"},
		{"metric", "by_class.lq.avg_jct_s", "lq avg JCT (s)"},
		{"metric", "queue_dominant_share.batch3", "TQ-3 dominant share"},
		{"metric", "utilization.cpu", "CPU utilization"},
		{"metric", "utilization.mem", "memory utilization"},
		{"metric", "admissions.H", "hard admissions"},
		{"metric", "timed_utility.sum_utility", "time-sensitive sum utility"},
		{"metric", "utility_by_class.critical.missed_targets", "critical missed targets"},
		{"metric", "job.jct_s", "JCT (s)"},
		{"metric", "table.cora_events.wall_ms", "wall time (ms)"},
		{"metric", "cora.shadow.drf.mean_gain", "cora shadow DRF mean gain"},
		{"metric", "be_goodput_task_hours", "BE goodput (task-h)"},
		{"metric", "some_new_metric_s", "some new metric (s)"},
	} {
		var got string
		switch tc.kind {
		case "value":
			got = n.Value(tc.in)
		case "key":
			got = n.Key(tc.in)
		case "metric":
			got = n.Metric(tc.in)
		}
		if got != tc.want {
			t.Errorf("%s %q = %q, want %q", tc.kind, tc.in, got, tc.want)
		}
	}
	if q, u := n.MetricParts("avg_jct_s"); q != "avg JCT" || u != "s" {
		t.Errorf("MetricParts(avg_jct_s) = %q, %q", q, u)
	}
	var none Names // a spec without names
	if got := none.Metric("by_queue.q.avg_jct_s"); got != "q avg JCT (s)" {
		t.Errorf("no names: %q", got)
	}
}

// TestNamesInSpecs: a spec's names apply over its directory's _names.yaml (testdata/names), the
// embedded specs of a paper get their directory's names, and bad names are errors at their line.
func TestNamesInSpecs(t *testing.T) {
	s, err := LoadSpec(filepath.Join("testdata", "names", "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"drf": "Dominant Resource Fairness", "fifo": "FIFO", "bursty2": "LQ-2", "batch1": "TQ-1"} {
		if got := s.Names.Value(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
	if got := s.Names.Key("policy.name"); got != "Policy" {
		t.Errorf("policy.name: %q", got)
	}
	fig9, err := LoadSpec("bpf/fig9")
	if err != nil {
		t.Fatal(err)
	}
	if got := fig9.Names.Metric("by_queue.bursty0.avg_jct_s"); got != "LQ-0 avg JCT (s)" {
		t.Errorf("bpf/fig9 names LQ-0's JCT %q", got)
	}
	if got := fig9.Names.Value("nbpf"); got != "N-BPF" {
		t.Errorf("bpf/fig9 names nbpf %q", got)
	}

	head := "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	for _, tc := range []struct{ name, body, want string }{
		{"two stars", head + "names: {\"a*b*\": x}\n", "spec.yaml:5: names: bad name \"a*b*\""},
		{"an empty name", head + "names: {a: \"\"}\n", "names.a: empty human name"},
		{"a star to fill from nothing", head + "names: {a: \"LQ-*\"}\n", "names.a: \"LQ-*\" has a * but the name it gives has none"},
		{"not a mapping", head + "names: [a, b]\n", "spec.yaml:5: names: want a mapping"},
		{"a list as a name", head + "names: {a: [x]}\n", "names.a: want a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, map[string]string{"spec.yaml": tc.body})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	_, err = parse(t, map[string]string{"spec.yaml": head, NamesFile: "names: {a: A}\ntitle: not here\n"})
	if err == nil || !strings.Contains(err.Error(), `_names.yaml: unknown key "title"`) {
		t.Errorf("a names file with other keys: %v", err)
	}
}
