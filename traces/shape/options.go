package shape

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cast"
)

// Class modes for Options.Classes.
const (
	// ClassesKeep leaves every job's class as the trace has it.
	ClassesKeep = "keep"
	// ClassesSLOFraction makes exactly round(SLOFraction × jobs) randomly chosen jobs "slo" and
	// the rest "be" (best effort, deadline cleared), as JamaisVu mixes SLO and best-effort jobs.
	ClassesSLOFraction = "slo_fraction"
	// ClassesQueuePrefix sets the class from the job's queue name by the ordered ClassRules
	// ("prefix=class", first match wins), e.g. BPF's LQ/TQ split.
	ClassesQueuePrefix = "queue_prefix"
)

// Deadline modes for Options.Deadlines.
const (
	// DeadlinesKeep leaves deadlines as they are.
	DeadlinesKeep = "keep"
	// DeadlinesSlack sets deadline = submit + runtime × (1 + slack/100) (JamaisVu's definition).
	DeadlinesSlack = "slack"
)

// Estimate modes for Options.Estimates.
const (
	// EstimatesKeep leaves every stage's Estimate as it is.
	EstimatesKeep = "keep"
	// EstimatesTrue sets every estimate to the true task duration (an oracle).
	EstimatesTrue = "true"
	// EstimatesNoise sets estimate = true × (1 + e/100) with e ~ N(EstimateBias, EstimateStd).
	EstimatesNoise = "noise"
)

// Noise granularities for Options.EstimatePer.
const (
	// PerJob draws one relative error per job and applies it to all its stages.
	PerJob = "job"
	// PerStage draws an independent relative error for every stage.
	PerStage = "stage"
)

// Options are the workload-shaping knobs. Each field is a configuration key workload.<key>, where
// <key> is the name in the field's comment (and in Keys). Start from Defaults(): the zero value is
// not valid (Sample and the scale factors must be positive).
type Options struct {
	// WindowStartS (window_start_s) drops jobs submitted before this many seconds.
	WindowStartS float64
	// WindowEndS (window_end_s) drops jobs submitted at or after this many seconds; 0 = no end.
	WindowEndS float64
	// WindowRebase (window_rebase) shifts the kept jobs' submit times, deadlines and utility
	// targets back by WindowStartS, so the window starts at time 0.
	WindowRebase bool
	// Sample (sample) is the fraction of jobs kept, in (0, 1]: each job is kept independently
	// with this probability (a seeded Bernoulli draw per job, in submit order).
	Sample float64
	// MaxTasks (max_tasks) drops jobs with more tasks than this (summed over stages); 0 = no
	// limit. For single-stage Google jobs, whose tasks each occupy a node, this is JamaisVu's
	// "drop jobs larger than N nodes" (256 there).
	MaxTasks int64
	// ScaleTasks (scale_tasks) multiplies every stage's task count (rounded, at least 1).
	ScaleTasks float64
	// ScaleDurations (scale_durations) multiplies every task duration and estimate (rounded, at
	// least 1 µs). Deadlines and utility targets are not scaled.
	ScaleDurations float64
	// Classes (classes) is how job classes are assigned: "keep", "slo_fraction" or
	// "queue_prefix".
	Classes string
	// SLOFraction (slo_fraction) is the fraction of jobs made "slo" in slo_fraction mode, in
	// [0, 1].
	SLOFraction float64
	// ClassRules (class_rules) are "prefix=class" rules for queue_prefix mode, tried in order;
	// the first whose prefix starts the job's queue name sets its class (an empty prefix matches
	// every queue); jobs matching no rule keep their class.
	ClassRules []string
	// Deadlines (deadlines) is how deadlines are set: "keep" or "slack".
	Deadlines string
	// SlackPercent (slack_percent) lists deadline slacks in percent (each > -100) for slack
	// mode; each job draws one uniformly (JamaisVu's Table 3 lists several, e.g. 20,40,60,80).
	SlackPercent []float64
	// DeadlineClasses (deadline_classes) are the classes that get a deadline in slack mode; empty
	// means every job whose class is not "be".
	DeadlineClasses []string
	// Estimates (estimates) is how estimates are set: "keep", "true" or "noise".
	Estimates string
	// EstimateBias (estimate_bias) is the mean of the relative estimation error e in percent.
	EstimateBias float64
	// EstimateStd (estimate_std) is the standard deviation of e in percent (≥ 0).
	EstimateStd float64
	// EstimatePer (estimate_per) is "job" (one e per job, default) or "stage".
	EstimatePer string
	// EstimateClasses (estimate_classes) restricts the estimates step to these classes (BPF
	// §5.4.1 perturbs only LQ jobs); empty means every job.
	EstimateClasses []string
}

