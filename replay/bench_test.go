package replay_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/builtin"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// syntheticWorkload builds a MapReduce-shaped workload of about `tasks` tasks: jobs of one map
// stage and one reduce stage that waits for it, Poisson arrivals that keep a cluster of `slots`
// task slots about 90% busy, exponential task durations. machines = 0 gives a pooled cluster.
func syntheticWorkload(tasks, slots, machines int, seed uint64) *traces.Workload {
	r := rand.New(rand.NewPCG(seed, 0x5eed_be9c))
	const (
		mapTasks    = 80
		reduceTasks = 20
		meanDurS    = 20.0
	)
	nJobs := max(1, tasks/(mapTasks+reduceTasks))
	// Offered load: job work = 100 tasks × 20 s; slots·0.9 busy → mean gap.
	gap := float64(mapTasks+reduceTasks) * meanDurS / (float64(slots) * 0.9)
	w := &traces.Workload{Name: "synthetic", Dims: []string{"cpu", "mem"}}
	if machines == 0 {
		w.Cluster = traces.Uniform(1, traces.VecOf(float64(slots), float64(slots)), 0)
		w.Cluster.Pooled = true
	} else {
		per := float64(slots) / float64(machines)
		w.Cluster = traces.Uniform(machines, traces.VecOf(per, per), 32)
	}
	var t float64
	for i := 0; i < nJobs; i++ {
		t += r.ExpFloat64() * gap
		dur := func() traces.Time { return traces.FromSeconds(1 + r.ExpFloat64()*(meanDurS-1)) }
		m, red := dur(), dur()
		w.Jobs = append(w.Jobs, traces.Job{
			ID: int64(i), Submit: traces.FromSeconds(t), Queue: fmt.Sprintf("q%d", i%4),
			Stages: []traces.Stage{
				{Name: "map", Tasks: mapTasks, Demand: traces.VecOf(1, 0.5+r.Float64()), Duration: m, Estimate: m},
				{Name: "reduce", Tasks: reduceTasks, Demand: traces.VecOf(1, 1), Duration: red, Estimate: red, Parents: []int32{0}},
			},
		})
	}
	return w
}

func newPolicy(b testing.TB, name string) policies.Policy {
	p, err := builtin.Registry().New(name, policies.Options{Level: "job"})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkReplay measures engine throughput in events per second of wall time on one
// goroutine, for pooled clusters (the flat-cost claim: 1M tasks vs 10k tasks) and for machines
// of 4 task slots each (placement through the FirstFit index): 256 machines (1,024 slots) at
// every size, 4,096 and 12,500 machines at 100k tasks. machines256soft is machines256 with every
// job soft GPU-constrained on an all-GPU cluster: the same placements, through the engine's
// soft-constraint path (durations settled after each plan) and the baselines' constrained
// first fit.
//
// policy=heap is the bare typed heap's hold model (HoldHeap) with as many events in flight as
// the cluster has slots, in push+pop pairs per second (events/s). Every replay reports x-heap,
// its events/s over that baseline's: after each replay the same number of push+pop pairs on a
// heap of the cluster's slots, timed alongside, so both see the same load on a shared machine;
// x-heap-cpu is the same ratio in process CPU time (steadier on a loaded host; run with -cpu 1,
// so that the garbage collector's work counts where it is caused), events/cpu-s the rate in it.
func BenchmarkReplay(b *testing.B) {
	for _, slots := range []int{1024, 4 * 4096, 4 * 12_500} {
		b.Run(fmt.Sprintf("policy=heap/slots=%d", slots), func(b *testing.B) {
			const ops = 1_000_000
			for b.Loop() {
				replay.HoldHeap(slots, ops, holdDelays)
			}
			b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
	for _, policy := range []string{"fifo", "drf"} {
		for _, cluster := range []struct {
			name     string
			machines int
			sizes    []int
		}{
			{"pooled", 0, []int{10_000, 100_000, 1_000_000}},
			{"machines256", 256, []int{10_000, 100_000, 1_000_000}},
			{"machines256soft", -256, []int{10_000, 100_000, 1_000_000}},
			{"machines4096", 4096, []int{100_000}},
			{"machines12500", 12_500, []int{100_000}},
		} {
			for _, tasks := range cluster.sizes {
				b.Run(fmt.Sprintf("policy=%s/cluster=%s/tasks=%d", policy, cluster.name, tasks), func(b *testing.B) {
					w := synthetic(b, tasks, cluster.machines)
					var events int64
					var heap, replayCPU, heapCPU time.Duration
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						c0 := testutil.CPUTime()
						n := replayAll(b, w, policy).Stats.Events
						events += n
						// The baseline right after each replay, so both see the same load.
						b.StopTimer()
						c1 := testutil.CPUTime()
						t0 := time.Now()
						replay.HoldHeap(slotsOf(cluster.machines), int(n), holdDelays)
						heap += time.Since(t0)
						c2 := testutil.CPUTime()
						replayCPU, heapCPU = replayCPU+c1-c0, heapCPU+c2-c1
						b.StartTimer()
					}
					rate := float64(events) / b.Elapsed().Seconds()
					b.ReportMetric(rate, "events/s")
					b.ReportMetric(float64(events)/float64(b.N), "events/op")
					b.ReportMetric(heap.Seconds()/b.Elapsed().Seconds(), "x-heap")
					b.ReportMetric(float64(events)/replayCPU.Seconds(), "events/cpu-s")
					b.ReportMetric(heapCPU.Seconds()/replayCPU.Seconds(), "x-heap-cpu")
				})
			}
		}
	}
}

// holdDelays are the hold model's delays: 1 + Exp(19) seconds, as the synthetic tasks' durations.
var holdDelays = func() []traces.Time {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]traces.Time, 1<<16)
	for i := range d {
		d[i] = traces.FromSeconds(1 + r.ExpFloat64()*19)
	}
	return d
}()

// slotsOf is the number of task slots of BenchmarkReplay's cluster of that many machines (0:
// pooled, negative: soft-constrained): 1,024, or 4 per machine on larger clusters.
func slotsOf(machines int) int { return max(1024, 4*max(machines, -machines)) }

var workloads = map[[2]int]*traces.Workload{}

func synthetic(b *testing.B, tasks, machines int) *traces.Workload {
	key := [2]int{tasks, machines}
	if w, ok := workloads[key]; ok {
		return w
	}
	w := syntheticWorkload(tasks, slotsOf(machines), max(machines, -machines), 1)
	if machines < 0 {
		for m := range w.Cluster.Machines {
			w.Cluster.Machines[m].GPU = true
		}
		for j := range w.Jobs {
			w.Jobs[j].Placement = traces.Placement{Kind: traces.PlacementGPU, Slowdown: 1.5}
		}
	}
	if err := w.Validate(); err != nil {
		b.Fatal(err)
	}
	workloads[key] = w
	return w
}

// chainWorkload is one job whose stages form a chain of n one-task stages, each waiting for the
// one before it: the deepest DAG a job of n stages can have.
func chainWorkload(n int) *traces.Workload {
	w := &traces.Workload{Name: "chain", Dims: []string{"cpu"}, Cluster: traces.Uniform(4, traces.VecOf(1), 0)}
	stages := make([]traces.Stage, n)
	for i := range stages {
		stages[i] = traces.Stage{Name: fmt.Sprintf("s%d", i), Tasks: 1, Demand: traces.VecOf(1), Duration: traces.Second, Estimate: traces.Second}
		if i > 0 {
			stages[i].Parents = []int32{int32(i - 1)}
		}
	}
	w.Jobs = []traces.Job{{ID: 1, Stages: stages}}
	return w
}

// BenchmarkChain replays one job whose stages form a chain, at several lengths: the cost per stage
// (ns/stage) must stay flat as the chain grows (a valid 300,000-stage chain once took minutes,
// because each stage completion scanned all of the job's stages).
func BenchmarkChain(b *testing.B) {
	for _, policy := range []string{"fifo", "drf", "srpt", "fair"} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("policy=%s/stages=%d", policy, n), func(b *testing.B) {
				w := chainWorkload(n)
				if err := w.Validate(); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					replayAll(b, w, policy)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/stage")
			})
		}
	}
}

