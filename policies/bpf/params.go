package bpf

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Parameter keys (policy.params.*).
const (
	// ParamQueues declares queues: a map from queue name to a queue declaration (see the package
	// documentation for its fields).
	ParamQueues = "queues"
	// ParamPeriod is the period, in seconds, of latency-sensitive queues that do not declare one.
	ParamPeriod = "period_s"
	// ParamHorizon bounds, in seconds of simulated time, the bursts a periodic contract without a
	// burst count covers (default DefaultHorizon).
	ParamHorizon = "horizon_s"
	// ParamPreempt lets bpf and nbpf preempt tasks of elastic and rejected queues for a blocked
	// guaranteed queue.
	ParamPreempt = "preempt"
	// ParamRejected says what happens to the jobs of rejected queues: "spare" (default) or "never".
	ParamRejected = "rejected"
	// ParamWarp is M-BVT's default warp, in seconds of dominant-share progress, for every LQ.
	ParamWarp = "warp_s"
	// ParamTie is M-BVT's tolerance, in seconds of dominant-share progress, within which
	// effective virtual times count as equal (default DefaultTie).
	ParamTie = "tie_s"
)

// Queue declaration fields (policy.params.queues.<name>.*).
const (
	specClass    = "class"
	specStart    = "start_s"
	specPeriod   = "period_s"
	specDuration = "duration_s"
	specDemand   = "demand"
	specCount    = "count"
	specBursts   = "bursts"
	specWarp     = "warp_s"
)

// Defaults.
const (
	// DefaultHorizon is the span of simulated time a periodic contract without a burst count
	// covers: one day.
	DefaultHorizon = 24 * traces.Hour
	// DefaultTie is M-BVT's default tie tolerance: one second of whole-cluster dominant share.
	DefaultTie = 1.0
)

// Values of ParamRejected.
const (
	// RejectedSpare serves rejected queues last, from capacity no admitted queue can use.
	RejectedSpare = "spare"
	// RejectedNever never starts tasks of rejected queues; their jobs stay unfinished.
	RejectedNever = "never"
)

// variant selects the policy of the family.
type variant uint8

const (
	variantBPF variant = iota
	variantNBPF
	variantMBVT
)

// shapeSpec is one declared burst shape; zero fields are derived from the jobs.
type shapeSpec struct {
	duration traces.Time
	period   traces.Time
	demand   []float64          // fractions of capacity in View.Dims order; nil when not declared
	named    map[string]float64 // fractions of capacity by dimension name; nil when not declared
}

// queueSpec is a validated queue declaration.
type queueSpec struct {
	class  string      // "lq", "tq" or "" (from the jobs)
	start  traces.Time // -1: the queue's first arrival
	shapes []shapeSpec // at least one
	count  int         // 0: until the horizon
	warp   float64     // -1: unset
}

// config is the validated form of Options for the whole family.
type config struct {
	variant  variant
	queues   map[string]*queueSpec
	period   traces.Time // 0: none
	horizon  traces.Time
	preempt  bool
	rejected string
	warp     float64 // -1: unset
	tie      float64
	backfill bool
	seed     uint64
}

func parseConfig(v variant, o policies.Options) (config, error) {
	c := config{variant: v, horizon: DefaultHorizon, rejected: RejectedSpare, warp: -1, tie: DefaultTie,
		backfill: o.Backfill, seed: o.Seed}
	switch o.Level {
	case "", "job", "queue":
		// BPF and M-BVT always allocate between queues; "job" is accepted because it is the
		// configuration default.
	default:
		return c, fmt.Errorf("unknown level %q (valid: job, queue; this policy always shares between queues)", o.Level)
	}
	known := []string{ParamQueues, ParamPeriod, ParamHorizon}
	if v == variantMBVT {
		known = append(known, ParamWarp, ParamTie)
	} else {
		known = append(known, ParamPreempt, ParamRejected)
	}
	p, err := unflatten(o.Params)
	if err != nil {
		return c, err
	}
	if err := policies.CheckParams(p, known...); err != nil {
		return c, err
	}
	if c.period, err = optSeconds(p, ParamPeriod, "policy.params."+ParamPeriod, 0); err != nil {
		return c, err
	}
	if c.horizon, err = optSeconds(p, ParamHorizon, "policy.params."+ParamHorizon, DefaultHorizon); err != nil {
		return c, err
	}
	if raw, ok := p[ParamPreempt]; ok && raw != nil {
		b, ok := raw.(bool)
		if !ok {
			return c, fmt.Errorf("policy.params.%s: want true or false, got %v (%T)", ParamPreempt, raw, raw)
		}
		c.preempt = b
	}
	if raw, ok := p[ParamRejected]; ok && raw != nil {
		s, ok := raw.(string)
		if !ok || (s != RejectedSpare && s != RejectedNever) {
			return c, fmt.Errorf("policy.params.%s: want %q or %q, got %v", ParamRejected, RejectedSpare, RejectedNever, raw)
		}
		c.rejected = s
	}
	if raw, ok := p[ParamWarp]; ok && raw != nil {
		w, ok := number(raw)
		if !ok || w < 0 || math.IsInf(w, 0) {
			return c, fmt.Errorf("policy.params.%s: want a non-negative number of seconds, got %v", ParamWarp, raw)
		}
		c.warp = w
	}
	if raw, ok := p[ParamTie]; ok && raw != nil {
		t, ok := number(raw)
		if !ok || t < 0 || math.IsInf(t, 0) {
			return c, fmt.Errorf("policy.params.%s: want a non-negative number, got %v", ParamTie, raw)
		}
		c.tie = t
	}
	if c.queues, err = parseQueues(p[ParamQueues]); err != nil {
		return c, err
	}
	return c, nil
}

