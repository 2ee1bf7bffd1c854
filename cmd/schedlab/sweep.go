package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

func newSweepCmd() *cobra.Command {
	var (
		out, label, cache, shard, emit, image string
		parallel, shards                      int
		sets                                  []string
		gather                                bool
		every                                 time.Duration
	)
	cmd := &cobra.Command{
		Use:   "sweep SPEC | sweep --gather DIR... --out DIR",
		Short: "Run an experiment spec's sweep (every axis combination × seed) into cells.parquet",
		Long: `Run the sweep of an experiment spec: the Cartesian product of its axes (zipped groups advance
together) times its seeds, one replay per cell, on --parallel workers.

SPEC is an embedded spec ID (see ` + "`schedlab reproduce --list`" + `) or a path to a spec YAML file.
--label picks the size (quick for CI, paper for the published scale); --set key=value overrides
the base configuration, or keeps one value of an axis (--set policy.name=drf).

Results: DIR/cells.parquet (one row per cell: cell, key, the axis columns, seed, every metric;
open it with pandas, polars or DuckDB), DIR/sweep.json (the plan) and DIR/cells/<key>/ (each
cell's jobs.parquet, summary.json, config.yaml). Cells are content-addressed (resolved config +
workload hash + schedlab version): an unchanged cell is never rerun, and a killed sweep resumes
where it stopped when run again.

Beyond one machine: --shard i/n runs cells i, i+n, i+2n, ... (0 ≤ i < n); --gather DIR... merges
the shards' output directories into --out; --emit slurm|k8s writes a Slurm job-array script or
a Kubernetes Indexed Job manifest into --out that runs --shards shards.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if gather {
				if len(args) == 0 {
					return fmt.Errorf("--gather needs the shard directories")
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout := cmd.OutOrStdout()
			if gather {
				if out == "" {
					return usageError{fmt.Errorf("--gather needs --out")}
				}
				t, err := sweep.Gather(out, args)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "gathered %d shards: %d cells → %s\n", len(args), len(t.Rows), filepath.Join(out, sweep.CellsFile))
				return nil
			}
			spec, err := experiments.LoadSpec(args[0])
			if err != nil {
				return err
			}
			tuneGC()
			if out == "" {
				out = filepath.Join("results", filepath.FromSlash(spec.ID))
			}
			if emit != "" {
				return emitJob(stdout, spec, args[0], emit, out, label, image, sets, shards, parallel)
			}
			plan, err := sweep.NewPlan(spec, label, sets)
			if err != nil {
				return err
			}
			var sh sweep.Shard
			if shard != "" {
				if sh, err = sweep.ParseShard(shard); err != nil {
					return err
				}
			}
			res, err := sweep.Run(cmd.Context(), plan, sweep.Options{
				Out: out, Cache: cache, Parallel: parallel, Shard: sh,
				Progress: stdout, Terminal: sweep.IsTerminal(stdout), ProgressEvery: every,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "sweep %s (label %s, shard %s): %d cells (%d run, %d cached) in %s → %s\n",
				spec.ID, label, sh, len(res.Table.Rows), res.Ran, res.Cached, res.Elapsed.Round(time.Millisecond), filepath.Join(out, sweep.CellsFile))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output directory (default results/<spec ID>)")
	f.IntVar(&parallel, "parallel", runtime.GOMAXPROCS(0), "number of cells run at once")
	f.StringVar(&label, "label", "paper", "size label of the spec: quick (CI) or paper (published scale)")
	f.StringArrayVar(&sets, "set", nil, "override a base key, or keep one value of an axis: --set engine.cycle_s=5 (repeatable)")
	f.StringVar(&cache, "cache", "", "cell cache directory, shareable between sweeps (default <out>/cells)")
	f.StringVar(&shard, "shard", "", "run only shard i/n of the cells (0 ≤ i < n)")
	f.BoolVar(&gather, "gather", false, "merge the shard output directories given as arguments into --out")
	f.StringVar(&emit, "emit", "", "write a cluster job that runs the shards: slurm or k8s")
	f.IntVar(&shards, "shards", 4, "number of shards for --emit")
	f.StringVar(&image, "image", "schedlab:"+experiments.Version, "container image for --emit k8s")
	f.DurationVar(&every, "progress-interval", 10*time.Second, "interval of progress lines when stdout is not a terminal")
	return cmd
}

// tuneGC raises the garbage collector's target (GOGC 400) for sweeps unless GOGC is set: cells
// are short-lived, allocation-heavy replays on a small live heap, and with the default target
// the collector runs hundreds of times a second and competes with the workers for the cores.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

func emitJob(w io.Writer, spec *experiments.Spec, specArg, target, out, label, image string, sets []string, shards, parallel int) error {
	// Validate the whole sweep before writing a job that would fail on the cluster.
	plan, err := sweep.NewPlan(spec, label, sets)
	if err != nil {
		return err
	}
	o := sweep.EmitOptions{Spec: specArg, Label: label, Sets: sets, Shards: shards, Out: out, Parallel: max(parallel, 1), Image: image, Name: sweep.JobName(spec.ID)}
	var name string
	var write func(io.Writer, sweep.EmitOptions) error
	switch target {
	case sweep.EmitSlurm:
		name, write = o.Name+".slurm", sweep.EmitSlurmScript
	case sweep.EmitK8s:
		name, write = o.Name+"-job.yaml", sweep.EmitK8sJob
	default:
		return usageError{fmt.Errorf("--emit %q: want slurm or k8s", target)}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, name)
	if err := sweep.WriteFileAtomic(path, func(w io.Writer) error { return write(w, o) }); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %d shards of %d cells\n", path, shards, len(plan.Cells))
	return nil
}
