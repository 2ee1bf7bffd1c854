package cora

import (
	"math"
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
	ParamMaxLPVars    = "max_lp_vars"
)

// Defaults of the slotted model: 5-second slots, stretched under load so that |T| stays near 256
// (see Slotting). Finer slots model the continuous cluster more closely; on the CORA workload the
// results stop changing below about 5 s (experiments/cora/README.md), and the bound keeps a
// decision near a millisecond at 100 active jobs.
const (
	DefaultSlot     = 5 * traces.Second
	DefaultMaxSlots = 256
)

// DefaultMaxLPVars bounds FINAL's variables (4·jobs·slots·resources), checked before the LP is
// built: ten times the 100-job, 256-slot LP HiGHS takes 36 s over, about 1 GB with HiGHS's
// copies. An event over it is a failed solve (the previous decision stays, cora.size_limited).
const DefaultMaxLPVars = 1_000_000

// MaxProblemSlots bounds the slots of one event's problem for either solver (max_slots = 0
// leaves the slotting unbounded): the exact solver's segment trees take 32 bytes per slot and
// resource, the LP's utility table 8 per job and slot. An event over it is a failed solve.
const MaxProblemSlots = 1 << 22

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
	maxLPVars    int
}

func parseParams(params map[string]any) (config, error) {
	c := config{slot: DefaultSlot, maxSlots: DefaultMaxSlots, rrh: rrh.DefaultParams(), maxLPVars: DefaultMaxLPVars}
	if err := policies.CheckParams(params, ParamSolver, ParamSlot, ParamMaxSlots, ParamLPScale, ParamTimeLimit, ParamShadow,
		ParamCompareExact, ParamRRHAlpha, ParamRRHDiscount, ParamMaxLPVars); err != nil {
		return c, err
	}
	// number reads an optional number within [lo, hi], def when absent.
	number := func(key string, def, lo, hi float64, want string) (float64, error) {
		raw, ok := params[key]
		if !ok || raw == nil {
			return def, nil
		}
		f, ok := policies.ParamNumber(raw)
		if !ok || f < lo || f > hi {
			return 0, policies.ParamError(key, want, raw)
		}
		return f, nil
	}
	flag := func(key string, def bool) (bool, error) {
		raw, ok := params[key]
		if !ok || raw == nil {
			return def, nil
		}
		b, ok := policies.ParamBool(raw)
		if !ok {
			return false, policies.ParamError(key, "true or false", raw)
		}
		return b, nil
	}
	c.solver = SolverExact
	if raw, ok := params[ParamSolver]; ok && raw != nil {
		s, _ := policies.ParamString(raw)
		if s != SolverExact && s != SolverLP {
			return c, policies.ParamError(ParamSolver, SolverExact+" or "+SolverLP, raw)
		}
		c.solver = s
	}
	slot, err := number(ParamSlot, traces.Seconds(DefaultSlot), 0.001, 86400, "seconds in [0.001, 86400]")
	if err != nil {
		return c, err
	}
	c.slot = traces.FromSeconds(slot)
	ms, err := number(ParamMaxSlots, DefaultMaxSlots, 0, 1e6, "a whole number in [0, 1000000] (0: no bound)")
	if err != nil {
		return c, err
	}
	if ms != float64(int(ms)) {
		return c, policies.ParamError(ParamMaxSlots, "a whole number in [0, 1000000] (0: no bound)", params[ParamMaxSlots])
	}
	c.maxSlots = int(ms)
	mv, err := number(ParamMaxLPVars, DefaultMaxLPVars, 4, 1e9, "a whole number in [4, 1e9]")
	if err != nil {
		return c, err
	}
	if mv != math.Trunc(mv) {
		return c, policies.ParamError(ParamMaxLPVars, "a whole number in [4, 1e9]", params[ParamMaxLPVars])
	}
	c.maxLPVars = int(mv)
	if c.lpScale, err = parseScale(params[ParamLPScale]); err != nil {
		return c, err
	}
	tl, err := number(ParamTimeLimit, 0, 0, 86400, "seconds in [0, 86400] (0: none)")
	if err != nil {
		return c, err
	}
	c.timeLimit = time.Duration(tl * float64(time.Second))
	if c.shadow, err = flag(ParamShadow, false); err != nil {
		return c, err
	}
	if c.compareExact, err = flag(ParamCompareExact, true); err != nil {
		return c, err
	}
	if c.rrh, err = rrh.ParseParams(params[ParamRRHAlpha], params[ParamRRHDiscount], ParamRRHAlpha, ParamRRHDiscount); err != nil {
		return c, err
	}
	return c, nil
}

// parseScale reads lp_scale: "resolvable" (default), "no-underflow" or a positive number.
func parseScale(raw any) (float64, error) {
	if raw == nil {
		return ScaleResolvable, nil
	}
	switch s, _ := policies.ParamString(raw); s {
	case "resolvable":
		return ScaleResolvable, nil
	case "no-underflow":
		return ScaleNoUnderflow, nil
	}
	if f, ok := policies.ParamNumber(raw); ok && f > 0 && !math.IsInf(f, 0) {
		return f, nil
	}
	return 0, policies.ParamError(ParamLPScale, "resolvable, no-underflow or a positive number", raw)
}
