package solver

import (
	"context"
	"fmt"
	"slices"
)

// Setting is one HiGHS option by its HiGHS name, for tuning experiments (Options.Tuning). Value
// is a bool, int, float64 or string, the type HiGHS declares for the option; HiGHS rejects an
// unknown name or a wrong type, and Solve returns that as an error wrapping ErrInvalidOption.
type Setting struct {
	Name  string
	Value any
}

// String renders the setting as name=value (benchmark names).
func (s Setting) String() string { return fmt.Sprintf("%s=%v", s.Name, s.Value) }

// resetTuning resets an instance that ran with other tuning settings than tuning to HiGHS's
// defaults and the base options, so a setting never leaks into a later solve that did not ask for
// it. It runs before applyOptions, applyTuning after it (so Tuning wins over the fields).
func (in *instance) resetTuning(ctx context.Context, tuning []Setting) error {
	if len(in.tuning) == 0 || slices.Equal(in.tuning, tuning) {
		return nil
	}
	if _, err := in.call(ctx, in.fn.resetOptions, uint64(in.highs)); err != nil {
		return err
	}
	in.tuning = nil
	return in.setBaseOptions(ctx)
}

// applyTuning sets tuning on the instance (after resetTuning and applyOptions).
func (in *instance) applyTuning(ctx context.Context, tuning []Setting) error {
	if slices.Equal(in.tuning, tuning) {
		return nil
	}
	// Until every setting is applied the instance's options are unknown: a sentinel no Options
	// equals makes the next solve reset them.
	in.tuning = []Setting{{Name: "(partly applied)"}}
	for _, s := range tuning {
		var err error
		switch v := s.Value.(type) {
		case bool:
			err = in.setBoolOption(ctx, s.Name, v)
		case int:
			err = in.setIntOption(ctx, s.Name, int32(v))
		case float64:
			err = in.setDoubleOption(ctx, s.Name, v)
		case string:
			err = in.setStringOption(ctx, s.Name, v)
		default:
			return fmt.Errorf("solver: %w: tuning %s has type %T (want bool, int, float64 or string)", ErrInvalidOption, s.Name, s.Value)
		}
		if err != nil {
			return fmt.Errorf("solver: %w: tuning %s: %v", ErrInvalidOption, s, err)
		}
	}
	in.tuning = slices.Clone(tuning)
	return nil
}
