// Package cora generates the MapReduce workload of the CORA paper's Hadoop experiments (CORA
// §III-C): jobs from eight PUMA job templates submitted by a Poisson process with a mean
// inter-arrival time of 130 s to a cluster of C = 40 containers, each job with a sigmoid
// completion-time utility U(t) = p / (1 + exp(μ (t − d))) (CORA eq. 11).
//
// The recipe, step by step (defaults in parentheses):
//
//   - Arrivals: exponential inter-arrival gaps with mean MeanInterarrivalS (130 s); the first job
//     arrives after one gap.
//   - Template: drawn uniformly from Templates, "an equal mix of eight heterogeneous Hadoop job
//     templates" (DefaultTemplates). A job is a map stage of Maps tasks followed by a reduce stage
//     of Reduces tasks (all map tasks finish before reduces start); every task needs one
//     container. The paper's jobs have up to 100 map and 20 reduce tasks.
//   - Class: exactly round(Jobs × fraction) jobs per class, in random order: CT-critical (20%,
//     decay μ ~ U[4, 6]), CT-sensitive (60%, μ ~ U[0.01, 1]) and CT-insensitive (20%, μ = 0, a
//     flat utility p/2 — eq. 11 with μ = 0).
//   - Priority p ~ U[1, 5] (continuous), the utility's height.
//   - Target completion time d = submit + R × f × n, where R is the template's benchmarked
//     running time (Template.Runtime: the job alone on all C containers), f ~ N(1.25, 0.1) and n
//     is the number of active jobs at submission, the job itself included ("at the job's
//     submission time, d_i is multiplied by the number of active jobs in the cluster"). A
//     generator has no scheduler to ask which jobs are active, so it estimates n (ActiveJobs):
//     "ps" (default) replays the arrivals on an egalitarian processor-sharing cluster in which
//     each job needs R seconds of the whole cluster — exactly the contention model behind the
//     paper's scaling (n active jobs each get 1/n of the cluster) — and counts the unfinished
//     jobs; "window" counts the jobs submitted within the last R_j seconds of their own
//     submission (as if every job had the cluster to itself).
//
// Each job carries the utility (Job.Utility, sigmoid, Target = d), Deadline = d (for EDF),
// Weight = p (the proportional/fair scheduler of the paper shares by priority) and Priority =
// round(p). Job.Class is "critical", "sensitive" or "insensitive"; Name, Features.JobName and
// Features.LogicalJobName are the template name. The cluster is Machines servers (5, the paper's
// testbed) of C/Machines containers each, Pooled (CORA allocates containers, not machines), with
// a single resource dimension "cpu" in which one container is 1.0. Estimates equal the true
// durations; use traces/shape to perturb them.
//
// With Utility = "linear" the jobs carry the truncated linear utilities of CORA §III-D3 instead:
// a job of class "steep" (CriticalFraction) has a slope s ~ U[SteepSlopeMin, SteepSlopeMax] =
// U[−1, −0.7], "gradual" (SensitiveFraction) s ~ U[−0.4, −0.1] and "flat" (InsensitiveFraction)
// s = 0, in utility per second of completion time. The utility falls linearly with the job's
// execution time to LinearTargetUtility (0.5) at the target d and drops to 0 after it:
// U(t) = 0.5 + |s|·(d − t) for t ≤ d (traces.UtilityLinear with height 0.5 + |s|·(d − submit)),
// so a flat job is worth 0.5 until its target. The paper gives the slope ranges but neither the
// units nor the utility's level; 0.5 at the target is our reading of its Table III, whose
// minimum is exactly 0.5 under both schedulers at every mix — the flat jobs' value when no job
// is late. Linear jobs have Weight 1 and Priority 1 (the paper's linear runs compare CORA and RRH
// only, neither of which uses them).
//
// The paper names the templates but not their task counts or durations; DefaultTemplates is our
// documented parametric choice within the paper's bounds (see there).
package cora