// replayAll replays w under the named policy and fails the benchmark unless every job completed.
func replayAll(b *testing.B, w *traces.Workload, policy string) *replay.Result {
	e, err := replay.New(w, newPolicy(b, policy), replay.Config{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		b.Fatal(err)
	}
	if s := replay.Summarize(res); s.Completed != s.Jobs {
		b.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
	}
	return res
}

// BenchmarkReplayYarn measures the YARN mechanics' cost in one run: the same workload (drf, 256
// machines, 100,000 tasks) with the mechanics off and with each on, and all together. Compare
// ns/task between modes (the mechanics add events, so events/s alone understates their cost).
func BenchmarkReplayYarn(b *testing.B) {
	modes := []struct {
		name string
		yc   replay.YarnConfig
	}{
		{"off", replay.YarnConfig{}},
		{"heartbeat", replay.YarnConfig{Heartbeat: traces.Second, ContainersPerHeartbeat: 1}},
		{"am", replay.YarnConfig{AM: true, AMDemand: traces.VecOf(1, 1), AMStartup: 8 * traces.Second, AMSetup: 3 * traces.Second, AMTeardown: 2 * traces.Second, MaxAMShare: 0.5}},
		{"reservations", replay.YarnConfig{Reservations: true}},
		{"slowstart", replay.YarnConfig{SlowStartOn: true, SlowStart: 0.25}},
		// All together, with AM share 0.1 and slow-start 0.75: at 0.5 and 0.25 the AMs and the
		// slow-started reducers waiting for their maps fill this overloaded cluster and the run
		// deadlocks, as MapReduce would without its reducer preemption (not modelled).
		{"all", replay.YarnConfig{Heartbeat: traces.Second, ContainersPerHeartbeat: 1, AM: true, AMDemand: traces.VecOf(1, 1), AMStartup: 8 * traces.Second, AMSetup: 3 * traces.Second, AMTeardown: 2 * traces.Second, MaxAMShare: 0.1, Reservations: true, SlowStartOn: true, SlowStart: 0.75}},
	}
	for _, m := range modes {
		b.Run("policy=drf/cluster=machines256/tasks=100000/yarn="+m.name, func(b *testing.B) {
			w := synthetic(b, 100_000, 256)
			var events int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e, err := replay.New(w, newPolicy(b, "drf"), replay.Config{Yarn: m.yc})
				if err != nil {
					b.Fatal(err)
				}
				res, err := e.Run()
				if err != nil {
					b.Fatal(err)
				}
				if s := replay.Summarize(res); s.Completed != s.Jobs {
					b.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
				}
				events += res.Stats.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100_000, "ns/task")
		})
	}
}
