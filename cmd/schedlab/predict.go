package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/policies/predict"
)

func newPredictCmd() *cobra.Command {
	var (
		traces                []string
		predictor, out        string
		features, estimators  string
		secondary, filter     bool
		seed                  int64
		noiseBias, noiseSigma float64
		quiet                 bool
	)
	cmd := &cobra.Command{
		Use:   "predict --trace FILE|DIR",
		Short: "Replay a Google 2011 trace through a job-runtime predictor and score its predictions",
		Long: `Replay a Google 2011 cluster trace through a job-runtime predictor, online: each job is predicted
at its submission from the jobs that completed strictly before it, and each completion is fed
back when it happens. The default predictor is JVuPredict (JamaisVu §3); "oracle" returns the
true runtime and "noisy" the true runtime × (1 + e/100) with e ~ N(--noise-bias, --noise-sigma).

--trace is a trace root directory (job_events/ and, for --secondary, task_events/), a table
directory, or part files; repeat it or separate paths with commas. The jobs scored are those
whose final state is FINISH; runtime is first SCHEDULE to last FINISH.

With --out DIR it writes DIR/predictions.parquet (per job: id, submit, actual, predicted, chosen
pair, its normalized RMSE, relative error) and DIR/summary.json, each atomically.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(traces) == 0 {
				return usageError{errors.New("--trace is required")}
			}
			if err := resolveData(traces, nil); err != nil {
				return err
			}
			o := jvu.PredictOptions{
				Trace: traces, Predictor: predictor, Seed: seed, OutDir: out,
				Opts: predict.Options{
					Features: predict.ParseList(features), Estimators: predict.ParseList(estimators),
					Secondary: secondary, MedianFilter: filter, NoiseBias: noiseBias, NoiseSigma: noiseSigma,
				},
			}
			start := time.Now()
			s, err := jvu.Predict(o)
			if errors.Is(err, predict.ErrUnknown) || errors.Is(err, predict.ErrOptions) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if quiet {
				return nil
			}
			if err := jvu.FprintSummary(cmd.OutOrStdout(), s); err != nil {
				return err
			}
			if out != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s\n", filepath.Join(out, jvu.PredictionsFile), filepath.Join(out, jvu.SummaryFile))
			}
			// Wall-clock time is engine statistics, not a result: stderr keeps stdout reproducible.
			fmt.Fprintf(cmd.ErrOrStderr(), "replayed %d jobs in %.1f s\n", s.Submitted, time.Since(start).Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&traces, "trace", nil, "Google 2011 trace: root directory, table directory or part files (repeatable); data:google2011 in the shared data folder")
	f.StringVar(&predictor, "predictor", predict.JVuName, "predictor: jvupredict, oracle or noisy")
	f.StringVar(&features, "features", "", "JVuPredict primary features, comma separated (default job,ljob,user)")
	f.StringVar(&estimators, "estimators", "", "JVuPredict estimators, comma separated (default average,median,rolling,recent)")
	f.BoolVar(&secondary, "secondary", false, "refine feature groups by requested cpu, memory and task count (needs task_events)")
	f.BoolVar(&filter, "median-filter", false, "offer median-filtered histories (outliers beyond 3σ replaced by the median) as extra candidates")
	f.Int64Var(&seed, "seed", 1, "seed of the noisy predictor")
	f.Float64Var(&noiseBias, "noise-bias", 0, "noisy predictor: mean relative error in percent")
	f.Float64Var(&noiseSigma, "noise-sigma", 0, "noisy predictor: standard deviation of the relative error in percent")
	f.StringVar(&out, "out", "", "directory for predictions.parquet and summary.json")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing on success")
	addDataFlag(cmd)
	return cmd
}