import (
	"container/heap"
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

// Job classes (Job.Class), CORA's completion-time sensitivities.
const (
	ClassCritical    = "critical"
	ClassSensitive   = "sensitive"
	ClassInsensitive = "insensitive"
)

// Linear-utility job classes (Utility = "linear"), CORA §III-D3.
const (
	ClassSteep   = "steep"
	ClassGradual = "gradual"
	ClassFlat    = "flat"
)

// Utility families (Options.Utility).
const (
	UtilitySigmoid = "sigmoid"
	UtilityLinear  = "linear"
)

// ActiveJobs modes.
const (
	// ActivePS counts unfinished jobs in a processor-sharing replay of the arrivals.
	ActivePS = "ps"
	// ActiveWindow counts jobs submitted less than their own template runtime ago.
	ActiveWindow = "window"
)

// Template is a MapReduce job template: a map stage and a reduce stage of identical tasks.
type Template struct {
	Name        string
	Maps        int32   // map tasks, ≥ 1
	Reduces     int32   // reduce tasks, ≥ 0 (0 = map-only job)
	MapTaskS    float64 // seconds per map task
	ReduceTaskS float64 // seconds per reduce task
}

// Runtime returns the template's benchmarked running time on a cluster of the given number of
// containers when the job has it to itself: ⌈Maps/C⌉ waves of map tasks then ⌈Reduces/C⌉ waves
// of reduce tasks.
func (t Template) Runtime(containers int) traces.Time {
	c := int64(containers)
	waves := func(n int32) int64 { return (int64(n) + c - 1) / c }
	return waves(t.Maps)*traces.FromSeconds(t.MapTaskS) + waves(t.Reduces)*traces.FromSeconds(t.ReduceTaskS)
}

// DefaultTemplates returns the eight PUMA templates the paper uses (Movie Classification,
// Histogram of Movies, Histogram of Ratings, InvertedIndex, SelfJoin, SequenceCount, WordCount,
// Terabyte Data Sorting). The paper gives no per-template task counts or task durations, only
// that jobs have up to 100 map and 20 reduce tasks and each processes at least 10 GB; these
// values are our parametric choice within those bounds: 80–100 map tasks (10–12.8 GB in Hadoop
// 2.4's 128 MB splits), 5–20 reduce tasks, map tasks of 15–55 s and reduce tasks of 5–60 s,
// reflecting each benchmark's character in the PUMA suite (Terasort and SelfJoin shuffle-heavy
// with long reduces; the histograms map-heavy with tiny output; WordCount, InvertedIndex and
// SequenceCount compute-heavy maps). On 40 containers their running times are 45–205 s (mean
// 115 s) and their mean work is 3,556 container-seconds, an offered load of about 0.68 at one
// job per 130 s.
func DefaultTemplates() []Template {
	return []Template{
		{Name: "MovieClassification", Maps: 80, Reduces: 10, MapTaskS: 35, ReduceTaskS: 10},
		{Name: "HistogramMovies", Maps: 80, Reduces: 5, MapTaskS: 20, ReduceTaskS: 5},
		{Name: "HistogramRatings", Maps: 80, Reduces: 5, MapTaskS: 25, ReduceTaskS: 5},
		{Name: "InvertedIndex", Maps: 100, Reduces: 10, MapTaskS: 50, ReduceTaskS: 30},
		{Name: "SelfJoin", Maps: 80, Reduces: 20, MapTaskS: 25, ReduceTaskS: 45},
		{Name: "SequenceCount", Maps: 100, Reduces: 20, MapTaskS: 55, ReduceTaskS: 40},
		{Name: "WordCount", Maps: 100, Reduces: 10, MapTaskS: 45, ReduceTaskS: 20},
		{Name: "TeraSort", Maps: 100, Reduces: 20, MapTaskS: 15, ReduceTaskS: 60},
	}
}

// Options configure the generator; Defaults() is the paper's recipe. Each field's comment names
// its configuration key (see Keys).
type Options struct {
	// Jobs (jobs) is the number of jobs (100, the paper's main experiment).
	Jobs int
	// MeanInterarrivalS (mean_interarrival_s) is the mean of the exponential inter-arrival gaps
	// in seconds (130).
	MeanInterarrivalS float64
	// Containers (containers) is the cluster capacity C in containers (40).
	Containers int
	// Machines (machines) is the number of servers the containers are spread over (5); it must
	// divide Containers.
	Machines int
	// Templates are the job templates, drawn uniformly; nil means DefaultTemplates(). Not a
	// configuration key.
	Templates []Template
	// CriticalFraction (critical_fraction), SensitiveFraction (sensitive_fraction) and
	// InsensitiveFraction (insensitive_fraction) are the class mix (0.2, 0.6, 0.2); they must be
	// ≥ 0 and sum to 1.
	CriticalFraction, SensitiveFraction, InsensitiveFraction float64
	// CriticalDecayMin/Max (critical_decay_min, critical_decay_max) bound the uniform decay
	// factor μ of CT-critical jobs, per second (4, 6).
	CriticalDecayMin, CriticalDecayMax float64
	// SensitiveDecayMin/Max (sensitive_decay_min, sensitive_decay_max) bound μ of CT-sensitive
	// jobs (0.01, 1). CT-insensitive jobs have μ = 0.
	SensitiveDecayMin, SensitiveDecayMax float64
	// PriorityMin/Max (priority_min, priority_max) bound the uniform priority p (1, 5).
	PriorityMin, PriorityMax float64
	// TargetFactorMean/Std (target_factor_mean, target_factor_std) are the normal factor f
	// applied to the template runtime (1.25, 0.1); draws below 0.01 are raised to 0.01.
	TargetFactorMean, TargetFactorStd float64
	// ActiveJobs (active_jobs) is how the number of active jobs at submission is estimated:
	// "ps" (default) or "window" (see the package documentation).
	ActiveJobs string
	// Utility (utility) is the utility family: "sigmoid" (default, §III-C) or "linear"
	// (truncated linear, §III-D3; see the package documentation).
	Utility string
	// SteepSlopeMin/Max (steep_slope_min, steep_slope_max) bound the uniform slope of steep jobs,
	// utility per second (−1, −0.7); GradualSlopeMin/Max (gradual_slope_min,
	// gradual_slope_max) those of gradual jobs (−0.4, −0.1). Linear utilities only.
	SteepSlopeMin, SteepSlopeMax     float64
	GradualSlopeMin, GradualSlopeMax float64
	// LinearTargetUtility (linear_target_utility) is a linear utility's value at its target
	// (0.5), and a flat job's value until then.
	LinearTargetUtility float64
}

// Defaults returns the paper's recipe.
func Defaults() Options {
	return Options{
		Jobs:                100,
		MeanInterarrivalS:   130,
		Containers:          40,
		Machines:            5,
		CriticalFraction:    0.2,
		SensitiveFraction:   0.6,
		InsensitiveFraction: 0.2,
		CriticalDecayMin:    4,
		CriticalDecayMax:    6,
		SensitiveDecayMin:   0.01,
		SensitiveDecayMax:   1,
		PriorityMin:         1,
		PriorityMax:         5,
		TargetFactorMean:    1.25,
		TargetFactorStd:     0.1,
		ActiveJobs:          ActivePS,
		Utility:             UtilitySigmoid,
		SteepSlopeMin:       -1,
		SteepSlopeMax:       -0.7,
		GradualSlopeMin:     -0.4,
		GradualSlopeMax:     -0.1,
		LinearTargetUtility: 0.5,
	}
}

// Keys lists the generator's configuration keys with their defaults. Templates are not a key
// (structured data); callers that need other templates set Options.Templates.
func Keys() []generate.Key {
	d := Defaults()
	return []generate.Key{
		{Name: "jobs", Default: d.Jobs, Doc: "number of jobs"},
		{Name: "mean_interarrival_s", Default: d.MeanInterarrivalS, Doc: "mean of the exponential (Poisson-process) inter-arrival gaps, seconds"},
		{Name: "containers", Default: d.Containers, Doc: "cluster capacity C in containers (one task each)"},
		{Name: "machines", Default: d.Machines, Doc: "servers the containers are spread over (must divide containers)"},
		{Name: "critical_fraction", Default: d.CriticalFraction, Doc: "share of CT-critical jobs (exact count, random order)"},
		{Name: "sensitive_fraction", Default: d.SensitiveFraction, Doc: "share of CT-sensitive jobs"},
		{Name: "insensitive_fraction", Default: d.InsensitiveFraction, Doc: "share of CT-insensitive jobs (μ = 0); the three shares sum to 1"},
		{Name: "critical_decay_min", Default: d.CriticalDecayMin, Doc: "lower bound of the uniform sigmoid decay μ of CT-critical jobs (per second)"},
		{Name: "critical_decay_max", Default: d.CriticalDecayMax, Doc: "upper bound of μ for CT-critical jobs"},
		{Name: "sensitive_decay_min", Default: d.SensitiveDecayMin, Doc: "lower bound of μ for CT-sensitive jobs"},
		{Name: "sensitive_decay_max", Default: d.SensitiveDecayMax, Doc: "upper bound of μ for CT-sensitive jobs"},
		{Name: "priority_min", Default: d.PriorityMin, Doc: "lower bound of the uniform priority p (the utility's height)"},
		{Name: "priority_max", Default: d.PriorityMax, Doc: "upper bound of p"},
		{Name: "target_factor_mean", Default: d.TargetFactorMean, Doc: "mean of the normal factor applied to the template runtime for the target completion time"},
		{Name: "target_factor_std", Default: d.TargetFactorStd, Doc: "standard deviation of that factor"},
		{Name: "active_jobs", Default: d.ActiveJobs, Doc: "how active jobs at submission are counted: ps (processor-sharing replay) or window"},
		{Name: "utility", Default: d.Utility, Doc: "utility family: sigmoid (§III-C) or linear (truncated linear, §III-D3: classes steep, gradual, flat from the critical, sensitive, insensitive fractions)"},
		{Name: "steep_slope_min", Default: d.SteepSlopeMin, Doc: "linear utility: lower bound of the uniform slope of steep jobs (utility per second)"},
		{Name: "steep_slope_max", Default: d.SteepSlopeMax, Doc: "linear utility: upper bound of the slope of steep jobs"},
		{Name: "gradual_slope_min", Default: d.GradualSlopeMin, Doc: "linear utility: lower bound of the slope of gradual jobs"},
		{Name: "gradual_slope_max", Default: d.GradualSlopeMax, Doc: "linear utility: upper bound of the slope of gradual jobs"},
		{Name: "linear_target_utility", Default: d.LinearTargetUtility, Doc: "linear utility: value at the target completion time (and a flat job's value until then); 0 after"},
	}
}

// Validate checks every option and reports all problems, each naming its field.
func (o Options) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("cora: Options.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if o.Jobs < 1 || o.Jobs > 10_000_000 {
		bad("Jobs", "want 1..10000000, got %d", o.Jobs)
	}
	if !finite(o.MeanInterarrivalS) || o.MeanInterarrivalS <= 0 || o.MeanInterarrivalS > 1e6 {
		bad("MeanInterarrivalS", "want seconds in (0, 1e6], got %v", o.MeanInterarrivalS)
	}
	if o.Containers < 1 || o.Containers > 1_000_000 {
		bad("Containers", "want 1..1000000, got %d", o.Containers)
	}
	if o.Machines < 1 || o.Machines > 1_000_000 {
		bad("Machines", "want 1..1000000, got %d", o.Machines)
	} else if o.Containers >= 1 && o.Containers%o.Machines != 0 {
		bad("Machines", "%d does not divide Containers %d", o.Machines, o.Containers)
	}
	for i, t := range o.Templates {
		switch {
		case strings.TrimSpace(t.Name) == "":
			bad("Templates", "template %d: empty name", i)
		case t.Maps < 1:
			bad("Templates", "template %d (%s): Maps must be ≥ 1, got %d", i, t.Name, t.Maps)
		case t.Reduces < 0:
			bad("Templates", "template %d (%s): Reduces must be ≥ 0, got %d", i, t.Name, t.Reduces)
		case !finite(t.MapTaskS) || t.MapTaskS < 1e-6 || t.MapTaskS > 1e7:
			bad("Templates", "template %d (%s): MapTaskS must be in [1e-6, 1e7] seconds, got %v", i, t.Name, t.MapTaskS)
		case t.Reduces > 0 && (!finite(t.ReduceTaskS) || t.ReduceTaskS < 1e-6 || t.ReduceTaskS > 1e7):
			bad("Templates", "template %d (%s): ReduceTaskS must be in [1e-6, 1e7] seconds, got %v", i, t.Name, t.ReduceTaskS)
		}
	}
	if o.Templates != nil && len(o.Templates) == 0 {
		bad("Templates", "empty (nil means the default templates)")
	}
	fracs := []struct {
		field string
		v     float64
	}{{"CriticalFraction", o.CriticalFraction}, {"SensitiveFraction", o.SensitiveFraction}, {"InsensitiveFraction", o.InsensitiveFraction}}
	sum, fracsOK := 0.0, true
	for _, f := range fracs {
		if !finite(f.v) || f.v < 0 || f.v > 1 {
			bad(f.field, "want a fraction in [0, 1], got %v", f.v)
			fracsOK = false
		}
		sum += f.v
	}
	if fracsOK && math.Abs(sum-1) > 1e-9 {
		bad("CriticalFraction", "class fractions sum to %v, want 1", sum)
	}
	rng := func(lo, hi string, a, b, min, max float64) {
		if !finite(a) || a < min || a > max {
			bad(lo, "want a value in [%v, %v], got %v", min, max, a)
		} else if !finite(b) || b < a || b > max {
			bad(hi, "want a value in [%s=%v, %v], got %v", lo, a, max, b)
		}
	}
	rng("CriticalDecayMin", "CriticalDecayMax", o.CriticalDecayMin, o.CriticalDecayMax, 0, 1e3)
	rng("SensitiveDecayMin", "SensitiveDecayMax", o.SensitiveDecayMin, o.SensitiveDecayMax, 0, 1e3)
	rng("PriorityMin", "PriorityMax", o.PriorityMin, o.PriorityMax, 0, 1e6)
	if !finite(o.TargetFactorMean) || o.TargetFactorMean <= 0 || o.TargetFactorMean > 1e3 {
		bad("TargetFactorMean", "want a factor in (0, 1000], got %v", o.TargetFactorMean)
	}
	if !finite(o.TargetFactorStd) || o.TargetFactorStd < 0 || o.TargetFactorStd > 1e3 {
		bad("TargetFactorStd", "want a value in [0, 1000], got %v", o.TargetFactorStd)
	}
	if o.ActiveJobs != ActivePS && o.ActiveJobs != ActiveWindow {
		bad("ActiveJobs", "%q is not one of ps, window", o.ActiveJobs)
	}
	if o.Utility != UtilitySigmoid && o.Utility != UtilityLinear {
		bad("Utility", "%q is not one of sigmoid, linear", o.Utility)
	}
	rng("SteepSlopeMin", "SteepSlopeMax", o.SteepSlopeMin, o.SteepSlopeMax, -1e3, 0)
	rng("GradualSlopeMin", "GradualSlopeMax", o.GradualSlopeMin, o.GradualSlopeMax, -1e3, 0)
	if !finite(o.LinearTargetUtility) || o.LinearTargetUtility < 0 || o.LinearTargetUtility > 1e6 {
		bad("LinearTargetUtility", "want a value in [0, 1e6], got %v", o.LinearTargetUtility)
	}
	return errors.Join(errs...)
}

