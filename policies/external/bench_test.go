package external_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/external"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// nullPolicy answers every call with an empty plan, in process: the baseline of the overhead.
type nullPolicy struct{}

func (nullPolicy) Name() string                                 { return "null" }
func (nullPolicy) Schedule(policies.View, *policies.Plan) error { return nil }

// arrivals is a pooled workload of n one-task jobs arriving a second apart: with a null
// scheduler every arrival is one scheduling call carrying one small arrival.
func arrivals(n int) *traces.Workload {
	w := &traces.Workload{Name: "arrivals", Dims: []string{"cpu", "mem"}, Cluster: traces.Cluster{Pooled: true, Machines: []traces.Machine{{Name: "m", Capacity: traces.VecOf(4, 4)}}}}
	for i := range n {
		w.Jobs = append(w.Jobs, traces.Job{Submit: traces.Time(i) * traces.Second,
			Stages: []traces.Stage{{Tasks: 1, Demand: traces.VecOf(1, 1), Duration: traces.Second, Estimate: traces.Second}}})
	}
	return w
}

// BenchmarkCallOverhead measures the protocol's cost per scheduling call: a null scheduler
// answering empty plans through the protocol, with the Go test client and with the Python
// client, against the in-process null policy, in one run. Metrics: us/call (wall per call, the
// whole replay), median_us (the policy's own per-call measurement: write call, read plan) and
// overhead_us/call (us/call less the in-process us/call).
func BenchmarkCallOverhead(b *testing.B) {
	const calls = 2000
	w := arrivals(calls)
	var base float64
	for _, client := range []string{"inproc", "go", "python"} {
		b.Run("client="+client, func(b *testing.B) {
			var command string
			switch client {
			case "go":
				command = childArgv("null")
			case "python":
				command = python(b) + " " + script(b, "baseline.py") + " null"
			}
			var median float64
			for b.Loop() {
				var p policies.Policy = nullPolicy{}
				if command != "" {
					var err error
					if p, err = external.New(policies.Options{Params: map[string]any{"command": command}}); err != nil {
						b.Fatal(err)
					}
				}
				e, err := replay.New(w, p, replay.Config{})
				if err != nil {
					b.Fatal(err)
				}
				res, err := e.Run()
				if err != nil {
					b.Fatal(err)
				}
				if res.Stats.SchedulingCalls != calls {
					b.Fatalf("%d calls, want %d", res.Stats.SchedulingCalls, calls)
				}
				if x, ok := p.(*external.Policy); ok {
					r, err := x.Report(policies.ReportContext{})
					if err != nil {
						b.Fatal(err)
					}
					median = r.Docs[0].Value.(external.Summary).Latency.MedianUS
				}
			}
			perCall := float64(b.Elapsed().Microseconds()) / float64(b.N*calls)
			b.ReportMetric(perCall, "us/call")
			if client == "inproc" {
				base = perCall
				return
			}
			b.ReportMetric(median, "median_us")
			b.ReportMetric(perCall-base, "overhead_us/call")
		})
	}
}

// BenchmarkPipeRoundTrip is what bounds the per-call overhead: one short line to a child
// process that echoes it, and back, with no encoding at all (median_us over b.N round trips).
func BenchmarkPipeRoundTrip(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=echo")
	w, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	rp, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { w.Close(); cmd.Wait() }()
	r := bufio.NewReader(rp)
	msg := []byte(`{"type":"plan","call":1,"starts":[],"preempts":[]}` + "\n")
	var lat []int64
	for b.Loop() {
		t0 := time.Now()
		if _, err := w.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0).Nanoseconds())
	}
	b.ReportMetric(external.LatencyOf(lat).MedianUS, "median_us")
}

// BenchmarkFIFO replays the embedded workload under the built-in fifo and under the Python
// port through the protocol, in one run; ratio is the Python port's time over Go's.
func BenchmarkFIFO(b *testing.B) {
	py := python(b)
	var goTime time.Duration
	for _, impl := range []string{"go", "python"} {
		b.Run("impl="+impl, func(b *testing.B) {
			sets := []string{"policy.name=fifo"}
			if impl == "python" {
				sets = []string{"policy.name=external", fmt.Sprintf("policy.params.command=%s %s fifo", py, script(b, "baseline.py"))}
			}
			c := resolve(b, sets...)
			w, err := experiments.LoadWorkload(c.Workload)
			if err != nil {
				b.Fatal(err)
			}
			var events int64
			for b.Loop() {
				o, err := experiments.RunWorkload(c, w)
				if err != nil {
					b.Fatal(err)
				}
				events = o.Engine.Events
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(events)/per.Seconds(), "events/s")
			if impl == "go" {
				goTime = per
				return
			}
			b.ReportMetric(float64(per)/float64(goTime), "ratio")
		})
	}
}
