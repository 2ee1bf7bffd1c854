// Package jamaisvu generates the Google-trace-derived workloads of the JamaisVu evaluation
// (JamaisVu §5, "Workload Configuration", and Table 3) for its 256-node clusters RC256/SC256.
//
// The recipe (defaults in parentheses):
//
//   - Input: Options.Samples, one per observed job of the source trace (runtime, task count and
//     the features a runtime predictor groups by: user, job name, logical job name), e.g. the
//     finished jobs of the Google cluster trace (SamplesFromWorkload converts a single-stage
//     workload).
//   - "We first filter out all jobs larger than 256 nodes": samples with more than MaxTasks (256)
//     tasks are dropped (each task occupies a node).
//   - "We use k-means clustering on the remaining jobs' runtimes, associating each resulting
//     cluster with a job class": Fit clusters ln(runtime) into K classes (5; the paper does not
//     state K) with k-means++ seeding from the passed generator.
//   - Per class, the distributions of runtime and task count (the class's empirical
//     distributions) and "a probability mass function for the feature vector".
//   - Generation: "pick a job class, according to the relative weights (e.g., fraction of Google
//     cluster trace jobs) of each job class", then its runtime, task count and feature vector
//     from the class's distributions, independently (the paper's description; Joint draws one
//     whole sample instead, keeping the trace's correlation between features and runtime).
//   - Arrivals: the paper does not give the arrival process. The jobs are drawn first; then
//     they arrive at a constant rate (a Poisson process conditioned on its span) chosen so that
//     exactly these jobs offer Load (0.9) of the cluster's nodes: their total work
//     Σ tasks × runtime equals Load × nodes × T, T the last submission (OfferedLoad). Setting
//     the rate from the expected work per job instead would miss badly: the work is heavy
//     tailed (most Google jobs are short and single-task, a few are long and wide), so the mean
//     of 1,000 draws is usually far below the distribution's mean and "load 0.9" offered about
//     a tenth of the cluster. The same tail means part of the work may run past the last
//     arrival: on the Google month, 1,000-job workloads keep from a third to nearly all of their
//     work inside the span of arrivals (each runtime clipped at the last submission), depending
//     on whether a long, wide job is drawn late. MeanInterarrivalS, when set, fixes the mean gap
//     instead. This is the to-completion design (replay until every job finished).
//   - Fixed horizon (HorizonS > 0, the design of the JamaisVu specs): jobs arrive as a Poisson
//     process over [0, H] at rate Load × nodes / E[work per job], E from the fitted class model
//     (ExpectedWork), so Load is a rate of work and one run's realised load varies with its draws
//     (a run's horizon.offered_load metrics report it, in full and clipped to H). Metrics are taken at H
//     (engine.horizon_s). LongJobs caps runtimes at H or fits the classes to samples ≤ H.
//   - Mix: the SLO / best-effort composition of Table 3 (Mix, "EXP1"): exactly apportioned
//     shares of SLO jobs with a hard placement constraint, a soft one, or none, and best-effort
//     jobs, in random order. SLO jobs get deadline = submit + runtime × (1 + slack/100), the
//     slack drawn uniformly from the mix's list (EXP1: 20, 40, 60, 80 %); best-effort jobs have
//     no deadline.
//   - Constraints: a constrained SLO job prefers either GPU nodes (GPURacks racks of GPU nodes,
//     2 of the 8 racks; the paper does not give the count) or all of its tasks on one rack (an
//     MPI-style job), chosen uniformly among the kinds that bind for its task count: GPU when it
//     fits the GPU nodes, one rack only for a gang of 2..RackSize (= 32) tasks — a single task is
//     always on one rack, so it gets only a GPU constraint. A job no constraint binds on is
//     redrawn, so constrained jobs are drawn from the job distribution conditioned on a binding,
//     satisfiable preference, and Table 3's hard and soft shares are binding shares. A hard constraint must be
//     met; a soft one may be ignored at the cost of running Slowdown (EXP1 1.5, EXP2/EXP3 1.4)
//     times longer. The runtime drawn is the runtime on preferred resources.
//
// The constraint is Job.Placement: Kind KindGPU or KindRack, Hard, and for soft constraints the
// mix's Slowdown (unconstrained and best-effort jobs have the zero Placement). Policies see it in
// policies.JobInfo.Placement; the replay engine enforces it (hard constraints) and slows tasks
// placed off their preferred resources (soft ones). Job.Name is "c<class>", the
// job's class index (earlier versions appended the constraint, "c<class>/hard:gpu"; see
// ParseConstraint). Other fields: Class and Queue "slo" or "be", Priority 1 for SLO and 0 for
// best-effort jobs, one stage of Tasks tasks each demanding a whole node (NodeCPU cores and
// NodeMemGB GB: RC256's quad-core, 16 GB nodes), Estimate = Duration (plug a predictor or
// traces/shape noise in later). The cluster is Racks × RackSize machines ("r<rack>"), the first
// GPURacks racks with GPU = true; not pooled.
package jamaisvu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate"
	"github.com/schedlab/schedlab/traces/generate/internal/draw"
)

