package jvu

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces/google2011"
)

// PredictOptions configure Predict, the engine of `schedlab predict`.
type PredictOptions struct {
	// Trace lists the input paths (see Load).
	Trace []string
	// Predictor is "jvupredict" (default), "oracle" or "noisy".
	Predictor string
	// Opts configure the predictor.
	Opts predict.Options
	// Seed seeds the noisy predictor.
	Seed int64
	// OutDir, when set, receives predictions.parquet and summary.json.
	OutDir string
}

// Predict loads the trace, replays it through the predictor and, with OutDir, writes the
// per-job predictions and the summary. It returns the summary.
func Predict(o PredictOptions) (Summary, error) {
	if len(o.Trace) == 0 {
		return Summary{}, errors.New("jvu: no trace given")
	}
	name := o.Predictor
	if name == "" {
		name = predict.JVuName
	}
	// Reject bad names and options before reading the trace.
	if _, err := predict.New(name, o.Opts, predict.NewRand(o.Seed, "predict/"+name)); err != nil {
		return Summary{}, err
	}
	src, err := google2011.SourceOf(o.Trace...)
	if err != nil {
		return Summary{}, err
	}
	if !o.Opts.Secondary {
		src.TaskEvents = nil // the requests are used only as secondary features
	}
	t, err := LoadSource(src)
	if err != nil {
		return Summary{}, err
	}
	r, err := Run(t, Config{Name: name, Predictor: name, Opts: o.Opts, Seed: o.Seed})
	if err != nil {
		return Summary{}, err
	}
	if o.OutDir != "" {
		if err := WriteOutputs(o.OutDir, t, r); err != nil {
			return Summary{}, err
		}
	}
	return r.SummaryDoc(t), nil
}

// FprintSummary writes a human-readable summary of a predictor's replay: the error profile
// and, for JVuPredict, the pairs it selected most.
func FprintSummary(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	e := s.Errors
	row("predictor", s.Predictor+options(s))
	row("jobs", fmt.Sprintf("%d submitted, %d finished (the population)", s.Submitted, s.Population))
	row("within 5% / 10%", pct(e.Within5)+" / "+pct(e.Within10))
	row("beyond 2x", fmt.Sprintf("%s (under %s, over %s)", pct(e.Outside2x), pct(e.Under2x), pct(e.Over2x)))
	row("beyond 10x", pct(e.Outside10x))
	row("median |error|", pct(e.MedianAbs))
	if s.Predictor == predict.JVuName {
		row("no history", pct(s.NoHistory)+" of jobs had no history for any feature value")
		top := topPairs(s.Selections, 5)
		row("most selected", strings.Join(top, ", "))
	}
	return tw.Flush()
}

func options(s Summary) string {
	o := s.Options
	switch s.Predictor {
	case predict.NoisyName:
		return fmt.Sprintf(" (bias %g%%, sigma %g%%, seed %d)", o.NoiseBias, o.NoiseSigma, s.Seed)
	case predict.JVuName:
		f, e := o.Features, o.Estimators
		if len(f) == 0 {
			f = predict.FeatureNames()
		}
		if len(e) == 0 {
			e = predict.EstimatorNames()
		}
		extra := ""
		if o.Secondary {
			extra += ", secondary features"
		}
		if o.MedianFilter {
			extra += ", median filter"
		}
		return fmt.Sprintf(" (features %s; estimators %s%s)", strings.Join(f, ","), strings.Join(e, ","), extra)
	}
	return ""
}

// topPairs returns the n most selected pairs as "pair share", most selected first (ties in
// pair order).
func topPairs(sel []PairCount, n int) []string {
	sorted := slices.Clone(sel)
	slices.SortStableFunc(sorted, func(a, b PairCount) int { return b.Selected - a.Selected })
	var out []string
	for _, c := range sorted[:min(n, len(sorted))] {
		if c.Selected > 0 {
			out = append(out, fmt.Sprintf("%s %s", c.Pair, pct(c.Fraction)))
		}
	}
	return out
}
