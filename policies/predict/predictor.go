// Package predict holds the job-runtime predictors the replay engine and the trace evaluations
// consult at job submission: "oracle" (the true runtime), "noisy" (the true runtime with seeded
// Gaussian relative error) and "jvupredict", the black-box predictor of JamaisVu (Tumanov et al.,
// CMU-PDL-16-104, §3).
//
// A predictor is online: it is asked for a job's runtime when the job is submitted and told each
// job's true runtime when the job completes. JVuPredict learns only from those completions, so a
// prediction depends on nothing but the completions fed to it before the prediction — the
// timeline in Replay feeds a completion at time t only to predictions for submissions at times
// strictly after t.
//
// Two method sets are offered: Predictor (Predict/Observe on *traces.Job) is the replay engine's
// hook; Model (PredictJob/ObserveJob/Forget on *Job) is the lighter one the trace evaluation
// drives with jobs read straight from a trace. Every predictor implements both.
package predict

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Names of the predictors New builds.
const (
	OracleName = "oracle"
	NoisyName  = "noisy"
	JVuName    = "jvupredict"
)

// Names returns the predictor names New accepts, sorted.
func Names() []string { return []string{JVuName, NoisyName, OracleName} }

// ErrUnknown is wrapped by the error New returns for a name it does not know.
var ErrUnknown = errors.New("predict: unknown predictor")

// ErrOptions is wrapped by every error about invalid Options.
var ErrOptions = errors.New("predict: invalid options")

// Job is what a predictor is told about a job. Submission-time fields (ID, Submit, Features,
// CPU, Mem, Tasks) are what history-based predictors may use; End and Runtime are the truth,
// read only by the oracle and noisy predictors and by Replay to schedule the completion.
type Job struct {
	// ID identifies the job; at most one submission of an ID may be pending at a time.
	ID int64
	// Submit is the submission time.
	Submit traces.Time
	// End is the completion time, or -1 when the job never completes (killed, failed, or still
	// running when the trace ends).
	End traces.Time
	// Runtime is the true runtime (completion minus first start), or -1 when the job never
	// completes.
	Runtime traces.Time
	// Features are the job's primary features (user, job name, logical job name); an empty
	// value means unknown.
	Features traces.Features
	// CPU and Mem are the job's total requested cpu and memory (summed over its tasks, in the
	// trace's normalized units); NaN when unknown.
	CPU, Mem float64
	// Tasks is the job's task count; 0 when unknown.
	Tasks int32
}

// Estimate is one prediction.
type Estimate struct {
	// Runtime is the predicted runtime; 0 when the predictor has nothing to go on (JVuPredict
	// before the first completion).
	Runtime traces.Time
	// Pair is the index (into the predictor's Pairs) of the feature-value:estimator pair that
	// produced the prediction, or -1 for predictors without pairs and for "no history".
	Pair int
	// Score is the selected pair's normalized RMSE at selection time; NaN when the pair had not
	// been scored yet or the predictor does not score.
	Score float64
}

// Model is the submission-time interface the trace evaluation (Replay) drives.
type Model interface {
	// Name is the predictor's registry name.
	Name() string
	// PredictJob predicts j's runtime at its submission time now.
	PredictJob(j *Job, now traces.Time) Estimate
	// ObserveJob reports that j completed after running for runtime.
	ObserveJob(j *Job, runtime traces.Time)
	// Forget drops whatever the predictor keeps for a submitted job that will never complete
	// (so that its memory is bounded by the jobs in flight).
	Forget(id int64)
	// Pairs names the feature-value:estimator pairs Estimate.Pair indexes (nil if none).
	Pairs() []string
}

// Predictor is the replay engine's estimator hook. Predict is called when a job is submitted
// and returns its predicted runtime; Observe is called when a job completes, with its true
// runtime (the engine's completion time minus the job's first task start).
type Predictor interface {
	Model
	// Predict returns j's predicted runtime at its submission time now.
	Predict(j *traces.Job, now traces.Time) traces.Time
	// Observe reports that j completed after running for runtime.
	Observe(j *traces.Job, runtime traces.Time)
}

