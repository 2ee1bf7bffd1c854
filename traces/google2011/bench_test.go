package google2011

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces/canonical"
)

// jobParts returns the first n job_events parts of the shared data and their total size, or
// skips the benchmark.
func jobParts(b *testing.B, n int) ([]string, int64) {
	dir := testutil.SharedData(b, "google2011/job_events")
	var files []string
	var size int64
	for i := range n {
		p := filepath.Join(dir, PartName(i))
		st, err := os.Stat(p)
		if err != nil {
			b.Skipf("need %d job_events parts: %v", n, err)
		}
		files = append(files, p)
		size += st.Size()
	}
	return files, size
}

// BenchmarkImport converts job_events parts to a canonical file. MB/s is gzip input per second
// (wall clock), MB/cpu-s per CPU-second; peak-live-MB and peak-inuse-MB are the largest live heap
// and HeapInuse seen during an import (see testutil.PeakHeap). Memory stays flat from 50 to 500 parts:
// the sort spills runs to disk and every buffer has a fixed size.
func BenchmarkImport(b *testing.B) {
	for _, parts := range []int{50, 500} {
		for _, format := range []string{"parquet", "arrow"} {
			b.Run(fmt.Sprintf("parts=%d/format=%s", parts, format), func(b *testing.B) {
				files, size := jobParts(b, parts)
				st := benchImport(b, Source{JobEvents: files}, size, filepath.Join(b.TempDir(), "w."+format))
				b.ReportMetric(float64(st.Imported), "jobs")
			})
		}
	}
}

// BenchmarkImportVsZcat times a month import (all 500 job_events parts to Arrow IPC) against
// `gzip -dc` of the same files to /dev/null, alternating the two in each iteration.
// x-zcat-wall is the import's wall time over zcat's (the target is at most 3); x-zcat-cpu the
// ratio of CPU times (the import's whole process, which runs gunzip on a goroutine of its own,
// against the gzip process).
func BenchmarkImportVsZcat(b *testing.B) {
	files, size := jobParts(b, 500)
	vsZcat(b, files, size, func(out string) error {
		_, err := Import(Source{JobEvents: files}, Options{}, out)
		return err
	})
}

// vsZcat times run (an import into an Arrow file) against `gzip -dc` of files, alternating.
func vsZcat(b *testing.B, files []string, size int64, run func(out string) error) {
	gz, err := exec.LookPath("gzip")
	if err != nil {
		b.Skip("gzip not installed")
	}
	out := filepath.Join(b.TempDir(), "w.arrow")
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	b.SetBytes(size)
	var zWall, zCPU, iWall, iCPU time.Duration
	for range b.N {
		cmd := exec.Command(gz, append([]string{"-dc"}, files...)...)
		cmd.Stdout = devNull
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		zWall += time.Since(start)
		zCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		start, cpu0 := time.Now(), testutil.CPUTime()
		if err := run(out); err != nil {
			b.Fatal(err)
		}
		iWall += time.Since(start)
		iCPU += testutil.CPUTime() - cpu0
	}
	b.ReportMetric(zWall.Seconds()/float64(b.N), "zcat-s")
	b.ReportMetric(iWall.Seconds()/float64(b.N), "import-s")
	b.ReportMetric(iWall.Seconds()/zWall.Seconds(), "x-zcat-wall")
	b.ReportMetric(iCPU.Seconds()/zCPU.Seconds(), "x-zcat-cpu")
}

