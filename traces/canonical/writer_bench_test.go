package canonical

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
)

// googleLikeJobs builds n single-stage jobs shaped like google2011's import: 44-character
// base64-ish user / job name / logical job name hashes drawn from pools of the month's
// cardinality (933 users, ~0.48 job names and ~0.1 logical names per job) such that a string
// recurs close together in time, ids roughly increasing with submit time, one task of the
// default demand and priority -1 (as without task_events). They come in end time order (submit +
// duration), not submit order, as the trace completes them.
func googleLikeJobs(n int, seed uint64) []traces.Job {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	pool := func(k int) []string {
		p := make([]string, k)
		for i := range p {
			b := make([]byte, 44)
			for c := range b[:43] {
				b[c] = alphabet[rng.IntN(len(alphabet))]
			}
			b[43] = '='
			p[i] = string(b)
		}
		return p
	}
	users := pool(933)
	names := pool(max(1, n*184/385))
	logical := pool(max(1, n*40/385))
	classes := []string{"sc0", "sc1", "sc2", "sc3"}
	const month = 29 * 24 * 3600 * 1e6 // µs
	// near draws from a window of p that slides with submit time: like the trace's, a row group's
	// thousands of jobs have ~190 users, ~10k job names and ~4k logical names between them.
	near := func(p []string, submit int64, window int) string {
		window = min(window, len(p))
		base := int(float64(len(p)-window) * float64(submit) / (month + 600e6))
		return p[base+rng.IntN(window)]
	}
	js := make([]traces.Job, n)
	ends := make([]int64, n)
	stages := make([]traces.Stage, n)
	for i := range js {
		submit := 600e6 + rng.Int64N(month)
		// Mostly minutes, a long tail of jobs running for days.
		dur := int64(1e6 * (10 + rng.ExpFloat64()*300))
		if rng.IntN(20) == 0 {
			dur = rng.Int64N(month / 4)
		}
		// Without task_events every job has one task and the default demand.
		stages[i] = traces.Stage{Name: "tasks", Tasks: 1, Demand: traces.VecOf(0.025, 0.0125), Duration: dur, Estimate: dur}
		ends[i] = submit + dur
		js[i] = traces.Job{
			ID: 6e9 + submit/4000 + rng.Int64N(1000), Submit: submit, Class: classes[rng.IntN(4)], Priority: -1,
			Features: traces.Features{User: near(users, submit, 150), JobName: near(names, submit, 3500),
				LogicalJobName: near(logical, submit, 1800)},
			Stages: stages[i : i+1 : i+1],
		}
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(ends[a], ends[b]) })
	// Like the importer's, stages are allocated in append order.
	out := make([]traces.Job, n)
	slab := make([]traces.Stage, n)
	for i, k := range order {
		out[i] = js[k]
		slab[i] = js[k].Stages[0]
		out[i].Stages = slab[i : i+1 : i+1]
	}
	return out
}

// BenchmarkWriter measures a sorting Writer fed google2011-like jobs (see googleLikeJobs) through
// AppendOwned, as the google2011 importer does, up to Close. peak-live-MB is the writer's share
// of the live heap as collections saw it (testutil.PeakHeap); it reads 0 when no collection ran
// while the writer held more than it does after Close (the Arrow writer allocates little).
func BenchmarkWriter(b *testing.B) {
	for _, format := range []string{"parquet", "arrow"} {
		for _, n := range []int{40_000, 400_000} {
			b.Run(fmt.Sprintf("format=%s/jobs=%d", format, n), func(b *testing.B) {
				jobs := googleLikeJobs(n, 1)
				path := filepath.Join(b.TempDir(), "w."+format)
				meta := Meta{Name: "bench", Dims: []string{"cpu", "mem"}}
				b.ReportAllocs()
				// The writer's peak live heap: the largest live heap seen while writing, less the
				// live heap before (the generated jobs).
				runtime.GC()
				base := testutil.LiveHeap()
				var peak uint64
				cpu0 := testutil.CPUTime()
				b.ResetTimer()
				peak, _ = testutil.PeakHeap(func() {
					for range b.N {
						w, err := NewWriter(path, meta, WithSortBySubmit(0, ""))
						if err != nil {
							b.Fatal(err)
						}
						for i := range jobs {
							j := jobs[i] // the importer hands over a fresh Job value each time
							if err := w.AppendOwned(&j); err != nil {
								b.Fatal(err)
							}
						}
						if err := w.Close(); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(peak-min(peak, base))/1e6, "peak-live-MB")

				// CPU time (of the whole process, garbage collection included) is the steadier
				// figure on a shared machine.
				b.ReportMetric(float64(testutil.CPUTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
				if fi, err := os.Stat(path); err == nil {
					b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
				}
			})
		}
	}
}