// String renders the options for Workload.Source.
func (o Options) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	tmpl := "default"
	if o.Templates != nil {
		names := make([]string, len(o.Templates))
		for i, t := range o.Templates {
			names[i] = fmt.Sprintf("%s(%d×%ss,%d×%ss)", t.Name, t.Maps, f(t.MapTaskS), t.Reduces, f(t.ReduceTaskS))
		}
		tmpl = strings.Join(names, ",")
	}
	out := fmt.Sprintf("jobs=%d mean_interarrival_s=%s containers=%d machines=%d templates=%s mix=%s/%s/%s critical_decay=[%s,%s] sensitive_decay=[%s,%s] priority=[%s,%s] target_factor=N(%s,%s) active_jobs=%s",
		o.Jobs, f(o.MeanInterarrivalS), o.Containers, o.Machines, tmpl,
		f(o.CriticalFraction), f(o.SensitiveFraction), f(o.InsensitiveFraction),
		f(o.CriticalDecayMin), f(o.CriticalDecayMax), f(o.SensitiveDecayMin), f(o.SensitiveDecayMax),
		f(o.PriorityMin), f(o.PriorityMax), f(o.TargetFactorMean), f(o.TargetFactorStd), o.ActiveJobs)
	if o.Utility == UtilityLinear {
		out += fmt.Sprintf(" utility=linear steep_slope=[%s,%s] gradual_slope=[%s,%s] linear_target_utility=%s",
			f(o.SteepSlopeMin), f(o.SteepSlopeMax), f(o.GradualSlopeMin), f(o.GradualSlopeMax), f(o.LinearTargetUtility))
	}
	return out
}

