package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

// sweepFlags are the flags of `schedlab sweep`.
type sweepFlags struct {
	out, label, cache, shard, emit, image, claim, costs string
	parallel, shards, maxCells                          int
	sets                                                []string
	gather, balance                                     bool
	every                                               time.Duration
}

func newSweepCmd() *cobra.Command {
	var fl sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep SPEC | sweep --gather DIR... --out DIR",
		Short: "Run an experiment spec's sweep (every axis combination × seed) into cells.parquet",
		Long: `Run the sweep of an experiment spec: the Cartesian product of its axes (zipped groups advance
together) times its seeds, one replay per cell, on --parallel workers.

SPEC is an embedded spec ID or alias (see ` + "`schedlab reproduce --list`" + `) or a path to a spec
YAML file. The ID wins over a file or directory of that name in the working directory; a SPEC
ending in .yaml or .yml is always a file, and ./NAME reads a file named like a spec.
--label picks the size (quick for CI, paper for the published scale); --set key=value overrides
the base configuration, or keeps one value of an axis (--set policy.name=drf). A sweep of more
than --max-cells cells is refused before anything is allocated.

Results: DIR/cells.parquet (one row per cell: cell, key, the axis columns, seed, every metric;
open it with pandas, polars or DuckDB), DIR/sweep.json (the plan) and DIR/cells/<key>/ (each
cell's jobs.parquet, summary.json, config.yaml). Cells are content-addressed (resolved config +
workload hash + schedlab version + this build's identity: VCS revision, dirty flag and the
binary's SHA-256): a cell another build computed is recomputed, and the sweep says so; an unchanged cell is never rerun, and a killed sweep resumes
where it stopped when run again. One sweep at a time may write DIR (it is locked); --cache DIR
shares a cell cache between any number of sweeps and shards, which never compute a cell twice.

Beyond one machine: --shard i/n runs the i-th of n parts of the cells (0 ≤ i < n), balanced by
estimated cost (workload tasks × policy cost class) or, with --costs DIR, by the cells' measured
times in a previous run; --balance prints that split for --shards n; --gather DIR... merges the
shards' output directories into --out; --emit slurm|k8s writes into --out the cluster jobs that
run --shards shards and gather them (a Slurm array and gather script, or a Kubernetes Indexed
Job and gather Job using --image and the volume claim --claim).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if fl.gather {
				if len(args) == 0 {
					return fmt.Errorf("--gather needs the shard directories")
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, args, &fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.out, "out", "", "output directory (default results/<spec ID>)")
	f.IntVar(&fl.parallel, "parallel", runtime.GOMAXPROCS(0), "number of cells run at once (at least 1)")
	f.StringVar(&fl.label, "label", "paper", "size label of the spec: quick (CI) or paper (published scale)")
	f.StringArrayVar(&fl.sets, "set", nil, "override a base key, or keep one value of an axis: --set engine.cycle_s=5 (repeatable)")
	f.StringVar(&fl.cache, "cache", "", "cell cache directory, shareable between sweeps, shards and machines (default <out>/cells)")
	f.StringVar(&fl.shard, "shard", "", "run only shard i/n of the cells (0 ≤ i < n)")
	f.StringVar(&fl.costs, "costs", "", "balance shards by the measured cell times of a previous run's output directory")
	f.IntVar(&fl.maxCells, "max-cells", sweep.DefaultMaxCells, "refuse sweeps of more cells than this")
	f.BoolVar(&fl.gather, "gather", false, "merge the shard output directories given as arguments into --out")
	f.BoolVar(&fl.balance, "balance", false, "print how the cells split into --shards shards (estimated cost and, where --out's cache has them, measured times); run nothing")
	f.StringVar(&fl.emit, "emit", "", "write the cluster jobs that run the shards and gather them: slurm or k8s")
	f.IntVar(&fl.shards, "shards", 4, "number of shards for --emit and --balance")
	f.StringVar(&fl.image, "image", "schedlab:"+experiments.Version, "container image for --emit k8s (build it with make image)")
	f.StringVar(&fl.claim, "claim", "", "PersistentVolumeClaim holding --out for --emit k8s (default <job name>-results)")
	f.DurationVar(&fl.every, "progress-interval", 10*time.Second, "interval of progress lines when stdout is not a terminal")
	addDataFlag(cmd)
	return cmd
}

// checkParallel rejects worker counts below 1 (a usage error).
func checkParallel(n int) error {
	if n < 1 {
		return usageError{fmt.Errorf("--parallel %d: want at least 1 (the number of cells run at once)", n)}
	}
	return nil
}

// checkInterval rejects progress intervals that are not positive (a usage error).
func checkInterval(d time.Duration) error {
	if d <= 0 {
		return usageError{fmt.Errorf("--progress-interval %v: want a positive duration such as 30s", d)}
	}
	return nil
}

func runSweep(cmd *cobra.Command, args []string, fl *sweepFlags) error {
	stdout := cmd.OutOrStdout()
	if err := checkParallel(fl.parallel); err != nil {
		return err
	}
	if err := checkInterval(fl.every); err != nil {
		return err
	}
	if fl.maxCells < 1 {
		return usageError{fmt.Errorf("--max-cells %d: want at least 1", fl.maxCells)}
	}
	if fl.shards < 1 {
		return usageError{fmt.Errorf("--shards %d: want at least 1", fl.shards)}
	}
	if fl.gather {
		if fl.out == "" {
			return usageError{fmt.Errorf("--gather needs --out")}
		}
		t, err := sweep.Gather(fl.out, args, sweep.GatherOptions{Cache: fl.cache})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "gathered %s: %s → %s\n", sweep.Plural(len(args), "shard", "shards"), sweep.Plural(len(t.Rows), "cell", "cells"), filepath.Join(fl.out, sweep.CellsFile))
		return nil
	}
	spec, err := experiments.LoadSpec(args[0])
	if err != nil {
		return err
	}
	tuneGC()
	if fl.out == "" {
		fl.out = filepath.Join("results", filepath.FromSlash(spec.ID))
	}
	plan, err := sweep.NewPlanWith(spec, fl.label, fl.sets, sweep.PlanOptions{MaxCells: fl.maxCells})
	if err != nil {
		return err
	}
	if fl.costs != "" {
		if _, err := plan.LoadCosts(fl.costs); err != nil {
			return err
		}
	}
	if fl.balance || fl.emit != "" {
		if err := checkShards(fmt.Sprintf("--shards %d", fl.shards), fl.shards, len(plan.Cells)); err != nil {
			return err
		}
	}
	switch {
	case fl.balance:
		return printBalance(stdout, plan, fl)
	case fl.emit != "":
		return emitJobs(stdout, plan, args[0], fl)
	}
	var sh sweep.Shard
	if fl.shard != "" {
		if sh, err = sweep.ParseShard(fl.shard); err != nil {
			return err
		}
		if err := checkShards("--shard "+fl.shard, sh.Count, len(plan.Cells)); err != nil {
			return err
		}
	}
	res, err := sweep.Run(cmd.Context(), plan, sweep.Options{
		Out: fl.out, Cache: fl.cache, Parallel: fl.parallel, Shard: sh,
		Progress: stdout, Terminal: sweep.IsTerminal(stdout), ProgressEvery: fl.every,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep %s (label %s, shard %s): %s in %s → %s\n",
		spec.ID, fl.label, sh, res.Counts(), res.Elapsed.Round(time.Millisecond), filepath.Join(fl.out, sweep.CellsFile))
	return nil
}

// checkShards refuses more shards than the sweep has cells (a usage error): each shard runs at
// least one cell, and balancing allocates per shard, so --shards 1e9 ran out of memory.
func checkShards(flag string, n, cells int) error {
	if n > cells {
		return usageError{fmt.Errorf("%s: %d shards for a sweep of %d cells; want at most one shard per cell (1..%d)", flag, n, cells, cells)}
	}
	return nil
}

// tuneGC raises the garbage collector's target (GOGC 400) for sweeps unless GOGC is set: cells
// are short-lived, allocation-heavy replays on a small live heap, and with the default target
// the collector runs hundreds of times a second and competes with the workers for the cores.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// printBalance prints the split of the plan's cells into --shards shards: per shard its cells,
// its share of the estimated cost and the measured replay time of its cells found in the cache.
func printBalance(w io.Writer, plan *sweep.Plan, fl *sweepFlags) error {
	cache := fl.cache
	if cache == "" {
		cache = filepath.Join(fl.out, sweep.CacheDir)
	}
	loads := plan.Balance(fl.shards, []string{cache})
	var total float64
	measured := 0
	for _, l := range loads {
		total += l.Cost
		measured += l.MeasuredCells
	}
	fmt.Fprintf(w, "%s (label %s): %s in %s; costs %s\n", plan.Spec.ID, fl.label, sweep.Plural(len(plan.Cells), "cell", "cells"), sweep.Plural(fl.shards, "shard", "shards"), plan.CostSource())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shard\tcells\tcost share\tmeasured s\tmeasured cells\t")
	var costs, times []float64
	for _, l := range loads {
		share := 0.0
		if total > 0 {
			share = 100 * l.Cost / total
		}
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t%.2f\t%d\t\n", l.Shard, l.Cells, share, l.Measured, l.MeasuredCells)
		costs = append(costs, l.Cost)
		times = append(times, l.Measured)
	}
	tw.Flush()
	fmt.Fprintf(w, "slowest shard / mean: %.2f by cost", sweep.MaxOverMean(costs))
	if measured > 0 {
		fmt.Fprintf(w, ", %.2f by measured time (%d of %s measured in %s)", sweep.MaxOverMean(times), measured, sweep.Plural(len(plan.Cells), "cell", "cells"), cache)
	}
	fmt.Fprintln(w)
	return nil
}

// emitJobs writes the cluster jobs of a sweep: for Slurm the array script and the gather
// script, for Kubernetes the Indexed Job and the gather Job.
func emitJobs(w io.Writer, plan *sweep.Plan, specArg string, fl *sweepFlags) error {
	o := sweep.EmitOptions{Spec: specArg, Label: fl.label, Sets: fl.sets, Shards: fl.shards, Out: fl.out, Parallel: fl.parallel,
		Cache: fl.cache, Costs: fl.costs, Image: fl.image, Claim: fl.claim, Name: sweep.JobName(plan.Spec.ID)}
	if fl.maxCells != sweep.DefaultMaxCells {
		o.MaxCells = fl.maxCells
	}
	type file struct {
		name  string
		write func(io.Writer, sweep.EmitOptions) error
	}
	var files []file
	switch fl.emit {
	case sweep.EmitSlurm:
		files = []file{{o.SlurmArrayFile(), sweep.EmitSlurmScript}, {o.SlurmGatherFile(), sweep.EmitSlurmGather}}
	case sweep.EmitK8s:
		files = []file{{o.K8sJobFile(), sweep.EmitK8sJob}, {o.K8sGatherFile(), sweep.EmitK8sGather}}
	default:
		return usageError{fmt.Errorf("--emit %q: want slurm or k8s", fl.emit)}
	}
	for _, f := range files { // options the jobs cannot use fail before anything is written
		if err := f.write(io.Discard, o); err != nil {
			return err
		}
	}
	var costs []float64
	for _, l := range plan.Balance(fl.shards, nil) {
		costs = append(costs, l.Cost)
	}
	return sweep.WithOutLock(fl.out, func() error {
		for _, f := range files {
			path := filepath.Join(fl.out, f.name)
			if err := sweep.WriteFileAtomic(path, func(w io.Writer) error { return f.write(w, o) }); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s\n", path)
		}
		fmt.Fprintf(w, "%s of %s; slowest shard / mean %.2f by cost (%s)\n", sweep.Plural(fl.shards, "shard", "shards"), sweep.Plural(len(plan.Cells), "cell", "cells"), sweep.MaxOverMean(costs), plan.CostSource())
		return nil
	})
}
