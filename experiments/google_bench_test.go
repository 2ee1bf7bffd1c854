package experiments

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces/canonical"
	"github.com/schedlab/schedlab/traces/google2011"
)

// googleWindowFile imports the shared data's task-level window (job_events and task_events
// parts 0-9) into dir, or skips.
func googleWindowFile(t testing.TB, dir string) string {
	src, err := google2011.Window(testutil.SharedData(t, "google2011"), 0, 9)
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(dir, "window.arrow")
	if _, err := google2011.Import(src, google2011.Options{}, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// BenchmarkGoogleWindow replays the task-level Google window (443,257 tasks of 14,443 jobs over
// 14 h, on the published machine mix scaled to the 12,509 machines the tasks ran on) under each
// policy on one goroutine, placing every task with first fit. It reports the engine's events, its
// events per second of wall time and of CPU time (the steadier figure on a shared machine), and
// the process's peak RSS during the replay (testutil.PeakRSS: the kernel's high-water mark, reset
// before it; the workload, already loaded, is part of it).
func BenchmarkGoogleWindow(b *testing.B) {
	path := googleWindowFile(b, b.TempDir())
	w, err := canonical.Read(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, policy := range []string{"drf", "fifo", "sp", "srpt"} {
		b.Run("policy="+policy+"/cluster=mix", func(b *testing.B) {
			v := NewViper()
			v.Set("policy.name", policy)
			c, err := Resolve(v)
			if err != nil {
				b.Fatal(err)
			}
			var events int64
			var wall, cpu time.Duration
			var rss uint64
			b.ResetTimer()
			for range b.N {
				p, err := NewPolicy(c)
				if err != nil {
					b.Fatal(err)
				}
				e, err := replay.New(w, p, c.EngineConfig())
				if err != nil {
					b.Fatal(err)
				}
				var res *replay.Result
				rss = max(rss, testutil.PeakRSS(func() {
					start, cpu0 := time.Now(), testutil.CPUTime()
					res, err = e.Run()
					wall += time.Since(start)
					cpu += testutil.CPUTime() - cpu0
				}))
				if err != nil {
					b.Fatal(err)
				}
				events += res.Stats.Events
			}
			b.ReportMetric(float64(events)/float64(b.N), "events")
			b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
			b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
			b.ReportMetric(float64(rss)/1e6, "peak-rss-MB")
		})
	}
}
