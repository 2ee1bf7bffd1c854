// Package bpf generates the workload of the BPF (Bounded Priority Fairness) evaluation (BPF §5.1):
// latency-sensitive queues (LQs) whose jobs arrive in periodic bursts, and throughput-oriented
// batch queues (TQs) whose jobs are all queued at time 0, both built from the TPC-H, TPC-DS and
// BigBench query DAGs of the Carbyne/BoPF traces.
//
// The recipe (defaults in parentheses, from BPF §5.1 and the BoPF simulator's parameters recorded
// in shared/data/tpc-dags/SOURCE.txt):
//
//   - Queries: Options.Queries holds one job per query DAG, e.g. tpcdag.ReadFile of
//     workload/queries_{tpch,tpcds_new,bb}.txt ("in each experiment run, we chose the LQ jobs
//     from one of the traces"). The generator takes the parsed workload, not a path, so it works
//     without the shared data; its demands are fractions of one machine, as the traces give them.
//   - Cluster: Machines (40) machines of capacity 1.0 in every dimension of the queries,
//     Pooled, like the BoPF simulator's single shared capacity vector.
//   - LQ jobs: the queries whose shortest completion time — their critical path after scaling
//     task durations by LQDurationScale (1; BoPF uses 1/2 for TPC-H) — is below
//     LQMaxCriticalPathS (30 s: "their shortest completion times are less than 30 seconds") and,
//     when LQMaxTasks > 0, that have fewer than LQMaxTasks tasks in the trace (BoPF's
//     SMALL_JOB_TASK_NUM_THRESHOLD; 0: no bound). Each is scaled "to make sure their
//     instantaneous demands reach the maximum capacity of a single resource", in one of two ways:
//     by default (LQTaskScale 0) every stage's task count is multiplied by the same factor
//     LQFill/peak (rounded down, at least 1), where peak is the largest share of any one resource
//     that any single stage demands (tasks × per-task demand / cluster capacity); so the widest
//     stage fills LQFill (1.0) of its bottleneck resource, up to one task, whatever the query's
//     shape. LQFill > 1 reproduces the scaled-up LQ jobs of BPF §5.2.3 (2x, 4x, 8x). With
//     LQTaskScale > 0, every stage's task count is multiplied by LQTaskScale (truncated, at least
//     1), as BoPF's simulator does (SCALE_UP_BURSTY_JOB: a per-workload constant × cluster size /
//     25, chosen there so that the selected queries reach the capacity); LQFill is then unused.
//   - Bursts: LQ i submits Bursts (25, the BoPF simulator's numBurstyJobPerQueue) jobs, one per
//     ON period, at FirstBurstS + i·StaggerS + n·PeriodS (100 s + n·1000 s: BPF's simulation
//     period, and the arrivals 100, 1100, 2100, ... of BoPF's generated inputs). Each burst's job
//     is drawn uniformly from the LQ-eligible queries.
//   - SLA: the n-th burst of LQ i starts at T_i(n) = Job.Submit and must finish within the
//     allowed processing time t_i(n), the ON period, which BPF sets to "the shortest completion
//     time of its corresponding LQ job": the critical path when every stage runs in as few waves
//     as the cluster allows (one wave when LQFill ≤ 1), stretched by LQSlackPercent (0). Job.Deadline
//     = T_i(n) + t_i(n), the deadline a BPF policy reads; the burst index is in Job.Name (see
//     BurstOf) and the demand d_i(n) is the job's stages.
//   - TQ jobs: TQJobs (500, "each simulation experiment has 500 TQ jobs") jobs drawn uniformly
//     from all queries, with task counts × TQTaskScale and durations × TQDurationScale (1, 1:
//     BoPF's floor(capacity/25) batch scale-up is 1 for 40 machines), assigned round-robin to
//     TQs (8) queues and all submitted at t = 0 ("all the TQ jobs are submitted up at the
//     beginning"). With TQs = 0, TQJobs is ignored.
//
// Jobs: Queue "lq<i>" or "tq<k>", Class "lq" or "tq", Priority 1 for LQ jobs and 0 for TQ jobs,
// Features.User = the queue and JobName = LogicalJobName = the query name. Estimates equal the
// true durations; BPF §5.4.1's estimation errors are applied with traces/shape (estimates=noise,
// estimate_classes=lq). IDs number LQ jobs first (queue by queue, burst by burst), then TQ jobs.
package bpf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate"
	"github.com/schedlab/schedlab/traces/generate/internal/draw"
)

