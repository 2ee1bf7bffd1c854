package decima

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate"
)

// Sizes are the TPC-H input sizes Decima measured, one file tpch_<size>.json each.
var Sizes = []string{"2g", "5g", "10g", "20g", "50g", "80g", "100g"}

// StreamOptions configure Stream, decima-sim's job arrival process (spark_env/job_generator.py):
// InitJobs jobs present at time 0, then StreamJobs jobs whose gaps are exponential with mean
// MeanInterarrivalS, truncated to whole milliseconds; every job's query is uniform over the
// queries and its input size uniform over Sizes. Each field's comment names its configuration key
// (workload.decima.<key>); Defaults() are decima-sim's.
type StreamOptions struct {
	// Catalog (dir: a folder of tpch_<size>.json files the caller reads with ReadDir) holds the
	// jobs to draw from, one workload per input size; required.
	Catalog map[string]*traces.Workload
	// Sizes (sizes) lists the input sizes drawn from, comma separated ("": all of the catalog's).
	Sizes string
	// InitJobs (init_jobs) jobs arrive at time 0 (10, num_init_dags).
	InitJobs int
	// StreamJobs (stream_jobs) jobs arrive afterwards (100, num_stream_dags).
	StreamJobs int
	// MeanInterarrivalS (mean_interarrival_s) is the mean gap between arrivals (25, stream_interval).
	MeanInterarrivalS float64
	// Executors (executors), JobExecutors (job_executors), Key (key), NoWarmUp (no_warm_up) and
	// NoMovingDelay (no_moving_delay) are the reader's Options used for the catalog (100,
	// 0 = executors, "decima", false, false).
	Executors     int
	JobExecutors  int
	Key           string
	NoWarmUp      bool
	NoMovingDelay bool
}

// StreamDefaults returns decima-sim's defaults (param.py). Catalog must still be set.
func StreamDefaults() StreamOptions {
	return StreamOptions{InitJobs: 10, StreamJobs: 100, MeanInterarrivalS: 25, Executors: DefaultExecutors, Key: KeyDecima}
}

// StreamKeys lists Stream's configuration keys with their defaults; "dir" is the folder behind
// StreamOptions.Catalog.
func StreamKeys() []generate.Key {
	d := StreamDefaults()
	return []generate.Key{
		{Name: "dir", Default: "", Doc: "folder of Decima's tpch_<size>.json files (e.g. ../shared/data/decima-tpch); required"},
		{Name: "sizes", Default: d.Sizes, Doc: "comma-separated input sizes to draw from (empty: every size in dir)"},
		{Name: "init_jobs", Default: d.InitJobs, Doc: "jobs present at time 0 (decima-sim num_init_dags)"},
		{Name: "stream_jobs", Default: d.StreamJobs, Doc: "jobs arriving afterwards, Poisson (decima-sim num_stream_dags)"},
		{Name: "mean_interarrival_s", Default: d.MeanInterarrivalS, Doc: "mean gap between streaming arrivals, seconds (decima-sim stream_interval)"},
		{Name: "executors", Default: d.Executors, Doc: "cluster executors (one single-core machine each)"},
		{Name: "job_executors", Default: d.JobExecutors, Doc: "most executors one job holds, selecting its measurements (0: executors)"},
		{Name: "key", Default: d.Key, Doc: "measurement rule: decima (the executors the job holds, decima-sim's) or fixed (job_executors for every stage)"},
		{Name: "no_warm_up", Default: d.NoWarmUp, Doc: "replay no fresh (JVM warm-up) durations"},
		{Name: "no_moving_delay", Default: d.NoMovingDelay, Doc: "drop decima-sim's 2 s moving delay from the first task of each executor joining a job"},
	}
}

// ReaderOptions returns the reader options the catalog is read with.
func (o StreamOptions) ReaderOptions() Options {
	return Options{Executors: o.Executors, JobExecutors: o.JobExecutors, Key: o.Key, NoWarmUp: o.NoWarmUp, NoMovingDelay: o.NoMovingDelay}
}

// ReadDir reads tpch_<size>.json for each of sizes (all Sizes present in dir when sizes is
// empty) into a catalog keyed by size.
func ReadDir(dir string, sizes []string, o Options) (map[string]*traces.Workload, error) {
	if len(sizes) == 0 {
		for _, s := range Sizes {
			if _, err := os.Stat(filepath.Join(dir, "tpch_"+s+".json")); err == nil {
				sizes = append(sizes, s)
			}
		}
		if len(sizes) == 0 {
			return nil, fmt.Errorf("decima: %s: no tpch_<size>.json files (sizes %s)", dir, strings.Join(Sizes, ", "))
		}
	}
	out := make(map[string]*traces.Workload, len(sizes))
	for _, s := range sizes {
		w, err := ReadFile(filepath.Join(dir, "tpch_"+s+".json"), o)
		if err != nil {
			return nil, err
		}
		out[s] = w
	}
	return out, nil
}

