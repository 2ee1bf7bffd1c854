package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/alibaba2018"
	"github.com/schedlab/schedlab/traces/borg2019"
	wbuiltin "github.com/schedlab/schedlab/traces/builtin"
	"github.com/schedlab/schedlab/traces/canonical"
	"github.com/schedlab/schedlab/traces/decima"
	"github.com/schedlab/schedlab/traces/fetch"
	"github.com/schedlab/schedlab/traces/google2011"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// importFormats are the trace formats `trace import` converts, with a one-line description.
var importFormats = []struct{ name, desc string }{
	{"google2011", "Google clusterdata-2011-2 job_events (+ task_events, machine_events): trace root, table directories or files"},
	{"tpcdag", "Carbyne/BoPF stage-DAG text file (TPC-H, TPC-DS, BigBench), or the embedded tpch-fb"},
	{"decima", "Decima TPC-H JSON (one input size)"},
	{"alibaba2018", "Alibaba cluster-trace-v2018 batch_task CSV"},
}

func formatNames() string {
	names := make([]string, len(importFormats))
	for i, f := range importFormats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Import, inspect, summarize and download traces",
		Long: `Work with traces: convert a trace once into schedlab's canonical columnar form (Parquet or
Arrow IPC) that run --workload and the experiments load quickly, look inside canonical files and
raw Google 2011 traces, and download the public Google 2011 trace.`,
	}
	cmd.AddCommand(newTraceImportCmd(), newTraceInspectCmd(), newTraceStatsCmd(), newTraceFetchCmd())
	cmd.AddCommand(newTraceTrackCmd()) // trace_track.go
	return cmd
}

