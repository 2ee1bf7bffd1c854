package cora

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/rrh"
	"github.com/schedlab/schedlab/traces"
)

// Solver names (policy.params.solver).
const (
	SolverExact = "exact"
	SolverLP    = "lp"
)

// Parameter keys (policy.params.*).
const (
	ParamSolver       = "solver"
	ParamSlot         = "slot_s"
	ParamMaxSlots     = "max_slots"
	ParamLPScale      = "lp_scale"
	ParamTimeLimit    = "time_limit_s"
	ParamShadow       = "shadow"
	ParamCompareExact = "compare_exact"
	ParamRRHAlpha     = "rrh_alpha"
	ParamRRHDiscount  = "rrh_discount_per_s"
)

// Defaults of the slotted model: 5-second slots, stretched under load so that |T| stays near 256
// (see Slotting). Finer slots model the continuous cluster more closely; on the CORA workload the
// results stop changing below about 5 s (experiments/cora/README.md), and the bound keeps a
// decision near a millisecond at 100 active jobs.
const (
	DefaultSlot     = 5 * traces.Second
	DefaultMaxSlots = 256
)

// config is the validated form of the parameters.
type config struct {
	solver       string
	slot         traces.Time
	maxSlots     int
	lpScale      float64 // > 0, ScaleResolvable or ScaleNoUnderflow
	timeLimit    time.Duration
	shadow       bool
	compareExact bool
	rrh          rrh.Params
}

func parseParams(params map[string]any) (config, error) {
	c := config{slot: DefaultSlot, maxSlots: DefaultMaxSlots, rrh: rrh.DefaultParams()}
	if err := policies.CheckParams(params, ParamSolver, ParamSlot, ParamMaxSlots, ParamLPScale, ParamTimeLimit, ParamShadow,
		ParamCompareExact, ParamRRHAlpha, ParamRRHDiscount); err != nil {
		return c, err
	}
	var err error
	if c.solver, err = policies.ParamChoice(params, ParamSolver, SolverExact, SolverLP); err != nil {
		return c, err
	}
	slot, err := policies.ParamFloat(params, ParamSlot, traces.Seconds(DefaultSlot))
	if err != nil {
		return c, err
	}
	if !(slot >= 0.001 && slot <= 86400) {
		return c, fmt.Errorf("policy.params.%s: want seconds in [0.001, 86400], got %v", ParamSlot, slot)
	}
	c.slot = traces.FromSeconds(slot)
	ms, err := policies.ParamFloat(params, ParamMaxSlots, DefaultMaxSlots)
	if err != nil {
		return c, err
	}
	if ms != float64(int(ms)) || ms < 0 || ms > 1e6 {
		return c, fmt.Errorf("policy.params.%s: want a whole number in [0, 1000000] (0: no bound), got %v", ParamMaxSlots, ms)
	}
	c.maxSlots = int(ms)
	if c.lpScale, err = parseScale(params[ParamLPScale]); err != nil {
		return c, err
	}
	tl, err := policies.ParamFloat(params, ParamTimeLimit, 0)
	if err != nil {
		return c, err
	}
	if tl < 0 || tl > 86400 {
		return c, fmt.Errorf("policy.params.%s: want seconds in [0, 86400] (0: none), got %v", ParamTimeLimit, tl)
	}
	c.timeLimit = time.Duration(tl * float64(time.Second))
	if c.shadow, err = policies.ParamBool(params, ParamShadow, false); err != nil {
		return c, err
	}
	if c.compareExact, err = policies.ParamBool(params, ParamCompareExact, true); err != nil {
		return c, err
	}
	sub := map[string]any{}
	if v, ok := params[ParamRRHAlpha]; ok {
		sub[rrh.ParamAlpha] = v
	}
	if v, ok := params[ParamRRHDiscount]; ok {
		sub[rrh.ParamDiscount] = v
	}
	if c.rrh.Alpha, err = policies.ParamFloat(sub, rrh.ParamAlpha, c.rrh.Alpha); err != nil {
		return c, fmt.Errorf("%s (as %s)", err, ParamRRHAlpha)
	}
	if c.rrh.Discount, err = policies.ParamFloat(sub, rrh.ParamDiscount, c.rrh.Discount); err != nil {
		return c, fmt.Errorf("%s (as %s)", err, ParamRRHDiscount)
	}
	return c, nil
}

// parseScale reads lp_scale: "resolvable" (default), "no-underflow" or a positive number.
func parseScale(raw any) (float64, error) {
	switch x := raw.(type) {
	case nil:
		return ScaleResolvable, nil
	case string:
		switch strings.TrimSpace(x) {
		case "resolvable":
			return ScaleResolvable, nil
		case "no-underflow":
			return ScaleNoUnderflow, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && f > 0 {
			return f, nil
		}
	default:
		if f, err := policies.ParamFloat(map[string]any{ParamLPScale: raw}, ParamLPScale, 0); err == nil && f > 0 {
			return f, nil
		}
	}
	return 0, fmt.Errorf("policy.params.%s: want resolvable, no-underflow or a positive number, got %v", ParamLPScale, raw)
}
