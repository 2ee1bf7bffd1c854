package external_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestPythonPortsMatchTheBuiltins runs each Python port through the protocol and the built-in
// Go policy it ports on the same workload and requires byte-identical jobs.parquet.
func TestPythonPortsMatchTheBuiltins(t *testing.T) {
	py := python(t)
	queries, err := filepath.Abs("../../traces/tpcdag/testdata/queries_tpch_3.txt")
	if err != nil {
		t.Fatal(err)
	}
	embedded := []string{"engine.horizon_s=2000"}
	multiQueue := []string{"workload.generator=bpf", "workload.bpf.queries=" + queries, "workload.bpf.lqs=2",
		"workload.bpf.tqs=3", "workload.bpf.bursts=4", "workload.bpf.period_s=300", "workload.bpf.tq_jobs=24", "workload.bpf.machines=12", "workload.bpf.lq_max_critical_path_s=200"}
	preempt := []string{"engine.preempt_delay_s=2", "policy.params.preempt=true"}
	cases := []struct {
		name   string
		policy string
		w      *traces.Workload
		sets   []string
	}{
		{"embedded workload fifo", "fifo", nil, embedded},
		{"embedded workload srpt", "srpt", nil, embedded},
		{"embedded workload drf", "drf", nil, embedded},
		{"multi-queue DAG workload fifo", "fifo", nil, multiQueue},
		{"multi-queue DAG workload srpt", "srpt", nil, multiQueue},
		{"multi-queue DAG workload drf", "drf", nil, multiQueue},
		{"placement-constrained workload fifo", "fifo", constrainedWorkload(1), nil},
		{"placement-constrained workload srpt", "srpt", constrainedWorkload(2), nil},
		{"placement-constrained workload drf with backfill", "drf", constrainedWorkload(3), []string{"policy.backfill=true"}},
		{"preemption sp by priority", "sp", constrainedWorkload(4), preempt},
		{"preemption sp by class order", "sp", constrainedWorkload(5), append([]string{"policy.class_order=slo,be"}, preempt...)},
		{"preemption sp pooled", "sp", pooledWorkload(6), preempt},
		// Queue-level sharing: entities are queues (for sp, a queue's jobs of one class), their
		// jobs in FIFO order; queue weights from policy.params.weights.
		{"multi-queue DAG workload drf by queue", "drf", nil, append([]string{"policy.level=queue", "policy.params.weights.lq0=3", "policy.params.weights.tq1=0.5"}, multiQueue...)},
		{"placement-constrained workload drf by queue with backfill", "drf", constrainedWorkload(3), []string{"policy.level=queue", "policy.backfill=true", "policy.params.weights.q2=2"}},
		{"preemption sp by queue and class order", "sp", constrainedWorkload(5), append([]string{"policy.level=queue", "policy.class_order=slo,be"}, preempt...)},
		{"preemption sp by queue pooled", "sp", pooledWorkload(6), append([]string{"policy.level=queue", "policy.params.weights.q0=2"}, preempt...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, wo, err := run(t, tc.w, append([]string{"policy.name=" + tc.policy}, tc.sets...)...)
			if err != nil {
				t.Fatal(err)
			}
			sets := []string{"policy.name=external", "policy.params.command=" + py + " " + script(t, "baseline.py") + " " + tc.policy}
			for _, s := range tc.sets {
				// The built-in's parameters reach the port as the hello's args.
				if p, ok := strings.CutPrefix(s, "policy.params."); ok {
					s = "policy.params.args." + p
				}
				sets = append(sets, s)
			}
			got, o, err := run(t, tc.w, sets...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("jobs.parquet differs from the built-in %s's (%d vs %d bytes)", tc.policy, len(got), len(want))
			}
			if o.Engine.Starts == 0 || o.Engine.SchedulingCalls != wo.Engine.SchedulingCalls {
				t.Fatalf("starts %d, calls %d (built-in: %d)", o.Engine.Starts, o.Engine.SchedulingCalls, wo.Engine.SchedulingCalls)
			}
			if tc.policy == "sp" && o.Engine.Preemptions == 0 {
				t.Fatal("the preemption case preempted nothing: it tests nothing")
			}
		})
	}
}