func newTraceImportCmd() *cobra.Command {
	var (
		srcs []string
		out  string
		name string
		g    google2011.Options
	)
	var long strings.Builder
	long.WriteString("Convert a trace into a canonical workload file: Parquet for --out *.parquet, Arrow IPC for\n*.arrow. Formats:\n\n")
	for _, f := range importFormats {
		fmt.Fprintf(&long, "  %-12s %s\n", f.name, f.desc)
	}
	long.WriteString(`
google2011 streams: memory stays bounded however many parts are given (jobs are sorted through
temporary run files next to --out). Tables of the 2019 trace are refused with an explanation.

  With task_events (--level task, the default then) every job with a scheduled task is imported
  with its real tasks: a task's duration is its last run (last SCHEDULE to the FINISH, EVICT, FAIL,
  KILL or LOST that ended it; a run still going when task_events end is cut there and flagged
  "running"; a run that began before the trace window counts from t=0), its demand the CPU and
  memory request that run was scheduled with (normalized to the largest machine), and its
  attempts, evictions and outcome are kept (canonical task_attempts/task_evictions/task_outcomes
  columns). Tasks never scheduled are left out. Tasks of one job with different requests become
  separate stages. The job's priority is its tasks' highest, its queue the priority band (free
  0-1, middle 2-8, production 9-11), its class the scheduling class (sc0-sc3).

  With job_events alone (or --level job) each finished job becomes one single-stage job
  (duration = first SCHEDULE to last FINISH; tasks and demand from task_events when given, else
  1 task of the default demand - task counts and demands are then unknown); jobs killed,
  failed, unfinished or started before the trace window are left out and counted.

  A window that starts mid-trace begins with tasks already running: those with an event in the
  window become initial holds (background load the replay keeps on their machines until they
  end); --state-from with the earlier task_events parts finds those running through the whole
  window, and without it the import warns that the start state is partly unknown. The EVICT,
  FAIL and KILL of earlier runs are kept for engine.trace_evictions. --placements keeps each
  task's last SCHEDULE (machine and time) for the trace policy and trace track.

  The cluster (--cluster) is machine_events when given (the machines up at the input's first
  event, with their capacity then; --cluster-events replays later ADD/REMOVE/UPDATE), else the published machine mix of the trace's cell (Reiss et
  al., SoCC 2012, Table 1) scaled to --machines, by default to the machines the tasks ran on
  (12,583 for a job-level import).`)
	cmd := &cobra.Command{
		Use:   "import FORMAT --src PATH... --out FILE",
		Short: "Convert a trace into a canonical .parquet/.arrow workload",
		Long:  long.String(),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format := args[0]
			known := slices.ContainsFunc(importFormats, func(f struct{ name, desc string }) bool { return f.name == format })
			if !known {
				if strings.Contains(format, "2019") || strings.Contains(format, "borg") {
					return usageError{fmt.Errorf("trace import: %s: schedlab does not read the Google 2019 (Borg v3) trace (%w); formats: %s", format, borg2019.ErrUnsupported, formatNames())}
				}
				return usageError{fmt.Errorf("trace import: unknown format %q (formats: %s)", format, formatNames())}
			}
			if len(srcs) == 0 || out == "" {
				return usageError{errors.New("trace import: --src and --out are required")}
			}
			if _, err := canonical.FormatOf(out); err != nil {
				return usageError{err}
			}
			// Sources are found from any directory: data:… and ../shared/data/… in the shared
			// data folder, an embedded workload's name for tpcdag.
			if err := resolveData(srcs, func(s string) bool { return format == "tpcdag" && wbuiltin.Has(s) }); err != nil {
				return err
			}
			if err := resolveData(g.StateFrom, nil); err != nil {
				return err
			}
			for _, s := range srcs { // a named pipe would block the import forever
				if err := experiments.CheckRegular(s, true); err != nil {
					return fmt.Errorf("trace import %s: --src %v", format, err)
				}
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil { // --out out/x.arrow on a fresh checkout
				return fmt.Errorf("trace import: --out %s: %w", out, err)
			}
			start := time.Now()
			w := cmd.OutOrStdout()
			if format == "google2011" {
				if err := refuse2019(srcs); err != nil {
					return err
				}
				src, err := google2011.SourceOf(srcs...)
				if err != nil {
					return err
				}
				g.Name = name
				st, err := google2011.Import(src, g, out)
				if err != nil {
					if errors.Is(err, google2011.ErrOptions) {
						return usageError{err}
					}
					return err
				}
				st.Fprint(w)
				if st.StartStateWarning != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "schedlab: warning: trace import: %s\n", st.StartStateWarning)
				}
				fmt.Fprintf(w, "wrote %s: %d jobs\n", out, st.Imported)
				fmt.Fprintf(cmd.ErrOrStderr(), "trace import: took %s\n", time.Since(start).Round(time.Millisecond))
				return nil
			}
			if len(srcs) != 1 {
				return usageError{fmt.Errorf("trace import %s: takes exactly one --src file, got %d", format, len(srcs))}
			}
			var wl *traces.Workload
			var err error
			switch format {
			case "tpcdag":
				if wbuiltin.Has(srcs[0]) {
					wl, err = wbuiltin.Load(srcs[0])
				} else {
					wl, err = tpcdag.ReadFile(srcs[0], tpcdag.Options{})
				}
			case "decima":
				wl, err = decima.ReadFile(srcs[0], decima.Options{})
			case "alibaba2018":
				wl, err = alibaba2018.ReadFile(srcs[0], alibaba2018.Options{})
			}
			if err != nil {
				return err
			}
			if name != "" {
				wl.Name = name
			}
			wl.Source = datapath.Portable(wl.Source) // record data:…, not this machine's paths
			if err := wl.Validate(); err != nil {
				return fmt.Errorf("trace import %s: %s: %w", format, srcs[0], err)
			}
			// The file is valid data, perhaps for a larger machine: warn, do not refuse.
			if err := (experiments.Limits{}).Check(wl); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "schedlab: warning: trace import: %s: %v; `schedlab run` refuses it here unless the limit is raised\n", srcs[0], err)
			}
			if err := canonical.Write(out, wl); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s: %d jobs, %d tasks, %d machines\n", out, len(wl.Jobs), wl.Tasks(), len(wl.Cluster.Machines))
			fmt.Fprintf(cmd.ErrOrStderr(), "trace import: took %s\n", time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&srcs, "src", nil, "input file or directory (repeatable); data:PATH for one in the shared data folder")
	f.StringVar(&out, "out", "", "output file: *.parquet or *.arrow (its directory is created)")
	f.StringVar(&name, "name", "", "workload name (default: the format's)")
	f.StringVar(&g.Level, "level", "", "google2011: task or job (default: task when task_events are given)")
	f.StringVar(&g.Cluster, "cluster", google2011.ClusterAuto, "google2011: auto, machine_events or mix (the published machine mix)")
	f.IntVar(&g.Machines, "machines", 0, "google2011: scale the machine mix to this many machines (default: the machines tasks ran on)")
	f.BoolVar(&g.ClusterEvents, "cluster-events", false, "google2011: replay machine_events after the input's start (machines added, removed, resized); needs --cluster machine_events")
	f.BoolVar(&g.Placements, "placements", false, "google2011: keep each task's trace machine and start time (for the trace policy)")
	f.StringArrayVar(&g.StateFrom, "state-from", nil, "google2011: earlier task_events parts (repeatable) read only to find the tasks running through a mid-trace window")
	addDataFlag(cmd)
	return cmd
}

