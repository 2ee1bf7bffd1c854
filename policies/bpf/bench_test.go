package bpf_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/traces"
)

// admissionPool returns n distinct LQ burst patterns of the given number of cycles over a
// (1000, 1000) cluster: every cycle its own period (200–2000 s), allowed processing time
// (1–10 s) and demand (0.01–0.2% of each resource), so admissions mix hard, soft and elastic
// outcomes and the resource condition visits every cycle.
func admissionPool(n, cycles int, r *rand.Rand) [][]bpf.Shape {
	pool := make([][]bpf.Shape, n)
	for i := range pool {
		pool[i] = make([]bpf.Shape, cycles)
		for c := range pool[i] {
			pool[i][c] = bpf.Shape{
				Period:   traces.FromSeconds(200 + 1800*r.Float64()),
				Duration: traces.FromSeconds(1 + 9*r.Float64()),
				Demand:   traces.Vec{1 + r.Int64N(200), 1 + r.Int64N(200)},
			}
		}
	}
	return pool
}

// BenchmarkAdmission admits lqs LQs of cycles ON/OFF cycles each and tqs TQs, alternating,
// through one admission control (BPF §5.2.4: 10,000 LQs of 500 cycles and 10,000 TQs). The
// cost should grow linearly in queues × cycles (up to the logarithm of the hard timeline):
// ns/queue-cycle is the time per LQ cycle or TQ.
func BenchmarkAdmission(b *testing.B) {
	capacity := traces.Vec{1_000_000_000, 1_000_000_000}
	for _, size := range []struct{ lqs, cycles, tqs int }{
		{100, 50, 100}, {1000, 50, 1000}, {1000, 500, 1000}, {10000, 50, 10000}, {10000, 500, 10000},
	} {
		b.Run(fmt.Sprintf("lqs=%d/cycles=%d/tqs=%d", size.lqs, size.cycles, size.tqs), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			pool := admissionPool(64, size.cycles, r)
			starts := make([]traces.Time, size.lqs)
			for i := range starts {
				starts[i] = traces.FromSeconds(1000 * r.Float64())
			}
			contracts := make([]bpf.Contract, len(pool))
			var ac *bpf.AdmissionControl
			b.ReportAllocs()
			cpu0 := testutil.CPUTime()
			for b.Loop() {
				var err error
				ac, err = bpf.NewAdmissionControl(capacity, 2, true)
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < max(size.lqs, size.tqs); i++ {
					if i < size.lqs {
						c := &contracts[i%len(pool)]
						c.Start, c.Shapes, c.Count = starts[i], pool[i%len(pool)], size.cycles
						if err := c.Validate(); err != nil {
							b.Fatal(err)
						}
						ac.AdmitLQ(i, c)
					}
					if i < size.tqs {
						ac.AdmitTQ()
					}
				}
			}
			cpu := testutil.CPUTime() - cpu0
			units := float64(size.lqs*size.cycles + size.tqs)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/units, "ns/queue-cycle")
			// CPU time is steadier than wall time on a shared machine (it includes the GC's).
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/units, "cpu-ns/queue-cycle")
			for _, c := range []bpf.Class{bpf.Hard, bpf.Soft, bpf.Elastic, bpf.Rejected} {
				b.ReportMetric(float64(ac.Count(c)), c.String()+"-queues")
			}
		})
	}
}

// BenchmarkReplay replays the fig9 scenario (about 2,400 scheduling points) under each policy;
// ns/schedule is the time per scheduling point, policy and engine together.
func BenchmarkReplay(b *testing.B) {
	w := fig9Workload(b)
	for _, name := range []string{"drf", "bpf", "nbpf", "mbvt"} {
		b.Run("policy="+name, func(b *testing.B) {
			var calls int64
			for b.Loop() {
				res, _ := runFig9(b, w, name)
				calls = res.Stats.SchedulingCalls
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/schedule")
		})
	}
}
