package jvu

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/schedlab/schedlab/policies/predict"
)

// paperSrc returns the month's trace directory, skipping the test or benchmark without it.
func paperSrc(tb testing.TB) string {
	src, err := SrcFor(PaperLabel)
	if errors.Is(err, ErrNoData) {
		tb.Skipf("the whole-month trace is not available: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return src
}

// cpuSeconds returns the process's user+system CPU time so far (all threads).
func cpuSeconds(tb testing.TB) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// peakRSSMB returns the process's peak resident set size (VmHWM) in MiB, or -1 where
// /proc/self/status is unavailable.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return -1
}

// withSyntheticRequests returns a copy of jobs in which every job has secondary features,
// derived deterministically from its ID — the worst case for the refined groups, since the
// month's task_events (and so its real requests) cover only its first hours.
func withSyntheticRequests(jobs []predict.Job) []predict.Job {
	out := make([]predict.Job, len(jobs))
	copy(out, jobs)
	for i := range out {
		h := uint64(out[i].ID)*0x9E3779B97F4A7C15 + 1
		out[i].Tasks = int32(1 + h%200)
		out[i].CPU = float64(h>>8%4000) / 1000 * float64(out[i].Tasks) / 20
		out[i].Mem = float64(h>>20%2000) / 1000 * float64(out[i].Tasks) / 20
	}
	return out
}

// BenchmarkMonth replays all 672,074 jobs of the month (every part of job_events, with the
// task_events the shared data has) through JVuPredict with all features, all estimators,
// secondary features and the median filter, from the gzip files to the last prediction. It
// reports wall and CPU seconds per replay, jobs per second and the process's peak RSS. Run it
// on one core: go test -run '^$' -bench Month -benchtime 1x -cpu 1 ./experiments/jvu
func BenchmarkMonth(b *testing.B) {
	src := paperSrc(b)
	opts := predict.Options{Secondary: true, MedianFilter: true}
	for _, requests := range []string{"trace", "synthetic"} {
		b.Run("requests="+requests, func(b *testing.B) {
			var jobs, predictions int
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				t, err := Load(src)
				if err != nil {
					b.Fatal(err)
				}
				if requests == "synthetic" {
					t.Jobs = withSyntheticRequests(t.Jobs)
				}
				r, err := Run(t, Config{Name: "all", Opts: opts})
				if err != nil {
					b.Fatal(err)
				}
				jobs, predictions = len(t.Jobs), r.Submitted
			}
			if predictions != jobs {
				b.Fatalf("%d predictions for %d jobs", predictions, jobs)
			}
			n := float64(b.N)
			b.ReportMetric(b.Elapsed().Seconds()/n, "wall-s/op")
			b.ReportMetric((cpuSeconds(b)-cpu0)/n, "cpu-s/op")
			b.ReportMetric(float64(jobs)*n/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MiB")
		})
	}
}

// BenchmarkRun replays the loaded month through each configuration (loading excluded).
func BenchmarkRun(b *testing.B) {
	t, err := Load(paperSrc(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts predict.Options
	}{
		{"base", predict.Options{}},
		{"filter", predict.Options{MedianFilter: true}},
		{"secondary+filter", predict.Options{Secondary: true, MedianFilter: true}},
	} {
		b.Run(fmt.Sprintf("config=%s", c.name), func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(t, Config{Name: c.name, Opts: c.opts}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(t.Jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