// Job classes (Job.Class and Job.Queue).
const (
	ClassSLO = "slo"
	ClassBE  = "be"
)

// Mix is a workload composition of JamaisVu's Table 3: the shares of SLO jobs with a hard
// placement constraint, a soft one or none, and of best-effort jobs (summing to 1), the slowdown
// of a soft-constrained job off its preferred resources, and the deadline slacks (percent) SLO
// jobs draw from.
type Mix struct {
	Name                 string
	Hard, Soft, None, BE float64
	Slowdown             float64
	Slacks               []float64
}

// MixNames lists the Table 3 presets; "DEADLINE-n" stands for any non-negative integer slack n.
func MixNames() []string { return []string{"EXP1", "EXP2", "EXP3", "DEADLINE-n"} }

// ParseMix returns a Table 3 preset by name: EXP1 (25% hard, 25% soft, 50% best effort,
// slowdown 1.5, slack 20/40/60/80), EXP2 (16.7% hard, 33.3% soft, 50% best effort, 1.4,
// 25/50/75), EXP3 (50% soft, 50% best effort, 1.4, 50/60/70/80) and DEADLINE-n (50% SLO without
// constraints, 50% best effort, slack n for all SLO jobs).
func ParseMix(name string) (Mix, error) {
	switch name {
	case "EXP1":
		return Mix{Name: name, Hard: 0.25, Soft: 0.25, BE: 0.5, Slowdown: 1.5, Slacks: []float64{20, 40, 60, 80}}, nil
	case "EXP2":
		return Mix{Name: name, Hard: 1.0 / 6, Soft: 1.0 / 3, BE: 0.5, Slowdown: 1.4, Slacks: []float64{25, 50, 75}}, nil
	case "EXP3":
		return Mix{Name: name, Soft: 0.5, BE: 0.5, Slowdown: 1.4, Slacks: []float64{50, 60, 70, 80}}, nil
	}
	if s, ok := strings.CutPrefix(name, "DEADLINE-"); ok {
		n, err := strconv.Atoi(s)
		if err == nil && n >= 0 && n <= 1_000_000 {
			return Mix{Name: name, None: 0.5, BE: 0.5, Slowdown: 1, Slacks: []float64{float64(n)}}, nil
		}
	}
	return Mix{}, fmt.Errorf("jamaisvu: Options.Mix: unknown mix %q (valid: %s)", name, strings.Join(MixNames(), ", "))
}

