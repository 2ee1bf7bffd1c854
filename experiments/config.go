// Package experiments turns configuration into runs: it resolves a run configuration from
// files, flags, --set overrides and SCHEDLAB_* environment variables (viper), loads the workload,
// builds the policy, replays it, and writes the results (jobs.parquet, summary.json,
// config.yaml). The sweep, reproduce and compare machinery build on it in subpackages, and the
// experiment specs live beside it under experiments/<paper>/.
package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/viper"
)

// Key documents one configuration key.
type Key struct {
	Name    string
	Default any
	Doc     string
}

// Keys lists every configuration key with its default, in the order README.md documents them.
// policy.params.* keys are free-form and checked by the chosen policy.
var Keys = append(baseKeys, workloadKeys()...)

var baseKeys = []Key{
	{"seed", int64(1), "experiment seed; every random draw derives from it and a component name"},
	{"system", "", "name of the system under test in figures and claims (a label: it changes nothing in the run)"},
	{"workload.name", "tpch-fb", "an embedded workload name, or a path to a canonical .parquet/.arrow file or a Carbyne/BoPF .txt DAG file"},
	{"workload.machines", 0, "override the cluster size (identical machines of the workload's machine capacity); 0 keeps the workload's cluster"},
	{"workload.pooled", false, "treat the cluster as one capacity vector (CORA/BPF style) instead of placing tasks on machines"},
	{"policy.name", "fifo", "scheduling policy (see `schedlab policies`)"},
	{"policy.level", "job", "what fair-sharing policies share between: job or queue"},
	{"policy.backfill", false, "let ordered policies skip a job whose next task does not fit (default: head-of-line blocking)"},
	{"policy.class_order", []string{}, "job classes from highest to lowest priority (strict priority)"},
	{"engine.cycle_s", 0.0, "scheduling period in seconds; 0 schedules at every instant something changed"},
	{"engine.preempt_delay_s", 0.0, "seconds a preempted task's resources stay held before they are free"},
	{"engine.preempt_keeps_work", false, "a preempted task resumes where it stopped (default: it restarts)"},
	{"engine.horizon_s", 0.0, "stop the replay at this simulated time; 0 runs until every job completed"},
	{"engine.oracle", false, "show policies true task durations instead of estimates"},
	{"engine.decision_time", "none", "charge each scheduling call's decision time to the simulated clock, its plan landing that much later: none, const (engine.decision_time_s) or measured (the call's wall time; the run is then not deterministic and never cached)"},
	{"engine.decision_time_s", 0.0, "with engine.decision_time: const, the seconds every scheduling call takes"},
	{"engine.decision_time_scale", 1.0, "with engine.decision_time: measured, the factor applied to each call's wall time"},
	{"engine.heartbeat_s", 0.0, "YARN node heartbeat period in seconds: containers launch at their node's heartbeat and finishes are seen at the next one (yarn-default.xml nodemanagers.heartbeat-interval-ms: 1 s); 0 = off"},
	{"engine.containers_per_heartbeat", 1, "containers a node launches per heartbeat when engine.heartbeat_s is on (FairScheduler assignmultiple=false: 1); 0 = no cap"},
	{"engine.am", false, "give every job an application-master container, placed first fit by the engine before its tasks and held for its life (YARN/Tez: one AM per application)"},
	{"engine.am_demand", "", "the AM container's size: comma-separated amounts in the workload's resource order and units, e.g. 1,1.5 (needed with engine.am)"},
	{"engine.am_startup_s", 0.0, "seconds from an AM's launch until its job's tasks are visible to the policy (AM start-up)"},
	{"engine.am_setup_s", 0.0, "seconds of AM-side job setup after start-up, before the first stage"},
	{"engine.am_teardown_s", 0.0, "seconds of AM-side teardown after a job's last task, counted in its completion time"},
	{"engine.max_am_share", 0.0, "FairScheduler maxAMShare: a queue's AMs use at most this fraction of its fair share (capacity split equally among active queues; FairScheduler default 0.5); 0 = no limit"},
	{"engine.reservations", false, "FairScheduler node reservations: a start that does not fit its node reserves the node, which takes no other container until the reserved one starts"},
	{"engine.slowstart", 1.0, "consumer slow-start: a stage's tasks may launch once this fraction of its producers' tasks finished, holding resources until their input is complete (MapReduce 0.05, Tez 0.25-0.75); 1 = wait for all"},
	{"engine.task_startup_s", 0.0, "seconds a task holds its resources without progress before its work (container launch; mean of engine.holding_dist)"},
	{"engine.task_release_s", 0.0, "seconds a finished task holds its resources without progress after its work (teardown, heartbeat-paced release)"},
	{"engine.holding_dist", "const", "distribution of the start-up and release holds: const, exp or lognormal (mean = the key)"},
	{"engine.holding_cv", 0.0, "coefficient of variation of the holds for lognormal (> 0); exp has 1"},
	{"engine.duration_sigma", 0.0, "mean-preserving lognormal spread of TRUE task durations (estimates unchanged)"},
	{"engine.straggler_p", 0.0, "probability that a task is a straggler (true duration × engine.straggler_factor)"},
	{"engine.straggler_factor", 1.0, "a straggler's duration multiplier"},
	{"engine.duration_model", "none", "durations decided when a task starts: none, contention (× 1 + slope × co-located load share) or decima (decima-sim's rule, executors the job holds)"},
	{"engine.contention_slope", 0.0, "contention model: duration × (1 + slope × load share of the task's machine, of the cluster when pooled)"},
	{"engine.initial_state", true, "replay the workload's initial holds (the tasks running at a trace window's start); false starts on an empty cluster"},
	{"engine.cluster_events", true, "replay the workload's cluster events (machines added, removed, resized); false keeps the cluster fixed"},
	{"engine.failures_mttf_s", 0.0, "failure model: mean seconds until a machine fails (is removed, its tasks killed and requeued); 0 disables it"},
	{"engine.initial_overcommit", "reject", "what an initial hold that does not fit its machine does (an overcommitted cell's running state): reject leaves it out; saturate takes what is free there, so the machine starts full (Borg admits work beyond capacity, EuroSys 2015 §5.5)"},
	{"engine.trace_evictions", "ignore", "replay: kill a task at each EVICT, FAIL or KILL the trace recorded for an earlier run of it (a policy-independent fault injection; it is requeued); ignore: leave preemption to the policy"},
	{"engine.failures_mttr_s", 0.0, "failure model: mean seconds until a failed machine is back (> 0 with engine.failures_mttf_s)"},
	{"metrics.usage_window_s", 60.0, "window for the per-queue resource-usage series; 0 disables it"},
	{"metrics.tasks", false, "record every task attempt in tasks.parquet (also run --record tasks)"},
	{"metrics.trace", false, "record a Chrome trace-event file trace.json for Perfetto (also run --record trace)"},
	{"predict.name", "", "online runtime predictor that sets estimates at submission and learns from completions: oracle, noisy or jvupredict; empty keeps the workload's estimates"},
	{"predict.features", []string{}, "JVuPredict primary features in tie-break order (job, ljob, user); empty = all"},
	{"predict.estimators", []string{}, "JVuPredict estimators in tie-break order (average, median, rolling, recent); empty = all"},
	{"predict.secondary", false, "JVuPredict: refine groups by requested cpu, memory and task count"},
	{"predict.median_filter", false, "JVuPredict: offer median-filtered histories as extra candidates"},
	{"predict.noise_bias", 0.0, "noisy predictor: mean of the relative error e in percent (prediction = runtime × (1 + e/100))"},
	{"predict.noise_std", 0.0, "noisy predictor: standard deviation of e in percent"},
	{"predict.warm", "", "jvupredict: a Google 2011 trace (directory with job_events/) it learns from before the replay, every job in submission order (other predictors ignore it); empty starts with no history"},
	{"limits.max_tasks", int64(0), "refuse a workload of more tasks than this before replaying it (exit status 1); 0 = half the available memory at 64 bytes per task and 2 KiB per job"},
	{"limits.max_job_tasks", int64(0), "refuse a workload with a job of more tasks than this; 0 = no per-job limit"},
	{"limits.max_stage_tasks", int64(0), "refuse a workload with a stage of more tasks than this; 0 = no per-stage limit"},
	{"limits.max_machines", int64(0), "refuse a cluster, or a workload.machines value (exit status 2), of more machines than this; 0 = half the available memory at 1 KiB per machine"},
	{"testbed", "", "a named testbed profile (experiments/testbeds/<name>.yaml, `schedlab testbed list`) or a profile .yaml file: a bundle of engine.* settings applied as defaults, which configuration files, --set and the environment override"},
	{"engine.stop_after_queue", "", "when every job of this queue has finished, submit no other job and end the run once the running jobs finish (ccra's runs: the LQ generators are killed when the last TQ job ends); empty = off"},
}

