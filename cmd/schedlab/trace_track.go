package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/tracecheck"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// newTraceTrackCmd is `trace track`: the replay under the trace's own placements against the
// trace (experiments/tracecheck).
func newTraceTrackCmd() *cobra.Command {
	var (
		binS   float64
		figure string
		sets   []string
	)
	cmd := &cobra.Command{
		Use:   "track FILE [--bin-s 300] [--figure PATH.svg]",
		Short: "Replay a workload with the trace's own placements and compare its allocation over time with the trace's",
		Long: `Replay a canonical workload that carries its trace placements (trace import google2011
--placements) under the trace policy, and compare the cluster's CPU and memory allocation over
time, in bins of --bin-s seconds, with the trace's own (each task holding its request from its
trace start for its duration): for the workload's tasks alone and with the initial holds. Prints
the tracking error (mean and largest absolute difference, % of capacity) and how the replay
followed the placements; --figure draws the CPU curves (.svg, .png or .pdf). --set engine.KEY=V
sets the replay's engine keys (engine.initial_overcommit=saturate, say); policy keys are not
used.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := resolveData(args, nil); err != nil {
				return err
			}
			if !(binS >= 1) {
				return usageError{fmt.Errorf("trace track: --bin-s %v must be at least 1 second", binS)}
			}
			v := experiments.NewViper()
			if err := experiments.ApplySet(v, sets); err != nil {
				return err
			}
			cfg, err := experiments.Resolve(v)
			if err != nil {
				return err
			}
			w, err := canonical.Read(args[0])
			if err != nil {
				return err
			}
			c, err := tracecheck.Compare(w, traces.FromSeconds(binS), cfg.EngineConfig())
			if err != nil {
				return fmt.Errorf("trace track: %s: %w", args[0], err)
			}
			out := cmd.OutOrStdout()
			p := c.Policy
			fmt.Fprintf(out, "placements: %d on time, %d late (mean %.1f s), %d moved to another machine, %d without one; %d of %d initial holds rejected\n",
				p.OnTime, p.Late, meanLate(p), p.Moved, p.Unplaced, c.HoldsRejected, len(w.Initial))
			fmt.Fprintf(out, "tracking error, tasks:  cpu mean %.2f%% max %.2f%%, mem mean %.2f%% max %.2f%% of capacity\n",
				100*c.MeanAbs[0], 100*c.MaxAbs[0], 100*c.MeanAbs[1], 100*c.MaxAbs[1])
			fmt.Fprintf(out, "tracking error, totals: cpu mean %.2f%% max %.2f%%, mem mean %.2f%% max %.2f%% of capacity (%d bins of %g s)\n",
				100*c.TotalMeanAbs[0], 100*c.TotalMaxAbs[0], 100*c.TotalMeanAbs[1], 100*c.TotalMaxAbs[1], len(c.Trace.T), binS)
			if figure != "" {
				f := c.Figure("trace-track", "The trace and its replay under the trace policy")
				if err := os.MkdirAll(filepath.Dir(figure), 0o755); err != nil {
					return fmt.Errorf("--figure: %w", err)
				}
				if err := f.Render(figure); err != nil {
					return fmt.Errorf("--figure %s: %w", figure, err)
				}
				fmt.Fprintf(out, "wrote %s\n", figure)
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&binS, "bin-s", 300, "bin length in seconds")
	cmd.Flags().StringVar(&figure, "figure", "", "draw the CPU curves into this file (.svg, .png, .pdf)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override an engine key: --set engine.initial_overcommit=saturate (repeatable)")
	addDataFlag(cmd)
	return cmd
}

// printPlacements writes `trace stats`' line for a workload's trace placements, none without.
func printPlacements(w io.Writer, ps []traces.TaskPlacement) {
	if len(ps) == 0 {
		return
	}
	machines := make(map[int32]struct{})
	first, last := ps[0].Start, ps[0].Start
	for _, p := range ps {
		machines[p.Machine] = struct{}{}
		first, last = min(first, p.Start), max(last, p.Start)
	}
	fmt.Fprintf(w, "placements       %d tasks with the trace's machine and start (%d machines), starts from %s to %s (policy trace)\n",
		len(ps), len(machines), fmtTime(first), fmtTime(last))
}

func meanLate(p tracecheck.PolicyStats) float64 {
	if p.Late == 0 {
		return 0
	}
	return traces.Seconds(p.LateTotal) / float64(p.Late)
}