// Options configure a predictor. The zero value selects the paper's defaults; fields a
// predictor does not use are ignored.
type Options struct {
	// Features are JVuPredict's primary features, in tie-break order: "job" (job name), "ljob"
	// (logical job name), "user". Empty selects all three. The catch-all "all" group is always
	// kept.
	Features []string `json:"features"`
	// Estimators are JVuPredict's estimators, in tie-break order: "average", "median",
	// "rolling", "recent". Empty selects all four.
	Estimators []string `json:"estimators"`
	// Secondary refines each primary feature's groups by the job's total requested cpu, total
	// requested memory and task count (one refined group per primary × secondary), each
	// discretized as the paper says: values in (0, 1] to the nearest tenth, above 1 to the
	// nearest integer.
	Secondary bool `json:"secondary"`
	// MedianFilter adds, for every group, a median-filtered copy of its history — a runtime
	// more than OutlierSigmas standard deviations from the history's mean is replaced by the
	// history's median — whose estimators are offered to the selection as extra pairs.
	MedianFilter bool `json:"median_filter"`
	// Alpha is the rolling estimator's weight of the newest runtime; 0 selects 0.5.
	Alpha float64 `json:"alpha,omitempty"`
	// RecentN is the window of the recent estimator; 0 selects 20.
	RecentN int `json:"recent_n,omitempty"`
	// OutlierSigmas is the median filter's outlier threshold in standard deviations; 0
	// selects 3.
	OutlierSigmas float64 `json:"outlier_sigmas,omitempty"`
	// NoiseBias and NoiseSigma are the mean and standard deviation, in percent, of the noisy
	// predictor's relative error e: a prediction is runtime × (1 + e/100).
	NoiseBias  float64 `json:"noise_bias,omitempty"`
	NoiseSigma float64 `json:"noise_sigma,omitempty"`
}

// Default parameter values (JamaisVu §3.3, §3.4).
const (
	DefaultAlpha         = 0.5
	DefaultRecentN       = 20
	DefaultOutlierSigmas = 3.0
	// MinOutlierHistory is the history length from which the median filter tests for outliers.
	MinOutlierHistory = 3
)

// FeatureNames lists the primary feature names in their default order.
func FeatureNames() []string { return []string{"job", "ljob", "user"} }

// EstimatorNames lists the estimator names in their default order.
func EstimatorNames() []string { return []string{"average", "median", "rolling", "recent"} }

// ParseList splits a comma-separated flag value into trimmed, non-empty names.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if len(o.Features) == 0 {
		o.Features = FeatureNames()
	}
	if len(o.Estimators) == 0 {
		o.Estimators = EstimatorNames()
	}
	if err := checkNames("feature", o.Features, FeatureNames()); err != nil {
		return o, err
	}
	if err := checkNames("estimator", o.Estimators, EstimatorNames()); err != nil {
		return o, err
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha <= 1) {
		return o, fmt.Errorf("%w: rolling alpha %v is not in (0, 1]", ErrOptions, o.Alpha)
	}
	if o.RecentN == 0 {
		o.RecentN = DefaultRecentN
	}
	if o.RecentN < 1 {
		return o, fmt.Errorf("%w: recent window %d is not positive", ErrOptions, o.RecentN)
	}
	if o.OutlierSigmas == 0 {
		o.OutlierSigmas = DefaultOutlierSigmas
	}
	if !(o.OutlierSigmas > 0) || math.IsInf(o.OutlierSigmas, 0) {
		return o, fmt.Errorf("%w: outlier threshold %v sigmas is not a positive number", ErrOptions, o.OutlierSigmas)
	}
	if math.IsNaN(o.NoiseBias) || math.IsInf(o.NoiseBias, 0) || !(o.NoiseSigma >= 0) || math.IsInf(o.NoiseSigma, 0) {
		return o, fmt.Errorf("%w: noise bias %v / sigma %v must be finite and sigma ≥ 0", ErrOptions, o.NoiseBias, o.NoiseSigma)
	}
	return o, nil
}

func checkNames(what string, got, valid []string) error {
	seen := map[string]bool{}
	for _, g := range got {
		if !slices.Contains(valid, g) {
			return fmt.Errorf("%w: unknown %s %q (valid: %s)", ErrOptions, what, g, strings.Join(valid, ", "))
		}
		if seen[g] {
			return fmt.Errorf("%w: %s %q listed twice", ErrOptions, what, g)
		}
		seen[g] = true
	}
	return nil
}