// Config is a resolved run configuration.
type Config struct {
	Seed int64
	// System names the system under test (a label for figures and claims).
	System   string
	Workload WorkloadConfig
	Policy   PolicyConfig
	Engine   EngineConfig
	Metrics  MetricsConfig
	Predict  PredictConfig
	// DumpModels, when set, is a directory into which solver-backed policies write every model
	// they solve (`schedlab run --dump-models DIR`). It is not a configuration key: it changes
	// no result, and neither config.yaml nor a sweep's cache key records it.
	DumpModels string
	// Progress, when set, receives a progress line every ProgressEvery (default
	// DefaultProgressEvery) of wall time while the run loads and replays: simulated time,
	// scheduling calls and what the policy is solving. Not a configuration key: it changes no
	// result.
	Progress      io.Writer
	ProgressEvery time.Duration

	// Testbed names the testbed profile whose settings were applied ("" = none).
	Testbed string
}

// PredictConfig selects the online runtime predictor (policies/predict).
type PredictConfig struct {
	Name         string
	Features     []string
	Estimators   []string
	Secondary    bool
	MedianFilter bool
	NoiseBias    float64
	NoiseStd     float64
	// Warm is the Google 2011 trace JVuPredict learns from before the replay ("" = none).
	Warm string
}

// WorkloadConfig selects, generates and shapes the workload. It is comparable, so sweeps can
// key loaded workloads on it.
type WorkloadConfig struct {
	Name      string
	Machines  int
	Pooled    bool
	Generator string // "" reads Name; else a generator (bpf, cora, jamaisvu)
	// Seed is the experiment seed: generators and random shaping steps draw from it.
	Seed int64
	// Settings is the canonical JSON of every shaping key and the generator's keys.
	Settings string
	// Limits bound the workload's size (limits.*). They change no result, so neither
	// config.yaml nor a sweep's cache key records them.
	Limits Limits
}

