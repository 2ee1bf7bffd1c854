package baseline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/policies"
)

// Levels at which the sharing policies (fair, drf, sp) divide the cluster.
const (
	// LevelJob shares between jobs (the default).
	LevelJob = "job"
	// LevelQueue shares between queues; jobs inside a queue run in FIFO order.
	LevelQueue = "queue"
)

// Parameter keys (policy.params.*).
const (
	// ParamWeights maps queue names to positive weights for queue-level sharing (default 1).
	ParamWeights = "weights"
	// ParamPreempt enables preemption in sp.
	ParamPreempt = "preempt"
)

// parseLevel validates Options.Level and reports whether it asks for queue-level sharing.
func parseLevel(level string) (queue bool, err error) {
	switch level {
	case "", LevelJob:
		return false, nil
	case LevelQueue:
		return true, nil
	}
	return false, fmt.Errorf("unknown level %q (valid: %s, %s)", level, LevelJob, LevelQueue)
}

// parseWeights reads Params["weights"]: a map from queue name to a positive, finite number.
func parseWeights(params map[string]any) (map[string]float64, error) {
	raw, ok := params[ParamWeights]
	if !ok || raw == nil {
		return nil, nil
	}
	out := make(map[string]float64)
	bad := func(q string, v any) error {
		return fmt.Errorf("policy.params.%s.%s: weight must be a positive finite number, got %v", ParamWeights, q, v)
	}
	var m map[string]any
	switch r := raw.(type) {
	case map[string]any:
		m = r
	case map[string]float64:
		m = make(map[string]any, len(r))
		for q, w := range r {
			m[q] = w
		}
	case map[string]int:
		m = make(map[string]any, len(r))
		for q, w := range r {
			m[q] = w
		}
	default:
		return nil, fmt.Errorf("policy.params.%s: want a map from queue name to weight, got %T", ParamWeights, raw)
	}
	// Sorted, so that the first bad entry reported does not depend on map order.
	for _, q := range slices.Sorted(maps.Keys(m)) {
		w, ok := number(m[q])
		if !ok || !(w > 0) || math.IsInf(w, 0) {
			return nil, bad(q, m[q])
		}
		out[q] = w
	}
	return out, nil
}

// number converts the numeric types config decoders produce to float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case string: // --set and environment values arrive as text
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// parseBool reads an optional boolean parameter.
func parseBool(params map[string]any, k string) (bool, error) {
	raw, ok := params[k]
	if !ok || raw == nil {
		return false, nil
	}
	switch b := raw.(type) {
	case bool:
		return b, nil
	case string: // --set and environment values arrive as text
		if v, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
			return v, nil
		}
	}
	return false, fmt.Errorf("policy.params.%s: want true or false, got %v (%T)", k, raw, raw)
}

// parseClassOrder maps class names to ranks (0 = highest), rejecting duplicates.
func parseClassOrder(order []string) (map[string]int64, error) {
	if len(order) == 0 {
		return nil, nil
	}
	ranks := make(map[string]int64, len(order))
	for i, c := range order {
		if _, dup := ranks[c]; dup {
			return nil, fmt.Errorf("class order lists %q twice (%s)", c, strings.Join(order, ", "))
		}
		ranks[c] = int64(i)
	}
	return ranks, nil
}

// config is the validated form of Options shared by all baselines.
type config struct {
	queueLevel bool
	backfill   bool
	weights    map[string]float64 // queue name → weight (fair, drf, sp)
	classRank  map[string]int64   // class → rank, 0 highest (sp with a class order)
	unlisted   int64              // rank of classes missing from the class order
	preempt    bool               // sp
}

// parse validates o for a policy of the given kind. Every policy checks Level, so a typo is
// reported even where the level does not matter; only the sharing policies use it.
func parse(k kind, o policies.Options) (config, error) {
	c := config{backfill: o.Backfill}
	var err error
	if c.queueLevel, err = parseLevel(o.Level); err != nil {
		return c, err
	}
	var known []string
	switch k {
	case kindFair, kindDRF:
		known = []string{ParamWeights}
	case kindSP:
		known = []string{ParamPreempt, ParamWeights}
	default:
		c.queueLevel = false
	}
	if err = policies.CheckParams(o.Params, known...); err != nil {
		return c, err
	}
	if c.weights, err = parseWeights(o.Params); err != nil {
		return c, err
	}
	if k == kindSP {
		if c.preempt, err = parseBool(o.Params, ParamPreempt); err != nil {
			return c, err
		}
		if c.classRank, err = parseClassOrder(o.ClassOrder); err != nil {
			return c, err
		}
		c.unlisted = int64(len(o.ClassOrder))
	}
	return c, nil
}