// Random streams, drawn from the caller's generator in this order.
const (
	streamArrivals = iota
	streamTemplates
	streamClasses
	streamDecay
	streamPriority
	streamTarget
	numStreams
)

// maxTime bounds generated times (about 31.7 years) so they cannot overflow.
const maxTime = 1e9 * traces.Second

// Generate builds the workload. r must not be nil.
func Generate(o Options, r *rand.Rand) (*traces.Workload, error) {
	if r == nil {
		return nil, errors.New("cora: nil *rand.Rand")
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	templates := o.Templates
	if templates == nil {
		templates = DefaultTemplates()
	}
	s := draw.Streams(r, numStreams)

	submit := make([]traces.Time, o.Jobs)
	var t float64 // seconds
	for i := range submit {
		t += draw.Exp(s[streamArrivals], o.MeanInterarrivalS)
		submit[i] = traces.FromSeconds(t)
		if submit[i] > maxTime {
			return nil, fmt.Errorf("cora: Options.Jobs: %d jobs at one per %v s run past %v s", o.Jobs, o.MeanInterarrivalS, traces.Seconds(maxTime))
		}
	}
	tmpl := make([]int, o.Jobs)
	runtime := make([]traces.Time, o.Jobs)
	for i := range tmpl {
		tmpl[i] = s[streamTemplates].IntN(len(templates))
		runtime[i] = templates[tmpl[i]].Runtime(o.Containers)
	}
	var active []int
	if o.ActiveJobs == ActivePS {
		active = psActive(submit, runtime)
	} else {
		active = windowActive(submit, runtime)
	}
	classes := draw.Labels(s[streamClasses], draw.Apportion(o.Jobs, []float64{o.CriticalFraction, o.SensitiveFraction, o.InsensitiveFraction}))
	className := []string{ClassCritical, ClassSensitive, ClassInsensitive}
	linear := o.Utility == UtilityLinear
	if linear {
		className = []string{ClassSteep, ClassGradual, ClassFlat}
	}
	capacity := traces.VecOf(float64(o.Containers / o.Machines))
	w := &traces.Workload{
		Name:    "cora",
		Source:  "generate/cora " + o.String(),
		Dims:    []string{"cpu"},
		Cluster: traces.Uniform(o.Machines, capacity, 0),
		Jobs:    make([]traces.Job, o.Jobs),
	}
	w.Cluster.Pooled = true
	for i := range w.Jobs {
		tp := templates[tmpl[i]]
		var mu float64
		switch {
		case linear && classes[i] == 0:
			mu = draw.Uniform(s[streamDecay], o.SteepSlopeMin, o.SteepSlopeMax)
		case linear && classes[i] == 1:
			mu = draw.Uniform(s[streamDecay], o.GradualSlopeMin, o.GradualSlopeMax)
		case classes[i] == 0:
			mu = draw.Uniform(s[streamDecay], o.CriticalDecayMin, o.CriticalDecayMax)
		case classes[i] == 1:
			mu = draw.Uniform(s[streamDecay], o.SensitiveDecayMin, o.SensitiveDecayMax)
		}
		p := draw.Uniform(s[streamPriority], o.PriorityMin, o.PriorityMax)
		f := max(draw.Normal(s[streamTarget], o.TargetFactorMean, o.TargetFactorStd), 0.01)
		rel := math.Round(float64(float64(runtime[i])*f) * float64(active[i]))
		if rel > float64(maxTime) {
			return nil, fmt.Errorf("cora: job %d: target %v s × %d active jobs overflows; lower Options.Jobs or raise Options.MeanInterarrivalS", i, traces.Seconds(runtime[i]), active[i])
		}
		d := submit[i] + traces.Time(rel)
		stages := []traces.Stage{{
			Name: "map", Tasks: tp.Maps, Demand: traces.VecOf(1),
			Duration: traces.FromSeconds(tp.MapTaskS), Estimate: traces.FromSeconds(tp.MapTaskS),
		}}
		if tp.Reduces > 0 {
			stages = append(stages, traces.Stage{
				Name: "reduce", Tasks: tp.Reduces, Demand: traces.VecOf(1),
				Duration: traces.FromSeconds(tp.ReduceTaskS), Estimate: traces.FromSeconds(tp.ReduceTaskS),
				Parents: []int32{0},
			})
		}
		u := &traces.Utility{Kind: traces.UtilitySigmoid, Priority: p, Decay: mu, Target: d}
		if linear { // mu is the slope
			p = 1
			u = &traces.Utility{Kind: traces.UtilityLinear, Priority: o.LinearTargetUtility - mu*traces.Seconds(d-submit[i]), Slope: mu, Target: d}
		}
		w.Jobs[i] = traces.Job{
			ID:       int64(i),
			Name:     tp.Name,
			Submit:   submit[i],
			Queue:    "default",
			Class:    className[classes[i]],
			Priority: int(math.Round(p)),
			Weight:   p,
			Features: traces.Features{JobName: tp.Name, LogicalJobName: tp.Name},
			Deadline: d,
			Utility:  u,
			Stages:   stages,
		}
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("cora: generated workload is invalid: %w", err)
	}
	return w, nil
}

// psActive replays jobs arriving at submit (sorted) with sizes (each job's runtime when it has the
// whole cluster) on an egalitarian processor-sharing cluster, and returns for each job the number
// of unfinished jobs right after its arrival, itself included.
func psActive(submit, size []traces.Time) []int {
	const eps = 1e-3 // µs of remaining work below which a job counts as finished
	out := make([]int, len(submit))
	var rem []float64 // remaining whole-cluster work (µs) of the active jobs
	now := 0.0
	for i := range submit {
		at := float64(submit[i])
		for len(rem) > 0 {
			n := float64(len(rem))
			m := slices.Min(rem)
			if finish := now + float64(m*n); finish <= at {
				now = finish
				kept := rem[:0]
				for _, x := range rem {
					if x -= m; x > eps {
						kept = append(kept, x)
					}
				}
				rem = kept
				continue
			}
			served := (at - now) / n
			for k := range rem {
				rem[k] -= served
			}
			break
		}
		now = at
		rem = append(rem, float64(size[i]))
		out[i] = len(rem)
	}
	return out
}

// windowActive returns for each job the number of jobs j ≤ i with submit[j] + size[j] >
// submit[i] (jobs still running if each had the cluster to itself), itself included.
func windowActive(submit, size []traces.Time) []int {
	out := make([]int, len(submit))
	ends := &timeHeap{}
	for i := range submit {
		for ends.Len() > 0 && (*ends)[0] <= submit[i] {
			heap.Pop(ends)
		}
		heap.Push(ends, submit[i]+size[i])
		out[i] = ends.Len()
	}
	return out
}

// timeHeap is a min-heap of times for container/heap.
type timeHeap []traces.Time

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(traces.Time)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