// Options configure the generator; Defaults() is the paper's recipe as far as it is specified.
// Each field's comment names its configuration key (see Keys).
type Options struct {
	// Samples are the observed jobs the classes are fitted to; required. Not a configuration key
	// (the caller reads a trace into samples).
	Samples []Sample
	// Jobs (jobs) is the number of jobs generated (1000).
	Jobs int
	// MaxTasks (max_tasks) drops samples with more tasks than this (256 nodes).
	MaxTasks int32
	// K (k) is the number of k-means job classes (5).
	K int
	// Joint (joint) draws a whole sample per job instead of independent runtime, task count and
	// features (false).
	Joint bool
	// Mix (mix) is a Table 3 composition: EXP1 (default), EXP2, EXP3 or DEADLINE-<n>.
	Mix string
	// Racks (racks) and RackSize (rack_size) shape the cluster: 8 racks of 32 nodes.
	Racks, RackSize int
	// GPURacks (gpu_racks) is the number of racks whose nodes have GPUs (2).
	GPURacks int
	// GPUAt (gpu_at) places the GPU racks in the machine order: first (default: machines r0,
	// r1, …), last, or random (racks drawn from the generator). The paper does not say; a
	// first-fit policy fills the lowest-numbered machines first.
	GPUAt string
	// NodeCPU (node_cpu) and NodeMemGB (node_mem_gb) are a node's capacity (4 cores, 16 GB); every
	// task demands a whole node.
	NodeCPU, NodeMemGB float64
	// Load (load) is the load the generated jobs offer the cluster over the span of their
	// submissions, which sets the arrival rate (0.9; see OfferedLoad).
	Load float64
	// MeanInterarrivalS (mean_interarrival_s), when > 0, sets the mean arrival gap in seconds
	// instead of Load (0).
	MeanInterarrivalS float64
	// HorizonS (horizon_s), when > 0, is the fixed-horizon design: jobs arrive as a Poisson
	// process over [0, HorizonS] at the rate Load × nodes / ExpectedWork, so Load is a rate of
	// work, not a property of one sample, and Jobs is not used (0: the to-completion design).
	HorizonS float64
	// LongJobs (long_jobs) treats runtimes beyond HorizonS: keep (default), cap (runtime =
	// min(runtime, HorizonS)) or fit (the classes are fitted to the samples ≤ HorizonS).
	LongJobs string
	// SampleNote describes where Samples come from (e.g. the trace and its window); it is
	// written into Workload.Source. Not a configuration key.
	SampleNote string
}

// Defaults returns the paper's recipe. Samples must still be set.
func Defaults() Options {
	return Options{
		Jobs:      1000,
		MaxTasks:  256,
		K:         5,
		Mix:       "EXP1",
		Racks:     8,
		RackSize:  32,
		GPURacks:  2,
		NodeCPU:   4,
		NodeMemGB: 16,
		Load:      0.9,
		LongJobs:  LongKeep,
		GPUAt:     GPUFirst,
	}
}

// Keys lists the generator's configuration keys with their defaults; the samples come from the
// caller (e.g. a Google trace reader).
func Keys() []generate.Key {
	d := Defaults()
	return []generate.Key{
		{Name: "jobs", Default: d.Jobs, Doc: "number of jobs generated"},
		{Name: "max_tasks", Default: d.MaxTasks, Doc: "drop trace jobs with more tasks (nodes) than this before clustering"},
		{Name: "k", Default: d.K, Doc: "number of k-means job classes over ln(runtime)"},
		{Name: "joint", Default: d.Joint, Doc: "draw whole trace jobs per class instead of independent runtime, task count and features"},
		{Name: "mix", Default: d.Mix, Doc: "Table 3 composition: EXP1, EXP2, EXP3 or DEADLINE-<slack percent>"},
		{Name: "racks", Default: d.Racks, Doc: "racks in the cluster"},
		{Name: "rack_size", Default: d.RackSize, Doc: "nodes per rack"},
		{Name: "gpu_racks", Default: d.GPURacks, Doc: "racks whose nodes have GPUs (placed by gpu_at)"},
		{Name: "gpu_at", Default: d.GPUAt, Doc: "where the GPU racks are in the machine order: first, last or random (seeded)"},
		{Name: "node_cpu", Default: d.NodeCPU, Doc: "cores per node (each task takes a whole node)"},
		{Name: "node_mem_gb", Default: d.NodeMemGB, Doc: "memory per node, GB"},
		{Name: "load", Default: d.Load, Doc: "offered load: arrivals are spread so the jobs' work Σ tasks × runtime = load × nodes × last submission"},
		{Name: "mean_interarrival_s", Default: d.MeanInterarrivalS, Doc: "when > 0, the mean arrival gap in seconds instead of load"},
		{Name: "horizon_s", Default: d.HorizonS, Doc: "when > 0, fixed-horizon design: Poisson arrivals over [0, horizon_s] at rate load × nodes / expected work per job (jobs unused); engine.horizon_s follows it when unset and may not be smaller"},
		{Name: "long_jobs", Default: d.LongJobs, Doc: "with horizon_s, runtimes beyond it: keep, cap (at horizon_s) or fit (classes fitted to trace jobs ≤ horizon_s)"},
	}
}