// New builds the predictor called name with options opts. r is the random source of the noisy
// predictor (required for it, ignored by the others); derive it from the experiment seed and a
// component name with NewRand.
func New(name string, opts Options, r *rand.Rand) (Predictor, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	switch name {
	case OracleName:
		return Oracle{}, nil
	case NoisyName:
		if r == nil {
			return nil, fmt.Errorf("%w: the noisy predictor needs a random source", ErrOptions)
		}
		return &Noisy{Bias: o.NoiseBias, Sigma: o.NoiseSigma, r: r}, nil
	case JVuName:
		return newJVu(o), nil
	}
	return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
}

// NewRand returns a generator seeded from the experiment seed and a component name (FNV-1a of
// the name), so that components draw independent, reproducible streams.
func NewRand(seed int64, component string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(component))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// FromTraces converts a replayed job to a predictor Job. CPU and Mem sum the first two resource
// dimensions (cpu, mem by the workload convention) over all tasks; Tasks counts them. With
// truth set, Runtime is the job's critical path of true task durations (its runtime with
// unlimited resources) — what the oracle returns; otherwise Runtime and End are -1.
func FromTraces(j *traces.Job, truth bool) Job {
	q := Job{ID: j.ID, Submit: j.Submit, End: -1, Runtime: -1, Features: j.Features, CPU: math.NaN(), Mem: math.NaN()}
	if len(j.Stages) > 0 {
		var cpu, mem float64
		for i := range j.Stages {
			s := &j.Stages[i]
			cpu += float64(s.Tasks) * s.Demand.Float(0)
			mem += float64(s.Tasks) * s.Demand.Float(1)
		}
		q.CPU, q.Mem = cpu, mem
		q.Tasks = int32(min(j.Tasks(), math.MaxInt32))
	}
	if truth {
		q.Runtime = j.CriticalPath(false)
		q.End = j.Submit + q.Runtime
	}
	return q
}

// Oracle predicts every job's true runtime. On a replayed job it returns the critical path of
// the job's true task durations (traces.Job.CriticalPath(false)); on a trace Job, its Runtime
// (0 for a job that never completes).
type Oracle struct{}

var _ Predictor = Oracle{}

// Name returns "oracle".
func (Oracle) Name() string { return OracleName }

// Pairs returns nil: the oracle has no feature-value:estimator pairs.
func (Oracle) Pairs() []string { return nil }

// PredictJob returns j's true runtime.
func (Oracle) PredictJob(j *Job, _ traces.Time) Estimate {
	return Estimate{Runtime: max(j.Runtime, 0), Pair: -1, Score: math.NaN()}
}

// ObserveJob does nothing: the oracle does not learn.
func (Oracle) ObserveJob(*Job, traces.Time) {}

// Forget does nothing.
func (Oracle) Forget(int64) {}

// Predict returns j's critical path of true task durations.
func (Oracle) Predict(j *traces.Job, _ traces.Time) traces.Time { return j.CriticalPath(false) }

// Observe does nothing.
func (Oracle) Observe(*traces.Job, traces.Time) {}

// Noisy predicts runtime × (1 + e/100) with e ~ N(Bias, Sigma) drawn from its generator,
// rounded to the microsecond and never below 1 µs. Draws happen in call order, so a replay
// is reproducible from the generator's seed.
type Noisy struct {
	// Bias and Sigma are the mean and standard deviation of e, in percent.
	Bias, Sigma float64
	r           *rand.Rand
}

var _ Predictor = (*Noisy)(nil)

// Name returns "noisy".
func (*Noisy) Name() string { return NoisyName }

// Pairs returns nil.
func (*Noisy) Pairs() []string { return nil }

func (n *Noisy) perturb(truth traces.Time) traces.Time {
	e := n.Bias + n.Sigma*n.r.NormFloat64()
	return max(traces.Time(math.Round(float64(truth)*(1+e/100))), 1)
}

// PredictJob returns j's true runtime perturbed (1 µs for a job that never completes; the draw
// is still made so that the stream does not depend on the truth).
func (n *Noisy) PredictJob(j *Job, _ traces.Time) Estimate {
	return Estimate{Runtime: n.perturb(max(j.Runtime, 0)), Pair: -1, Score: math.NaN()}
}

// ObserveJob does nothing.
func (*Noisy) ObserveJob(*Job, traces.Time) {}

// Forget does nothing.
func (*Noisy) Forget(int64) {}

// Predict returns j's critical path of true task durations, perturbed.
func (n *Noisy) Predict(j *traces.Job, _ traces.Time) traces.Time {
	return n.perturb(j.CriticalPath(false))
}

// Observe does nothing.
func (*Noisy) Observe(*traces.Job, traces.Time) {}
