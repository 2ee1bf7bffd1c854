package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// mechanicsOptions reads a scenario's engine line keys for the execution mechanics.
func mechanicsOptions(cfg *Config, kv map[string]string, num func(string) float64, err error) error {
	has := func(k string) bool { _, ok := kv[k]; return ok }
	if has("seed") {
		cfg.Seed = int64(num("seed"))
	}
	if has("startup") {
		cfg.Holding.Startup = traces.FromSeconds(num("startup"))
	}
	if has("release") {
		cfg.Holding.Release = traces.FromSeconds(num("release"))
	}
	cfg.Holding.Dist = kv["hold_dist"]
	if has("hold_cv") {
		cfg.Holding.CV = num("hold_cv")
	}
	if has("sigma") {
		cfg.Variance.Sigma = num("sigma")
	}
	if has("straggler_p") {
		cfg.Variance.StragglerP = num("straggler_p")
	}
	if has("straggler_factor") {
		cfg.Variance.StragglerFactor = num("straggler_factor")
	}
	switch kv["model"] {
	case "":
	case "contention":
		cfg.Durations = Contention{Slope: num("slope")}
	case "waves":
		cfg.Durations = waveModel{}
	default:
		if err == nil {
			err = fmt.Errorf("unknown model %q", kv["model"])
		}
	}
	return err
}

// waveModel makes what a duration model is told visible in a scenario's event log: a task's
// work is its remaining work × 4 when its executor joins the job, × 3 on an executor that was
// idle in the job's pool, × 2 on a first wave and × 1 on a later wave, plus one second per
// executor its job holds.
type waveModel struct{}

func (waveModel) UsesExecutors() {}

func (waveModel) Duration(s *TaskStart, _ *rand.Rand) traces.Time {
	return s.Work*[...]traces.Time{WaveJoin: 4, WaveIdle: 3, WaveFirst: 2, WaveRest: 1}[s.Wave] + traces.Time(s.Executors)*traces.Second
}

// TestHoldingDistributions: each holding distribution has the configured mean (and coefficient
// of variation) over many tasks, and a task's hold does not depend on the order of draws.
func TestHoldingDistributions(t *testing.T) {
	for _, tc := range []struct {
		dist   string
		cv     float64
		wantCV float64
	}{{HoldConst, 0, 0}, {"", 0, 0}, {HoldExp, 0, 1}, {HoldExp, 1, 1}, {HoldLognormal, 0.5, 0.5}, {HoldLognormal, 2, 2}} {
		e := &Engine{cfg: Config{Seed: 3, Holding: Holding{Startup: 5 * traces.Second, Dist: tc.dist, CV: tc.cv}}}
		e.rnd = newDraws(e.cfg.Seed)
		const n = 200_000
		var sum, sum2 float64
		for i := range int32(n) {
			x := float64(e.startupHold(i%97, i/97, i, 1)) / float64(traces.Second)
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		cv := math.Sqrt(sum2/n-mean*mean) / mean
		tol := 0.02 + 0.03*tc.wantCV*tc.wantCV
		if math.Abs(mean-5) > 5*tol || math.Abs(cv-tc.wantCV) > 0.02+0.1*tc.wantCV {
			t.Errorf("%s cv=%v: mean %.4f s (want 5), cv %.4f (want %v)", tc.dist, tc.cv, mean, cv, tc.wantCV)
		}
		a := e.startupHold(4, 2, 7, 1)
		e.startupHold(9, 9, 9, 9)
		if b := e.startupHold(4, 2, 7, 1); a != b {
			t.Errorf("%s: a task's hold changed with the draws before it: %d then %d", tc.dist, a, b)
		}
	}
}

// TestVarianceIsMeanPreserving: the lognormal spread keeps the mean work; stragglers multiply
// the expected fraction of tasks by their factor.
func TestVarianceIsMeanPreserving(t *testing.T) {
	for _, v := range []Variance{{Sigma: 0.5}, {Sigma: 1}, {StragglerP: 0.1, StragglerFactor: 3}, {Sigma: 0.3, StragglerP: 0.05, StragglerFactor: 2}} {
		e := &Engine{cfg: Config{Seed: 11, Variance: v}}
		e.rnd = newDraws(e.cfg.Seed)
		const n = 200_000
		var sum float64
		for i := range int32(n) {
			sum += e.varianceFactor(i/1000, i%7, i)
		}
		want := 1 + v.StragglerP*(v.StragglerFactor-1)
		if got := sum / n; math.Abs(got-want) > 0.01*want+0.01*v.Sigma*v.Sigma {
			t.Errorf("%+v: mean factor %.4f, want %.4f", v, got, want)
		}
	}
}

// TestMechanicsRejectBadSettings: invalid settings are refused by New with one line naming them.
func TestMechanicsRejectBadSettings(t *testing.T) {
	w := &traces.Workload{Name: "w", Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 0),
		Jobs: []traces.Job{{Stages: []traces.Stage{{Name: "a", Tasks: 1, Duration: 1, Estimate: 1, Demand: traces.VecOf(1)}}}}}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Holding: Holding{Startup: -1}}, "start-up and release holds must be ≥ 0"},
		{Config{Holding: Holding{Dist: "gamma"}}, `unknown holding distribution "gamma"`},
		{Config{Holding: Holding{Dist: HoldExp, CV: 0.5}}, "exp has coefficient of variation 1"},
		{Config{Holding: Holding{Dist: HoldLognormal}}, "lognormal needs a coefficient of variation > 0"},
		{Config{Holding: Holding{CV: math.NaN()}}, "coefficient of variation must be a number ≥ 0"},
		{Config{Variance: Variance{Sigma: -1}}, "duration sigma must be in [0, 10]"},
		{Config{Variance: Variance{StragglerP: 2}}, "straggler probability must be in [0, 1]"},
		{Config{Variance: Variance{StragglerP: 0.1}}, "straggler factor must be in (0, 1e6]"},
	} {
		_, err := New(w, &scripted{}, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}