// Validate checks every option and reports all problems, each naming its field. Samples are
// checked by Generate (Fit), which names the offending sample.
func (o Options) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("jamaisvu: Options.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if len(o.Samples) == 0 {
		bad("Samples", "none; convert trace jobs, e.g. with SamplesFromWorkload")
	}
	if o.Jobs < 1 || o.Jobs > 10_000_000 {
		bad("Jobs", "want 1..10000000, got %d", o.Jobs)
	}
	if o.MaxTasks < 0 {
		bad("MaxTasks", "want ≥ 0 (0 = no limit), got %d", o.MaxTasks)
	}
	if o.K < 1 || o.K > 1000 {
		bad("K", "want 1..1000, got %d", o.K)
	}
	if _, err := ParseMix(o.Mix); err != nil {
		errs = append(errs, err)
	}
	if o.Racks < 1 || o.Racks > 100_000 {
		bad("Racks", "want 1..100000, got %d", o.Racks)
	}
	if o.RackSize < 1 || o.RackSize > 100_000 {
		bad("RackSize", "want 1..100000, got %d", o.RackSize)
	}
	if o.GPURacks < 0 || o.GPURacks > o.Racks {
		bad("GPURacks", "want 0..Racks (%d), got %d", o.Racks, o.GPURacks)
	}
	if !finite(o.NodeCPU) || o.NodeCPU <= 0 || o.NodeCPU > 1e6 {
		bad("NodeCPU", "want cores in (0, 1e6], got %v", o.NodeCPU)
	}
	if !finite(o.NodeMemGB) || o.NodeMemGB <= 0 || o.NodeMemGB > 1e6 {
		bad("NodeMemGB", "want GB in (0, 1e6], got %v", o.NodeMemGB)
	}
	if !finite(o.Load) || o.Load <= 0 || o.Load > 1e3 {
		bad("Load", "want a load in (0, 1000], got %v", o.Load)
	}
	if !finite(o.MeanInterarrivalS) || o.MeanInterarrivalS < 0 || o.MeanInterarrivalS > 1e6 {
		bad("MeanInterarrivalS", "want seconds in [0, 1e6] (0 = from Load), got %v", o.MeanInterarrivalS)
	}
	if !finite(o.HorizonS) || o.HorizonS < 0 || o.HorizonS > 1e8 {
		bad("HorizonS", "want seconds in [0, 1e8] (0 = run to completion), got %v", o.HorizonS)
	}
	if o.GPUAt != GPUFirst && o.GPUAt != GPULast && o.GPUAt != GPURandom {
		bad("GPUAt", "want %s, %s or %s, got %q", GPUFirst, GPULast, GPURandom, o.GPUAt)
	}
	switch o.LongJobs {
	case LongKeep:
	case LongCap, LongFit:
		if o.HorizonS == 0 {
			bad("LongJobs", "%s needs HorizonS > 0", o.LongJobs)
		}
	default:
		bad("LongJobs", "want %s, %s or %s, got %q", LongKeep, LongCap, LongFit, o.LongJobs)
	}
	if o.HorizonS > 0 && o.MeanInterarrivalS > 0 {
		bad("MeanInterarrivalS", "set with HorizonS: the horizon design's rate comes from Load")
	}
	return errors.Join(errs...)
}