// unflatten turns dotted keys into nested maps: configuration files and --set flags reach a
// policy flattened ("queues.lq0.period_s": 150), Go callers may pass nested maps; both forms,
// and mixtures, mean the same. Queue names in the flattened form cannot contain dots.
func unflatten(params map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		parts := strings.Split(k, ".")
		m := out
		for i, part := range parts {
			if part == "" {
				return nil, fmt.Errorf("policy.params.%s: empty key segment", k)
			}
			if i == len(parts)-1 {
				if err := mergeValue(m, part, params[k], k); err != nil {
					return nil, err
				}
				break
			}
			next, ok := m[part]
			if !ok {
				nm := map[string]any{}
				m[part] = nm
				m = nm
				continue
			}
			nm, ok := asMap(next)
			if !ok {
				return nil, fmt.Errorf("policy.params.%s: %s is both a value and a map", k, strings.Join(parts[:i+1], "."))
			}
			m[part] = nm
			m = nm
		}
	}
	return out, nil
}

// mergeValue stores v under key in m, merging maps recursively.
func mergeValue(m map[string]any, key string, v any, full string) error {
	old, exists := m[key]
	if !exists {
		m[key] = v
		return nil
	}
	om, ok1 := asMap(old)
	vm, ok2 := asMap(v)
	if !ok1 || !ok2 {
		return fmt.Errorf("policy.params.%s: given twice", full)
	}
	merged := maps.Clone(om)
	for _, k := range slices.Sorted(maps.Keys(vm)) {
		if err := mergeValue(merged, k, vm[k], full+"."+k); err != nil {
			return err
		}
	}
	m[key] = merged
	return nil
}

// parseQueues reads policy.params.queues.
func parseQueues(raw any) (map[string]*queueSpec, error) {
	if raw == nil {
		return nil, nil
	}
	m, ok := asMap(raw)
	if !ok {
		return nil, fmt.Errorf("policy.params.%s: want a map from queue name to declaration, got %T", ParamQueues, raw)
	}
	out := make(map[string]*queueSpec, len(m))
	// Sorted, so that the first bad entry reported does not depend on map order.
	for _, name := range slices.Sorted(maps.Keys(m)) {
		s, err := parseQueue(name, m[name])
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

func parseQueue(name string, raw any) (*queueSpec, error) {
	at := "policy.params." + ParamQueues + "." + name
	m, ok := asMap(raw)
	if !ok {
		return nil, fmt.Errorf("%s: want a map of declaration fields, got %T", at, raw)
	}
	known := []string{specClass, specStart, specPeriod, specDuration, specDemand, specCount, specBursts, specWarp}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("%s: unknown field %q (valid: %s)", at, k, strings.Join(known, ", "))
		}
	}
	s := &queueSpec{start: -1, warp: -1}
	if raw, ok := m[specClass]; ok && raw != nil {
		c, ok := raw.(string)
		c = strings.ToLower(c)
		if !ok || (c != "lq" && c != "tq") {
			return nil, fmt.Errorf("%s.%s: want \"lq\" or \"tq\", got %v", at, specClass, raw)
		}
		s.class = c
	}
	var err error
	if raw, ok := m[specStart]; ok && raw != nil {
		x, ok := number(raw)
		if !ok || x < 0 || math.IsInf(x, 0) || x > 1e9 { // 1e9 s: within int64 µs
			return nil, fmt.Errorf("%s.%s: want a number of seconds in [0, 1e9], got %v", at, specStart, raw)
		}
		s.start = traces.FromSeconds(x)
	}
	if raw, ok := m[specCount]; ok && raw != nil {
		x, ok := number(raw)
		if !ok || x < 1 || x != math.Trunc(x) || x > 1<<30 {
			return nil, fmt.Errorf("%s.%s: want a whole number of bursts ≥ 1, got %v", at, specCount, raw)
		}
		s.count = int(x)
	}
	if raw, ok := m[specWarp]; ok && raw != nil {
		x, ok := number(raw)
		if !ok || x < 0 || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s.%s: want a non-negative number of seconds, got %v", at, specWarp, raw)
		}
		s.warp = x
	}
	if raw, ok := m[specBursts]; ok && raw != nil {
		for _, k := range []string{specPeriod, specDuration, specDemand} {
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("%s: %s and %s both given (declare the burst shape in one place)", at, specBursts, k)
			}
		}
		list, ok := raw.([]any)
		if !ok {
			if ms, ok2 := raw.([]map[string]any); ok2 {
				for _, x := range ms {
					list = append(list, x)
				}
				ok = true
			}
		}
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("%s.%s: want a non-empty list of bursts, got %v", at, specBursts, raw)
		}
		for i, b := range list {
			bm, ok := asMap(b)
			if !ok {
				return nil, fmt.Errorf("%s.%s[%d]: want a map with %s, %s and %s, got %T", at, specBursts, i, specDuration, specPeriod, specDemand, b)
			}
			for _, k := range slices.Sorted(maps.Keys(bm)) {
				if k != specDuration && k != specPeriod && k != specDemand {
					return nil, fmt.Errorf("%s.%s[%d]: unknown field %q (valid: %s, %s, %s)", at, specBursts, i, k, specDuration, specPeriod, specDemand)
				}
			}
			sh, err := parseShape(fmt.Sprintf("%s.%s[%d]", at, specBursts, i), bm)
			if err != nil {
				return nil, err
			}
			if sh.period == 0 {
				return nil, fmt.Errorf("%s.%s[%d]: %s is required in an explicit burst", at, specBursts, i, specPeriod)
			}
			s.shapes = append(s.shapes, sh)
		}
	} else {
		sh, err := parseShape(at, m)
		if err != nil {
			return nil, err
		}
		s.shapes = []shapeSpec{sh}
	}
	if err = checkShapes(at, s.shapes); err != nil {
		return nil, err
	}
	return s, nil
}