// Job classes.
const (
	ClassLQ = "lq"
	ClassTQ = "tq"
)

// Options configure the generator; Defaults() is the paper's simulation setup. Each field's
// comment names its configuration key (see Keys).
type Options struct {
	// Queries (queries: a file path the caller reads with traces/tpcdag) are the query DAGs, one
	// job per query; required.
	Queries *traces.Workload
	// LQs (lqs) is the number of latency-sensitive queues (1).
	LQs int
	// TQs (tqs) is the number of batch queues (8).
	TQs int
	// Bursts (bursts) is the number of bursts, one job each, per LQ (25).
	Bursts int
	// PeriodS (period_s) is the time between an LQ's bursts in seconds (1000).
	PeriodS float64
	// FirstBurstS (first_burst_s) is when LQ 0's first burst arrives, seconds (100).
	FirstBurstS float64
	// StaggerS (stagger_s) delays LQ i's bursts by i × StaggerS seconds (0).
	StaggerS float64
	// LQMaxCriticalPathS (lq_max_critical_path_s): queries whose scaled critical path is below
	// this many seconds are LQ jobs (30).
	LQMaxCriticalPathS float64
	// LQDurationScale (lq_duration_scale) multiplies LQ task durations (1).
	LQDurationScale float64
	// LQFill (lq_fill) is the share of its bottleneck resource an LQ job's widest stage demands
	// (1); unused when LQTaskScale > 0.
	LQFill float64
	// LQTaskScale (lq_task_scale), when > 0, multiplies every LQ stage's task count by this
	// constant instead of filling LQFill of the bottleneck resource (0: fill).
	LQTaskScale float64
	// LQMaxTasks (lq_max_tasks), when > 0, keeps as LQ jobs only queries with fewer tasks than
	// this in the trace (0: no bound).
	LQMaxTasks int
	// LQSlackPercent (lq_slack_percent) stretches the allowed processing time beyond the
	// shortest completion time, percent (0).
	LQSlackPercent float64
	// TQJobs (tq_jobs) is the total number of TQ jobs (500).
	TQJobs int
	// TQTaskScale (tq_task_scale) multiplies TQ task counts (1).
	TQTaskScale float64
	// TQDurationScale (tq_duration_scale) multiplies TQ task durations (1).
	TQDurationScale float64
	// Machines (machines) is the cluster size (40).
	Machines int
	// LQPeriodsS (lq_periods_s), when set, gives each LQ its own period: comma-separated
	// seconds, one per LQ (BPF Fig. 9's testbed run: "150,110,60"); "" uses PeriodS for all.
	LQPeriodsS string
	// LQFirstS (lq_first_s), when set, gives each LQ its first arrival: comma-separated seconds,
	// one per LQ; "" uses FirstBurstS + i × StaggerS.
	LQFirstS string
	// TQWaveJobs (tq_wave_jobs), when > 0, submits the TQ jobs in waves of this many, one wave
	// every TQWaveGapS seconds from t=0 (ccra's batches-all.sh: 8 jobs, sleep 160, ...); 0 submits
	// them all at t=0.
	TQWaveJobs int
	// TQWaveGapS (tq_wave_gap_s) is the time between TQ waves, seconds.
	TQWaveGapS float64
	// Unpooled (unpooled) places tasks on the Machines machines of capacity 1.0 each instead of
	// pooling them into one capacity vector (the testbed's node packing).
	Unpooled bool
}

// Defaults returns BPF's simulation setup: one LQ bursting every 1000 s and 8 TQs sharing 500
// jobs, on 40 machines. Queries must still be set.
func Defaults() Options {
	return Options{
		LQs:                1,
		TQs:                8,
		Bursts:             25,
		PeriodS:            1000,
		FirstBurstS:        100,
		LQMaxCriticalPathS: 30,
		LQDurationScale:    1,
		LQFill:             1,
		TQJobs:             500,
		TQTaskScale:        1,
		TQDurationScale:    1,
		Machines:           40,
	}
}

