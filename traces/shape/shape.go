// Package shape transforms a workload the way the papers shape their traces before replaying
// them: a time window, random sampling, dropping jobs that are too large, scaling task counts and
// durations, assigning job classes (SLO vs best effort, LQ vs TQ), setting deadlines from a slack
// (JamaisVu) and setting scheduler-visible estimates from a noise model (BPF §5.4.1).
//
// Apply runs the steps in this fixed order, each only when its options ask for it:
//
//  1. window    keep jobs with window_start_s ≤ submit < window_end_s (optionally rebased to 0)
//  2. sample    keep each job with probability sample
//  3. size      drop jobs with more than max_tasks tasks
//  4. scale     multiply task counts by scale_tasks and durations by scale_durations
//  5. classes   assign classes (slo_fraction or queue_prefix)
//  6. deadlines deadline = submit + runtime × (1 + slack/100)
//  7. estimates estimate = true × (1 + e/100), e ~ N(estimate_bias, estimate_std)
//
// Every random step draws from its own stream: Apply takes one uint64 seed per step from the
// caller's *rand.Rand up front (seven draws, always, whether or not a step runs), so enabling,
// disabling or adding a step never shifts another step's draws. Jobs are visited in workload
// order (submit time, then id), so the outcome depends only on the workload, the options and the
// seed. The workload stays sorted and is validated at the end.
package shape

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// step indices; the order of the per-step seeds drawn by Apply.
const (
	stepWindow = iota
	stepSample
	stepSize
	stepScale
	stepClasses
	stepDeadlines
	stepEstimates
	numSteps
)

// stepNames name the steps in errors.
var stepNames = [numSteps]string{"window", "sample", "size", "scale", "classes", "deadlines", "estimates"}

// Apply shapes w in place (see the package documentation for the steps and their order). r must
// not be nil; callers seed it from the experiment seed and a component name. Apply returns an
// error, leaving w partly shaped, when the options are invalid, when a step leaves no jobs, when a
// scaled value would overflow, or when the result fails traces.Workload.Validate.
func Apply(w *traces.Workload, o Options, r *rand.Rand) error {
	if w == nil {
		return errors.New("shape: nil workload")
	}
	if r == nil {
		return errors.New("shape: nil *rand.Rand")
	}
	if err := o.Validate(); err != nil {
		return err
	}
	var rngs [numSteps]*rand.Rand
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(r.Uint64(), uint64(i)))
	}
	// The filtering steps: an emptied workload is an error naming the step.
	filters := []struct {
		step int
		run  func()
	}{
		{stepWindow, func() { window(w, o) }},
		{stepSample, func() { sample(w, o, rngs[stepSample]) }},
		{stepSize, func() { size(w, o) }},
	}
	for _, f := range filters {
		before := len(w.Jobs)
		f.run()
		if len(w.Jobs) == 0 && before > 0 {
			return fmt.Errorf("shape: %s step keeps none of the %d jobs", stepNames[f.step], before)
		}
	}
	if err := scale(w, o); err != nil {
		return err
	}
	classes(w, o, rngs[stepClasses])
	if err := deadlines(w, o, rngs[stepDeadlines]); err != nil {
		return err
	}
	estimates(w, o, rngs[stepEstimates])
	w.SortJobs()
	if desc := o.String(); desc != "none" {
		if w.Source != "" {
			w.Source += "; "
		}
		w.Source += "shape: " + desc
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("shape: shaped workload is invalid: %w", err)
	}
	return nil
}

// window keeps jobs submitted in [start, end) and optionally rebases them to start at 0.
func window(w *traces.Workload, o Options) {
	if o.WindowStartS == 0 && o.WindowEndS == 0 {
		return
	}
	start := traces.FromSeconds(o.WindowStartS)
	end := traces.Time(math.MaxInt64)
	if o.WindowEndS > 0 {
		end = traces.FromSeconds(o.WindowEndS)
	}
	w.Jobs = slices.DeleteFunc(w.Jobs, func(j traces.Job) bool { return j.Submit < start || j.Submit >= end })
	if o.WindowRebase && start > 0 {
		w.ShiftTimeline(start)
		for i := range w.Jobs {
			j := &w.Jobs[i]
			j.Submit -= start
			if j.Deadline != 0 {
				j.Deadline -= start
			}
			if j.Utility != nil {
				u := *j.Utility // the utility may be shared with other jobs
				u.Target -= start
				j.Utility = &u
			}
		}
	}
}

