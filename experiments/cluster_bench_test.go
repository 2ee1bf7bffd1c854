package experiments

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces/canonical"
	"github.com/schedlab/schedlab/traces/google2011"
)

// BenchmarkGoogleMidWindow measures what the running state at a window's start and a changing
// cluster cost, in one run. The shared data hold task_events parts 0-9 only, so the mid-trace
// window is parts 5-9 (t = 7.1 h to 14.1 h) and --state-from reads parts 0-4. Sub-benchmarks:
//
//   - stage=import/initial=off|on: the window's import without and with the initial holds
//     (state=window: its own parts only; state=from0-4: reading parts 0-4 as well), with the wall
//     time's ratio to initial=off;
//   - stage=replay/policy=fifo/initial=off|on/failures=off|on: its replay with the initial holds
//     ignored or kept, and with a seeded failure model (mean 30 days to failure, 1 h to repair
//     per machine) or none, with the CPU time's ratio to initial=off/failures=off.
func BenchmarkGoogleMidWindow(b *testing.B) {
	src, err := google2011.Window(testutil.SharedData(b, "google2011"), 5, 9)
	if err != nil {
		b.Skip(err)
	}
	before, err := google2011.Window(testutil.SharedData(b, "google2011"), 0, 4)
	if err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	var base float64
	for _, tc := range []struct {
		name string
		o    google2011.Options
	}{
		{"initial=off/state=window", google2011.Options{NoInitial: true}},
		{"initial=on/state=window", google2011.Options{}},
		{"initial=on/state=from0-4", google2011.Options{StateFrom: before.TaskEvents}},
	} {
		b.Run("stage=import/"+tc.name, func(b *testing.B) {
			var wall, cpu time.Duration
			var st google2011.Stats
			for i := range b.N {
				start, cpu0 := time.Now(), testutil.CPUTime()
				st, err = google2011.Import(src, tc.o, filepath.Join(dir, fmt.Sprintf("w-%d.arrow", i)))
				wall += time.Since(start)
				cpu += testutil.CPUTime() - cpu0
				if err != nil {
					b.Fatal(err)
				}
			}
			s := cpu.Seconds() / float64(b.N)
			if base == 0 {
				base = s
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
			b.ReportMetric(s, "cpu-s")
			b.ReportMetric(s/base, "cpu-ratio")
			b.ReportMetric(float64(st.Initial.Tasks), "holds")
		})
	}
	path := filepath.Join(dir, "sf.arrow")
	if _, err := google2011.Import(src, google2011.Options{StateFrom: before.TaskEvents}, path); err != nil {
		b.Fatal(err)
	}
	w, err := canonical.Read(path)
	if err != nil {
		b.Fatal(err)
	}
	base = 0
	for _, initial := range []bool{false, true} {
		for _, failures := range []bool{false, true} {
			name := fmt.Sprintf("stage=replay/policy=fifo/initial=%s/failures=%s", onOff(initial), onOff(failures))
			b.Run(name, func(b *testing.B) {
				v := NewViper()
				v.Set("engine.initial_state", initial)
				if failures {
					v.Set("engine.failures_mttf_s", 30*24*3600.0)
					v.Set("engine.failures_mttr_s", 3600.0)
				}
				c, err := Resolve(v)
				if err != nil {
					b.Fatal(err)
				}
				var wall, cpu time.Duration
				var res *replay.Result
				for range b.N {
					p, err := NewPolicy(c)
					if err != nil {
						b.Fatal(err)
					}
					e, err := replay.New(w, p, c.EngineConfig())
					if err != nil {
						b.Fatal(err)
					}
					start, cpu0 := time.Now(), testutil.CPUTime()
					res, err = e.Run()
					wall += time.Since(start)
					cpu += testutil.CPUTime() - cpu0
					if err != nil {
						b.Fatal(err)
					}
				}
				s := cpu.Seconds() / float64(b.N)
				if base == 0 {
					base = s
				}
				b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
				b.ReportMetric(s, "cpu-s")
				b.ReportMetric(s/base, "cpu-ratio")
				b.ReportMetric(float64(res.Stats.Events), "events")
				if c := res.Cluster; c != nil {
					b.ReportMetric(float64(c.Holds), "holds")
					b.ReportMetric(float64(c.Kills), "kills")
				}
			})
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