// Keys lists the generator's configuration keys with their defaults. "queries" is a path: the
// caller reads it with tpcdag.ReadFile and sets Options.Queries.
func Keys() []generate.Key {
	d := Defaults()
	return []generate.Key{
		{Name: "queries", Default: "", Doc: "query DAG file (Carbyne/BoPF format, e.g. tpc-dags/workload/queries_bb.txt), one job per query; required"},
		{Name: "lqs", Default: d.LQs, Doc: "number of latency-sensitive queues (LQs)"},
		{Name: "tqs", Default: d.TQs, Doc: "number of batch queues (TQs)"},
		{Name: "bursts", Default: d.Bursts, Doc: "bursts (one job each) per LQ"},
		{Name: "period_s", Default: d.PeriodS, Doc: "seconds between an LQ's bursts"},
		{Name: "first_burst_s", Default: d.FirstBurstS, Doc: "arrival of LQ 0's first burst, seconds"},
		{Name: "stagger_s", Default: d.StaggerS, Doc: "LQ i's bursts are delayed by i × stagger_s seconds"},
		{Name: "lq_max_critical_path_s", Default: d.LQMaxCriticalPathS, Doc: "queries with a (scaled) critical path below this are LQ jobs"},
		{Name: "lq_duration_scale", Default: d.LQDurationScale, Doc: "multiply LQ task durations (BoPF uses 0.5 for TPC-H)"},
		{Name: "lq_fill", Default: d.LQFill, Doc: "share of its bottleneck resource an LQ job's widest stage demands (task counts scaled to it); unused when lq_task_scale > 0"},
		{Name: "lq_task_scale", Default: d.LQTaskScale, Doc: "when > 0, multiply LQ task counts by this constant (BoPF's SCALE_UP_BURSTY_JOB) instead of filling lq_fill of the bottleneck"},
		{Name: "lq_max_tasks", Default: d.LQMaxTasks, Doc: "when > 0, only queries with fewer tasks than this in the trace are LQ jobs (BoPF's SMALL_JOB_TASK_NUM_THRESHOLD)"},
		{Name: "lq_slack_percent", Default: d.LQSlackPercent, Doc: "LQ deadline = burst start + shortest completion time × (1 + slack/100)"},
		{Name: "tq_jobs", Default: d.TQJobs, Doc: "total TQ jobs, drawn uniformly from the queries, round-robin over the TQs, all at t=0"},
		{Name: "tq_task_scale", Default: d.TQTaskScale, Doc: "multiply TQ task counts"},
		{Name: "tq_duration_scale", Default: d.TQDurationScale, Doc: "multiply TQ task durations"},
		{Name: "machines", Default: d.Machines, Doc: "cluster machines of capacity 1.0 per dimension (pooled)"},
		{Name: "lq_periods_s", Default: "", Doc: "per-LQ periods, comma-separated seconds (one per LQ, e.g. \"150,110,60\"); empty = period_s for every LQ"},
		{Name: "lq_first_s", Default: "", Doc: "per-LQ first arrivals, comma-separated seconds; empty = first_burst_s + i × stagger_s"},
		{Name: "tq_wave_jobs", Default: 0, Doc: "submit the TQ jobs in waves of this many, one wave every tq_wave_gap_s from t=0; 0 = all at t=0"},
		{Name: "tq_wave_gap_s", Default: 0.0, Doc: "seconds between TQ waves"},
		{Name: "unpooled", Default: false, Doc: "place tasks on the machines (capacity 1.0 each) instead of one pooled capacity vector"},
	}
}

// maxSeconds bounds generated times (about 31.7 years) so they cannot overflow.
const maxSeconds = 1e9