// refuse2019 returns borg2019's explanation if any input (or a file in an input directory) is a
// table of the 2019 trace.
func refuse2019(paths []string) error {
	check := func(p string) error {
		if err := borg2019.DetectFile(p); errors.Is(err, borg2019.ErrUnsupported) {
			return err
		}
		return nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("trace import: %w", err)
		}
		if !st.IsDir() {
			if err := check(p); err != nil {
				return err
			}
			continue
		}
		if err := borg2019.Detect(p, nil); err != nil {
			return err
		}
		// Look at the first files of the directory and of its table subdirectories.
		dirs := []string{p}
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(p, e.Name()))
			}
		}
		for _, d := range dirs {
			entries, _ := os.ReadDir(d)
			n := 0
			for _, e := range entries {
				if e.IsDir() || strings.HasPrefix(e.Name(), ".") || n == 2 {
					continue
				}
				n++
				if err := check(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func newTraceInspectCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect FILE|DIR",
		Short: "Show a canonical file's schema, metadata, row counts and time span (or a Google 2011 trace's tables)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := resolveData(args, nil); err != nil {
				return err
			}
			if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
				return inspectGoogle(cmd.OutOrStdout(), args[0])
			}
			return inspectCanonical(cmd.OutOrStdout(), args[0])
		},
	}
	addDataFlag(cmd)
	return cmd
}

func newTraceStatsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats FILE|DIR",
		Short: "Summarize a workload: jobs, runtime quantiles, tasks per job, DAG shape, arrivals, feature cardinalities",
		Long: `Summarize a canonical .parquet/.arrow workload, or a Google 2011 trace directory (trace root or
job_events directory), streaming through it. For a canonical file the runtime of a job is its
critical path (the longest chain of true task durations); for a Google trace it is JamaisVu's
runtime, first SCHEDULE to last FINISH, over the jobs that have one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := resolveData(args, nil); err != nil {
				return err
			}
			if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
				return statsGoogle(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
			}
			return statsCanonical(cmd.OutOrStdout(), args[0])
		},
	}
	addDataFlag(cmd)
	return cmd
}

func newTraceFetchCmd() *cobra.Command {
	var (
		dest, parts, tables, baseURL string
		retries                      int
	)
	cmd := &cobra.Command{
		Use:   "fetch google2011 --dest DIR [--parts 0-499] [--tables job_events,task_events]",
		Short: "Download the public Google 2011 trace (resumable, gzip-verified)",
		Long: `Download parts of the Google cluster trace clusterdata-2011-2 over HTTPS into DIR/TABLE/. Each file
is downloaded to a .part file, resumed with a Range request if the connection drops, verified by
decompressing it completely, and then renamed into place; files already present are skipped, so
an interrupted fetch can simply be run again. Progress goes to stderr. The whole trace is about
41 GB (job_events alone 86 MB).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "google2011" {
				return usageError{fmt.Errorf("trace fetch: unknown trace %q (only google2011 can be fetched)", args[0])}
			}
			if dest == "" {
				return usageError{errors.New("trace fetch: --dest is required")}
			}
			var ps []int
			if parts != "" {
				var err error
				if ps, err = fetch.ParseParts(parts); err != nil {
					return usageError{err}
				}
			}
			files, err := fetch.Google2011Files(baseURL, dest, strings.Split(tables, ","), ps)
			if err != nil {
				return usageError{err}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if retries <= 0 {
				retries = -1 // fetch.Options: negative means no retries, 0 the default
			}
			sum, err := fetch.Get(ctx, files, fetch.Options{Retries: retries, Progress: cmd.ErrOrStderr()})
			if err != nil { // only the failure, with how far the fetch got
				if sum.Downloaded > 0 || sum.Skipped > 0 {
					return fmt.Errorf("%w (%d files fetched before the failure; run again to resume)", err, sum.Downloaded+sum.Skipped)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "fetched %d files (%.1f MB, %d resumed), %d already complete, into %s\n",
				sum.Downloaded, float64(sum.Bytes)/1e6, sum.Resumed, sum.Skipped, dest)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dest, "dest", "", "directory to download into (tables go to DIR/TABLE/)")
	f.StringVar(&parts, "parts", "", "part numbers, e.g. 0-499 or 0-9,42 (default: all)")
	f.StringVar(&tables, "tables", "job_events", "comma-separated tables: job_events, task_events, machine_events, task_usage, ...")
	f.StringVar(&baseURL, "base-url", fetch.Google2011BaseURL, "bucket URL (for mirrors and tests)")
	f.IntVar(&retries, "retries", 4, "retries per file after a failure (network error, 5xx, corrupt gzip)")
	return cmd
}