// Validate checks every option and reports all problems, each naming its field.
func (o StreamOptions) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("decima: StreamOptions.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if len(o.Catalog) == 0 {
		bad("Catalog", "empty; read Decima's files with decima.ReadDir")
	}
	for _, s := range o.sizes() {
		if o.Catalog[s] == nil || len(o.Catalog[s].Jobs) == 0 {
			bad("Sizes", "size %q is not in the catalog (have %s)", s, strings.Join(catalogSizes(o.Catalog), ", "))
		}
	}
	if o.InitJobs < 0 || o.StreamJobs < 0 || o.InitJobs+o.StreamJobs < 1 || o.InitJobs+o.StreamJobs > 10_000_000 {
		bad("InitJobs", "init_jobs %d + stream_jobs %d: want 1..10000000 jobs, neither negative", o.InitJobs, o.StreamJobs)
	}
	if m := o.MeanInterarrivalS; !(m > 0) || math.IsInf(m, 0) || m > 1e6 {
		bad("MeanInterarrivalS", "want a value in (0, 1e6] seconds, got %v", m)
	}
	if _, err := o.ReaderOptions().normalize(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (o StreamOptions) sizes() []string {
	if strings.TrimSpace(o.Sizes) == "" {
		return catalogSizes(o.Catalog)
	}
	var out []string
	for _, s := range strings.Split(o.Sizes, ",") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// catalogSizes lists a catalog's sizes in Sizes order, then any others sorted.
func catalogSizes(c map[string]*traces.Workload) []string {
	var out, other []string
	for _, s := range Sizes {
		if c[s] != nil {
			out = append(out, s)
		}
	}
	for s := range c {
		if !slices.Contains(Sizes, s) {
			other = append(other, s)
		}
	}
	slices.Sort(other)
	return append(out, other...)
}

// Stream draws decima-sim's arrival process from the catalog. Jobs are numbered by arrival
// (ID 0, 1, ...), so repeated draws of one query and size never collide; Name and Features keep
// the query and size. The cluster is the catalog's (Executors single-core machines).
func Stream(o StreamOptions, r *rand.Rand) (*traces.Workload, error) {
	if r == nil {
		return nil, errors.New("decima: nil *rand.Rand")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sizes := o.sizes()
	// Queries present at every drawn size, by number (the catalog's job IDs are size·1000+query).
	var queries []int64
	for _, j := range o.Catalog[sizes[0]].Jobs {
		queries = append(queries, j.ID%1000)
	}
	slices.Sort(queries)
	first := o.Catalog[sizes[0]]
	w := &traces.Workload{
		Name:    "decima-stream",
		Source:  fmt.Sprintf("decima.Stream sizes=%s init_jobs=%d stream_jobs=%d mean_interarrival_s=%s executors=%d job_executors=%d key=%s no_warm_up=%v no_moving_delay=%v", strings.Join(sizes, ","), o.InitJobs, o.StreamJobs, strconv.FormatFloat(o.MeanInterarrivalS, 'g', -1, 64), o.Executors, o.JobExecutors, o.Key, o.NoWarmUp, o.NoMovingDelay),
		Dims:    slices.Clone(first.Dims),
		Cluster: traces.Cluster{Machines: slices.Clone(first.Cluster.Machines), Pooled: first.Cluster.Pooled},
	}
	find := func(size string, q int64) (traces.Job, error) {
		for _, j := range o.Catalog[size].Jobs {
			if j.ID%1000 == q {
				return j, nil
			}
		}
		return traces.Job{}, fmt.Errorf("decima: StreamOptions.Sizes: size %s has no query %d", size, q)
	}
	var t float64 // ms
	mean := o.MeanInterarrivalS * 1000
	for n := range o.InitJobs + o.StreamJobs {
		if n >= o.InitJobs {
			t += math.Floor(r.ExpFloat64() * mean)
		}
		q := queries[r.IntN(len(queries))]
		size := sizes[r.IntN(len(sizes))]
		j, err := find(size, q)
		if err != nil {
			return nil, err
		}
		j.ID = int64(n)
		j.Stages = slices.Clone(j.Stages)
		j.Submit = traces.Time(t) * traces.Millisecond
		w.Jobs = append(w.Jobs, j)
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("decima: streamed workload is invalid: %w", err)
	}
	return w, nil
}