// PolicyConfig selects and configures the policy.
type PolicyConfig struct {
	Name       string
	Level      string
	Backfill   bool
	ClassOrder []string
	Params     map[string]any
}

// EngineConfig configures the replay engine; times in seconds.
type EngineConfig struct {
	CycleS           float64
	PreemptDelayS    float64
	PreemptKeepsWork bool
	HorizonS         float64
	Oracle           bool
	// DecisionTime is the decision-time mode (decision.go); DecisionTimeS its constant and
	// DecisionTimeScale its factor on measured wall time.
	DecisionTime      string
	DecisionTimeS     float64
	DecisionTimeScale float64
	// Yarn holds the YARN execution mechanics (yarnkeys.go).
	Yarn YarnKeys
	// StopAfterQueue ends the run's submissions when this queue's jobs have all finished
	// (replay.Config.StopAfterQueue); "" = off.
	StopAfterQueue string
	Mechanics      MechanicsConfig // execution mechanics (mechanics.go)
	// InitialState, ClusterEvents and the failure model: see replay's cluster.go.
	InitialState, ClusterEvents  bool
	FailuresMTTFS, FailuresMTTRS float64
	TraceEvictions               string // "replay" or "ignore"
	InitialOvercommit            string // "reject" or "saturate" (replay's cluster.go)
}

