package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/policies/builtin"
)

func newRunCmd() *cobra.Command {
	var (
		configFile, policy, workload, out, dumpModels string
		seed                                          int64
		sets, record                                  []string
		quiet                                         bool
		every                                         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Replay a workload under a policy and summarize the result",
		Long: `Replay a workload under a scheduling policy and print a summary.

Every configuration key (see README.md, "Configuration") can come from a YAML file (--config),
a flag, --set key=value, or the environment (SCHEDLAB_POLICY_NAME=drf for policy.name); later
sources win in that order: file < environment < flags < --set. With no flags, schedlab runs the
embedded default workload (399 TPC-H DAGs on 25 machines) under FIFO.

With --out DIR it writes DIR/jobs.parquet (per-job records), DIR/summary.json (metrics, engine
counters, provenance), DIR/config.yaml (the resolved configuration, input files by absolute or data: path; rerun it
with --config from any directory: relative paths in a --config file are relative to its directory),
DIR/usage.parquet (per-queue resource usage per metrics.usage_window_s window, when enabled) and
whatever the policy reports of its own (bpf and nbpf: DIR/admissions.json). --record tasks adds
DIR/tasks.parquet (one row per task attempt, with the policy's reasons); --record trace adds
DIR/trace.json (open it in ui.perfetto.dev; see also schedlab timeline and schedlab explain). DIR appears complete
or not at all: the files are written into a work directory beside it and renamed into place, and
what a killed run leaves there is removed by the next run into the same parent directory. An
existing DIR is replaced as a whole if it is empty or a previous run's output, and refused
otherwise (so is the working directory: name one below it).

A long run prints a progress line on stderr every --progress-interval (30 s) of wall time:
simulated time, scheduling calls and what a solver-backed policy is solving (not with -q).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkInterval(every); err != nil {
				return err
			}
			v := experiments.NewViper()
			if configFile != "" {
				if err := readConfigFile(v, configFile); err != nil {
					return err
				}
			}
			flags := cmd.Flags()
			if flags.Changed("policy") {
				v.Set("policy.name", policy)
			}
			if flags.Changed("workload") {
				v.Set("workload.name", workload)
			}
			if flags.Changed("seed") {
				v.Set("seed", seed)
			}
			if err := applyRecord(v, record); err != nil {
				return err
			}
			if err := experiments.ApplySet(v, sets); err != nil {
				return err
			}
			cfg, err := experiments.Resolve(v)
			if err != nil {
				return err
			}
			if dumpModels != "" {
				if err := os.MkdirAll(dumpModels, 0o755); err != nil {
					return fmt.Errorf("--dump-models: %w", err)
				}
				cfg.DumpModels = dumpModels
			}
			if out != "" { // refuse a directory that is not a run's before the replay
				if err := experiments.CheckOutDir(out); err != nil {
					return err
				}
			}
			if !quiet {
				cfg.Progress, cfg.ProgressEvery = cmd.ErrOrStderr(), every
			}
			o, err := experiments.Run(cfg)
			if err != nil {
				return err
			}
			defer o.Close()
			if w := o.Waits.Warning; w != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "schedlab: warning: "+w)
			}
			if w := o.StallWarning(); w != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "schedlab: warning: "+w)
			}
			if out != "" {
				if err := o.PublishOutputs(out); err != nil {
					return err
				}
			}
			if !quiet {
				printSummary(cmd.OutOrStdout(), o)
				if out != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/{%s}\n", out, strings.Join(o.OutputFiles(), ","))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", "", "YAML configuration file (e.g. a previous run's config.yaml)")
	f.StringVar(&policy, "policy", "", "scheduling policy (policy.name)")
	f.StringVar(&workload, "workload", "", "embedded workload name or workload file (workload.name)")
	f.Int64Var(&seed, "seed", 1, "experiment seed (seed)")
	f.StringVar(&out, "out", "", "directory for jobs.parquet, summary.json and config.yaml (created whole; replaces a previous run's)")
	f.StringArrayVar(&sets, "set", nil, "override a configuration key: --set engine.cycle_s=5 (repeatable)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing on success")
	f.DurationVar(&every, "progress-interval", experiments.DefaultProgressEvery, "interval of the progress lines a long run prints on stderr")
	f.StringVar(&dumpModels, "dump-models", "", "directory into which solver-backed policies write every LP/MILP they solve (<name>-<seq>.lp)")
	f.StringSliceVar(&record, "record", nil, "record inside the run: tasks (DIR/tasks.parquet, every task attempt), trace (DIR/trace.json for Perfetto); comma-separated")
	addDataFlag(cmd)
	return cmd
}

// readConfigFile merges a YAML file into v, rejecting keys schedlab does not know, keys without
// a value, and files over experiments.MaxYAMLBytes, of more than one YAML document (viper would
// read the first and ignore the rest) or of aliases that expand past experiments.MaxYAMLAliasNodes.
func readConfigFile(v *viper.Viper, path string) error {
	if err := experiments.CheckRegular(path, false); err != nil {
		return fmt.Errorf("%w: --config: %v", experiments.ErrConfig, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: --config: %v", experiments.ErrConfig, err)
	}
	defer f.Close()
	b, err := experiments.ReadYAML(f, path)
	if err != nil {
		return fmt.Errorf("%w: --config: %v", experiments.ErrConfig, err)
	}
	doc, err := experiments.DecodeYAML(b, path, "a configuration file")
	if err != nil {
		return err
	}
	if len(doc.Content) == 1 {
		if key, line := nullKey(doc.Content[0], ""); key != "" {
			return fmt.Errorf("%w: %s:%d: %s: empty value", experiments.ErrConfig, path, line, key)
		}
	}
	fv := viper.New()
	fv.SetConfigType("yaml")
	if err := fv.ReadConfig(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("%w: %s: %v", experiments.ErrConfig, path, err)
	}
	if err := experiments.CheckKeys(fv.AllKeys(), path); err != nil {
		return err
	}
	// A relative path in the file is relative to the file's directory, and a missing input is
	// named with the file and the key here rather than later by its reader.
	for _, key := range fv.AllKeys() {
		s, ok := fv.Get(key).(string)
		if !experiments.IsPathKey(key) || !ok {
			continue
		}
		p, err := experiments.ConfigFilePath(path, key, s)
		if err != nil {
			line := 0
			if len(doc.Content) == 1 {
				line = keyLine(doc.Content[0], key)
			}
			if errors.Is(err, datapath.ErrNotFound) { // the shared data is missing, not the file wrong
				return fmt.Errorf("%s:%d: %s: %w", path, line, key, err)
			}
			return fmt.Errorf("%w: %s:%d: %s: %v", experiments.ErrConfig, path, line, key, err)
		}
		fv.Set(key, p)
	}
	return v.MergeConfigMap(fv.AllSettings())
}

// keyLine returns the line of the dotted key under n (0 when it is not there).
func keyLine(n *yaml.Node, key string) int {
	first, rest, nested := strings.Cut(key, ".")
	if n.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !strings.EqualFold(n.Content[i].Value, first) {
			continue
		}
		if !nested {
			return n.Content[i].Line
		}
		return keyLine(n.Content[i+1], rest)
	}
	return 0
}

// nullKey returns the first dotted key under n whose value is null (`cycle_s:` with nothing
// after it) although an empty value means nothing for it, and its line; viper would drop it and
// keep the default.
func nullKey(n *yaml.Node, prefix string) (string, int) {
	if n.Kind != yaml.MappingNode {
		return "", 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		if v.Kind == yaml.MappingNode {
			if key, line := nullKey(v, key+"."); key != "" {
				return key, line
			}
		} else if v.Kind == yaml.ScalarNode && v.Tag == "!!null" && !experiments.EmptyAllowed(key) {
			return key, k.Line
		}
	}
	return "", 0
}

func printSummary(w io.Writer, o *experiments.Outcome) {
	s := o.Summary
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	secs := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + " s" }
	row("policy", o.Config.Policy.Name)
	row("workload", fmt.Sprintf("%s (%d jobs, %d tasks, %d machines%s)", o.Workload.Name, len(o.Workload.Jobs), o.Workload.Tasks(), len(o.Workload.Cluster.Machines), map[bool]string{true: ", pooled"}[o.Workload.Cluster.Pooled]))
	row("seed", strconv.FormatInt(o.Config.Seed, 10))
	row("completed", fmt.Sprintf("%d / %d", s.Completed, s.Jobs))
	row("avg JCT", secs(s.AvgJCT))
	row("p50 / p95 / p99 JCT", fmt.Sprintf("%s / %s / %s", secs(s.P50JCT), secs(s.P95JCT), secs(s.P99JCT)))
	row("makespan", secs(s.Makespan))
	var util []string
	for _, d := range o.Workload.Dims {
		util = append(util, fmt.Sprintf("%s %.1f%%", d, 100*s.Utilization[d]))
	}
	row("utilization", strings.Join(util, ", "))
	if s.SLOJobs > 0 {
		row("SLO miss rate", fmt.Sprintf("%.1f%% of %d", 100*s.SLOMissRate, s.SLOJobs))
	}
	if s.UtilityJobs > 0 {
		row("utility min / sum", fmt.Sprintf("%.3f / %.3f", s.MinUtility, s.SumUtility))
	}
	if ts := s.TimedUtility; ts.Jobs > 0 && ts.Jobs < s.UtilityJobs {
		row("  time-sensitive jobs", fmt.Sprintf("min %.3f / sum %.3f over %d jobs, %d missed their target", ts.MinUtility, ts.SumUtility, ts.Jobs, ts.MissedTargets))
	}
	if len(s.ByClass) > 1 {
		classes := make([]string, 0, len(s.ByClass))
		for c := range s.ByClass {
			classes = append(classes, c)
		}
		slices.Sort(classes)
		for _, c := range classes {
			g := s.ByClass[c]
			row("  class "+c, fmt.Sprintf("%d/%d done, avg JCT %s", g.Completed, g.Jobs, secs(g.AvgJCT)))
		}
	}
	wg := o.Waits.Tasks
	row("task wait", fmt.Sprintf("avg %s, p50 / p95 / p99 %s / %s / %s; %d of %d starts waited", secs(wg.Avg), secs(wg.P50), secs(wg.P95), secs(wg.P99), wg.Waited, wg.Starts))
	if len(o.Waits.ByQueue) > 1 {
		queues := make([]string, 0, len(o.Waits.ByQueue))
		for q := range o.Waits.ByQueue {
			queues = append(queues, q)
		}
		slices.Sort(queues)
		for _, q := range queues {
			g := o.Waits.ByQueue[q]
			row("  queue "+q, fmt.Sprintf("avg wait %s, p95 %s; %d of %d starts waited", secs(g.Avg), secs(g.P95), g.Waited, g.Starts))
		}
	}
	row("engine", fmt.Sprintf("%d events, %s, %d scheduling calls", o.Engine.Events, formatRate(o.Engine.EventsPerSecond, "events"), o.Engine.SchedulingCalls))
	tw.Flush()
}

func newPoliciesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "policies",
		Short: "List the scheduling policies",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, e := range builtin.Registry().Entries() {
				fmt.Fprintf(tw, "%s\t%s\n", e.Name, e.Description)
			}
			return tw.Flush()
		},
	}
}
