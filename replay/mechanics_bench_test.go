package replay_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// mechanicsSettings are the execution-mechanics settings BenchmarkMechanics compares against
// the default engine: zero (every mechanic set explicitly to its inert value: the default path),
// on (start-up and release holds of 2 and 3 s drawn lognormal, duration spread, 5% stragglers
// × 3 and contention slope 0.3: the synthetic workload's load rises from 0.9 to above 1, so
// queues grow) and light (the same code paths with 0.1 s holds, a mean-preserving spread and
// slope 0.01: the per-event cost at about the same load).
var mechanicsSettings = map[string]replay.Config{
	"zero": {Seed: 1, Holding: replay.Holding{Dist: replay.HoldConst}, Variance: replay.Variance{StragglerFactor: 1}},
	"light": {Seed: 1, // every code path of "on", adding about 1% load
		Holding:   replay.Holding{Startup: traces.Second / 10, Release: traces.Second / 10, Dist: replay.HoldLognormal, CV: 0.5},
		Variance:  replay.Variance{Sigma: 0.5},
		Durations: replay.Contention{Slope: 0.01}},
	"on": {Seed: 1,
		Holding:   replay.Holding{Startup: 2 * traces.Second, Release: 3 * traces.Second, Dist: replay.HoldLognormal, CV: 0.5},
		Variance:  replay.Variance{Sigma: 0.5, StragglerP: 0.05, StragglerFactor: 3},
		Durations: replay.Contention{Slope: 0.3}},
}

// BenchmarkMechanics measures what the execution mechanics cost: each iteration replays the
// workload with the default configuration and with the setting, alternately, and reports both
// throughputs and their ratio (setting / default) from the same run, so load on the machine
// affects both alike.
func BenchmarkMechanics(b *testing.B) {
	for _, setting := range []string{"zero", "light", "on"} {
		for _, cluster := range []struct {
			name     string
			machines int
		}{{"pooled", 0}, {"machines256", 256}} {
			b.Run(fmt.Sprintf("mechanics=%s/policy=fifo/cluster=%s/tasks=100000", setting, cluster.name), func(b *testing.B) {
				w := synthetic(b, 100_000, cluster.machines)
				var base, with time.Duration
				var baseEvents, withEvents int64
				for i := 0; i < b.N; i++ {
					for _, on := range []bool{i%2 == 1, i%2 == 0} {
						cfg := replay.Config{}
						if on {
							cfg = mechanicsSettings[setting]
						}
						begin := time.Now()
						res := replayWith(b, w, "fifo", cfg)
						if on {
							with += time.Since(begin)
							withEvents += res.Stats.Events
						} else {
							base += time.Since(begin)
							baseEvents += res.Stats.Events
						}
					}
				}
				bps := float64(baseEvents) / base.Seconds()
				wps := float64(withEvents) / with.Seconds()
				b.ReportMetric(bps, "default_events/s")
				b.ReportMetric(wps, "events/s")
				b.ReportMetric(wps/bps, "ratio")
			})
		}
	}
}

// replayWith is replayAll with a configuration.
func replayWith(b *testing.B, w *traces.Workload, policy string, cfg replay.Config) *replay.Result {
	e, err := replay.New(w, newPolicy(b, policy), cfg)
	if err != nil {
		b.Fatal(err)
	}
	res, err := e.Run()
	if err != nil {
		b.Fatal(err)
	}
	if s := replay.Summarize(res); s.Completed != s.Jobs {
		b.Fatalf("%d of %d jobs completed", s.Completed, s.Jobs)
	}
	return res
}
