//go:build scale

package replay_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/replay"
)

// BenchmarkFlat is issue 27's flatness check: fifo and drf on BenchmarkReplay's 256 machines
// (1,024 task slots, about 90% busy) at 10 k, 1 M and 10 M tasks, once each (build tag scale:
// the 10 M-task run takes minutes). It reports events per CPU-second of the process
// (events/cpu-s) and, from the same run, that rate over the 10 k-task one (x-10k: flat is
// ≥ 1/1.5), the replay's live heap per task (live-B/task: the heap after the replay, engine and
// result still reachable, less the heap holding the workload before it) and the process's peak
// RSS per task (peak-RSS-B/task: workload, engine and test binary).
//
//	go test -tags scale -run '^$' -bench BenchmarkFlat -benchtime 1x -cpu 1 -timeout 60m ./replay/
func BenchmarkFlat(b *testing.B) {
	base := map[string]float64{}
	for _, policy := range []string{"fifo", "drf"} {
		for _, tasks := range []int{10_000, 1_000_000, 10_000_000} {
			b.Run(fmt.Sprintf("policy=%s/cluster=machines256/tasks=%d", policy, tasks), func(b *testing.B) {
				w := syntheticWorkload(tasks, slotsOf(256), 256, 1)
				if err := w.Validate(); err != nil {
					b.Fatal(err)
				}
				reps := max(1, 1_000_000/tasks) // small sizes replay a million tasks in all
				var events, n int64
				var cpu time.Duration
				var live float64
				debug.FreeOSMemory()
				rss := testutil.PeakRSS(func() {
					for b.Loop() {
						runtime.GC()
						var m0, m1 runtime.MemStats
						runtime.ReadMemStats(&m0)
						var e *replay.Engine
						var res *replay.Result
						for range reps {
							c0 := testutil.CPUTime()
							var err error
							if e, err = replay.New(w, newPolicy(b, policy), replay.Config{}); err != nil {
								b.Fatal(err)
							}
							if res, err = e.Run(); err != nil {
								b.Fatal(err)
							}
							cpu += testutil.CPUTime() - c0
							if s := replay.Summarize(res); s.Completed != s.Jobs {
								b.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
							}
							events += res.Stats.Events
						}
						n = tasksOf(res)
						runtime.GC()
						runtime.ReadMemStats(&m1)
						live = (float64(m1.HeapAlloc) - float64(m0.HeapAlloc)) / float64(n)
						runtime.KeepAlive(e)
						runtime.KeepAlive(res)
					}
				})
				rate := float64(events) / cpu.Seconds()
				if tasks == 10_000 {
					base[policy] = rate
				}
				b.ReportMetric(rate, "events/cpu-s")
				if r, ok := base[policy]; ok {
					b.ReportMetric(rate/r, "x-10k")
				}
				b.ReportMetric(live, "live-B/task")
				b.ReportMetric(float64(rss)/float64(n), "peak-RSS-B/task")
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
			})
		}
	}
}
