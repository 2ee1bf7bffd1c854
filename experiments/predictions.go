package experiments

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/report/stats"
	"github.com/schedlab/schedlab/traces"
)

// newPredictor builds the run's online runtime predictor from c.Predict. With predict.warm,
// JVuPredict starts from a copy of a predictor that has replayed that trace (warmedJVu); the
// other predictors learn nothing and ignore it, so that one base configuration serves systems
// with and without JVuPredict.
func newPredictor(c Config) (predict.Predictor, error) {
	o := predict.Options{
		Features: c.Predict.Features, Estimators: c.Predict.Estimators, Secondary: c.Predict.Secondary,
		MedianFilter: c.Predict.MedianFilter, NoiseBias: c.Predict.NoiseBias, NoiseSigma: c.Predict.NoiseStd,
	}
	if c.Predict.Warm != "" && c.Predict.Name == predict.JVuName {
		return warmedJVu(c.Predict.Warm, o)
	}
	pr, err := predict.New(c.Predict.Name, o, Rand(c.Seed, "predict/"+c.Predict.Name))
	if err != nil {
		return nil, fmt.Errorf("%w: predict.name: %v", ErrConfig, err)
	}
	return pr, nil
}

// warmCache holds, per (trace, options), a JVuPredict predictor that has replayed the trace:
// every job in submission order, predicted online and fed each completion (predict.Evaluate),
// as on the real cluster before the experiment starts. The month of the Google trace takes
// seconds to replay, so the runs of a process (a sweep's cells) share one and each starts from
// a Clone. The warmed predictor is only read after it is built.
var warmCache = struct {
	sync.Mutex
	m map[string]*warmEntry
}{m: map[string]*warmEntry{}}

type warmEntry struct {
	once sync.Once
	p    *predict.JVu
	err  error
}

func warmedJVu(trace string, o predict.Options) (*predict.JVu, error) {
	// The trace is found from any directory, like the workload's input files.
	trace, err := datapath.Resolve(trace)
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(trace, true); err != nil { // a named pipe would block the warm-up
		return nil, fmt.Errorf("predict.warm: %w", err)
	}
	key := fmt.Sprintf("%s\x00%+v", trace, o)
	warmCache.Lock()
	e := warmCache.m[key]
	if e == nil {
		e = &warmEntry{}
		warmCache.m[key] = e
	}
	warmCache.Unlock()
	e.once.Do(func() {
		p, err := predict.NewJVu(o)
		if err != nil {
			e.err = fmt.Errorf("%w: predict: %v", ErrConfig, err)
			return
		}
		t, err := jvu.Load(trace)
		if err != nil {
			e.err = fmt.Errorf("predict.warm: %w", err)
			return
		}
		if _, err := predict.Evaluate(t.Jobs, p); err != nil {
			e.err = fmt.Errorf("predict.warm: %s: %w", trace, err)
			return
		}
		e.p = p
	})
	if e.err != nil {
		return nil, e.err
	}
	return e.p.Clone(), nil
}

// predictionLog wraps the run's predictor and records, for every job, the prediction made at
// its submission against its true runtime (critical path of true durations, before any
// slowdown or preemption): the error profile the scheduler faced.
type predictionLog struct {
	predict.Predictor
	ids         []int64
	pred, truth []traces.Time
}

func (l *predictionLog) Predict(j *traces.Job, now traces.Time) traces.Time {
	p := l.Predictor.Predict(j, now)
	l.ids = append(l.ids, j.ID)
	l.pred = append(l.pred, p)
	l.truth = append(l.truth, j.CriticalPath(false))
	return p
}

// report returns the predictions table (predictions.parquet: job_id, predicted_s, actual_s,
// rel_error = (predicted − actual)/actual, no_prediction when the predictor had nothing and
// the engine kept the workload's estimate — predicted_s and rel_error are null then, and
// rel_error is null without a positive actual runtime) and the profile's metrics: predict.jobs, the shares
// predict.within_2x (−50% ≤ error ≤ +100%, JamaisVu §6.2), predict.under_2x, predict.over_2x,
// predict.beyond_10x (predicted < actual/10 or > 10 × actual), predict.within_10pct, and
// predict.median_rel_error, over the jobs with a true runtime > 0.
func (l *predictionLog) report() policies.Report {
	n := len(l.ids)
	id := policies.Column{Name: "job_id", Int64: slices.Clone(l.ids)}
	ps := policies.Column{Name: "predicted_s", Float64: make([]float64, n)}
	as := policies.Column{Name: "actual_s", Float64: make([]float64, n)}
	re := policies.Column{Name: "rel_error", Float64: make([]float64, n)}
	none := policies.Column{Name: "no_prediction", Bool: make([]bool, n)}
	var jobs, within2, under2, over2, beyond10, within10, nopred float64
	var errs []float64
	for i := range n {
		p, a := l.pred[i], l.truth[i]
		ps.Float64[i], as.Float64[i] = traces.Seconds(p), traces.Seconds(a)
		none.Bool[i] = p <= 0
		e, ok := predict.RelError(max(p, 0), a)
		re.Float64[i] = e
		// Null in the table (written from NaN): the prediction and its error when there was
		// none, the error when the actual runtime is not positive. The profile's metrics
		// count a job without a prediction at −100% (under 2x).
		if p <= 0 {
			ps.Float64[i], re.Float64[i] = math.NaN(), math.NaN()
		}
		if !ok {
			re.Float64[i] = math.NaN()
			continue
		}
		jobs++
		errs = append(errs, e)
		switch {
		case e < -0.5:
			under2++
		case e > 1:
			over2++
		default:
			within2++
		}
		if float64(p) < float64(a)/10 || float64(p) > 10*float64(a) {
			beyond10++
		}
		if math.Abs(e) <= 0.1 {
			within10++
		}
		if p <= 0 {
			nopred++
		}
	}
	m := map[string]float64{"predict.jobs": jobs}
	if jobs > 0 {
		m["predict.within_2x"] = within2 / jobs
		m["predict.under_2x"] = under2 / jobs
		m["predict.over_2x"] = over2 / jobs
		m["predict.beyond_10x"] = beyond10 / jobs
		m["predict.within_10pct"] = within10 / jobs
		m["predict.no_prediction"] = nopred / jobs
		m["predict.median_rel_error"] = stats.Median(errs)
	}
	return policies.Report{Metrics: m, Tables: []policies.Table{{Name: "predictions", Columns: []policies.Column{id, ps, as, re, none}}}}
}

// mergeReport adds add's metrics and tables to rep (which may be nil) and returns the result.
func mergeReport(rep *policies.Report, add policies.Report) (*policies.Report, error) {
	if rep == nil {
		rep = &policies.Report{}
	}
	if rep.Metrics == nil && len(add.Metrics) > 0 {
		rep.Metrics = map[string]float64{}
	}
	for k, v := range add.Metrics {
		if _, dup := rep.Metrics[k]; dup {
			return nil, fmt.Errorf("metric %s reported twice", k)
		}
		rep.Metrics[k] = v
	}
	rep.Tables = append(rep.Tables, add.Tables...)
	return rep, rep.Validate()
}