// String renders the options (but not the samples' content) for Workload.Source.
func (o Options) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	s := fmt.Sprintf("samples=%d jobs=%d max_tasks=%d k=%d joint=%v mix=%s racks=%d rack_size=%d gpu_racks=%d node_cpu=%s node_mem_gb=%s load=%s mean_interarrival_s=%s",
		len(o.Samples), o.Jobs, o.MaxTasks, o.K, o.Joint, o.Mix, o.Racks, o.RackSize, o.GPURacks, f(o.NodeCPU), f(o.NodeMemGB), f(o.Load), f(o.MeanInterarrivalS))
	if o.HorizonS > 0 {
		s += fmt.Sprintf(" horizon_s=%s long_jobs=%s", f(o.HorizonS), o.LongJobs)
	}
	if o.GPUAt != GPUFirst {
		s += " gpu_at=" + o.GPUAt
	}
	if o.SampleNote != "" {
		s += " (samples: " + o.SampleNote + ")"
	}
	return s
}

// Constraint kinds: the traces.Placement kinds a generated job may carry.
const (
	KindGPU  = traces.PlacementGPU  // all tasks on GPU nodes
	KindRack = traces.PlacementRack // all tasks on one rack
)

// ParseConstraint reads a placement constraint in the form traces.Placement.String renders it,
// "hard:gpu" or "soft:rack:1.5" (as in earlier versions of this generator, which recorded it in
// Job.Name after the class: "c<class>/hard:gpu"). ok is false for other strings, including kinds
// other than gpu and rack and soft slowdowns that are not finite and ≥ 1.
func ParseConstraint(spec string) (p traces.Placement, ok bool) {
	parts := strings.Split(spec, ":")
	switch {
	case len(parts) == 2 && parts[0] == "hard":
		p = traces.Placement{Kind: parts[1], Hard: true}
	case len(parts) == 3 && parts[0] == "soft":
		s, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || !(s >= 1) || math.IsInf(s, 0) {
			return traces.Placement{}, false
		}
		p = traces.Placement{Kind: parts[1], Slowdown: s}
	default:
		return traces.Placement{}, false
	}
	if p.Kind != KindGPU && p.Kind != KindRack {
		return traces.Placement{}, false
	}
	return p, true
}

// SamplesFromWorkload turns a workload's jobs into samples: runtime = the job's critical path of
// true durations (for the single-stage jobs of the Google trace, its task duration), tasks = its
// total task count, and its features.
func SamplesFromWorkload(w *traces.Workload) []Sample {
	out := make([]Sample, len(w.Jobs))
	for i := range w.Jobs {
		j := &w.Jobs[i]
		out[i] = Sample{Runtime: j.CriticalPath(false), Tasks: int32(min(j.Tasks(), math.MaxInt32)), Features: j.Features}
	}
	return out
}

// Random streams, drawn from the caller's generator in this order.
const (
	streamFit = iota
	streamJobs
	streamArrivals
	streamMix
	streamKind
	streamSlack
	streamRacks
	numStreams
)

// maxRedraws bounds the redraws of a constrained job whose tasks fit no preferred resource set.
const maxRedraws = 10_000

