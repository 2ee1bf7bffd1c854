package experiments

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// benchWorkload builds about `tasks` tasks of map-reduce jobs (80 map + 20 reduce tasks) whose
// Poisson arrivals keep 256 machines of 4 slots about 90% busy.
func benchWorkload(tasks int) *traces.Workload {
	r := rand.New(rand.NewPCG(1, 0x7ec0))
	const slots, machines, meanS = 1024, 256, 20.0
	w := &traces.Workload{Name: "bench", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(machines, traces.VecOf(4, 4), 32)}
	gap := 100 * meanS / (slots * 0.9)
	var t float64
	for i := 0; i < max(1, tasks/100); i++ {
		t += r.ExpFloat64() * gap
		m, red := traces.FromSeconds(1+r.ExpFloat64()*(meanS-1)), traces.FromSeconds(1+r.ExpFloat64()*(meanS-1))
		w.Jobs = append(w.Jobs, traces.Job{ID: int64(i), Submit: traces.FromSeconds(t), Queue: fmt.Sprintf("q%d", i%4), Stages: []traces.Stage{
			{Name: "map", Tasks: 80, Demand: traces.VecOf(1, 1), Duration: m, Estimate: m},
			{Name: "reduce", Tasks: 20, Demand: traces.VecOf(1, 1), Duration: red, Estimate: red, Parents: []int32{0}},
		}})
	}
	return w
}

// BenchmarkRecording measures what recording costs: each iteration replays the workload without
// recording and then with the named recordings (streamed to their temporary files and
// finished), timing both; x-off is the recorded replay's wall time over the plain one's, from
// the same iteration; x-off-cpu the same ratio of the process's CPU time (user + system, GC
// included), steadier than wall time on a shared machine.
func BenchmarkRecording(b *testing.B) {
	for _, tasks := range []int{100_000, 1_000_000} {
		w := benchWorkload(tasks)
		if err := w.Validate(); err != nil {
			b.Fatal(err)
		}
		for _, rec := range []string{"tasks", "trace"} {
			b.Run(fmt.Sprintf("tasks=%d/record=%s", tasks, rec), func(b *testing.B) {
				c := resolve(b, "policy.name=fifo", "metrics.usage_window_s=0", "metrics."+rec+"=true")
				var off, on, offCPU, onCPU time.Duration
				var rows int64
				for i := 0; i < b.N; i++ {
					begin, cpu := time.Now(), cpuTime()
					replayBench(b, c, w, nil)
					off += time.Since(begin)
					offCPU += cpuTime() - cpu
					begin, cpu = time.Now(), cpuTime()
					r, err := newRecorder(c, w)
					if err != nil {
						b.Fatal(err)
					}
					rows += replayBench(b, c, w, r)
					if err := r.finish(); err != nil {
						b.Fatal(err)
					}
					on += time.Since(begin)
					onCPU += cpuTime() - cpu
					r.close()
				}
				b.ReportMetric(float64(on)/float64(off), "x-off")
				b.ReportMetric(float64(onCPU)/float64(offCPU), "x-off-cpu")
				b.ReportMetric(float64(on-off)/float64(rows), "ns/attempt-extra")
				b.ReportMetric(float64(rows)/float64(b.N), "attempts/op")
			})
		}
	}
}

// replayBench replays w with recorder r (nil: none) and returns the task starts.
func replayBench(b *testing.B, c Config, w *traces.Workload, r *recorder) int64 {
	p, err := NewPolicy(c)
	if err != nil {
		b.Fatal(err)
	}
	ec := c.EngineConfig()
	if r != nil {
		ec.Recorder = r.engineRecorder()
	}
	e, err := replay.New(w, p, ec)
	if err != nil {
		b.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		b.Fatal(err)
	}
	return res.Stats.Starts
}