// pooledWorkload is constrainedWorkload(seed) on its pooled cluster (workload.pooled applies to
// loaded workloads only).
func pooledWorkload(seed uint64) *traces.Workload {
	w := constrainedWorkload(seed)
	w.Cluster.Pooled = true
	return w
}

// TestGoClientMatchesTheBuiltinFIFO proves the protocol is language-neutral: a minimal client
// written in Go (child_test.go) replays the embedded workload, pooled, exactly as the built-in
// fifo does.
func TestGoClientMatchesTheBuiltinFIFO(t *testing.T) {
	sets := []string{"workload.pooled=true", "engine.horizon_s=5000"}
	want, _, err := run(t, nil, append([]string{"policy.name=fifo"}, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	got, o, err := run(t, nil, append([]string{"policy.name=external", "policy.params.command=" + childArgv("fifo")}, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("jobs.parquet differs from the built-in fifo's")
	}
	if o.Engine.Starts == 0 {
		t.Fatal("nothing started")
	}
}

// TestReadmeExampleRuns runs the README's example scheduler on the embedded workload (to a
// horizon) and on the placement-constrained one, pooled: its plans must be valid and start work.
func TestReadmeExampleRuns(t *testing.T) {
	py := python(t)
	for _, w := range []*traces.Workload{nil, pooledWorkload(7)} {
		_, o, err := run(t, w, "policy.name=external", "policy.params.command="+py+" "+script(t, "examples/smallest_first.py"), "engine.horizon_s=2000", "workload.pooled=true")
		if err != nil {
			t.Fatal(err)
		}
		if o.Engine.Starts == 0 || o.Summary.Completed == 0 {
			t.Fatalf("starts %d, completed %d", o.Engine.Starts, o.Summary.Completed)
		}
	}
}

// TestPythonPortsMatchUnderDecisionTime: with a constant decision time (engine.decision_time:
// const) each plan lands later and a preemption of a task that finished meanwhile is dropped;
// the Python ports, told which preemptions were dropped, still match the built-ins byte for byte.
func TestPythonPortsMatchUnderDecisionTime(t *testing.T) {
	py := python(t)
	decision := []string{"engine.decision_time=const", "engine.decision_time_s=7"}
	cases := []struct {
		name   string
		policy string
		w      *traces.Workload
		sets   []string
		drops  bool
	}{
		{"embedded workload drf", "drf", nil, []string{"engine.horizon_s=2000"}, false},
		{"preemption sp by priority", "sp", constrainedWorkload(4), []string{"engine.preempt_delay_s=2", "policy.params.preempt=true"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, wo, err := run(t, tc.w, append(append([]string{"policy.name=" + tc.policy}, decision...), tc.sets...)...)
			if err != nil {
				t.Fatal(err)
			}
			sets := append([]string{"policy.name=external", "policy.params.command=" + py + " " + script(t, "baseline.py") + " " + tc.policy}, decision...)
			for _, s := range tc.sets {
				if s == "policy.params.preempt=true" {
					s = "policy.params.args.preempt=true"
				}
				sets = append(sets, s)
			}
			got, o, err := run(t, tc.w, sets...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("jobs.parquet differs from the built-in %s's (%d vs %d bytes)", tc.policy, len(got), len(want))
			}
			dt := o.Engine.DecisionTime
			if dt == nil || dt.ChargedS == 0 || *dt != *wo.Engine.DecisionTime {
				t.Fatalf("decision record %+v, built-in's %+v", dt, wo.Engine.DecisionTime)
			}
			t.Logf("%+v", *dt)
			if tc.drops && dt.DroppedPreempts == 0 {
				t.Fatal("no preemption was dropped: the case tests nothing of the dropped-preemption path")
			}
		})
	}
}
