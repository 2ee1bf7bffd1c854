package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cast"
	"github.com/spf13/viper"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/decima"
)

// MechanicsConfig holds the engine's execution mechanics (engine.task_startup_s …
// engine.contention_slope; replay.Holding, replay.Variance, replay.DurationModel). Every one is
// off at its default, and then config.yaml and sweep cache keys carry none of these keys, so
// results and caches of runs without them are unchanged.
type MechanicsConfig struct {
	TaskStartupS    float64
	TaskReleaseS    float64
	HoldingDist     string
	HoldingCV       float64
	DurationSigma   float64
	StragglerP      float64
	StragglerFactor float64
	DurationModel   string
	ContentionSlope float64
}

// Duration models (engine.duration_model).
const (
	ModelNone       = "none"
	ModelContention = "contention"
	ModelDecima     = "decima"
)

var durationModels = []string{ModelNone, ModelContention, ModelDecima}

// mechanicsDefaults are the keys' defaults (baseKeys).
var mechanicsDefaults = MechanicsConfig{HoldingDist: replay.HoldConst, StragglerFactor: 1, DurationModel: ModelNone}

// resolveMechanics reads and checks the engine.* mechanics keys.
func resolveMechanics(v *viper.Viper, m *MechanicsConfig) error {
	num := func(key string, dst *float64, lo, hi float64) error {
		f, err := cast.ToFloat64E(v.Get(key))
		if err != nil || math.IsNaN(f) || f < lo || f > hi {
			return configErr("%s: want a number in [%g, %g], got %v", key, lo, hi, v.Get(key))
		}
		*dst = f
		return nil
	}
	name := func(key string, dst *string, valid []string) error {
		s, err := cast.ToStringE(v.Get(key))
		s = strings.TrimSpace(s)
		if err != nil || !slices.Contains(valid, s) {
			return configErr("%s: unknown value %q (valid: %s)%s", key, s, strings.Join(valid, ", "), SuggestOr(s, valid, ""))
		}
		*dst = s
		return nil
	}
	for _, step := range []func() error{
		func() error { return num("engine.task_startup_s", &m.TaskStartupS, 0, MaxSeconds) },
		func() error { return num("engine.task_release_s", &m.TaskReleaseS, 0, MaxSeconds) },
		func() error { return name("engine.holding_dist", &m.HoldingDist, replay.HoldingDists) },
		func() error { return num("engine.holding_cv", &m.HoldingCV, 0, 100) },
		func() error { return num("engine.duration_sigma", &m.DurationSigma, 0, 10) },
		func() error { return num("engine.straggler_p", &m.StragglerP, 0, 1) },
		func() error { return num("engine.straggler_factor", &m.StragglerFactor, 1e-6, 1e6) },
		func() error { return name("engine.duration_model", &m.DurationModel, durationModels) },
		func() error { return num("engine.contention_slope", &m.ContentionSlope, 0, 1e6) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	switch {
	case m.HoldingDist == replay.HoldExp && m.HoldingCV != 0 && m.HoldingCV != 1:
		return configErr("engine.holding_cv: %v, but engine.holding_dist exp has a coefficient of variation of 1 (use lognormal for another)", m.HoldingCV)
	case m.HoldingDist == replay.HoldLognormal && m.HoldingCV == 0:
		return configErr("engine.holding_cv: engine.holding_dist lognormal needs a coefficient of variation > 0 (const holds exactly the mean)")
	case m.ContentionSlope != 0 && m.DurationModel != ModelContention:
		return configErr("engine.contention_slope: %v has no effect unless engine.duration_model is contention (it is %s)", m.ContentionSlope, m.DurationModel)
	}
	return nil
}

// addTo adds the keys whose values differ from their defaults to config.yaml's engine section.
func (m MechanicsConfig) addTo(engine map[string]any) map[string]any {
	d := mechanicsDefaults
	for _, kv := range []struct {
		key      string
		val, def any
	}{
		{"task_startup_s", m.TaskStartupS, d.TaskStartupS},
		{"task_release_s", m.TaskReleaseS, d.TaskReleaseS},
		{"holding_dist", m.HoldingDist, d.HoldingDist},
		{"holding_cv", m.HoldingCV, d.HoldingCV},
		{"duration_sigma", m.DurationSigma, d.DurationSigma},
		{"straggler_p", m.StragglerP, d.StragglerP},
		{"straggler_factor", m.StragglerFactor, d.StragglerFactor},
		{"duration_model", m.DurationModel, d.DurationModel},
		{"contention_slope", m.ContentionSlope, d.ContentionSlope},
	} {
		if kv.val != kv.def && !(kv.key == "holding_dist" && kv.val == "") && !(kv.key == "duration_model" && kv.val == "") {
			engine[kv.key] = kv.val
		}
	}
	return engine
}

func (m MechanicsConfig) holding() replay.Holding {
	return replay.Holding{
		Startup: traces.FromSeconds(m.TaskStartupS), Release: traces.FromSeconds(m.TaskReleaseS),
		Dist: m.HoldingDist, CV: m.HoldingCV,
	}
}

func (m MechanicsConfig) variance() replay.Variance {
	return replay.Variance{Sigma: m.DurationSigma, StragglerP: m.StragglerP, StragglerFactor: m.StragglerFactor}
}

// contention is the contention model, or nil.
func (m MechanicsConfig) contention() replay.DurationModel {
	if m.DurationModel != ModelContention {
		return nil
	}
	return replay.Contention{Slope: m.ContentionSlope}
}

// startModel sets the duration model that needs the workload (decima) on ec.
func (m MechanicsConfig) startModel(ec *replay.Config, c Config, w *traces.Workload) error {
	if m.DurationModel != ModelDecima {
		return nil
	}
	model, err := newDecimaModel(c, w)
	if err != nil {
		return err
	}
	ec.Durations = model
	return nil
}

// decimaModel is Decima's rule as an engine duration model: a task's duration is drawn when it
// starts from its job's measurements (decima.Profile) for the executors the job holds then,
// each single-core machine being one executor (replay.TaskStart.Executors, .Wave).
type decimaModel struct {
	jobs []*decima.Profile // by workload job index
}

// UsesExecutors implements replay.ExecutorModel.
func (decimaModel) UsesExecutors() {}

// Duration implements replay.DurationModel.
func (d decimaModel) Duration(s *replay.TaskStart, r *rand.Rand) traces.Time {
	if dur, ok := d.jobs[s.Job].Draw(int(s.Stage), s.Executors, decima.Wave(s.Wave), r); ok {
		return dur
	}
	return s.Work
}

// The profiles of a Decima folder, read once per (folder, reader options).
var (
	profileMu    sync.Mutex
	profileCache = map[string]map[string]*decima.Profile{}
)

// newDecimaModel builds Decima's model for a workload generated by the decima generator: the
// profiles come from the same folder and sizes, read with the same options.
func newDecimaModel(c Config, w *traces.Workload) (replay.DurationModel, error) {
	if c.Workload.Generator != "decima" {
		return nil, configErr("engine.duration_model: decima needs workload.generator decima (it draws from Decima's measurements), got %q", c.Workload.Generator)
	}
	if c.Workload.Pooled || w.Cluster.Pooled {
		return nil, configErr("engine.duration_model: decima counts executors as machines; workload.pooled must be false")
	}
	for _, mc := range w.Cluster.Machines {
		if mc.Capacity != traces.VecOf(1) {
			return nil, configErr("engine.duration_model: decima counts executors as single-core machines; machine %s has %s (workload.machines must stay 0)", mc.Name, mc.Capacity.Format(len(w.Dims)))
		}
	}
	var ws workloadSettings
	if err := json.Unmarshal([]byte(c.Workload.Settings), &ws); err != nil {
		return nil, fmt.Errorf("experiments: workload settings: %w", err)
	}
	opts, err := generatorOptions("decima", ws.Generator, false)
	if err != nil {
		return nil, err
	}
	so := opts.(decima.StreamOptions)
	dir, _ := cast.ToStringE(ws.Generator["dir"])
	if dir, err = datapath.Resolve(dir); err != nil {
		return nil, err
	}
	var sizes []string
	for _, s := range strings.Split(so.Sizes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			sizes = append(sizes, s)
		}
	}
	ro := so.ReaderOptions()
	key := fmt.Sprintf("%s|%v|%+v", dir, sizes, ro)
	profileMu.Lock()
	profiles, ok := profileCache[key]
	profileMu.Unlock()
	if !ok {
		if profiles, err = decima.ReadProfiles(dir, sizes, ro); err != nil {
			return nil, err
		}
		profileMu.Lock()
		profileCache[key] = profiles
		profileMu.Unlock()
	}
	model := decimaModel{jobs: make([]*decima.Profile, len(w.Jobs))}
	for i := range w.Jobs {
		p := profiles[w.Jobs[i].Name]
		if p == nil || p.Stages() != len(w.Jobs[i].Stages) {
			return nil, fmt.Errorf("engine.duration_model decima: job %d (%q) has no Decima profile of %d stages in %s", i, w.Jobs[i].Name, len(w.Jobs[i].Stages), dir)
		}
		model.jobs[i] = p
	}
	return model, nil
}