// MetricsConfig configures result metrics.
type MetricsConfig struct {
	UsageWindowS float64
	Tasks, Trace bool // record tasks.parquet, trace.json (recording.go)
}

// ErrConfig is wrapped by every configuration error; the CLI exits with status 2 on it.
var ErrConfig = errors.New("config")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// EnvPrefix starts the name of every environment variable schedlab reads.
const EnvPrefix = "SCHEDLAB_"

// EnvName is the environment variable that sets a configuration key: policy.name ↔
// SCHEDLAB_POLICY_NAME.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// NewViper returns a viper instance with every key's default and SCHEDLAB_* environment binding
// (EnvName). An environment variable set to the empty string counts as set, so Resolve rejects
// it where an empty value is not allowed.
func NewViper() *viper.Viper {
	v := viper.New()
	v.SetEnvPrefix(strings.TrimSuffix(EnvPrefix, "_"))
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	v.AllowEmptyEnv(true)
	for _, k := range Keys {
		v.SetDefault(k.Name, k.Default)
	}
	return v
}

func known(key string) bool {
	if strings.HasPrefix(key, "policy.params.") || strings.HasPrefix(key, ParamsForPrefix) {
		return true
	}
	return slices.ContainsFunc(Keys, func(k Key) bool { return k.Name == key })
}

// KeyNames returns every documented key name.
func KeyNames() []string {
	out := make([]string, len(Keys))
	for i, k := range Keys {
		out[i] = k.Name
	}
	return out
}

// CheckKeys rejects keys that are not configuration keys, naming the source they came from and
// suggesting the nearest key names.
func CheckKeys(keys []string, source string) error {
	for _, k := range keys {
		if !known(k) {
			return configErr("unknown config key %q in %s%s", k, source, SuggestOr(k, append(KeyNames(), "policy.params.*"), "; `schedlab config keys` lists them"))
		}
	}
	return nil
}

// SuggestOr returns ", did you mean a or b?" for the names within a small edit distance of name,
// or otherwise.
func SuggestOr(name string, names []string, otherwise string) string {
	if s := suggest(name, names); s != "" {
		return s
	}
	return otherwise
}

// EmptyAllowed reports whether an empty (or null) value means something for a configuration
// key: a string whose default is empty (none), a list (no items), a policy.params.* key (unset).
// Numbers and booleans have no empty value. Unknown keys are CheckKeys' business: true.
func EmptyAllowed(key string) bool {
	i := slices.IndexFunc(Keys, func(k Key) bool { return k.Name == key })
	return i < 0 || emptyAllowed(Keys[i])
}

func emptyAllowed(k Key) bool {
	switch d := k.Default.(type) {
	case string:
		return d == ""
	case []string, []float64:
		return true
	}
	return false
}

// checkEmpty rejects keys set to nothing — `--set engine.cycle_s=`, SCHEDLAB_SEED=, a YAML key
// without a value — unless an empty value means something for them.
func checkEmpty(v *viper.Viper) error {
	for _, k := range Keys {
		if emptyAllowed(k) {
			continue
		}
		x := v.Get(k.Name)
		if s, ok := x.(string); x == nil || ok && strings.TrimSpace(s) == "" {
			return configErr("%s: empty value (omit the key to keep its default, %v)", k.Name, k.Default)
		}
	}
	return nil
}

// MaxSeconds bounds every seconds-valued key the engine converts to int64 microseconds (about
// 31.7 years, as the shaping and generator keys), so the conversion cannot overflow.
const MaxSeconds = 1e9

