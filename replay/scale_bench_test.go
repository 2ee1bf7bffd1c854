//go:build scale

package replay_test

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// BenchmarkScale replays the field's published scales once each (build tag scale: they take
// minutes and gigabytes, so `make test` and `make bench` never run them):
//
//	shape=cloudsim   50,000 machines × 100,000 one-task jobs (CloudSim Plus's performance
//	                 example: 50,000 hosts, 100,000 cloudlets)
//	shape=k8s        10,000 machines × 1,000,000 tasks of MapReduce-shaped jobs (Kubernetes scale:
//	                 tasks placed per second)
//
// Each reports events/s, tasks placed per second (tasks-placed/s; both also per CPU-second of the
// process, which a shared machine's load hardly changes), simulated days per wall hour
// (sim-days/wall-h), the process's peak RSS while building and replaying (peak-RSS-MiB, and per
// task: peak-RSS-B/task, the workload and the test binary included), the
// time to load (load-s: generate and validate the workload, and build the engine) and the
// replay's wall time (replay-s).
//
//	go test -tags scale -run '^$' -bench BenchmarkScale -benchtime 1x -cpu 1 ./replay/
func BenchmarkScale(b *testing.B) {
	for _, sc := range []struct {
		name string
		gen  func() *traces.Workload
	}{
		{"shape=cloudsim/machines=50000/jobs=100000", func() *traces.Workload { return cloudletWorkload(50_000, 100_000, 1) }},
		{"shape=k8s/machines=10000/tasks=1000000", func() *traces.Workload { return syntheticWorkload(1_000_000, 4*10_000, 10_000, 1) }},
	} {
		for _, policy := range []string{"fifo", "drf"} {
			b.Run(sc.name+"/policy="+policy, func(b *testing.B) {
				var load, run, cpu time.Duration
				var res *replay.Result
				// Return the previous benchmarks' freed memory to the OS: it would count as resident.
				debug.FreeOSMemory()
				rss := testutil.PeakRSS(func() {
					for b.Loop() {
						t0 := time.Now()
						w := sc.gen()
						e, err := replay.New(w, newPolicy(b, policy), replay.Config{})
						if err != nil {
							b.Fatal(err)
						}
						t1, c1 := time.Now(), testutil.CPUTime()
						if res, err = e.Run(); err != nil {
							b.Fatal(err)
						}
						load, run, cpu = load+t1.Sub(t0), run+time.Since(t1), cpu+testutil.CPUTime()-c1
						if s := replay.Summarize(res); s.Completed != s.Jobs {
							b.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
						}
					}
				})
				n := float64(b.N)
				b.ReportMetric(float64(res.Stats.Events)*n/run.Seconds(), "events/s")
				b.ReportMetric(float64(res.Stats.Starts)*n/run.Seconds(), "tasks-placed/s")
				b.ReportMetric(float64(res.Stats.Events)*n/cpu.Seconds(), "events/cpu-s")
				b.ReportMetric(float64(res.Stats.Starts)*n/cpu.Seconds(), "tasks-placed/cpu-s")
				b.ReportMetric(traces.Seconds(res.End-res.Start)/86400*n/run.Hours(), "sim-days/wall-h")
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(float64(rss)/float64(tasksOf(res)), "peak-RSS-B/task")
				b.ReportMetric(load.Seconds()/n, "load-s")
				b.ReportMetric(run.Seconds()/n, "replay-s")
			})
		}
	}
}

// cloudletWorkload is CloudSim Plus's performance example in schedlab's terms: jobs of one
// task each (cloudlets) on machines of 8 cores and 32 GB (hosts), arriving as a Poisson
// process that keeps the cluster's cores about 90% busy, with exponential durations (mean
// 10 min) and demands of 1, 2 or 4 cores and 2 GB per core.
func cloudletWorkload(machines, jobs int, seed uint64) *traces.Workload {
	r := rand.New(rand.NewPCG(seed, 0xc10d_5eed))
	const meanDurS = 600.0
	cores := []float64{1, 2, 4}
	w := &traces.Workload{Name: fmt.Sprintf("cloudlets-%dx%d", machines, jobs), Dims: []string{"cpu", "mem"}}
	w.Cluster = traces.Uniform(machines, traces.VecOf(8, 32), 40)
	w.Jobs = make([]traces.Job, 0, jobs)
	// Offered load: mean cores (7/3) × mean duration per job; 90% of the cluster's cores.
	gap := (7.0 / 3) * meanDurS / (float64(machines) * 8 * 0.9)
	var t float64
	for i := range jobs {
		t += r.ExpFloat64() * gap
		d := traces.FromSeconds(1 + r.ExpFloat64()*(meanDurS-1))
		c := cores[r.IntN(len(cores))]
		w.Jobs = append(w.Jobs, traces.Job{
			ID: int64(i), Submit: traces.FromSeconds(t), Queue: fmt.Sprintf("q%d", i%4),
			Stages: []traces.Stage{{Name: "cloudlet", Tasks: 1, Demand: traces.VecOf(c, 2*c), Duration: d, Estimate: d}},
		})
	}
	return w
}

// tasksOf returns the number of tasks of the replayed jobs.
func tasksOf(res *replay.Result) int64 {
	var n int64
	for i := range res.Jobs {
		n += res.Jobs[i].Tasks
	}
	return n
}
