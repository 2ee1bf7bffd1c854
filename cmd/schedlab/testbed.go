package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/calibrate"
	"github.com/schedlab/schedlab/internal/datapath"
)

func newTestbedCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "List testbed profiles and calibrate them from real-cluster logs",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the embedded testbed profiles (the `testbed` configuration key) and their settings",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			for _, name := range experiments.TestbedNames() {
				tb, err := experiments.LoadTestbed(name)
				if err != nil {
					fmt.Fprintf(out, "%s: not loadable: %v\n", name, err)
					continue
				}
				fmt.Fprintf(out, "%s (%s)\n", name, tb.File)
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				for _, s := range tb.Settings {
					fmt.Fprintf(tw, "  %s\t%v\t%s\n", s.Key, s.Value, s.Source)
				}
				tw.Flush()
			}
			return nil
		},
	})
	var asJSON bool
	cal := &cobra.Command{
		Use:   "calibrate DIR",
		Short: "Derive a testbed profile's overheads from Hadoop/YARN + Tez run logs (DIR/calibration.yaml)",
		Long: `Calibrate reads DIR/calibration.yaml — the runs, their cluster and container sizes, which job ids
belong to which queue, and the LQ job's task profile — and each run's yarn_completion_time.csv,
completion_time.csv and yarnUsedResources.csv (as the BPF authors' ccra runs log them; .gz
accepted). It prints the measurements and the engine settings they fix, each with its
derivation: AM start-up, AM-side DAG setup and teardown, per-container holding without work,
the held/profile memory-seconds ratio and the allocation achieved under contention, plus the
scheduler settings of the configuration files (or the Hadoop 2.7 / Tez 0.8 defaults).

The runs of BPF Figs. 9-10 (ccra's b1i3_*) are the testbed claims' validation set: a path
naming one is refused (exit status 2) before anything is read.

Example (the committed slice of three ccra runs):
  schedlab testbed calibrate experiments/calibrate/testdata/ccra`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A repository path (the README's example) works from any directory, as data paths do.
			dir, err := datapath.Resolve(args[0])
			if err != nil {
				return err
			}
			res, err := calibrate.Run(dir)
			if errors.Is(err, calibrate.ErrValidation) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			params, err := res.Profile()
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"measurements": res, "profile": params})
			}
			printCalibration(cmd.OutOrStdout(), res, params)
			return nil
		},
	}
	cal.Flags().BoolVar(&asJSON, "json", false, "print the measurements and settings as JSON")
	cmd.AddCommand(cal)
	return cmd
}

func printCalibration(w io.Writer, r *calibrate.Result, params []calibrate.Param) {
	fmt.Fprintf(w, "calibration from %d runs: %s\n\n", len(r.Runs), strings.Join(r.Runs, ", "))
	fmt.Fprintln(w, "profile settings:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range params {
		fmt.Fprintf(tw, "  %s: %v\t# %s\n", p.Key, p.Value, p.Derivation)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nchecks (not settings):")
	for _, s := range r.Stages {
		fmt.Fprintf(w, "  %s holding without work: %.2f s per task (median over %d job groups; %d skipped, %d undecomposable samples)\n",
			s.Name, s.HoldingS, r.HoldingGroups, r.SkippedGroups, r.Undecomposable)
	}
	fmt.Fprintf(w, "  LQ task containers held %.3f× the profile's memory-seconds\n", r.HeldRatio)
	fmt.Fprintf(w, "  allocated memory share while an LQ DAG and a TQ job both ran: %.3f (over %.0f s)\n", r.Achieved, r.ContendedS)
	fmt.Fprintln(w, "\nscheduler settings of the runs:")
	for _, p := range r.Properties {
		fmt.Fprintf(w, "  %s = %s (%s)\n", p.Name, p.Value, p.Source)
	}
}