// Validate checks every option and reports all problems, each naming its field.
func (o Options) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("bpf: Options.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if o.Queries == nil {
		bad("Queries", "nil; load query DAGs, e.g. tpcdag.ReadFile(\".../tpc-dags/workload/queries_bb.txt\", tpcdag.Options{LastStageWins: true})")
	} else if len(o.Queries.Jobs) == 0 {
		bad("Queries", "no queries")
	} else if err := o.Queries.Validate(); err != nil {
		bad("Queries", "%v", err)
	}
	if o.LQs < 0 || o.LQs > 10_000 {
		bad("LQs", "want 0..10000, got %d", o.LQs)
	}
	if o.TQs < 0 || o.TQs > 10_000 {
		bad("TQs", "want 0..10000, got %d", o.TQs)
	}
	if o.LQs == 0 && o.TQs == 0 {
		bad("LQs", "no queues: LQs and TQs are both 0")
	}
	if o.LQs > 0 && (o.Bursts < 1 || o.Bursts > 1_000_000) {
		bad("Bursts", "want 1..1000000, got %d", o.Bursts)
	}
	pos := func(field string, x, limit float64) {
		if !finite(x) || x <= 0 || x > limit {
			bad(field, "want a value in (0, %g], got %v", limit, x)
		}
	}
	nonNeg := func(field string, x, limit float64) {
		if !finite(x) || x < 0 || x > limit {
			bad(field, "want a value in [0, %g], got %v", limit, x)
		}
	}
	pos("PeriodS", o.PeriodS, maxSeconds)
	nonNeg("FirstBurstS", o.FirstBurstS, maxSeconds)
	nonNeg("StaggerS", o.StaggerS, maxSeconds)
	pos("LQMaxCriticalPathS", o.LQMaxCriticalPathS, maxSeconds)
	pos("LQDurationScale", o.LQDurationScale, 1e6)
	pos("LQFill", o.LQFill, 1e6)
	nonNeg("LQTaskScale", o.LQTaskScale, 1e6)
	if o.LQMaxTasks < 0 || o.LQMaxTasks > math.MaxInt32 {
		bad("LQMaxTasks", "want 0 (no bound) .. %d, got %d", math.MaxInt32, o.LQMaxTasks)
	}
	if !finite(o.LQSlackPercent) || o.LQSlackPercent <= -100 || o.LQSlackPercent > 1e6 {
		bad("LQSlackPercent", "want a percentage in (-100, 1e6], got %v", o.LQSlackPercent)
	}
	if o.TQs > 0 && (o.TQJobs < o.TQs || o.TQJobs > 10_000_000) {
		bad("TQJobs", "want %d (one per TQ) .. 10000000, got %d", o.TQs, o.TQJobs)
	}
	pos("TQTaskScale", o.TQTaskScale, 1e6)
	pos("TQDurationScale", o.TQDurationScale, 1e6)
	if o.Machines < 1 || o.Machines > 1_000_000 {
		bad("Machines", "want 1..1000000, got %d", o.Machines)
	}
	if _, _, err := o.lqSchedule(); err != nil {
		errs = append(errs, err)
	}
	if o.TQWaveJobs < 0 || o.TQWaveJobs > 10_000_000 {
		bad("TQWaveJobs", "want 0 (one wave at t=0) .. 10000000, got %d", o.TQWaveJobs)
	}
	nonNeg("TQWaveGapS", o.TQWaveGapS, maxSeconds)
	if o.TQWaveJobs > 0 && o.TQJobs > 0 && finite(o.TQWaveGapS) && float64((o.TQJobs-1)/o.TQWaveJobs)*o.TQWaveGapS > maxSeconds {
		bad("TQWaveGapS", "the last TQ wave would arrive beyond %g s", maxSeconds)
	}
	if o.LQs > 0 && finite(o.FirstBurstS) && finite(o.StaggerS) && finite(o.PeriodS) {
		last := o.FirstBurstS + float64(float64(o.LQs-1)*o.StaggerS) + float64(float64(o.Bursts-1)*o.PeriodS)
		if last > maxSeconds {
			bad("Bursts", "the last burst would arrive at %g s, beyond %g s", last, maxSeconds)
		}
	}
	return errors.Join(errs...)
}