// sample keeps each job with probability o.Sample.
func sample(w *traces.Workload, o Options, r *rand.Rand) {
	if o.Sample >= 1 {
		return
	}
	kept := w.Jobs[:0]
	for _, j := range w.Jobs {
		if r.Float64() < o.Sample {
			kept = append(kept, j)
		}
	}
	clear(w.Jobs[len(kept):])
	w.Jobs = kept
}

// size drops jobs with more than o.MaxTasks tasks.
func size(w *traces.Workload, o Options) {
	if o.MaxTasks == 0 {
		return
	}
	w.Jobs = slices.DeleteFunc(w.Jobs, func(j traces.Job) bool { return j.Tasks() > o.MaxTasks })
}

// maxTime bounds scaled durations and deadlines (about 31.7 years), so sums of simulated times
// cannot overflow.
const maxTime = traces.Time(maxSeconds) * traces.Second

// scaleTime multiplies d by k, rounding to the nearest microsecond, at least 1 µs.
func scaleTime(d traces.Time, k float64) (traces.Time, bool) {
	x := math.Round(float64(d) * k)
	if x > float64(maxTime) {
		return 0, false
	}
	return max(traces.Time(x), 1), true
}

// scale multiplies task counts and durations. A stage with per-task durations keeps them when its
// task count changes by mapping new task i to old task ⌊i·old/new⌋, which repeats or evenly thins
// the original durations (deterministic, no randomness).
func scale(w *traces.Workload, o Options) error {
	if o.ScaleTasks == 1 && o.ScaleDurations == 1 {
		return nil
	}
	for ji := range w.Jobs {
		j := &w.Jobs[ji]
		// Stages may share slices with other jobs (readers reuse templates): copy before editing.
		j.Stages = slices.Clone(j.Stages)
		for si := range j.Stages {
			s := &j.Stages[si]
			if o.ScaleTasks != 1 {
				n := math.Round(float64(s.Tasks) * o.ScaleTasks)
				if n > math.MaxInt32 {
					return fmt.Errorf("shape: scale_tasks: job %d (id %d) stage %d: %d tasks × %v overflows", ji, j.ID, si, s.Tasks, o.ScaleTasks)
				}
				tasks := max(int32(n), 1)
				if tasks != s.Tasks {
					s.TaskDurations = resample(s.TaskDurations, tasks)
					s.History = resample(s.History, tasks)
				}
				s.Tasks = tasks
			}
			if o.ScaleDurations != 1 {
				overflow := func(what string, d traces.Time) error {
					return fmt.Errorf("shape: scale_durations: job %d (id %d) stage %d: %s %d µs × %v overflows", ji, j.ID, si, what, d, o.ScaleDurations)
				}
				if s.Duration > 0 {
					d, ok := scaleTime(s.Duration, o.ScaleDurations)
					if !ok {
						return overflow("duration", s.Duration)
					}
					s.Duration = d
				}
				if s.Estimate > 0 {
					d, ok := scaleTime(s.Estimate, o.ScaleDurations)
					if !ok {
						return overflow("estimate", s.Estimate)
					}
					s.Estimate = d
				}
				if s.TaskDurations != nil {
					nd := make([]traces.Time, len(s.TaskDurations))
					for i, d := range s.TaskDurations {
						var ok bool
						if nd[i], ok = scaleTime(d, o.ScaleDurations); !ok {
							return overflow(fmt.Sprintf("task %d duration", i), d)
						}
					}
					s.TaskDurations = nd
				}
			}
		}
	}
	return nil
}

// resample returns n per-task values spread evenly over old's (each repeated or thinned out in
// order); nil stays nil.
func resample[T any](old []T, n int32) []T {
	if old == nil {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = old[int64(i)*int64(len(old))/int64(n)]
	}
	return out
}

// Class names set by the classes step.
const (
	// ClassSLO marks a job with a completion-time SLO (a deadline).
	ClassSLO = "slo"
	// ClassBE marks a best-effort job (no deadline).
	ClassBE = "be"
)