// Defaults returns the options that leave a workload unchanged.
func Defaults() Options {
	return Options{
		Sample:         1,
		ScaleTasks:     1,
		ScaleDurations: 1,
		Classes:        ClassesKeep,
		SLOFraction:    0.5,
		Deadlines:      DeadlinesKeep,
		Estimates:      EstimatesKeep,
		EstimatePer:    PerJob,
	}
}

// Key documents one configuration key (workload.<Name>).
type Key struct {
	Name    string
	Default any
	Doc     string
}

// Keys lists the shaping configuration keys (without the "workload." prefix) with their defaults,
// in the order Apply runs the steps.
func Keys() []Key {
	d := Defaults()
	return []Key{
		{"window_start_s", d.WindowStartS, "drop jobs submitted before this time (seconds)"},
		{"window_end_s", d.WindowEndS, "drop jobs submitted at or after this time (seconds); 0 = no end"},
		{"window_rebase", d.WindowRebase, "shift kept jobs (submit, deadline, utility target) so the window starts at 0"},
		{"sample", d.Sample, "fraction of jobs kept, in (0,1]; an independent seeded draw per job"},
		{"max_tasks", d.MaxTasks, "drop jobs with more tasks than this (all stages; = nodes for single-stage Google jobs, JamaisVu uses 256); 0 = no limit"},
		{"scale_tasks", d.ScaleTasks, "multiply every stage's task count (rounded, ≥ 1)"},
		{"scale_durations", d.ScaleDurations, "multiply every task duration and estimate (rounded, ≥ 1 µs); deadlines are not scaled"},
		{"classes", d.Classes, "class assignment: keep, slo_fraction (slo/be) or queue_prefix (class_rules)"},
		{"slo_fraction", d.SLOFraction, "slo_fraction mode: fraction of jobs (exactly rounded, seeded choice) made slo; the rest become be with no deadline"},
		{"class_rules", []string{}, "queue_prefix mode: ordered prefix=class rules on the queue name, e.g. bursty=lq,batch=tq"},
		{"deadlines", d.Deadlines, "deadline assignment: keep, or slack (deadline = submit + critical path × (1 + slack/100))"},
		{"slack_percent", []float64{}, "slack mode: deadline slacks in percent (> -100); each job draws one uniformly"},
		{"deadline_classes", []string{}, "slack mode: classes that get deadlines; empty = every class but be"},
		{"estimates", d.Estimates, "estimate assignment: keep, true (oracle) or noise (estimate = true × (1 + e/100), e ~ N(bias, std), ≥ 1 µs)"},
		{"estimate_bias", d.EstimateBias, "noise mode: mean relative error in percent"},
		{"estimate_std", d.EstimateStd, "noise mode: standard deviation of the relative error in percent"},
		{"estimate_per", d.EstimatePer, "noise mode: draw one error per job (default) or per stage"},
		{"estimate_classes", []string{}, "estimates step only touches jobs of these classes; empty = all"},
	}
}

