package canonical

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// googleLike returns a workload shaped like the Google 2011 trace's canonical form: n single-stage
// jobs whose user, job name and logical job name are 44-character base64 hashes drawn from pools
// of realistic cardinality (about 900 users, n/2 job names, n/10 logical names), deterministic
// for a given n.
func googleLike(n int) *traces.Workload {
	rng := rand.New(rand.NewPCG(2011, uint64(n)))
	hash := func() string {
		var b [32]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return base64.StdEncoding.EncodeToString(b[:]) // 44 characters
	}
	pool := func(k int) []string {
		p := make([]string, max(k, 1))
		for i := range p {
			p[i] = hash()
		}
		return p
	}
	users, names, logical := pool(900), pool(n/2), pool(n/10)
	w := &traces.Workload{Name: "google-like", Source: "read_bench_test", Dims: []string{"cpu", "mem"},
		Cluster: traces.Uniform(12_000, traces.VecOf(1, 1), 0)}
	w.Jobs = make([]traces.Job, n)
	submit := traces.Time(600 * traces.Second)
	for i := range w.Jobs {
		submit += rng.Int64N(2 * traces.Second)
		d := traces.Time(1+rng.Int64N(3600)) * traces.Second
		w.Jobs[i] = traces.Job{
			ID: 6_000_000_000 + int64(i)*17, Submit: submit, Class: fmt.Sprintf("sc%d", rng.IntN(4)), Priority: -1,
			Features: traces.Features{User: users[rng.IntN(len(users))], JobName: names[rng.IntN(len(names))], LogicalJobName: logical[rng.IntN(len(logical))]},
			Stages:   []traces.Stage{{Name: "tasks", Tasks: int32(1 + rng.IntN(40)), Demand: traces.Vec{rng.Int64N(traces.Unit / 2), rng.Int64N(traces.Unit / 2)}, Duration: d, Estimate: d}},
		}
	}
	return w
}

// BenchmarkRead measures Read on a google-like workload written once per format and size.
func BenchmarkRead(b *testing.B) {
	for _, format := range []string{"parquet", "arrow"} {
		for _, n := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("format=%s/jobs=%d", format, n), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "w."+format)
				if err := Write(path, googleLike(n)); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for range b.N {
					w, err := Read(path)
					if err != nil {
						b.Fatal(err)
					}
					if len(w.Jobs) != n {
						b.Fatalf("%d jobs, want %d", len(w.Jobs), n)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}