// integerKey reports whether a key's values are integers (its default is one).
func integerKey(k Key) bool {
	switch k.Default.(type) {
	case int, int32, int64:
		return true
	}
	return false
}

// checkIntegers rejects a value with a fractional part, or beyond int64, for an integer key:
// converting 2.5 to an integer silently dropped the .5.
func checkIntegers(v *viper.Viper) error {
	for _, k := range Keys {
		if !integerKey(k) {
			continue
		}
		if err := integral(v.Get(k.Name)); err != nil {
			return configErr("%s: %v", k.Name, err)
		}
	}
	return nil
}

// integral checks that x, if it is a number or a numeric string, is a whole number within int64;
// other values are left to the key's own conversion.
func integral(x any) error {
	var f float64
	switch t := x.(type) {
	case float32:
		f = float64(t)
	case float64:
		f = t
	case string:
		s := strings.TrimSpace(t)
		if _, err := strconv.ParseInt(s, 0, 64); err == nil {
			return nil
		}
		g, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		f = g
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f >= math.MaxInt64 || f < math.MinInt64 {
		return fmt.Errorf("want an integer, got %v", x)
	}
	if f != math.Trunc(f) {
		return fmt.Errorf("want an integer, got %v; did you mean %.0f or %.0f?", x, math.Floor(f), math.Ceil(f))
	}
	return nil
}

// ApplySet applies "key=value" overrides, rejecting unknown keys and malformed pairs.
func ApplySet(v *viper.Viper, sets []string) error {
	for _, s := range sets {
		k, val, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return configErr("--set %q: want key=value", s)
		}
		if err := CheckKeys([]string{k}, "--set"); err != nil {
			return err
		}
		v.Set(k, val)
	}
	return nil
}

// strList reads a list of strings: a YAML list, or a comma-separated string (--set, env).
func strList(dst *[]string) func(any) error {
	return func(x any) error {
		if s, ok := x.(string); ok {
			*dst = nil
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					*dst = append(*dst, p)
				}
			}
			return nil
		}
		l, e := cast.ToStringSliceE(x)
		*dst = l
		return e
	}
}