// FromConfig builds Options from configuration values: get returns the value of a key named as in
// Keys (without the "workload." prefix), or nil when unset (the default is kept). Values may be
// numbers, booleans, strings, or lists; a string for a list key is split on commas (as --set and
// environment variables give them). Errors name the key.
func FromConfig(get func(key string) any) (Options, error) {
	o := Defaults()
	var errs []error
	set := func(key string, f func(any) error) {
		if v := get(key); v != nil {
			if err := f(v); err != nil {
				errs = append(errs, &KeyError{Key: key, Err: err})
			}
		}
	}
	float := func(dst *float64) func(any) error {
		return func(v any) error {
			f, err := cast.ToFloat64E(v)
			if err != nil {
				return fmt.Errorf("want a number, got %v", v)
			}
			*dst = f
			return nil
		}
	}
	str := func(dst *string) func(any) error {
		return func(v any) error {
			s, err := cast.ToStringE(v)
			if err != nil {
				return fmt.Errorf("want a string, got %v", v)
			}
			*dst = strings.TrimSpace(s)
			return nil
		}
	}
	strs := func(dst *[]string) func(any) error {
		return func(v any) error {
			if s, ok := v.(string); ok {
				*dst = splitList(s)
				return nil
			}
			l, err := cast.ToStringSliceE(v)
			if err != nil {
				return fmt.Errorf("want a list of strings, got %v", v)
			}
			*dst = l
			return nil
		}
	}
	set("window_start_s", float(&o.WindowStartS))
	set("window_end_s", float(&o.WindowEndS))
	set("window_rebase", func(v any) error {
		b, err := cast.ToBoolE(v)
		if err != nil {
			return fmt.Errorf("want a boolean, got %v", v)
		}
		o.WindowRebase = b
		return nil
	})
	set("sample", float(&o.Sample))
	set("max_tasks", func(v any) error {
		n, err := cast.ToInt64E(v)
		if err != nil {
			return fmt.Errorf("want an integer, got %v", v)
		}
		o.MaxTasks = n
		return nil
	})
	set("scale_tasks", float(&o.ScaleTasks))
	set("scale_durations", float(&o.ScaleDurations))
	set("classes", str(&o.Classes))
	set("slo_fraction", float(&o.SLOFraction))
	set("class_rules", strs(&o.ClassRules))
	set("deadlines", str(&o.Deadlines))
	set("slack_percent", func(v any) error {
		var items []any
		switch x := v.(type) {
		case string:
			for _, s := range splitList(x) {
				items = append(items, s)
			}
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
				for i := range rv.Len() {
					items = append(items, rv.Index(i).Interface())
				}
			} else {
				items = []any{v} // a single number
			}
		}
		o.SlackPercent = []float64{}
		for _, it := range items {
			f, err := cast.ToFloat64E(it)
			if err != nil {
				return fmt.Errorf("want a list of numbers, got %v", v)
			}
			o.SlackPercent = append(o.SlackPercent, f)
		}
		return nil
	})
	set("deadline_classes", strs(&o.DeadlineClasses))
	set("estimates", str(&o.Estimates))
	set("estimate_bias", float(&o.EstimateBias))
	set("estimate_std", float(&o.EstimateStd))
	set("estimate_per", str(&o.EstimatePer))
	set("estimate_classes", strs(&o.EstimateClasses))
	if err := errors.Join(errs...); err != nil {
		return Options{}, err
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// KeyError is one problem FromConfig or Validate found, naming the configuration key (as in
// Keys); both return all their problems joined (errors.Join), and errors.As finds the first.
type KeyError struct {
	Key string
	Err error
}

func (e *KeyError) Error() string { return "shape: " + e.Key + ": " + e.Err.Error() }

func (e *KeyError) Unwrap() error { return e.Err }

// maxSeconds bounds every time in the options (about 31.7 years), so that conversions to
// microseconds cannot overflow.
const maxSeconds = 1e9

// maxFactor bounds the scale factors.
const maxFactor = 1e6

// Validate checks every option and reports all problems, each naming its configuration key.
func (o Options) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &KeyError{Key: key, Err: fmt.Errorf(format, args...)})
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(o.WindowStartS) || o.WindowStartS < 0 || o.WindowStartS > maxSeconds {
		bad("window_start_s", "want seconds in [0, %g], got %v", maxSeconds, o.WindowStartS)
	}
	if !finite(o.WindowEndS) || o.WindowEndS < 0 || o.WindowEndS > maxSeconds {
		bad("window_end_s", "want seconds in [0, %g] (0 = no end), got %v", maxSeconds, o.WindowEndS)
	} else if o.WindowEndS != 0 && o.WindowEndS <= o.WindowStartS {
		bad("window_end_s", "%v is not after window_start_s %v", o.WindowEndS, o.WindowStartS)
	}
	if !finite(o.Sample) || o.Sample <= 0 || o.Sample > 1 {
		bad("sample", "want a fraction in (0, 1], got %v", o.Sample)
	}
	if o.MaxTasks < 0 {
		bad("max_tasks", "want ≥ 0 (0 = no limit), got %d", o.MaxTasks)
	}
	if !finite(o.ScaleTasks) || o.ScaleTasks <= 0 || o.ScaleTasks > maxFactor {
		bad("scale_tasks", "want a factor in (0, %g], got %v", maxFactor, o.ScaleTasks)
	}
	if !finite(o.ScaleDurations) || o.ScaleDurations <= 0 || o.ScaleDurations > maxFactor {
		bad("scale_durations", "want a factor in (0, %g], got %v", maxFactor, o.ScaleDurations)
	}
	switch o.Classes {
	case ClassesKeep, ClassesSLOFraction, ClassesQueuePrefix:
	default:
		bad("classes", "%q is not one of keep, slo_fraction, queue_prefix", o.Classes)
	}
	if !finite(o.SLOFraction) || o.SLOFraction < 0 || o.SLOFraction > 1 {
		bad("slo_fraction", "want a fraction in [0, 1], got %v", o.SLOFraction)
	}
	for i, r := range o.ClassRules {
		if _, class, ok := strings.Cut(r, "="); !ok || strings.TrimSpace(class) == "" {
			bad("class_rules", "rule %d %q: want prefix=class with a non-empty class", i, r)
		}
	}
	if o.Classes == ClassesQueuePrefix && len(o.ClassRules) == 0 {
		bad("class_rules", "classes=queue_prefix needs at least one prefix=class rule")
	}
	switch o.Deadlines {
	case DeadlinesKeep, DeadlinesSlack:
	default:
		bad("deadlines", "%q is not one of keep, slack", o.Deadlines)
	}
	for i, s := range o.SlackPercent {
		if !finite(s) || s <= -100 || s > 1e6 {
			bad("slack_percent", "value %d: want a percentage in (-100, 1e6], got %v", i, s)
		}
	}
	if o.Deadlines == DeadlinesSlack && len(o.SlackPercent) == 0 {
		bad("slack_percent", "deadlines=slack needs at least one slack value")
	}
	switch o.Estimates {
	case EstimatesKeep, EstimatesTrue, EstimatesNoise:
	default:
		bad("estimates", "%q is not one of keep, true, noise", o.Estimates)
	}
	if !finite(o.EstimateBias) || math.Abs(o.EstimateBias) > 1e6 {
		bad("estimate_bias", "want a finite percentage within ±1e6, got %v", o.EstimateBias)
	}
	if !finite(o.EstimateStd) || o.EstimateStd < 0 || o.EstimateStd > 1e6 {
		bad("estimate_std", "want a percentage in [0, 1e6], got %v", o.EstimateStd)
	}
	switch o.EstimatePer {
	case PerJob, PerStage:
	default:
		bad("estimate_per", "%q is not one of job, stage", o.EstimatePer)
	}
	return errors.Join(errs...)
}

