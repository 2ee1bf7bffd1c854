package experiments

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// stopWorkload: one TQ job of 10 s and LQ jobs at 0 s (30 s long) and 32 s (5 s), on one machine that
// runs two at a time.
func stopWorkload() *traces.Workload {
	job := func(id int64, queue string, submit, dur float64) traces.Job {
		return traces.Job{ID: id, Queue: queue, Submit: traces.FromSeconds(submit), Stages: []traces.Stage{{
			Name: "a", Tasks: 1, Duration: traces.FromSeconds(dur), Estimate: traces.FromSeconds(dur), Demand: traces.VecOf(0.5, 0.5),
		}}}
	}
	return &traces.Workload{
		Name: "stoprule", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(1, traces.VecOf(1, 1), 0),
		Jobs: []traces.Job{job(0, "tq", 0, 10), job(1, "lq", 0, 30), job(2, "lq", 32, 5)},
	}
}

func TestStopAfterQueueRun(t *testing.T) {
	for _, c := range []struct {
		stop      string
		completed int
		endS      float64
	}{
		{"", 3, 37},   // no rule: the LQ job at 32 runs to 37
		{"tq", 2, 30}, // the rule fires at 10: job 2 is never submitted; job 1 still runs to 30
		{"lq", 3, 37}, // lq's last job ends at 37, when nothing is left to stop
	} {
		v := NewViper()
		if err := ApplySet(v, []string{"policy.name=fifo", "engine.stop_after_queue=" + c.stop}); err != nil {
			t.Fatal(err)
		}
		cfg, err := Resolve(v)
		if err != nil {
			t.Fatal(err)
		}
		o, err := RunWorkload(cfg, stopWorkload())
		if err != nil {
			t.Fatal(err)
		}
		if o.Summary.Completed != c.completed || traces.Seconds(o.Result.End-o.Result.Start) != c.endS {
			t.Errorf("stop_after_queue=%q: %d completed, run %v s; want %d, %v s", c.stop, o.Summary.Completed,
				traces.Seconds(o.Result.End-o.Result.Start), c.completed, c.endS)
		}
	}
}

func TestStopAfterQueueUnknown(t *testing.T) {
	v := NewViper()
	if err := ApplySet(v, []string{"engine.stop_after_queue=tq0"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RunWorkload(cfg, stopWorkload())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `workload stoprule has no queue "tq0", did you mean tq?`) {
		t.Fatalf("got %v", err)
	}
}