// Resolve reads a Config from v, checking every key's type and range.
func Resolve(v *viper.Viper) (Config, error) {
	if err := CheckKeys(v.AllKeys(), "configuration"); err != nil {
		return Config{}, err
	}
	testbed, err := applyTestbed(v)
	if err != nil {
		return Config{}, err
	}
	if err := checkEmpty(v); err != nil {
		return Config{}, err
	}
	if err := checkIntegers(v); err != nil {
		return Config{}, err
	}
	c := Config{Testbed: testbed}
	get := func(key string, f func(any) error) {
		if err == nil {
			if e := f(v.Get(key)); e != nil {
				err = configErr("%s: %v", key, e)
			}
		}
	}
	str := func(dst *string) func(any) error {
		return func(x any) error { s, e := cast.ToStringE(x); *dst = strings.TrimSpace(s); return e }
	}
	boolean := func(dst *bool) func(any) error {
		return func(x any) error {
			b, e := cast.ToBoolE(x)
			if e != nil {
				return fmt.Errorf("not a boolean: %v", x)
			}
			*dst = b
			return nil
		}
	}
	nonNegFloat := func(dst *float64) func(any) error {
		return func(x any) error {
			f, e := cast.ToFloat64E(x)
			if e != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				return fmt.Errorf("want a number ≥ 0, got %v", x)
			}
			*dst = f
			return nil
		}
	}
	// seconds reads a time in seconds that the engine converts to int64 microseconds.
	seconds := func(dst *float64) func(any) error {
		return func(x any) error {
			if e := nonNegFloat(dst)(x); e != nil {
				return e
			}
			if *dst > MaxSeconds {
				return fmt.Errorf("want seconds in [0, %g], got %v", MaxSeconds, x)
			}
			return nil
		}
	}
	get("seed", func(x any) error {
		if s, ok := x.(string); ok {
			n, e := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			c.Seed = n
			if e != nil {
				return fmt.Errorf("want an integer, got %q", s)
			}
			return nil
		}
		n, e := cast.ToInt64E(x)
		c.Seed = n
		return e
	})
	get("workload.name", str(&c.Workload.Name))
	get("workload.machines", func(x any) error {
		n, e := cast.ToIntE(x)
		if e != nil || n < 0 {
			return fmt.Errorf("want an integer ≥ 0, got %v", x)
		}
		c.Workload.Machines = n
		return nil
	})
	get("workload.pooled", boolean(&c.Workload.Pooled))
	get("policy.name", str(&c.Policy.Name))
	get("policy.level", str(&c.Policy.Level))
	get("policy.backfill", boolean(&c.Policy.Backfill))
	get("policy.class_order", strList(&c.Policy.ClassOrder))
	get("engine.cycle_s", seconds(&c.Engine.CycleS))
	get("engine.preempt_delay_s", seconds(&c.Engine.PreemptDelayS))
	get("engine.preempt_keeps_work", boolean(&c.Engine.PreemptKeepsWork))
	get("engine.horizon_s", seconds(&c.Engine.HorizonS))
	get("engine.oracle", boolean(&c.Engine.Oracle))
	get("engine.decision_time", str(&c.Engine.DecisionTime))
	get("engine.decision_time_s", seconds(&c.Engine.DecisionTimeS))
	get("engine.decision_time_scale", nonNegFloat(&c.Engine.DecisionTimeScale))
	get("engine.stop_after_queue", str(&c.Engine.StopAfterQueue))
	if err == nil {
		err = resolveMechanics(v, &c.Engine.Mechanics)
	}
	get("engine.initial_state", boolean(&c.Engine.InitialState))
	get("engine.cluster_events", boolean(&c.Engine.ClusterEvents))
	get("engine.failures_mttf_s", seconds(&c.Engine.FailuresMTTFS))
	get("engine.failures_mttr_s", seconds(&c.Engine.FailuresMTTRS))
	get("engine.trace_evictions", func(x any) error {
		s := cast.ToString(x)
		if s != "replay" && s != "ignore" {
			return fmt.Errorf("want replay or ignore, got %q", s)
		}
		c.Engine.TraceEvictions = s
		return nil
	})
	get("engine.initial_overcommit", oneOf(&c.Engine.InitialOvercommit, "reject", "saturate")) // clusterkeys.go
	get("metrics.usage_window_s", seconds(&c.Metrics.UsageWindowS))
	get("metrics.tasks", boolean(&c.Metrics.Tasks))
	get("metrics.trace", boolean(&c.Metrics.Trace))
	get("predict.name", str(&c.Predict.Name))
	get("predict.features", strList(&c.Predict.Features))
	get("predict.estimators", strList(&c.Predict.Estimators))
	get("predict.secondary", boolean(&c.Predict.Secondary))
	get("predict.median_filter", boolean(&c.Predict.MedianFilter))
	get("predict.noise_bias", func(x any) error {
		f, e := cast.ToFloat64E(x)
		if e != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("want a number, got %v", x)
		}
		c.Predict.NoiseBias = f
		return nil
	})
	get("predict.noise_std", nonNegFloat(&c.Predict.NoiseStd))
	get("predict.warm", str(&c.Predict.Warm))
	get("system", str(&c.System))
	count := func(dst *int64) func(any) error {
		return func(x any) error {
			n, e := cast.ToInt64E(x)
			if e != nil || n < 0 {
				return fmt.Errorf("want an integer ≥ 0, got %v", x)
			}
			*dst = n
			return nil
		}
	}
	l := &c.Workload.Limits
	get("limits.max_tasks", count(&l.MaxTasks))
	get("limits.max_job_tasks", count(&l.MaxJobTasks))
	get("limits.max_stage_tasks", count(&l.MaxStageTasks))
	get("limits.max_machines", count(&l.MaxMachines))
	if err == nil {
		err = resolveYarn(v, &c.Engine.Yarn)
	}
	if err != nil {
		return Config{}, err
	}
	if c.Workload.Machines > 0 {
		if err := l.checkMachines(c.Workload.Machines); err != nil {
			return Config{}, configErr("workload.machines: %v", err)
		}
	}
	c.Workload.Seed = c.Seed
	if err := resolveWorkloadSettings(v, &c.Workload); err != nil {
		return Config{}, err
	}
	if err := pairJamaisVuHorizon(v, &c); err != nil {
		return Config{}, err
	}
	if c.Workload.Name == "" {
		return Config{}, configErr("workload.name: empty")
	}
	if err := checkDecisionTime(c.Engine); err != nil {
		return Config{}, err
	}
	if c.Policy.Level != "job" && c.Policy.Level != "queue" {
		return Config{}, configErr("policy.level: %q (valid: job, queue)", c.Policy.Level)
	}
	c.Policy.Params = map[string]any{}
	for _, k := range v.AllKeys() {
		if p, ok := strings.CutPrefix(k, "policy.params."); ok {
			if val := v.Get(k); val != nil { // a null value (e.g. a sweep axis) leaves the key unset
				setNested(c.Policy.Params, strings.Split(p, "."), val)
			}
		}
	}
	if err := applyScopedParams(v, &c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// setNested stores val under a dotted path, rebuilding the nested maps viper flattens:
// policy.params.weights.q0 = 2 becomes params["weights"] = {"q0": 2}.
func setNested(m map[string]any, path []string, val any) {
	for _, p := range path[:len(path)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = val
}

// Map renders the configuration as nested maps with every key, for config.yaml and hashing.
func (c Config) Map() map[string]any {
	params := map[string]any{}
	for k, v := range c.Policy.Params {
		params[k] = v
	}
	order := nonNil(c.Policy.ClassOrder)
	workload := map[string]any{
		"name": c.Workload.Name, "machines": c.Workload.Machines, "pooled": c.Workload.Pooled,
		"generator": c.Workload.Generator,
	}
	var ws workloadSettings
	if err := json.Unmarshal([]byte(c.Workload.Settings), &ws); err == nil {
		for k, v := range ws.Shape {
			workload[k] = v
		}
		if c.Workload.Generator != "" {
			workload[c.Workload.Generator] = ws.Generator
		}
	}
	m := map[string]any{
		"seed":     c.Seed,
		"workload": workload,
		"policy": map[string]any{
			"name": c.Policy.Name, "level": c.Policy.Level, "backfill": c.Policy.Backfill,
			"class_order": order, "params": params,
		},
		"engine": c.Engine.Yarn.addTo(c.Engine.Mechanics.addTo(map[string]any{
			"cycle_s": c.Engine.CycleS, "preempt_delay_s": c.Engine.PreemptDelayS,
			"preempt_keeps_work": c.Engine.PreemptKeepsWork, "horizon_s": c.Engine.HorizonS,
			"oracle": c.Engine.Oracle,
		})),
		"metrics": recordingKeys(map[string]any{"usage_window_s": c.Metrics.UsageWindowS}, c.Metrics),
		"predict": map[string]any{
			"name": c.Predict.Name, "features": nonNil(c.Predict.Features), "estimators": nonNil(c.Predict.Estimators),
			"secondary": c.Predict.Secondary, "median_filter": c.Predict.MedianFilter,
			"noise_bias": c.Predict.NoiseBias, "noise_std": c.Predict.NoiseStd, "warm": c.Predict.Warm,
		},
		"system": c.System,
	}
	decisionKeys(m["engine"].(map[string]any), c.Engine)
	clusterKeys(m["engine"].(map[string]any), c.Engine)
	c.mapTestbed(m)
	return m
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