// --- inspect -----------------------------------------------------------------------------------

// openCanonical opens a canonical file as `run` reads one: the limits derived from memory checked
// before the sizes the file states are allocated, and each job validated as it is read, so a
// broken DAG is a located error here too.
func openCanonical(path string) (*canonical.Reader, error) {
	o, _ := experiments.Limits{}.CanonicalOptions()
	r, err := canonical.OpenWith(path, o)
	return r, experiments.Limits{}.Explain(err)
}

func inspectCanonical(w io.Writer, path string) error {
	r, err := openCanonical(path)
	if err != nil {
		return err
	}
	defer r.Close()
	m := r.Meta()
	size := int64(-1)
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(w, "file     %s (%s, %s)\n", path, r.Format(), fmtBytes(size))
	fmt.Fprintf(w, "name     %s\n", m.Name)
	fmt.Fprintf(w, "source   %s\n", datapath.Portable(m.Source)) // data:…, not this machine's paths
	fmt.Fprintf(w, "dims     %s\n", strings.Join(m.Dims, ", "))
	total := m.Cluster.Total()
	fmt.Fprintf(w, "cluster  %d machines, total %s, pooled %v\n", len(m.Cluster.Machines), total.Format(len(m.Dims)), m.Cluster.Pooled)
	fmt.Fprintln(w, "schema")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range r.Schema().Fields() {
		if f.Nullable {
			fmt.Fprintf(tw, "  %s\t%s\tnullable\n", f.Name, f.Type)
		} else {
			fmt.Fprintf(tw, "  %s\t%s\n", f.Name, f.Type)
		}
	}
	tw.Flush()
	var jobs, stages, tasks int64
	first, last, end := int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64)
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return experiments.Limits{}.Explain(err)
		}
		jobs++
		stages += int64(len(j.Stages))
		tasks += j.Tasks()
		first, last = min(first, j.Submit), max(last, j.Submit)
		end = max(end, j.Submit+j.CriticalPath(false))
	}
	fmt.Fprintf(w, "rows     %d (one per stage)\n", r.RowsRead())
	fmt.Fprintf(w, "jobs     %d, stages %d, tasks %d\n", jobs, stages, tasks)
	if jobs > 0 {
		fmt.Fprintf(w, "submits  %s .. %s (span %s)\n", fmtTime(first), fmtTime(last), fmtDur(last-first))
		fmt.Fprintf(w, "ends by  %s with unlimited resources (span %s from the first submit)\n", fmtTime(end), fmtDur(end-first))
	}
	return nil
}