// String renders the options for Workload.Source.
func (o Options) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	q := "<nil>"
	if o.Queries != nil {
		q = o.Queries.Name
		if o.Queries.Source != "" {
			q = o.Queries.Source
		}
		q = fmt.Sprintf("%q (%d queries, %s)", q, len(o.Queries.Jobs), o.Queries.Hash()[:12])
	}
	return fmt.Sprintf("queries=%s lqs=%d tqs=%d bursts=%d period_s=%s first_burst_s=%s stagger_s=%s lq_max_critical_path_s=%s lq_max_tasks=%d lq_duration_scale=%s lq_fill=%s lq_task_scale=%s lq_slack_percent=%s tq_jobs=%d tq_task_scale=%s tq_duration_scale=%s machines=%d",
		q, o.LQs, o.TQs, o.Bursts, f(o.PeriodS), f(o.FirstBurstS), f(o.StaggerS), f(o.LQMaxCriticalPathS), o.LQMaxTasks,
		f(o.LQDurationScale), f(o.LQFill), f(o.LQTaskScale), f(o.LQSlackPercent), o.TQJobs, f(o.TQTaskScale), f(o.TQDurationScale), o.Machines) + o.scenarioString()
}

// Random streams, drawn from the caller's generator in this order.
const (
	streamLQ = iota
	streamTQ
	numStreams
)

// candidate is a query prepared as an LQ job.
type candidate struct {
	job     traces.Job
	allowed float64 // shortest completion time on the cluster, µs
}