// String renders the options that differ from Defaults, in step order, for Workload.Source.
func (o Options) String() string {
	d := Defaults()
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", k, v)) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if o.WindowStartS != d.WindowStartS || o.WindowEndS != d.WindowEndS {
		add("window_start_s", f(o.WindowStartS))
		add("window_end_s", f(o.WindowEndS))
		add("window_rebase", o.WindowRebase)
	}
	if o.Sample != d.Sample {
		add("sample", f(o.Sample))
	}
	if o.MaxTasks != d.MaxTasks {
		add("max_tasks", o.MaxTasks)
	}
	if o.ScaleTasks != d.ScaleTasks {
		add("scale_tasks", f(o.ScaleTasks))
	}
	if o.ScaleDurations != d.ScaleDurations {
		add("scale_durations", f(o.ScaleDurations))
	}
	switch o.Classes {
	case ClassesSLOFraction:
		add("classes", o.Classes)
		add("slo_fraction", f(o.SLOFraction))
	case ClassesQueuePrefix:
		add("classes", o.Classes)
		add("class_rules", strings.Join(o.ClassRules, ","))
	}
	if o.Deadlines == DeadlinesSlack {
		add("deadlines", o.Deadlines)
		s := make([]string, len(o.SlackPercent))
		for i, x := range o.SlackPercent {
			s[i] = f(x)
		}
		add("slack_percent", strings.Join(s, ","))
		add("deadline_classes", strings.Join(o.DeadlineClasses, ","))
	}
	if o.Estimates != EstimatesKeep {
		add("estimates", o.Estimates)
		if o.Estimates == EstimatesNoise {
			add("estimate_bias", f(o.EstimateBias))
			add("estimate_std", f(o.EstimateStd))
			add("estimate_per", o.EstimatePer)
		}
		add("estimate_classes", strings.Join(o.EstimateClasses, ","))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
