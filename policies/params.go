package policies

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParamNumber converts a policy.params value to float64: the numeric types configuration
// decoders produce, and numeric text (--set and environment values arrive as strings). NaN is
// rejected.
func ParamNumber(v any) (float64, bool) {
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
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return f, !math.IsNaN(f)
}

// ParamBool converts a policy.params value to bool: a boolean, or its text form.
func ParamBool(v any) (bool, bool) {
	switch b := v.(type) {
	case bool:
		return b, true
	case string:
		if x, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
			return x, true
		}
	}
	return false, false
}

// ParamString converts a policy.params value to a trimmed string (text only).
func ParamString(v any) (string, bool) {
	s, ok := v.(string)
	return strings.TrimSpace(s), ok
}

// ParamError is the error for a policy.params value that is not what key wants.
func ParamError(key, want string, got any) error {
	return fmt.Errorf("policy.params.%s: want %s, got %v (%T)", key, want, got, got)
}
