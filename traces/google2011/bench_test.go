package google2011

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/schedlab/schedlab/traces/canonical"
)

// jobParts returns the first n job_events parts of the shared data and their total size, or
// skips the benchmark.
func jobParts(b *testing.B, n int) ([]string, int64) {
	dir := sharedData(b, "google2011/job_events")
	var files []string
	var size int64
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("part-%05d-of-00500.csv.gz", i))
		st, err := os.Stat(p)
		if err != nil {
			b.Skipf("need %d job_events parts: %v", n, err)
		}
		files = append(files, p)
		size += st.Size()
	}
	return files, size
}

// peakHeap runs f while sampling runtime.MemStats.HeapInuse every few milliseconds and returns
// the largest value seen.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var (
		peak uint64
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapInuse)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	f()
	sample()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkImport converts job_events parts to a canonical file. MB/s is gzip input per second;
// peak-heap-MB is the largest HeapInuse seen during an import, which stays flat from 50 to 500
// parts (the sort spills runs to disk).
func BenchmarkImport(b *testing.B) {
	for _, parts := range []int{50, 500} {
		for _, format := range []string{"parquet", "arrow"} {
			b.Run(fmt.Sprintf("parts=%d/format=%s", parts, format), func(b *testing.B) {
				files, size := jobParts(b, parts)
				out := filepath.Join(b.TempDir(), "w."+format)
				b.SetBytes(size)
				var peak uint64
				var st Stats
				b.ResetTimer()
				for range b.N {
					peak = max(peak, peakHeap(func() {
						var err error
						if st, err = Import(Source{JobEvents: files}, Options{}, out); err != nil {
							b.Fatal(err)
						}
					}))
				}
				b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
				b.ReportMetric(float64(st.Imported), "jobs")
			})
		}
	}
}

// BenchmarkScanJobs measures the job_events scanner alone.
func BenchmarkScanJobs(b *testing.B) {
	for _, parts := range []int{50, 500} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			files, size := jobParts(b, parts)
			b.SetBytes(size)
			n := 0
			for range b.N {
				n = 0
				if err := ScanJobs(Source{JobEvents: files}, func(*JobRecord) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "records")
		})
	}
}

// BenchmarkLoad compares loading the month as a workload by re-parsing the CSV (source=csv)
// with reading the canonical files written by Import; x-vs-csv is the speed-up over one CSV
// load timed before the sub-benchmarks.
func BenchmarkLoad(b *testing.B) {
	for _, parts := range []int{50, 500} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			files, _ := jobParts(b, parts)
			src := Source{JobEvents: files}
			dir := b.TempDir()
			paths := map[string]string{"parquet": filepath.Join(dir, "w.parquet"), "arrow": filepath.Join(dir, "w.arrow")}
			for _, p := range paths {
				if _, err := Import(src, Options{}, p); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			if _, err := Workload(src, Options{}); err != nil {
				b.Fatal(err)
			}
			csv := time.Since(start)
			b.Run("source=csv", func(b *testing.B) {
				for range b.N {
					if _, err := Workload(src, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			for _, format := range []string{"parquet", "arrow"} {
				b.Run("source="+format, func(b *testing.B) {
					var jobs int
					for range b.N {
						w, err := canonical.Read(paths[format])
						if err != nil {
							b.Fatal(err)
						}
						jobs = len(w.Jobs)
					}
					b.ReportMetric(float64(jobs), "jobs")
					b.ReportMetric(float64(csv)/(float64(b.Elapsed())/float64(b.N)), "x-vs-csv")
				})
			}
		})
	}
}