// Generate builds the workload. r must not be nil.
func Generate(o Options, r *rand.Rand) (*traces.Workload, error) {
	if r == nil {
		return nil, errors.New("bpf: nil *rand.Rand")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dims := slices.Clone(o.Queries.Dims)
	var one traces.Vec
	for k := range dims {
		one[k] = traces.Unit
	}
	w := &traces.Workload{
		Name:    "bpf",
		Source:  "generate/bpf " + o.String(),
		Dims:    dims,
		Cluster: traces.Uniform(o.Machines, one, 0),
	}
	w.Cluster.Pooled = !o.Unpooled
	total := w.Cluster.Total()
	s := draw.Streams(r, numStreams)

	if o.LQs > 0 {
		var cands []candidate
		shortest := traces.Time(math.MaxInt64)
		for qi := range o.Queries.Jobs {
			j, err := scaled(&o.Queries.Jobs[qi], 1, o.LQDurationScale)
			if err != nil {
				return nil, fmt.Errorf("bpf: Options.LQDurationScale: %w", err)
			}
			cp := j.CriticalPath(false)
			shortest = min(shortest, cp)
			if cp >= traces.FromSeconds(o.LQMaxCriticalPathS) {
				continue
			}
			if o.LQMaxTasks > 0 && o.Queries.Jobs[qi].Tasks() >= int64(o.LQMaxTasks) {
				continue
			}
			if o.LQTaskScale > 0 {
				if err := multiplyTasks(&j, o.LQTaskScale); err != nil {
					return nil, fmt.Errorf("bpf: Options.LQTaskScale: %w", err)
				}
			} else if err := fill(&j, total, o.LQFill); err != nil {
				return nil, fmt.Errorf("bpf: Options.LQFill: %w", err)
			}
			cands = append(cands, candidate{job: j, allowed: shortestCompletion(&j, total)})
		}
		if len(cands) == 0 {
			return nil, fmt.Errorf("bpf: Options.LQMaxCriticalPathS: no query has a critical path below %v s after scaling durations by LQDurationScale %v (the shortest is %v s)%s; raise LQMaxCriticalPathS or lower LQDurationScale",
				o.LQMaxCriticalPathS, o.LQDurationScale, traces.Seconds(shortest), maxTasksNote(o.LQMaxTasks))
		}
		firsts, periods, _ := o.lqSchedule()
		for i := range o.LQs {
			queue := fmt.Sprintf("lq%d", i)
			for n := range o.Bursts {
				c := cands[s[streamLQ].IntN(len(cands))]
				j := c.job
				j.Stages = slices.Clone(j.Stages)
				j.ID = int64(len(w.Jobs))
				j.Name = fmt.Sprintf("%s/burst%d/%s", queue, n, c.job.Name)
				j.Submit = firsts[i] + traces.Time(n)*periods[i]
				rel := math.Round(float64(c.allowed * (1 + o.LQSlackPercent/100)))
				if float64(j.Submit)+rel > maxSeconds*float64(traces.Second) {
					return nil, fmt.Errorf("bpf: Options.LQSlackPercent: the deadline of %s (%v s after its burst) overflows", j.Name, rel/float64(traces.Second))
				}
				j.Deadline = j.Submit + traces.Time(rel)
				label(&j, queue, ClassLQ, 1, c.job.Name)
				w.Jobs = append(w.Jobs, j)
			}
		}
	}
	if o.TQs > 0 {
		pool := make([]traces.Job, len(o.Queries.Jobs))
		for qi := range o.Queries.Jobs {
			j, err := scaled(&o.Queries.Jobs[qi], o.TQTaskScale, o.TQDurationScale)
			if err != nil {
				return nil, fmt.Errorf("bpf: Options.TQTaskScale/TQDurationScale: %w", err)
			}
			pool[qi] = j
		}
		for k := range o.TQJobs {
			q := pool[s[streamTQ].IntN(len(pool))]
			queue := fmt.Sprintf("tq%d", k%o.TQs)
			j := q
			j.Stages = slices.Clone(q.Stages)
			j.ID = int64(len(w.Jobs))
			j.Name = fmt.Sprintf("%s/%s", queue, q.Name)
			j.Submit = o.tqSubmit(k)
			j.Deadline = 0
			label(&j, queue, ClassTQ, 0, q.Name)
			w.Jobs = append(w.Jobs, j)
		}
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("bpf: generated workload is invalid: %w", err)
	}
	return w, nil
}

// label sets the queue-derived fields of a generated job.
func label(j *traces.Job, queue, class string, priority int, query string) {
	j.Queue = queue
	j.Class = class
	j.Priority = priority
	j.Weight = 0
	j.Utility = nil
	j.Features = traces.Features{User: queue, JobName: query, LogicalJobName: query}
}

// queryName names a query job: its trace name, or "query<id>".
func queryName(q *traces.Job) string {
	if strings.TrimSpace(q.Name) != "" {
		return q.Name
	}
	return fmt.Sprintf("query%d", q.ID)
}

// scaled returns a copy of query q with task counts × taskScale (rounded, at least 1) and task
// durations × durScale (rounded, at least 1 µs); estimates are set to the scaled durations.
func scaled(q *traces.Job, taskScale, durScale float64) (traces.Job, error) {
	j := traces.Job{ID: q.ID, Name: queryName(q), Stages: slices.Clone(q.Stages)}
	dur := func(d traces.Time) (traces.Time, error) {
		x := math.Round(float64(d) * durScale)
		if x > maxSeconds*float64(traces.Second) {
			return 0, fmt.Errorf("query %q: duration %v s × %v overflows", j.Name, traces.Seconds(d), durScale)
		}
		return max(traces.Time(x), 1), nil
	}
	for si := range j.Stages {
		st := &j.Stages[si]
		n := math.Round(float64(st.Tasks) * taskScale)
		if n > math.MaxInt32 {
			return j, fmt.Errorf("query %q stage %q: %d tasks × %v overflows", j.Name, st.Name, st.Tasks, taskScale)
		}
		var err error
		if st.TaskDurations != nil {
			// Per-task durations: keep them, mapped onto the new task count as in traces/shape.
			old := st.TaskDurations
			tasks := max(int32(n), 1)
			nd := make([]traces.Time, tasks)
			for i := range nd {
				if nd[i], err = dur(old[int64(i)*int64(len(old))/int64(tasks)]); err != nil {
					return j, err
				}
			}
			st.TaskDurations = nd
			st.Tasks = tasks
			var sum float64
			for _, d := range nd {
				sum += float64(d)
			}
			st.Estimate = max(traces.Time(math.Round(sum/float64(len(nd)))), 1)
			if st.Duration > 0 {
				if st.Duration, err = dur(st.Duration); err != nil {
					return j, err
				}
			}
			continue
		}
		st.Tasks = max(int32(n), 1)
		if st.Duration, err = dur(st.Duration); err != nil {
			return j, err
		}
		st.Estimate = st.Duration
	}
	return j, nil
}

// share returns the largest share of one resource of total that n tasks of demand d need.
func share(n int32, d, total traces.Vec) float64 {
	var s float64
	for k := range d {
		if d[k] > 0 && total[k] > 0 {
			s = max(s, float64(n)*float64(d[k])/float64(total[k]))
		}
	}
	return s
}

// fill scales every stage's task count by target/peak (rounded down, at least 1), where peak is
// the largest single-resource share any one stage demands, so the widest stage demands target of
// its bottleneck resource (up to one task).
func fill(j *traces.Job, total traces.Vec, target float64) error {
	var peak float64
	for si := range j.Stages {
		peak = max(peak, share(j.Stages[si].Tasks, j.Stages[si].Demand, total))
	}
	if peak == 0 {
		return fmt.Errorf("query %q demands nothing of the cluster's resources", j.Name)
	}
	return multiplyTasks(j, target/peak)
}

// maxTasksNote qualifies the no-candidate error when LQMaxTasks also filters.
func maxTasksNote(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and fewer than LQMaxTasks %d tasks", n)
}

// multiplyTasks multiplies every stage's task count by f, truncated and at least 1, as BoPF's
// simulator scales its bursty jobs ((int)(tasks × SCALE_UP_BURSTY_JOB)).
func multiplyTasks(j *traces.Job, f float64) error {
	for si := range j.Stages {
		st := &j.Stages[si]
		// The epsilon keeps an exact fit (e.g. 160.0 computed as 159.99999999) from losing a task.
		n := math.Floor(float64(float64(st.Tasks)*f) + 1e-9)
		if n > math.MaxInt32 {
			return fmt.Errorf("query %q stage %q: %d tasks × %v overflows", j.Name, st.Name, st.Tasks, f)
		}
		resize(st, max(int32(n), 1))
	}
	return nil
}

// resize sets a stage's task count, mapping per-task durations onto the new count.
func resize(st *traces.Stage, tasks int32) {
	if st.TaskDurations != nil && tasks != st.Tasks {
		old := st.TaskDurations
		nd := make([]traces.Time, tasks)
		for i := range nd {
			nd[i] = old[int64(i)*int64(len(old))/int64(tasks)]
		}
		st.TaskDurations = nd
	}
	st.Tasks = tasks
}

// waves returns how many rounds n tasks of demand d need on a pooled cluster of capacity total.
func waves(n int32, d, total traces.Vec) int64 {
	perWave := int64(math.MaxInt64)
	for k := range d {
		if d[k] > 0 {
			perWave = min(perWave, total[k]/d[k])
		}
	}
	if perWave <= 0 {
		return math.MaxInt32 // does not fit; Validate rejects such demands before this is used
	}
	return (int64(n) + perWave - 1) / perWave
}

// shortestCompletion returns the job's completion time in µs when it has the pooled cluster to
// itself: the longest path through the DAG in which each stage takes as many waves of its longest
// task as its demand needs (one wave when the stage fits the cluster at once). It is computed in
// float64 so that absurd option values cannot overflow; callers check the bound.
func shortestCompletion(j *traces.Job, total traces.Vec) float64 {
	finish := make([]float64, len(j.Stages))
	done := make([]bool, len(j.Stages))
	var visit func(int) float64
	visit = func(i int) float64 {
		if done[i] {
			return finish[i]
		}
		st := &j.Stages[i]
		var start float64
		for _, p := range st.Parents {
			start = max(start, visit(int(p)))
		}
		d := st.Duration
		for _, x := range st.TaskDurations {
			d = max(d, x)
		}
		finish[i] = start + float64(float64(waves(st.Tasks, st.Demand, total))*float64(d))
		done[i] = true
		return finish[i]
	}
	var cp float64
	for i := range j.Stages {
		cp = max(cp, visit(i))
	}
	return cp
}

// BurstOf returns the LQ index and burst index of a job this package generated (from its Name,
// "lq<i>/burst<n>/<query>"), and false for TQ jobs and other names.
func BurstOf(j *traces.Job) (lq, burst int, ok bool) {
	parts := strings.SplitN(j.Name, "/", 3)
	if len(parts) != 3 {
		return 0, 0, false
	}
	q, ok1 := strings.CutPrefix(parts[0], "lq")
	b, ok2 := strings.CutPrefix(parts[1], "burst")
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	lq, err1 := strconv.Atoi(q)
	burst, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || lq < 0 || burst < 0 {
		return 0, 0, false
	}
	return lq, burst, true
}
