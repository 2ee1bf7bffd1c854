package policies

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParamFloat reads an optional finite number from params (config decoders deliver ints, floats
// or, from --set and the environment, text), returning def when the key is absent or null.
func ParamFloat(params map[string]any, key string, def float64) (float64, error) {
	raw, ok := params[key]
	if !ok || raw == nil {
		return def, nil
	}
	var f float64
	switch x := raw.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case string:
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("policy.params.%s: want a number, got %q", key, x)
		}
		f = v
	default:
		return 0, fmt.Errorf("policy.params.%s: want a number, got %v (%T)", key, raw, raw)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("policy.params.%s: want a finite number, got %v", key, f)
	}
	return f, nil
}

// ParamBool reads an optional boolean from params ("true"/"false" text accepted).
func ParamBool(params map[string]any, key string, def bool) (bool, error) {
	raw, ok := params[key]
	if !ok || raw == nil {
		return def, nil
	}
	switch b := raw.(type) {
	case bool:
		return b, nil
	case string:
		if v, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
			return v, nil
		}
	}
	return false, fmt.Errorf("policy.params.%s: want true or false, got %v", key, raw)
}

// ParamChoice reads an optional string param that must be one of choices (the first is the
// default when the key is absent), naming the valid ones in its error.
func ParamChoice(params map[string]any, key string, choices ...string) (string, error) {
	raw, ok := params[key]
	if !ok || raw == nil {
		return choices[0], nil
	}
	s, ok := raw.(string)
	if ok {
		s = strings.TrimSpace(s)
		for _, c := range choices {
			if s == c {
				return s, nil
			}
		}
	}
	return "", fmt.Errorf("policy.params.%s: %v is not one of %s", key, raw, strings.Join(choices, ", "))
}
