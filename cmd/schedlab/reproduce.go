package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/experiments/reproduce"
	"github.com/schedlab/schedlab/experiments/sweep"
)

func newReproduceCmd() *cobra.Command {
	var (
		out, label string
		jvTrace    string
		list, all  bool
		strict     bool
		parallel   int
		sets       []string
		every      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run experiment specs' sweeps and the JamaisVu predictor analyses; render figures, tables and a paper-vs-ours report",
		Long: `Reproduce papers' figures: for each spec, run its sweep (see ` + "`schedlab sweep`" + `), draw its
figures and tables, and check the paper's claims against the results. Writes DIR/report.md,
DIR/index.html (one self-contained page: every figure inline, its paper reference, its
reference numbers beside ours, and its claims, each with our effect and 95% interval, the
paper's number where the claim quotes one, the margin or tolerance, and the verdict),
DIR/claims.json (the same verdicts, numbers and tests as data: experiments/reproduce/README.md),
and under DIR/<spec ID>/ the sweep's cells.parquet and the figures as SVG, PNG and PDF.

Each claim is judged with statistics over seeds: held (significant at α = 0.05 and beyond its
practical margin), not significant, or not held (see experiments/sweep/README.md). The command
prints the tally and exits 0 whatever the verdicts; with --strict it exits 1 when a counted claim
is not held or could not be evaluated, for CI gates. The JamaisVu reproductions' claims at
--label quick are shown but not counted: their fixture is too small for the paper's claims.
Claims on cells the label does not run (a seed or setting only --label paper runs) are shown
as "not evaluable at this label" and not counted either.

A reproduction that fails (a cell's error, say) gets a section with its error; the report is
written for the others, replacing the earlier report whole, and the command exits 1 after
printing the tally. Progress lines (each figure drawn) go to stderr.

An ID is an embedded spec ("demo/policies", or its alias "demo-policies": "bpf-fig9" is
bpf/fig9), every spec of a paper ("demo"), a path to a spec
YAML file, a JamaisVu runtime-predictor reproduction (jv-table1, jv-fig3, jv-fig11, jv-fig12,
jv-fig13, jv-refine), or "jv" for all of those. IDs may be mixed; the report has one section per
ID, in the order given. --list shows them all; --all reproduces them all. A name wins over a
file or directory of that name in the working directory; an ID ending in .yaml or .yml is always
a file, and ./NAME reads a file named like a spec.

The JamaisVu reproductions replay the Google 2011 trace through JVuPredict (see
` + "`schedlab predict`" + `) and write their figures and <id>.md pages under DIR/jvu/; --set does
not apply to them. At --label quick they read the committed fixture
experiments/jvu/testdata/google2011 (compiled into schedlab). At --label paper they read the
month: --jv-trace DIR if given, else $SCHEDLAB_GOOGLE2011 when set, else google2011/ in the
shared data folder. To get it:

  schedlab trace fetch google2011 --dest DIR --tables job_events   # add task_events for jv-refine
  schedlab reproduce jv --label paper --jv-trace DIR

Reproductions run from any directory. Specs name the public traces they need as
data:<path> or ../shared/data/<path>, found in the shared data folder: --data DIR, else
$SCHEDLAB_SHARED_DATA, else ../shared/data beside the repository; the small scenario files and
trace slices they need are compiled into schedlab.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout := cmd.OutOrStdout()
			if list {
				return listSpecs(cmd)
			}
			if err := checkParallel(parallel); err != nil {
				return err
			}
			if err := checkInterval(every); err != nil {
				return err
			}
			if all {
				if len(args) > 0 {
					return usageError{fmt.Errorf("--all takes no IDs")}
				}
				args = reproduce.AllIDs()
			}
			if len(args) == 0 {
				return usageError{fmt.Errorf("name specs or jv reproductions to reproduce (see --list), or --all")}
			}
			if jvTrace != "" {
				p := []string{jvTrace}
				if err := resolveData(p, nil); err != nil {
					return err
				}
				jvTrace = p[0]
			}
			targets, err := reproduce.Resolve(args)
			if err != nil {
				return err
			}
			tuneGC()
			rep, err := reproduce.RunTargets(cmd.Context(), targets, reproduce.Options{
				Out: out, Label: label, Sets: sets, Parallel: parallel, JVuTrace: jvTrace,
				Progress: stdout, Terminal: sweep.IsTerminal(stdout), ProgressEvery: every, Log: cmd.ErrOrStderr(),
			})
			var partial *reproduce.SectionsError
			if err != nil && !errors.As(err, &partial) {
				return err
			}
			tally := rep.Tally()
			fmt.Fprintf(stdout, "%s\nwrote %s and %s\n", tally, filepath.Join(out, reproduce.ReportFile), filepath.Join(out, reproduce.IndexFile))
			if partial != nil {
				return err // the report covers what finished; exit 1 (2 for a configuration error)
			}
			if strict && tally.Failed() > 0 {
				return fmt.Errorf("reproduce --strict: %d of %d claims not held or not evaluated (see %s)", tally.Failed(), tally.Total(), filepath.Join(out, reproduce.ReportFile))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "reproduce", "output directory")
	f.StringVar(&label, "label", "paper", "size label: quick (CI) or paper (published scale)")
	f.BoolVar(&list, "list", false, "list the embedded specs and the jv reproductions")
	f.BoolVar(&all, "all", false, "reproduce every embedded spec and every jv reproduction")
	f.BoolVar(&strict, "strict", false, "exit 1 when a counted claim is not held or could not be evaluated (for CI gates)")
	f.StringVar(&jvTrace, "jv-trace", "", "Google 2011 trace of the jv-* reproductions: a directory with job_events/ (default: the label's, see above)")
	f.IntVar(&parallel, "parallel", runtime.GOMAXPROCS(0), "number of cells run at once (at least 1)")
	f.StringArrayVar(&sets, "set", nil, "override a base key of every spec, or keep one value of an axis (repeatable)")
	f.DurationVar(&every, "progress-interval", 10*time.Second, "interval of progress lines when stdout is not a terminal")
	addDataFlag(cmd)
	return cmd
}

func listSpecs(cmd *cobra.Command) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tTITLE\tFIGURES\tCELLS (quick / paper)\tALIAS\n")
	for _, id := range experiments.SpecIDs() {
		s, err := experiments.LoadSpec(id)
		if err != nil {
			return err
		}
		var figs []string
		for _, f := range s.Figures {
			figs = append(figs, f.ID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d / %d\t%s\n", id, s.Title, strings.Join(figs, ", "), cellCount(s, "quick"), cellCount(s, "paper"), experiments.SpecAlias(id))
	}
	// The JamaisVu reproductions are analyses of one trace, not sweeps: no cells.
	for _, id := range jvu.IDs() {
		in, err := jvu.Describe(id)
		if err != nil {
			return err
		}
		fig, _, _ := strings.Cut(in.Reference, ":")
		fmt.Fprintf(tw, "%s\t%s\t%s\t— (Google 2011: fixture / month)\n", id, in.Title, "JamaisVu "+fig)
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