// Generate fits the classes to o.Samples and generates the workload. r must not be nil.
func Generate(o Options, r *rand.Rand) (*traces.Workload, error) {
	if r == nil {
		return nil, errors.New("jamaisvu: nil *rand.Rand")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	mix, _ := ParseMix(o.Mix)
	s := draw.Streams(r, numStreams)
	model, err := Fit(o.fitSamples(), o.K, o.MaxTasks, s[streamFit])
	if err != nil {
		return nil, err
	}
	nodes := o.Racks * o.RackSize
	// The fixed-horizon design draws the arrivals first: their count is the job count.
	var submits []traces.Time
	if o.HorizonS > 0 {
		if submits, err = o.horizonArrivals(model.expectedWork(o, mix), nodes, s[streamArrivals]); err != nil {
			return nil, err
		}
		if len(submits) == 0 {
			return nil, fmt.Errorf("jamaisvu: Options.HorizonS: no job arrives in %v s at load %v", o.HorizonS, o.Load)
		}
		o.Jobs = len(submits)
	}
	gpuNodes := o.GPURacks * o.RackSize
	cum := make([]float64, len(model.Classes))
	var acc float64
	for ci := range model.Classes {
		acc += model.Classes[ci].Weight
		cum[ci] = acc
	}

	// Labels: 0 hard, 1 soft, 2 none (SLO without constraint), 3 best effort.
	labels := draw.Labels(s[streamMix], draw.Apportion(o.Jobs, []float64{mix.Hard, mix.Soft, mix.None, mix.BE}))
	node := traces.VecOf(o.NodeCPU, o.NodeMemGB)
	w := &traces.Workload{
		Name:    "jamaisvu-" + strings.ToLower(mix.Name),
		Source:  "generate/jamaisvu " + o.String(),
		Dims:    []string{"cpu", "mem"},
		Cluster: traces.Uniform(nodes, node, o.RackSize),
		Jobs:    make([]traces.Job, o.Jobs),
	}
	gpuRack := gpuRacks(o, s[streamRacks])
	for i := range w.Cluster.Machines {
		w.Cluster.Machines[i].GPU = gpuRack[i/o.RackSize]
	}
	// The jobs first, then their arrival times: with Load, the arrivals are spread so that the
	// work of exactly these jobs offers that load over their span (Arrivals).
	var work float64 // task-seconds
	for i := range w.Jobs {
		label := labels[i]
		var (
			class    int
			sample   Sample
			feasible []string
		)
		for attempt := 0; ; attempt++ {
			class, sample = model.pick(s[streamJobs], cum, o.Joint)
			if label > 1 {
				break
			}
			if feasible = feasibleKinds(sample.Tasks, gpuNodes, o.RackSize, feasible); len(feasible) > 0 {
				break
			}
			if attempt == maxRedraws {
				return nil, fmt.Errorf("jamaisvu: Options.Mix: %s needs constrained jobs, but %d draws found no job a constraint binds on (2..%d tasks for a rack, at most %d for the GPU nodes)", mix.Name, maxRedraws, o.RackSize, gpuNodes)
			}
		}
		sample.Runtime = o.runtime(sample.Runtime)
		work += float64(sample.Tasks) * traces.Seconds(sample.Runtime)
		j := &w.Jobs[i]
		*j = traces.Job{
			ID:       int64(i),
			Name:     fmt.Sprintf("c%d", class),
			Queue:    ClassBE,
			Class:    ClassBE,
			Features: sample.Features,
			Stages: []traces.Stage{{
				Name: "tasks", Tasks: sample.Tasks, Demand: node, Duration: sample.Runtime, Estimate: sample.Runtime,
			}},
		}
		if label <= 1 {
			j.Placement = traces.Placement{Kind: feasible[s[streamKind].IntN(len(feasible))], Hard: label == 0}
			if !j.Placement.Hard {
				j.Placement.Slowdown = mix.Slowdown
			}
		}
		if label <= 2 {
			j.Queue, j.Class, j.Priority = ClassSLO, ClassSLO, 1
		}
	}
	if o.HorizonS == 0 {
		if submits, err = arrivals(o, work/float64(nodes), s[streamArrivals]); err != nil {
			return nil, err
		}
	}
	const maxT = 1e9 * float64(traces.Second)
	for i := range w.Jobs {
		j := &w.Jobs[i]
		j.Submit = submits[i]
		if j.Class != ClassSLO {
			continue
		}
		slack := mix.Slacks[s[streamSlack].IntN(len(mix.Slacks))]
		rel := math.Round(float64(j.Stages[0].Duration) * (1 + slack/100))
		if float64(j.Submit)+rel > maxT {
			return nil, fmt.Errorf("jamaisvu: job %d: deadline beyond %v s; the samples' runtimes are too long", i, maxT/float64(traces.Second))
		}
		j.Deadline = j.Submit + traces.Time(rel)
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("jamaisvu: generated workload is invalid: %w", err)
	}
	return w, nil
}

// arrivals returns the jobs' submission times in µs, in job order. With MeanInterarrivalS set
// they are a Poisson process of that mean gap. Otherwise they are a Poisson process conditioned
// on its span: n exponential gaps rescaled to end at T = perNode / Load, where perNode is the
// jobs' total work (task-seconds) per node — so these jobs offer exactly Load of the cluster over
// [0, T], the span of their submissions (OfferedLoad). The first n−1 rescaled arrivals are the
// order statistics of n−1 uniform points on [0, T] and the last is T: arrivals at a constant
// rate, as a Poisson process whose n-th arrival is at T has.
func arrivals(o Options, perNode float64, r *rand.Rand) ([]traces.Time, error) {
	const maxT = 1e9 // s
	out := make([]traces.Time, o.Jobs)
	pos := make([]float64, o.Jobs)
	var t float64
	for i := range pos {
		if o.MeanInterarrivalS > 0 {
			t += draw.Exp(r, o.MeanInterarrivalS)
		} else {
			t += draw.Exp(r, 1)
		}
		pos[i] = t
	}
	scale := 1.0 // s per unit of pos
	if o.MeanInterarrivalS == 0 {
		scale = perNode / o.Load / t
	}
	if span := t * scale; span > maxT {
		what := fmt.Sprintf("%d jobs at one per %v s", o.Jobs, o.MeanInterarrivalS)
		if o.MeanInterarrivalS == 0 {
			what = fmt.Sprintf("%d jobs offering load %v", o.Jobs, o.Load)
		}
		return nil, fmt.Errorf("jamaisvu: Options.Jobs: %s span %.4g s, beyond %v s", what, span, maxT)
	}
	for i, p := range pos {
		out[i] = traces.Time(math.Round(p * scale * float64(traces.Second)))
	}
	return out, nil
}

// OfferedLoad returns the load w offers its cluster over the span of its submissions: the
// total work on preferred resources, Σ tasks × duration, divided by (machines × (last
// submission − trace start at 0)). A soft-constrained job placed elsewhere runs longer and
// offers more. It is the quantity Options.Load sets; 0 for a workload whose jobs are all
// submitted at time 0.
func OfferedLoad(w *traces.Workload) float64 {
	var work float64
	var last traces.Time
	for i := range w.Jobs {
		j := &w.Jobs[i]
		last = max(last, j.Submit)
		for _, s := range j.Stages {
			work += float64(s.Tasks) * traces.Seconds(s.Duration)
		}
	}
	if last <= 0 || len(w.Cluster.Machines) == 0 {
		return 0
	}
	return work / (float64(len(w.Cluster.Machines)) * traces.Seconds(last))
}

// pick draws a class by weight and a job from it.
func (m *Model) pick(r *rand.Rand, cum []float64, joint bool) (int, Sample) {
	ci := draw.Weighted(r, cum)
	c := &m.Classes[ci]
	if joint {
		return ci, c.Samples[r.IntN(len(c.Samples))]
	}
	return ci, Sample{
		Runtime:  c.Runtimes[r.IntN(len(c.Runtimes))],
		Tasks:    c.Tasks[r.IntN(len(c.Tasks))],
		Features: c.drawFeatures(r),
	}
}
