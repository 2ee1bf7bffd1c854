package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/internal/safefs"
	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/traces"
)

func newTimelineCmd() *cobra.Command {
	var out, gantt, queues string
	var from, to float64
	cmd := &cobra.Command{
		Use:   "timeline RUN_DIR",
		Short: "Write a recorded run's Chrome trace-event file (open it in ui.perfetto.dev)",
		Long: `Write the trace of a run recorded with run --record tasks (RUN_DIR/tasks.parquet) as a
Chrome trace-event JSON file, which ui.perfetto.dev and chrome://tracing open: one process per
machine (per queue in pooled mode) with a slice per task attempt (args: job, queue, wait, outcome
and the policy's reasons), preemptions as instant events, and on the "scheduler" process counters
of free capacity and pending and running tasks and an instant per scheduling instant that started
or preempted something, all derived from the recorded attempts (a run recorded with --record
trace has the engine's own counters in RUN_DIR/trace.json instead).

--from and --to (seconds on the trace's clock) keep the attempts whose wait or run overlaps that
window; a large run's whole trace can be bigger than a browser opens. The file (default
RUN_DIR/timeline.json) is written whole or not at all.

--gantt FILE also draws the window's schedule (a row per machine task slot, or pool slot in
pooled mode; bars coloured by queue; preemptions crossed) and --queues FILE the tasks each queue
had waiting over the window; the format follows FILE's extension (.svg, .png, .pdf). A Gantt of
more than 200 slots asks for a shorter window.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if from < 0 || to < 0 || (to != 0 && to < from) {
				return fmt.Errorf("%w: --from %g --to %g: want 0 ≤ from ≤ to (to 0: no end)", experiments.ErrConfig, from, to)
			}
			if out == "" {
				out = filepath.Join(dir, "timeline.json")
			}
			tasks := filepath.Join(dir, timeline.TasksFile)
			if err := needTasks(tasks); err != nil {
				return err
			}
			win := timeline.Window{From: traces.FromSeconds(from), To: traces.FromSeconds(to)}
			err := safefs.WriteFile(out, func(w io.Writer) error { return timeline.FromTasks(tasks, w, win) })
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (open it in ui.perfetto.dev or chrome://tracing)\n", out)
			for _, fig := range []struct {
				path string
				make func() (*report.Figure, error)
			}{
				{gantt, func() (*report.Figure, error) { return timeline.Gantt(tasks, win) }},
				{queues, func() (*report.Figure, error) { return timeline.QueueLengths(tasks, win, 200) }},
			} {
				if fig.path == "" {
					continue
				}
				f, err := fig.make()
				if err != nil {
					return err
				}
				if err := f.Render(fig.path); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", fig.path)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default RUN_DIR/timeline.json)")
	cmd.Flags().StringVar(&gantt, "gantt", "", "also draw the window's Gantt figure into this file (.svg, .png, .pdf)")
	cmd.Flags().StringVar(&queues, "queues", "", "also draw the tasks waiting per queue over the window into this file")
	cmd.Flags().Float64Var(&from, "from", 0, "window start, seconds on the trace's clock")
	cmd.Flags().Float64Var(&to, "to", 0, "window end, seconds on the trace's clock (0: the end of the run)")
	return cmd
}

func newExplainCmd() *cobra.Command {
	var job int64
	var limit int
	cmd := &cobra.Command{
		Use:   "explain RUN_DIR --job ID",
		Short: "Tell a job's story from a recorded run: its waits, what ran instead, and why",
		Long: `Print the life of job ID (its ID in the trace, jobs.parquet's job_id) in a run recorded with
run --record tasks: when it arrived, first started and finished; each task attempt with its wait,
machine, outcome and the reason the policy gave for starting (and preempting) it; and which other
jobs held the machines its tasks then ran on (the pool in pooled mode) while it waited, ranked by
the task-seconds that overlapped its waits, with the reason their tasks were started.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("job") {
				return fmt.Errorf("%w: explain needs --job ID (a job_id of RUN_DIR/jobs.parquet)", experiments.ErrConfig)
			}
			if limit < 0 {
				return fmt.Errorf("%w: --limit %d: want ≥ 0", experiments.ErrConfig, limit)
			}
			if err := needTasks(filepath.Join(args[0], timeline.TasksFile)); err != nil {
				return err
			}
			err := timeline.Explain(cmd.OutOrStdout(), args[0], job, limit)
			if errors.Is(err, timeline.ErrNoJob) {
				return fmt.Errorf("%w: %v", experiments.ErrConfig, err)
			}
			return err
		},
	}
	cmd.Flags().Int64Var(&job, "job", 0, "the job's ID in its trace (jobs.parquet's job_id)")
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most this many attempts and holders (0: all)")
	return cmd
}

// needTasks refuses a run directory without tasks.parquet with a hint to record it.
func needTasks(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s does not exist: record the run with schedlab run --record tasks --out DIR", experiments.ErrConfig, path)
	}
	return nil
}