func inspectGoogle(w io.Writer, dir string) error {
	src, err := google2011.SourceOf(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "google2011 trace %s\n", dir)
	for _, t := range []struct {
		name  string
		paths []string
	}{{google2011.JobEventsTable, src.JobEvents}, {google2011.TaskEventsTable, src.TaskEvents}, {google2011.MachineEventsTable, src.MachineEvents}} {
		if len(t.paths) == 0 {
			continue
		}
		n, size, err := countFiles(t.paths)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-15s %d files, %s\n", t.name, n, fmtBytes(size))
	}
	var st google2011.ScanStats
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	err = google2011.ScanJobs(google2011.Source{JobEvents: src.JobEvents}, func(r *google2011.JobRecord) error {
		st.Records++
		for _, t := range []int64{r.Submit, r.FirstSchedule, r.End} {
			if t > 0 && t != google2011.AfterWindow {
				first, last = min(first, t), max(last, t)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "jobs     %d\n", st.Records)
	if st.Records > 0 && first <= last {
		fmt.Fprintf(w, "events   %s .. %s inside the window (span %s)\n", fmtTime(first), fmtTime(last), fmtDur(last-first))
	}
	return nil
}

func countFiles(paths []string) (int, int64, error) {
	n, size := 0, int64(0)
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() || strings.HasPrefix(name, ".") || !(strings.HasSuffix(name, ".csv") || strings.HasSuffix(name, ".csv.gz")) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			n++
			size += info.Size()
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("trace: %w", err)
		}
	}
	return n, size, nil
}

// --- stats -------------------------------------------------------------------------------------

// quantiles returns the q-quantiles of xs (sorted in place), nearest-rank.
func quantiles(xs []int64, qs ...float64) []int64 {
	slices.Sort(xs)
	out := make([]int64, len(qs))
	if len(xs) == 0 {
		return out
	}
	for i, q := range qs {
		k := int(math.Ceil(q*float64(len(xs)))) - 1
		out[i] = xs[min(max(k, 0), len(xs)-1)]
	}
	return out
}

func printQuantiles(w io.Writer, label string, xs []int64, dur bool) {
	if len(xs) == 0 {
		fmt.Fprintf(w, "%-16s (none)\n", label)
		return
	}
	q := quantiles(xs, 0, 0.5, 0.9, 0.99, 1)
	f := func(x int64) string {
		if dur {
			return fmtDur(x)
		}
		return fmt.Sprint(x)
	}
	fmt.Fprintf(w, "%-16s min %s  p50 %s  p90 %s  p99 %s  max %s\n", label, f(q[0]), f(q[1]), f(q[2]), f(q[3]), f(q[4]))
}

// cardinality counts distinct strings.
type cardinality map[string]struct{}

func (c cardinality) add(s string) {
	if s != "" {
		if _, ok := c[s]; !ok {
			c[strings.Clone(s)] = struct{}{}
		}
	}
}

func arrivalRate(jobs int64, first, last traces.Time) string {
	if jobs < 2 || last <= first {
		return "n/a"
	}
	perHour := float64(jobs-1) / traces.Seconds(last-first) * 3600
	return fmt.Sprintf("%.1f jobs/hour (%.3f/s) over %s", perHour, perHour/3600, fmtDur(last-first))
}

func statsCanonical(w io.Writer, path string) error {
	r, err := openCanonical(path)
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		runtimes, tasks, depth, width, stages []int64
		users, names, logical                 = cardinality{}, cardinality{}, cardinality{}
		classes                               = map[string]int64{}
		first, last                           = int64(math.MaxInt64), int64(math.MinInt64)
		work                                  float64
		ts                                    = newTaskStats(r.Meta().Source)
	)
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return experiments.Limits{}.Explain(err)
		}
		runtimes = append(runtimes, j.CriticalPath(false))
		tasks = append(tasks, j.Tasks())
		stages = append(stages, int64(len(j.Stages)))
		d, wd := dagShape(j)
		depth, width = append(depth, d), append(width, wd)
		users.add(j.Features.User)
		names.add(j.Features.JobName)
		logical.add(j.Features.LogicalJobName)
		classes[j.Class]++
		first, last = min(first, j.Submit), max(last, j.Submit)
		work += traces.Seconds(j.Work())
		ts.add(j)
	}
	m := r.Meta()
	fmt.Fprintf(w, "workload         %s (%s)\n", m.Name, path)
	fmt.Fprintf(w, "jobs             %d on %d machines\n", len(runtimes), len(m.Cluster.Machines))
	printQuantiles(w, "runtime", runtimes, true)
	printQuantiles(w, "tasks/job", tasks, false)
	printQuantiles(w, "stages/job", stages, false)
	printQuantiles(w, "DAG depth", depth, false)
	printQuantiles(w, "DAG width", width, false)
	fmt.Fprintf(w, "arrivals         %s\n", arrivalRate(int64(len(runtimes)), first, last))
	fmt.Fprintf(w, "task-time        %.4g task-hours\n", work/3600)
	fmt.Fprintf(w, "classes          %s\n", fmtCounts(classes))
	fmt.Fprintf(w, "distinct         users %d, job names %d, logical job names %d\n", len(users), len(names), len(logical))
	printTimeline(w, m.Initial, m.ClusterEvents, m.Cluster.Total(), m.Dims)
	printPlacements(w, m.Placements) // trace_track.go
	ts.print(w)
	return nil
}

