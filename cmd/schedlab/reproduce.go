package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/reproduce"
	"github.com/schedlab/schedlab/experiments/sweep"
)

func newReproduceCmd() *cobra.Command {
	var (
		out, label string
		list, all  bool
		parallel   int
		sets       []string
		every      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run experiment specs' sweeps and render their figures, tables and paper-vs-ours report",
		Long: `Reproduce papers' figures: for each spec, run its sweep (see ` + "`schedlab sweep`" + `), draw its
figures and tables, and check the paper's claims against the results. Writes DIR/report.md and
DIR/index.html (one self-contained page: every figure inline, its paper reference, and a
paper-vs-ours table marking each claim held or not held with the numbers), and under
DIR/<spec ID>/ the sweep's cells.parquet and the figures as SVG, PNG and PDF.

An ID is an embedded spec ("demo/policies"), every spec of a paper ("demo"), or a path to a
spec YAML file. --list shows the embedded specs; --all reproduces all of them.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout := cmd.OutOrStdout()
			if list {
				return listSpecs(cmd)
			}
			if all {
				if len(args) > 0 {
					return usageError{fmt.Errorf("--all takes no IDs")}
				}
				args = experiments.SpecIDs()
			}
			if len(args) == 0 {
				return usageError{fmt.Errorf("name specs to reproduce (see --list), or --all")}
			}
			var ids []string
			for _, a := range args {
				m, err := experiments.MatchSpecs(a)
				if err != nil {
					return err
				}
				for _, id := range m {
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
			}
			var specs []*experiments.Spec
			for _, id := range ids {
				s, err := experiments.LoadSpec(id)
				if err != nil {
					return err
				}
				specs = append(specs, s)
			}
			tuneGC()
			rep, err := reproduce.Run(cmd.Context(), specs, reproduce.Options{
				Out: out, Label: label, Sets: sets, Parallel: parallel,
				Progress: stdout, Terminal: sweep.IsTerminal(stdout), ProgressEvery: every,
			})
			if err != nil {
				return err
			}
			held, total := rep.Held()
			fmt.Fprintf(stdout, "claims held: %d of %d\nwrote %s and %s\n", held, total, filepath.Join(out, reproduce.ReportFile), filepath.Join(out, reproduce.IndexFile))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "reproduce", "output directory")
	f.StringVar(&label, "label", "paper", "size label: quick (CI) or paper (published scale)")
	f.BoolVar(&list, "list", false, "list the embedded specs")
	f.BoolVar(&all, "all", false, "reproduce every embedded spec")
	f.IntVar(&parallel, "parallel", runtime.GOMAXPROCS(0), "number of cells run at once")
	f.StringArrayVar(&sets, "set", nil, "override a base key of every spec, or keep one value of an axis (repeatable)")
	f.DurationVar(&every, "progress-interval", 10*time.Second, "interval of progress lines when stdout is not a terminal")
	return cmd
}

func listSpecs(cmd *cobra.Command) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tTITLE\tFIGURES\tCELLS (quick / paper)\n")
	for _, id := range experiments.SpecIDs() {
		s, err := experiments.LoadSpec(id)
		if err != nil {
			return err
		}
		var figs []string
		for _, f := range s.Figures {
			figs = append(figs, f.ID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d / %d\n", id, s.Title, strings.Join(figs, ", "), cellCount(s, "quick"), cellCount(s, "paper"))
	}
	return tw.Flush()
}

// cellCount counts a labelled spec's cells without resolving them.
func cellCount(s *experiments.Spec, label string) int {
	l, err := s.WithLabel(label)
	if err != nil {
		return 0
	}
	n := len(l.Seeds.Values())
	for _, g := range l.Axes {
		n *= g.Len()
	}
	return n
}