// classes assigns job classes.
func classes(w *traces.Workload, o Options, r *rand.Rand) {
	switch o.Classes {
	case ClassesSLOFraction:
		n := len(w.Jobs)
		slo := int(math.Round(o.SLOFraction * float64(n)))
		perm := r.Perm(n)
		for rank, ji := range perm {
			j := &w.Jobs[ji]
			if rank < slo {
				j.Class = ClassSLO
			} else {
				j.Class = ClassBE
				j.Deadline = 0
			}
		}
	case ClassesQueuePrefix:
		for ji := range w.Jobs {
			j := &w.Jobs[ji]
			for _, rule := range o.ClassRules {
				prefix, class, _ := strings.Cut(rule, "=")
				if strings.HasPrefix(j.Queue, strings.TrimSpace(prefix)) {
					j.Class = strings.TrimSpace(class)
					break
				}
			}
		}
	}
}

// deadlines sets deadline = submit + runtime × (1 + slack/100), where runtime is the job's
// critical path of true task durations (its completion time with unlimited resources; for a
// single-stage job, its task duration), rounded to the nearest microsecond. Only Job.Deadline is
// set: a job's utility keeps its own target.
func deadlines(w *traces.Workload, o Options, r *rand.Rand) error {
	if o.Deadlines != DeadlinesSlack {
		return nil
	}
	for ji := range w.Jobs {
		j := &w.Jobs[ji]
		if !selected(j.Class, o.DeadlineClasses, true) {
			continue
		}
		slack := o.SlackPercent[0]
		if len(o.SlackPercent) > 1 {
			slack = o.SlackPercent[r.IntN(len(o.SlackPercent))]
		}
		rt := j.CriticalPath(false)
		d := math.Round(float64(rt) * (1 + slack/100))
		if float64(j.Submit)+d > float64(maxTime) {
			return fmt.Errorf("shape: slack_percent: job %d (id %d): deadline %v s + %v s × (1 + %v/100) overflows", ji, j.ID, traces.Seconds(j.Submit), traces.Seconds(rt), slack)
		}
		j.Deadline = j.Submit + traces.Time(d)
	}
	return nil
}

// selected reports whether class is in list; an empty list selects every class, except "be" when
// exceptBE is set.
func selected(class string, list []string, exceptBE bool) bool {
	if len(list) == 0 {
		return !exceptBE || class != ClassBE
	}
	return slices.Contains(list, class)
}

// trueDuration is the true per-task duration an estimate estimates: Duration, or the mean of
// TaskDurations for a stage with heterogeneous tasks (rounded, at least 1 µs).
func trueDuration(s *traces.Stage) traces.Time {
	if s.TaskDurations == nil || len(s.TaskDurations) == 0 {
		return s.Duration
	}
	var sum float64
	for _, d := range s.TaskDurations {
		sum += float64(d)
	}
	return max(traces.Time(math.Round(sum/float64(len(s.TaskDurations)))), 1)
}

// estimates sets stage estimates. In noise mode the relative error e (percent) is drawn once per
// job by default, so every stage — and hence the estimated critical path — is off by the same
// factor, and the job's runtime estimate has exactly the error e, which is what BPF §5.4.1 (one
// error per LQ job's tasks) and JamaisVu (one runtime prediction per job) model. With
// estimate_per=stage every stage draws its own e. Estimates are clamped to at least 1 µs, since
// an error of -100% or below would otherwise give a non-positive estimate.
func estimates(w *traces.Workload, o Options, r *rand.Rand) {
	if o.Estimates == EstimatesKeep {
		return
	}
	draw := func() float64 { return float64(r.NormFloat64()*o.EstimateStd) + o.EstimateBias }
	for ji := range w.Jobs {
		j := &w.Jobs[ji]
		if !selected(j.Class, o.EstimateClasses, false) {
			continue
		}
		j.Stages = slices.Clone(j.Stages)
		var e float64
		if o.Estimates == EstimatesNoise && o.EstimatePer == PerJob {
			e = draw()
		}
		for si := range j.Stages {
			s := &j.Stages[si]
			truth := trueDuration(s)
			if o.Estimates == EstimatesTrue {
				s.Estimate = truth
				continue
			}
			if o.EstimatePer == PerStage {
				e = draw()
			}
			x := math.Round(float64(truth) * (1 + e/100))
			s.Estimate = traces.Time(min(max(x, 1), float64(maxTime)))
		}
	}
}
