package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments/compare"
	"github.com/schedlab/schedlab/experiments/sweep"
)

func newCompareCmd() *cobra.Command {
	var (
		opts   compare.Options
		format string
		fail   bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two result sets per policy, axis values and metric, benchstat-style",
		Long: `Compare two result sets: run outputs (a directory with summary.json, or a directory of such
directories, e.g. one per seed) or sweep outputs (a directory with cells.parquet). For each group
of configuration values (policy, axis values) and metric it prints both means with 95% CIs across
seeds, the relative change with a bootstrap 95% CI, and a significance test: Mann-Whitney U when
there are enough seeds to reach --alpha (4+ per side at 0.05), else whether the bootstrap
interval at 1-alpha excludes zero; one run per side compares exactly.

Each metric declares whether lower (↓: JCTs, makespan, SLO miss rate) or higher (↑:
utilization, goodput, utility) is better; a significant move the wrong way by more than
--threshold is a REGRESSION. With --fail-on-regression the exit status is 1 if there is one, so
a policy change can be gated in CI.

Only like is compared with like: results whose spec, label, axes, --set overrides, seeds,
workload (content hash) or configurations differ are refused (exit 2, naming the first
difference) unless --allow-mismatch, which compares only the configurations both sides share
and lists the others. Samples are grouped by their whole resolved configuration (read from each
cell's summary.json), so different configurations are never pooled into one group.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" {
				return usageError{fmt.Errorf("--format %q: want text or markdown", format)}
			}
			base, err := compare.Load(args[0])
			if err != nil {
				return err
			}
			next, err := compare.Load(args[1])
			if err != nil {
				return err
			}
			res, err := compare.Compare(base, next, opts)
			if err != nil {
				return err
			}
			if format == "markdown" {
				err = res.WriteMarkdown(cmd.OutOrStdout())
			} else {
				err = res.WriteText(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			if fail && res.Regressions > 0 {
				return fmt.Errorf("%w: %s moved significantly the wrong way beyond %g%%", compare.ErrRegression, sweep.Plural(res.Regressions, "metric", "metrics"), 100*res.Options.Threshold)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&opts.Alpha, "alpha", 0.05, "significance level")
	f.Float64Var(&opts.Threshold, "threshold", 0.02, "smallest relative change the wrong way that is a regression (0.02 = 2%)")
	f.StringArrayVar(&opts.Metrics, "metric", nil, "compare only these metrics; names or patterns like 'utilization.*' (repeatable; default: every top-level metric with a direction)")
	f.StringVar(&opts.Test, "test", compare.TestAuto, "significance test: auto, mw (Mann-Whitney U) or bootstrap")
	f.StringVar(&format, "format", "text", "output format: text or markdown")
	f.BoolVar(&fail, "fail-on-regression", false, "exit with status 1 when a metric regressed")
	f.BoolVar(&opts.AllowMismatch, "allow-mismatch", false, "compare result sets of different specs, labels, axes, seeds or workloads on the configurations they share")
	return cmd
}