func parseShape(at string, m map[string]any) (shapeSpec, error) {
	var sh shapeSpec
	var err error
	if sh.period, err = optSeconds(m, specPeriod, at+"."+specPeriod, 0); err != nil {
		return sh, err
	}
	if sh.duration, err = optSeconds(m, specDuration, at+"."+specDuration, 0); err != nil {
		return sh, err
	}
	raw, ok := m[specDemand]
	if !ok || raw == nil {
		return sh, nil
	}
	bad := func(what any) error {
		return fmt.Errorf("%s.%s: want fractions of capacity in [0, 1] (a list in dimension order or a map from dimension name), got %v", at, specDemand, what)
	}
	frac := func(x any) (float64, bool) {
		f, ok := number(x)
		return f, ok && f >= 0 && f <= 1
	}
	if dm, ok := asMap(raw); ok {
		sh.named = make(map[string]float64, len(dm))
		for _, k := range slices.Sorted(maps.Keys(dm)) {
			f, ok := frac(dm[k])
			if !ok {
				return sh, bad(dm[k])
			}
			sh.named[k] = f
		}
		return sh, nil
	}
	list, ok := numbers(raw)
	if !ok || len(list) == 0 || len(list) > traces.MaxDims {
		return sh, bad(raw)
	}
	for _, f := range list {
		if f < 0 || f > 1 || math.IsNaN(f) {
			return sh, bad(f)
		}
	}
	sh.demand = list
	return sh, nil
}

func checkShapes(at string, shapes []shapeSpec) error {
	for i, sh := range shapes {
		if sh.period > 0 && sh.duration > sh.period {
			return fmt.Errorf("%s: burst %d: %s (%gs) exceeds %s (%gs)", at, i, specDuration, traces.Seconds(sh.duration), specPeriod, traces.Seconds(sh.period))
		}
	}
	return nil
}

// optSeconds reads an optional positive number of seconds.
func optSeconds(m map[string]any, k, at string, def traces.Time) (traces.Time, error) {
	raw, ok := m[k]
	if !ok || raw == nil {
		return def, nil
	}
	x, ok := number(raw)
	if !ok || !(x > 0) || math.IsInf(x, 0) || x > 1e9 {
		return 0, fmt.Errorf("%s: want a positive number of seconds, got %v", at, raw)
	}
	t := traces.FromSeconds(x)
	if t < 1 {
		return 0, fmt.Errorf("%s: %v seconds is below the simulator's resolution (1µs)", at, raw)
	}
	return t, nil
}

// asMap accepts the map types configuration decoders produce.
func asMap(raw any) (map[string]any, bool) {
	switch m := raw.(type) {
	case map[string]any:
		return m, true
	case map[string]float64:
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, v := range m {
			s, ok := k.(string)
			if !ok {
				return nil, false
			}
			out[s] = v
		}
		return out, true
	}
	return nil, false
}

// numbers accepts a list of numbers in the forms configuration decoders produce.
func numbers(raw any) ([]float64, bool) {
	switch l := raw.(type) {
	case []float64:
		return slices.Clone(l), true
	case []int:
		out := make([]float64, len(l))
		for i, x := range l {
			out[i] = float64(x)
		}
		return out, true
	case []any:
		out := make([]float64, len(l))
		for i, x := range l {
			f, ok := number(x)
			if !ok {
				return nil, false
			}
			out[i] = f
		}
		return out, true
	}
	return nil, false
}

// number converts the numeric types configuration decoders produce to float64.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return 0, false
	}
	return f, !math.IsNaN(f)
}