// windowParts returns the first n parts of job_events and task_events in the shared data, and
// their total size, or skips the benchmark.
func windowParts(b *testing.B, n int) (Source, int64) {
	src, err := Window(testutil.SharedData(b, "google2011"), 0, n-1)
	if err != nil {
		b.Skip(err)
	}
	var size int64
	for _, f := range append(slices.Clone(src.JobEvents), src.TaskEvents...) {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	return src, size
}

// BenchmarkTaskImport converts job_events and task_events parts to a canonical file at the task
// level, reporting as BenchmarkImport does: memory holds the tasks of the jobs alive at a time
// and a fixed sort buffer, so it grows far slower than the input.
func BenchmarkTaskImport(b *testing.B) {
	for _, parts := range []int{1, 5, 10} {
		b.Run(fmt.Sprintf("parts=%d/format=arrow", parts), func(b *testing.B) {
			src, size := windowParts(b, parts)
			st := benchImport(b, src, size, filepath.Join(b.TempDir(), "w.arrow"))
			b.ReportMetric(float64(st.Tasks.Imported), "tasks")
		})
	}
}

// benchImport imports src into out b.N times and reports the largest live heap and HeapInuse
// seen (peak-live-MB, peak-inuse-MB; see testutil.PeakHeap) and the gzip input per CPU-second of
// the whole process (MB/cpu-s: meaningful on a shared machine, where wall-clock MB/s depends on
// what else runs).
func benchImport(b *testing.B, src Source, size int64, out string) Stats {
	b.SetBytes(size)
	var live, inuse uint64
	var st Stats
	cpu0 := testutil.CPUTime()
	b.ResetTimer()
	for range b.N {
		l, u := testutil.PeakHeap(func() {
			var err error
			if st, err = Import(src, Options{}, out); err != nil {
				b.Fatal(err)
			}
		})
		live, inuse = max(live, l), max(inuse, u)
	}
	b.ReportMetric(float64(live)/1e6, "peak-live-MB")
	b.ReportMetric(float64(inuse)/1e6, "peak-inuse-MB")
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(testutil.CPUTime()-cpu0).Seconds(), "MB/cpu-s")
	return st
}

// BenchmarkTaskImportVsZcat times the task-level import of the window the shared data covers
// (job_events and task_events parts 0-9) to Arrow IPC against `gzip -dc` of the same files to
// /dev/null, alternating the two in each iteration, as BenchmarkImportVsZcat does for the month
// of job_events. x-zcat-wall is the import's wall time over zcat's (the target is at most 3),
// x-zcat-cpu the ratio of CPU times (the import's process against the gzip process).
func BenchmarkTaskImportVsZcat(b *testing.B) {
	src, size := windowParts(b, 10)
	vsZcat(b, append(slices.Clone(src.JobEvents), src.TaskEvents...), size, func(out string) error {
		_, err := Import(src, Options{}, out)
		return err
	})
}

// BenchmarkScanJobs measures the job_events scanner alone.
func BenchmarkScanJobs(b *testing.B) {
	for _, parts := range []int{50, 500} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			files, size := jobParts(b, parts)
			b.SetBytes(size)
			n := 0
			cpu0 := testutil.CPUTime()
			for range b.N {
				n = 0
				if err := ScanJobs(Source{JobEvents: files}, func(*JobRecord) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "records")
			b.ReportMetric(float64(size)*float64(b.N)/1e6/(testutil.CPUTime()-cpu0).Seconds(), "MB/cpu-s")
		})
	}
}

// BenchmarkLoad compares loading the month as a workload by re-parsing the CSV (source=csv)
// with reading the canonical files written by Import. cpu-ms/op is process CPU time per load;
// x-vs-csv and x-vs-csv-cpu are the speed-ups in wall-clock and CPU time over one CSV load timed
// before the sub-benchmarks (CPU time is the steadier figure on a shared machine).
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
			runtime.GC()
			start, cpu0 := time.Now(), testutil.CPUTime()
			if _, err := Workload(src, Options{}); err != nil {
				b.Fatal(err)
			}
			csv, csvCPU := time.Since(start), testutil.CPUTime()-cpu0
			b.Run("source=csv", func(b *testing.B) {
				cpu0 := testutil.CPUTime()
				for range b.N {
					if _, err := Workload(src, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(testutil.CPUTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			})
			for _, format := range []string{"parquet", "arrow"} {
				b.Run("source="+format, func(b *testing.B) {
					var jobs int
					cpu0 := testutil.CPUTime()
					for range b.N {
						w, err := canonical.Read(paths[format])
						if err != nil {
							b.Fatal(err)
						}
						jobs = len(w.Jobs)
					}
					cpu := float64(testutil.CPUTime()-cpu0) / float64(b.N)
					b.ReportMetric(cpu/1e6, "cpu-ms/op")
					b.ReportMetric(float64(jobs), "jobs")
					b.ReportMetric(float64(csv)/(float64(b.Elapsed())/float64(b.N)), "x-vs-csv")
					b.ReportMetric(float64(csvCPU)/cpu, "x-vs-csv-cpu")
				})
			}
		})
	}
}
