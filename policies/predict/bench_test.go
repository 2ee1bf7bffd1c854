package predict

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// benchJobs returns n jobs shaped like the Google trace's: Zipf-distributed job names (many
// seen once), fewer logical names and users, and resource requests for the secondary features.
func benchJobs(n int, seed uint64) []Job {
	r := rand.New(rand.NewPCG(seed, 99))
	names := rand.NewZipf(r, 1.1, 1, uint64(n/2))
	ljobs := rand.NewZipf(r, 1.2, 1, uint64(n/10))
	users := rand.NewZipf(r, 1.3, 1, 1000)
	jobs := make([]Job, n)
	var at traces.Time
	for i := range jobs {
		at += traces.Time(r.IntN(8_000_000))
		rt := traces.Time(1 + r.ExpFloat64()*600e6)
		jobs[i] = Job{
			ID: int64(i), Submit: at, End: at + rt, Runtime: rt,
			Features: traces.Features{
				JobName:        fmt.Sprint(names.Uint64()),
				LogicalJobName: fmt.Sprint(ljobs.Uint64()),
				User:           fmt.Sprint(users.Uint64()),
			},
			CPU: r.Float64() * 4, Mem: r.Float64() * 2, Tasks: int32(1 + r.IntN(50)),
		}
		if r.IntN(3) == 0 {
			jobs[i].End, jobs[i].Runtime = -1, -1
		}
	}
	return jobs
}

// BenchmarkJVuPredict replays 200k synthetic jobs through JVuPredict (prediction at each
// submission, observation at each completion) and reports jobs per second.
func BenchmarkJVuPredict(b *testing.B) {
	const n = 200_000
	jobs := benchJobs(n, 1)
	for _, secondary := range []bool{false, true} {
		for _, filter := range []bool{false, true} {
			name := fmt.Sprintf("jobs=%d/secondary=%v/filter=%v", n, secondary, filter)
			b.Run(name, func(b *testing.B) {
				opts := Options{Secondary: secondary, MedianFilter: filter}
				if _, err := NewJVu(opts); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					p, _ := NewJVu(opts)
					if _, err := Evaluate(jobs, p); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(n)/sec, "jobs/s")
				b.ReportMetric(sec/float64(n)*1e9, "ns/job")
			})
		}
	}
}
