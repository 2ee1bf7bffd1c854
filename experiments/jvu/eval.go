package jvu

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces"
)

// Config is one predictor configuration to replay a trace through.
type Config struct {
	// Name labels the configuration in tables and summaries.
	Name string
	// Predictor is a predict.New name; empty means "jvupredict".
	Predictor string
	// Opts configure the predictor.
	Opts predict.Options
	// Seed seeds the noisy predictor (with the component name "predict/<predictor>").
	Seed int64
	// KeepCands keeps every pair's candidate prediction for every job (JVuPredict only), so
	// that pairs can be evaluated "used alone".
	KeepCands bool
}

// Result is the outcome of replaying a trace through one configuration. Per-job slices are
// indexed by population job (finished jobs, in submission order).
type Result struct {
	Config Config
	// Pairs and Slots name the predictor's feature:estimator pairs and grouping slots (nil for
	// predictors without them).
	Pairs, Slots []string
	// Submitted counts every prediction made (finished or not).
	Submitted int
	// ID, Submit and Actual describe the population jobs; Pred is the prediction, Pair the
	// chosen pair (-1 none) and Score its normalized RMSE at selection (NaN if unscored).
	ID     []int64
	Submit []traces.Time
	Actual []traces.Time
	Pred   []traces.Time
	Pair   []int16
	Score  []float64
	// Cands[p][i] is pair p's candidate for job i (NaN without history), with KeepCands.
	Cands [][]float64
	// NoHistory[s][i] says job i's group in slot s had no completed runtime at its submission
	// (or the slot did not apply to it).
	NoHistory [][]bool
	// Unseen[f][i] says job i's value of primary feature f (Features order of the options) was
	// not submitted by any earlier job.
	Unseen [][]bool
	// Stats is the predictor's final state (JVuPredict only).
	Stats predict.Stats
}

// N returns the population size.
func (r *Result) N() int { return len(r.Actual) }