// dagShape returns a job's depth (stages on the longest parent chain) and width (most stages at
// one depth).
func dagShape(j *traces.Job) (depth, width int64) {
	n := len(j.Stages)
	if n == 0 {
		return 0, 0
	}
	level := make([]int64, n)
	done := make([]bool, n)
	var visit func(i int, guard int) int64
	visit = func(i int, guard int) int64 {
		if done[i] || guard > n {
			return level[i]
		}
		l := int64(1)
		for _, p := range j.Stages[i].Parents {
			if int(p) >= 0 && int(p) < n && int(p) != i {
				l = max(l, visit(int(p), guard+1)+1)
			}
		}
		level[i], done[i] = l, true
		return l
	}
	count := map[int64]int64{}
	for i := range j.Stages {
		l := visit(i, 0)
		depth = max(depth, l)
		count[l]++
		width = max(width, count[l])
	}
	return depth, width
}

func statsGoogle(w, diag io.Writer, dir string) error {
	src, err := google2011.SourceOf(dir)
	if err != nil {
		return err
	}
	var (
		records, withTasks      int64
		final                   = map[string]int64{}
		runtimes, tasks         []int64
		users, names, logical   = cardinality{}, cardinality{}, cardinality{}
		first, last             = int64(math.MaxInt64), int64(math.MinInt64)
		inWindow, resubmissions int64
	)
	start := time.Now()
	err = google2011.ScanJobs(src, func(r *google2011.JobRecord) error {
		records++
		state := r.FinalState.String()
		if r.End == -1 {
			state = "still open"
		}
		final[state]++
		if r.Runtime > 0 {
			runtimes = append(runtimes, r.Runtime)
		}
		if r.Tasks > 0 {
			withTasks++
			tasks = append(tasks, int64(r.Tasks))
		}
		users.add(r.User)
		names.add(r.JobName)
		logical.add(r.LogicalJobName)
		if r.Submit > google2011.BeforeWindow {
			inWindow++
			first, last = min(first, r.Submit), max(last, r.Submit)
		}
		resubmissions += int64(r.Resubmissions)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(diag, "trace stats: scanned in %s\n", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(w, "trace            google2011 %s\n", dir)
	fmt.Fprintf(w, "jobs             %d (%s), %d resubmissions\n", records, fmtCounts(final), resubmissions)
	fmt.Fprintf(w, "with runtime     %d (FINISH inside the window, first SCHEDULE to last FINISH)\n", len(runtimes))
	printQuantiles(w, "runtime", runtimes, true)
	if withTasks > 0 {
		printQuantiles(w, "tasks/job", tasks, false)
	}
	fmt.Fprintf(w, "arrivals         %s (%d jobs submitted inside the window)\n", arrivalRate(inWindow, first, last), inWindow)
	fmt.Fprintf(w, "distinct         users %d, job names %d, logical job names %d\n", len(users), len(names), len(logical))
	return nil
}

// --- formatting --------------------------------------------------------------------------------

func fmtCounts(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if name == "" {
			name = "(none)"
		}
		parts[i] = fmt.Sprintf("%s %d", name, m[k])
	}
	return strings.Join(parts, ", ")
}

// fmtDur renders a simulated duration: "850ms", "42.5s", "3m12s", "2h05m", "3d04h".
func fmtDur(t traces.Time) string {
	switch {
	case t < 0:
		return "-" + fmtDur(-t)
	case t < traces.Second:
		return fmt.Sprintf("%dms", t/traces.Millisecond)
	case t < traces.Minute:
		return fmt.Sprintf("%.1fs", traces.Seconds(t))
	case t < traces.Hour:
		return fmt.Sprintf("%dm%02ds", t/traces.Minute, t%traces.Minute/traces.Second)
	case t < 24*traces.Hour:
		return fmt.Sprintf("%dh%02dm", t/traces.Hour, t%traces.Hour/traces.Minute)
	}
	return fmt.Sprintf("%dd%02dh", t/(24*traces.Hour), t%(24*traces.Hour)/traces.Hour)
}

// fmtBytes renders a size in B, kB, MB or GB.
func fmtBytes(n int64) string {
	switch {
	case n < 1e3:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// fmtTime renders an absolute trace time as a duration since time 0.
func fmtTime(t traces.Time) string { return "t=" + fmtDur(t) }
