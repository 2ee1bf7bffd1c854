package experiments

import (
	"path"
	"strings"
)

// Names maps the internal names of a spec's results — axis keys, axis values, queue and class
// names, metrics — to the human names its figures and tables show (the spec's names: block, see
// Spec). A key may hold one *, which matches any text, copied into the name where it has a *
// ("bursty*: LQ-*" names bursty0 LQ-0). Without an entry a name gets a default: the last part of
// an axis key (policy.name → policy), a path's file name, a metric's name in words with its unit
// (avg_jct_s → avg JCT (s), by_queue.batch0.avg_jct_s → TQ-0 avg JCT (s) once batch* is named).
type Names map[string]string

// lookup returns the entry for s: an exact key, else the pattern with the longest literal part
// that matches (the smallest key among equals), its * filled with the text it matched.
func (n Names) lookup(s string) (string, bool) {
	if v, ok := n[s]; ok {
		return v, true
	}
	best, bestLen, mid := "", -1, ""
	for k := range n {
		pre, suf, ok := strings.Cut(k, "*")
		if !ok || len(s) < len(pre)+len(suf) || !strings.HasPrefix(s, pre) || !strings.HasSuffix(s, suf) {
			continue
		}
		if l := len(pre) + len(suf); l > bestLen || (l == bestLen && k < best) {
			best, bestLen, mid = k, l, s[len(pre):len(s)-len(suf)]
		}
	}
	if bestLen < 0 {
		return "", false
	}
	return strings.Replace(n[best], "*", mid, 1), true
}

// Value names an axis value, a queue or a class: its entry, else (a path) its file name's
// entry or the file name, else itself.
func (n Names) Value(s string) string {
	if v, ok := n.lookup(s); ok {
		return v
	}
	if strings.Contains(s, "/") {
		b := path.Base(s)
		if v, ok := n.lookup(b); ok {
			return v
		}
		return b
	}
	return s
}

// dimNames are the default names of the resource dimensions.
var dimNames = map[string]string{"cpu": "CPU", "mem": "memory", "gpu": "GPU", "disk": "disk"}

// Dim names a resource dimension: its entry, else CPU, memory, GPU for cpu, mem, gpu.
func (n Names) Dim(d string) string {
	if v, ok := n.lookup(d); ok {
		return v
	}
	if v, ok := dimNames[d]; ok {
		return v
	}
	return d
}

// Key names an axis key: its entry, else its last dotted part other than "name" (policy.name →
// policy, workload.bpf.tqs → tqs).
func (n Names) Key(k string) string {
	if v, ok := n.lookup(k); ok {
		return v
	}
	parts := strings.Split(k, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "name" {
		parts = parts[:len(parts)-1]
	}
	return parts[len(parts)-1]
}

// Metric names a metric for a table column or a legend: its entry, else its quantity and unit
// as "avg JCT (s)".
func (n Names) Metric(m string) string {
	if v, ok := n.lookup(m); ok {
		return v
	}
	q, u := n.MetricParts(m)
	if u == "" {
		return q
	}
	return q + " (" + u + ")"
}

// MetricParts returns a metric's default quantity and unit ("avg JCT", "s"), for axis labels
// ("avg JCT [s]"). Grouped metrics name their group: by_queue.<q>.<m> is "<q's name> <m's
// name>", and likewise by_class, utility_by_class, queue_dominant_share, utilization and
// admissions; job.<column> and table.<name>.<column> are their column's; other dotted metrics (a
// policy's own) are their parts' names in order. An entry for the whole metric is the quantity,
// with no unit.
func (n Names) MetricParts(m string) (quantity, unit string) {
	if v, ok := n.lookup(m); ok {
		return v, ""
	}
	m = strings.TrimPrefix(m, JobMetricPrefix)
	if rest, ok := strings.CutPrefix(m, "table."); ok {
		_, m, _ = strings.Cut(rest, ".")
	}
	group, rest, _ := strings.Cut(m, ".")
	switch group {
	case "by_queue", "by_class", "utility_by_class":
		if who, leaf, ok := strings.Cut(rest, "."); ok {
			q, u := n.leaf(leaf)
			return n.Value(who) + " " + q, u
		}
	case "queue_dominant_share":
		return n.Value(rest) + " dominant share", ""
	case "utilization":
		return n.Dim(rest) + " utilization", ""
	case "admissions":
		return n.Value(rest) + " admissions", ""
	case "timed_utility":
		q, u := n.leaf(rest)
		return "time-sensitive " + q, u
	}
	if strings.Contains(m, ".") { // a policy's own metric (cora.shadow.fifo.positive): its parts' names
		parts := strings.Split(m, ".")
		q, u := n.leaf(parts[len(parts)-1])
		for i := len(parts) - 2; i >= 0; i-- {
			q = n.Value(parts[i]) + " " + q
		}
		return q, u
	}
	return n.leaf(m)
}

// leafNames are the default names of the summary's common metrics (without their unit).
var leafNames = map[string]string{
	"jobs": "jobs", "completed": "completed jobs", "unfinished": "unfinished jobs",
	"avg_jct_s": "avg JCT", "p50_jct_s": "median JCT", "p95_jct_s": "p95 JCT", "p99_jct_s": "p99 JCT",
	"jct_s": "JCT", "avg_run_s": "avg running time", "makespan_s": "makespan", "slo_jobs": "SLO jobs", "slo_miss_rate": "SLO miss rate",
	"be_goodput_task_hours": "BE goodput", "be_mean_latency_s": "BE mean latency",
	"utility_jobs": "utility jobs", "min_utility": "min utility", "sum_utility": "sum utility",
	"missed_targets": "missed targets", "delta_s": "Δ", "target_s": "target", "work_s": "work",
	"submit_s": "submit", "start_s": "start", "finish_s": "finish", "deadline_s": "deadline",
	"wall_ms": "wall time",
}

// leaf names one metric name without groups: its entry, a default, or its words.
func (n Names) leaf(m string) (string, string) {
	if v, ok := n.lookup(m); ok {
		return v, ""
	}
	u := unitOf(m)
	if q, ok := leafNames[m]; ok {
		return q, u
	}
	q := m
	for _, suf := range []string{"_task_hours", "_ms", "_s"} {
		if strings.HasSuffix(q, suf) {
			q = strings.TrimSuffix(q, suf)
			break
		}
	}
	return strings.ReplaceAll(q, "_", " "), u
}

// unitOf guesses a metric's or a table column's unit from its name's suffix.
func unitOf(m string) string {
	switch {
	case strings.HasSuffix(m, "_ms"):
		return "ms"
	case strings.HasSuffix(m, "_task_hours"):
		return "task-h"
	case strings.HasSuffix(m, "_hours"):
		return "h"
	case strings.HasSuffix(m, "_s"):
		return "s"
	}
	return ""
}