// Run replays t through the configuration c.
func Run(t *Trace, c Config) (*Result, error) {
	name := c.Predictor
	if name == "" {
		name = predict.JVuName
	}
	p, err := predict.New(name, c.Opts, predict.NewRand(c.Seed, "predict/"+name))
	if err != nil {
		return nil, err
	}
	jvu, _ := p.(*predict.JVu)
	res := &Result{Config: c, Pairs: p.Pairs()}
	n := t.Finished
	res.ID = make([]int64, 0, n)
	res.Submit = make([]traces.Time, 0, n)
	res.Actual = make([]traces.Time, 0, n)
	res.Pred = make([]traces.Time, 0, n)
	res.Pair = make([]int16, 0, n)
	res.Score = make([]float64, 0, n)
	var features []string
	if jvu != nil {
		res.Slots = jvu.Slots()
		features = jvu.Options().Features
		res.NoHistory = make([][]bool, len(res.Slots))
		for s := range res.NoHistory {
			res.NoHistory[s] = make([]bool, 0, n)
		}
		if c.KeepCands {
			res.Cands = make([][]float64, len(res.Pairs))
			for i := range res.Cands {
				res.Cands[i] = make([]float64, 0, n)
			}
		}
	}
	seen := make([]map[string]struct{}, len(features))
	res.Unseen = make([][]bool, len(features))
	for f := range features {
		seen[f] = map[string]struct{}{}
		res.Unseen[f] = make([]bool, 0, n)
	}
	var d predict.Detail
	err = predict.Replay(t.Jobs, p, func(_ int, j *predict.Job) error {
		res.Submitted++
		var e predict.Estimate
		if jvu != nil {
			e = jvu.PredictDetail(j, j.Submit, &d)
		} else {
			e = p.PredictJob(j, j.Submit)
		}
		pop := j.Runtime >= 0
		for f, name := range features {
			v := featureValue(j, name)
			_, was := seen[f][v]
			if !was && v != "" {
				seen[f][v] = struct{}{}
			}
			if pop {
				res.Unseen[f] = append(res.Unseen[f], !was)
			}
		}
		if !pop {
			return nil
		}
		res.ID = append(res.ID, j.ID)
		res.Submit = append(res.Submit, j.Submit)
		res.Actual = append(res.Actual, j.Runtime)
		res.Pred = append(res.Pred, e.Runtime)
		res.Pair = append(res.Pair, int16(e.Pair))
		res.Score = append(res.Score, e.Score)
		if jvu != nil {
			for s := range res.NoHistory {
				res.NoHistory[s] = append(res.NoHistory[s], d.History[s] <= 0)
			}
			for i := range res.Cands {
				res.Cands[i] = append(res.Cands[i], d.Cands[i])
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("jvu: %s: %w", c.Name, err)
	}
	if jvu != nil {
		res.Stats = jvu.Stats()
	}
	return res, nil
}

func featureValue(j *predict.Job, name string) string {
	switch name {
	case "job":
		return j.Features.JobName
	case "ljob":
		return j.Features.LogicalJobName
	case "user":
		return j.Features.User
	}
	return ""
}

// PairPred returns pair p's prediction for job i "used alone": its candidate, or 0 (the
// paper's near-zero estimate) when its group had no history.
func (r *Result) PairPred(p, i int) traces.Time {
	v := r.Cands[p][i]
	if math.IsNaN(v) {
		return 0
	}
	return traces.Time(math.Round(v))
}

// PairIndex returns the index of the named pair, or -1.
func (r *Result) PairIndex(name string) int {
	for i, n := range r.Pairs {
		if n == name {
			return i
		}
	}
	return -1
}

// PairName returns the name of pair p, or "none" for -1.
func (r *Result) PairName(p int) string {
	if p < 0 || p >= len(r.Pairs) {
		return "none"
	}
	return r.Pairs[p]
}

// PairSlot returns the slot index of pair p.
func (r *Result) PairSlot(p int) int {
	if len(r.Slots) == 0 {
		return -1
	}
	return p / (len(r.Pairs) / len(r.Slots))
}

// ErrorSummary describes the relative errors (predicted − actual)/actual of a set of
// predictions, as fractions of the predictions.
type ErrorSummary struct {
	// N is the number of predictions (jobs with a positive runtime).
	N int `json:"n"`
	// Within5 and Within10 are the fractions with |error| ≤ 5% and ≤ 10%.
	Within5  float64 `json:"within_5pct"`
	Within10 float64 `json:"within_10pct"`
	// Under2x is the fraction under-predicted by more than 50% (predicted < actual/2), Over2x
	// over-predicted by more than 100% (predicted > 2·actual); Outside2x is their sum, the
	// paper's "error beyond 2x".
	Under2x   float64 `json:"under_2x"`
	Over2x    float64 `json:"over_2x"`
	Outside2x float64 `json:"outside_2x"`
	// Outside10x is the fraction with predicted < actual/10 or predicted > 10·actual.
	Outside10x float64 `json:"outside_10x"`
	// MedianAbs is the median |error|.
	MedianAbs float64 `json:"median_abs_error"`
}

// Summarize computes the error summary of predictions pred(i) against actual.
func Summarize(actual []traces.Time, pred func(i int) traces.Time) ErrorSummary {
	var s ErrorSummary
	var abs []float64
	for i, a := range actual {
		if a <= 0 {
			continue
		}
		p := pred(i)
		e, _ := predict.RelError(p, a)
		s.N++
		ae := math.Abs(e)
		abs = append(abs, ae)
		if ae <= 0.05 {
			s.Within5++
		}
		if ae <= 0.10 {
			s.Within10++
		}
		switch {
		case 2*p < a:
			s.Under2x++
		case p > 2*a:
			s.Over2x++
		}
		if 10*p < a || p > 10*a {
			s.Outside10x++
		}
	}
	if s.N == 0 {
		return s
	}
	n := float64(s.N)
	s.Within5 /= n
	s.Within10 /= n
	s.Under2x /= n
	s.Over2x /= n
	s.Outside2x = s.Under2x + s.Over2x
	s.Outside10x /= n
	s.MedianAbs = median(abs)
	return s
}

// median returns the median of xs (reordering it).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	k := len(xs) / 2
	nth(xs, k)
	m := xs[k]
	if len(xs)%2 == 0 {
		lo := xs[0]
		for _, x := range xs[:k] {
			lo = math.Max(lo, x)
		}
		m = (m + lo) / 2
	}
	return m
}

// nth partially sorts xs so that xs[k] is the k-th smallest and everything before it is no
// larger (Hoare selection with a deterministic middle pivot).
func nth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		pivot := xs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// Summary returns the error summary of the configuration's own predictions.
func (r *Result) Summary() ErrorSummary {
	return Summarize(r.Actual, func(i int) traces.Time { return r.Pred[i] })
}

// PairSummary returns the error summary of pair p used alone.
func (r *Result) PairSummary(p int) ErrorSummary {
	return Summarize(r.Actual, func(i int) traces.Time { return r.PairPred(p, i) })
}

// Selections counts how often each pair was chosen, in Pairs order.
func (r *Result) Selections() []int {
	out := make([]int, len(r.Pairs))
	for _, p := range r.Pair {
		if p >= 0 {
			out[p]++
		}
	}
	return out
}
