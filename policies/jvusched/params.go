package jvusched

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/jvusched/milp"
	"github.com/schedlab/schedlab/traces"
)

// Parameter keys (policy.params.*).
const (
	ParamFlags        = "flags"
	ParamBackoff      = "backoff"
	ParamMode         = "mode"
	ParamPlanAhead    = "plan_ahead_s"
	ParamQuantum      = "quantum_s"
	ParamTimeLimit    = "time_limit_s"
	ParamMaxNodes     = "max_nodes"
	ParamWarmStart    = "warm_start"
	ParamSLOValue     = "slo_value"
	ParamEpsilon      = "epsilon"
	ParamOverDecay    = "o_decay"
	ParamLateSLO      = "late_slo"
	ParamMaxPending   = "max_pending"
	ParamDumpProblems = "dump_problems"
	ParamBEPlanAhead  = "be_plan_ahead"
	ParamMaxVars      = "max_milp_vars"
	ParamMaxRows      = "max_milp_rows"
	ParamMaxNonzeros  = "max_milp_nonzeros"
	ParamBEValue      = "be_value"
	ParamBEKillGrowth = "be_kill_growth"
)

// MaxPlanSlices bounds the time slices of the plan-ahead window (plan_ahead_s / quantum_s),
// checked when the policy is built: every pending job gets a start option per slice and
// placement, and the paper's windows have a dozen slices (60 s of 5 s).
const MaxPlanSlices = 4096

// Default MILP size limits (max_milp_*): about 50 times the largest model the paper's
// experiments build (2,110 columns, 603 rows), and a few hundred MB with the solver's copies.
const (
	DefaultMaxVars     = 100_000
	DefaultMaxRows     = 100_000
	DefaultMaxNonzeros = 2_000_000
)

// Values of ParamBackoff, ParamMode and ParamLateSLO.
const (
	BackoffExpInc = "expinc"
	BackoffIncBy1 = "incby1"
	ModeGlobal    = "global"
	ModeGreedy    = "greedy"
	LateBE        = "be"
	LateDrop      = "drop"
	BEPerJob      = "job"
	BEPerNode     = "node"
)

// Params is the validated form of policy.params.
type Params struct {
	// Preempt (flag p): running jobs contribute KillnCk terms, so one MILP decides preemptions
	// and starts together.
	Preempt bool
	// Under (flag u): a running job that outlives its estimate has its expected runtime raised
	// every late cycle, by one cycle (Backoff incby1) or 2^t cycles (expinc, t = 0, 1, 2, …).
	Under   bool
	Backoff string
	// Over (flag o): an SLO job's value decays linearly past its deadline, reaching 0 at
	// OverDecay × its estimated runtime after it, instead of dropping to 0 at the deadline.
	Over      bool
	OverDecay float64
	// Mode is global (every pending job in one MILP per cycle) or greedy (§4.1.4: one MILP per
	// pending job, SLO jobs first, each in FCFS order, each with the running jobs' KillnCk terms).
	Mode string
	// PlanAhead is the plan-ahead window and Quantum its time slice; 0 Quantum means the engine's
	// cycle (5 s when the engine is event-driven).
	PlanAhead, Quantum traces.Time
	// TimeLimit bounds each solve (0: none); MaxNodes bounds its branch and bound (0: none).
	TimeLimit time.Duration
	MaxNodes  int64
	// WarmStart seeds each solve with the previous cycle's chosen options (off by default: a
	// partial start costs HiGHS a sub-MIP, more than it saves on these models).
	WarmStart bool
	// SLOValue is an SLO job's value (a best-effort job's is 1); Epsilon is added to every
	// running job's preemption cost.
	SLOValue, Epsilon float64
	// LateSLO says what an SLO job that can no longer meet its deadline becomes: "be" (valued
	// as a best-effort job) or "drop" (never started again).
	LateSLO string
	// MaxPending caps the pending jobs a global MILP considers (SLO jobs first, each class in
	// submit order); 0: no cap.
	MaxPending int
	// BEPlanAhead gives best-effort jobs start options over the whole window (TetriSched's
	// formulation); false offers them only a start now, a smaller MILP under load.
	BEPlanAhead bool
	// DumpProblems writes each cycle's problem in milp's text form beside the model dumps
	// (--dump-models DIR).
	DumpProblems bool
	// BEValue sizes a best-effort job's value and the initial value of its preemption cost
	// c(t): 1 per job (BEPerJob) or 1 per task, i.e. per node (BEPerNode, the linear KillnCk
	// "sized linearly with the number of nodes").
	BEValue string
	// BEKillGrowth makes a running best-effort job's preemption cost grow with the work it has
	// done: c(t) = c0 + BEKillGrowth × node-hours run since it started (0: constant c(t)). The
	// paper's c(t) is "a function of time" without a stated form; linear in work is our choice.
	BEKillGrowth float64
	// Limits bound each MILP (variables, rows, nonzeros), checked while it is compiled, before
	// it is solved: a global MILP over them is retried with half the pending jobs; a job whose
	// options alone pass them is not started that cycle (a recorded fallback).
	Limits milp.Limits
}

// Defaults returns the parameters of the paper's JV system (all features on).
func Defaults() Params {
	return Params{
		Preempt: true, Under: true, Backoff: BackoffExpInc, Over: true, OverDecay: 1,
		Mode: ModeGlobal, PlanAhead: 60 * traces.Second, TimeLimit: 10 * time.Second,
		BEPlanAhead: true, SLOValue: 1000, Epsilon: 0.01, LateSLO: LateBE, DumpProblems: true,
		BEValue: BEPerJob,
		Limits:  milp.Limits{Vars: DefaultMaxVars, Rows: DefaultMaxRows, Nonzeros: DefaultMaxNonzeros},
	}
}

// Keys lists the parameters with their defaults and meaning, in documentation order.
func Keys() [][3]string {
	return [][3]string{
		{ParamFlags, "p+u+o", "robustness features: p (in-situ preemption), u (under-estimate handling), o (over-estimate handling), joined or with +; base or none for none"},
		{ParamBackoff, BackoffExpInc, "u: raise a late job's expected runtime by 2^t cycles (expinc) or one cycle (incby1) per late cycle"},
		{ParamMode, ModeGlobal, "global: all pending jobs in one MILP per cycle; greedy: one MILP per pending job, SLO then best effort, FCFS"},
		{ParamPlanAhead, "60", "plan-ahead window, seconds: start options are considered this far ahead"},
		{ParamQuantum, "engine.cycle_s", "time slice of the plan, seconds (5 when the engine is event-driven)"},
		{ParamTimeLimit, "10", "solver time limit per MILP, seconds (0: none); a limited solve uses its incumbent"},
		{ParamMaxNodes, "0", "branch-and-bound node limit per MILP (deterministic; 0: none)"},
		{ParamWarmStart, "false", "seed each solve with the options chosen in the previous cycle (measured slower: HiGHS completes the partial start with a sub-MIP)"},
		{ParamSLOValue, "1000", "value of an SLO job that meets its deadline; a best-effort job is worth 1"},
		{ParamEpsilon, "0.01", "added to every running job's preemption cost, so equal value never preempts"},
		{ParamOverDecay, "1", "o: an SLO job's value falls linearly to 0 over this many estimated runtimes past its deadline"},
		{ParamLateSLO, LateBE, "an SLO job that cannot meet its deadline any more: be (valued as best effort) or drop (never started)"},
		{ParamBEValue, BEPerJob, "best-effort value and initial preemption cost: 1 per job (job) or 1 per task, i.e. per node as the linear KillnCk (node)"},
		{ParamBEKillGrowth, "0", "a running best-effort job's preemption cost grows by this much per node-hour it has run (c(t) linear in work done; 0: constant)"},
		{ParamMaxPending, "0", "global mode: consider at most this many pending jobs per cycle, SLO first, oldest first (0: all)"},
		{ParamBEPlanAhead, "true", "give best-effort jobs start options over the whole window; false: only a start now (smaller MILPs under load)"},
		{ParamDumpProblems, "true", "with --dump-models, also write each cycle's problem (machines, busy slices, pSTRL) as <model>.problem"},
		{ParamMaxVars, strconv.Itoa(DefaultMaxVars), "most variables of one MILP, checked while compiling it: a global MILP over a limit is retried with half the pending jobs, a single job's is not solved (a fallback)"},
		{ParamMaxRows, strconv.Itoa(DefaultMaxRows), "most constraint rows of one MILP (as max_milp_vars)"},
		{ParamMaxNonzeros, strconv.Itoa(DefaultMaxNonzeros), "most nonzeros of one MILP (as max_milp_vars)"},
	}
}

// ParseParams validates policy.params.
func ParseParams(params map[string]any) (Params, error) {
	var known []string
	for _, k := range Keys() {
		known = append(known, k[0])
	}
	if err := policies.CheckParams(params, known...); err != nil {
		return Params{}, err
	}
	p := Defaults()
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if raw := params[k]; raw != nil {
			if err := p.set(k, raw); err != nil {
				return Params{}, err
			}
		}
	}
	return p, nil
}

func (p *Params) set(k string, raw any) error {
	num := func(lo, hi float64, want string) (float64, error) {
		x, ok := policies.ParamNumber(raw)
		if !ok || math.IsInf(x, 0) || x < lo || x > hi {
			return 0, policies.ParamError(k, want, raw)
		}
		return x, nil
	}
	seconds := func(lo float64) (traces.Time, error) {
		x, err := num(lo, 1e9, fmt.Sprintf("seconds in [%g, 1e9]", lo))
		return traces.FromSeconds(x), err
	}
	choice := func(dst *string, valid ...string) error {
		s, ok := policies.ParamString(raw)
		for _, v := range valid {
			if ok && s == v {
				*dst = s
				return nil
			}
		}
		return policies.ParamError(k, "one of "+strings.Join(valid, ", "), raw)
	}
	var err error
	switch k {
	case ParamFlags:
		s, ok := policies.ParamString(raw)
		if !ok {
			return policies.ParamError(k, "flags such as p+u+o, pu or base", raw)
		}
		p.Preempt, p.Under, p.Over, err = parseFlags(s)
		if err != nil {
			return fmt.Errorf("policy.params.%s: %v", k, err)
		}
	case ParamBackoff:
		return choice(&p.Backoff, BackoffExpInc, BackoffIncBy1)
	case ParamMode:
		return choice(&p.Mode, ModeGlobal, ModeGreedy)
	case ParamLateSLO:
		return choice(&p.LateSLO, LateBE, LateDrop)
	case ParamBEValue:
		return choice(&p.BEValue, BEPerJob, BEPerNode)
	case ParamBEKillGrowth:
		p.BEKillGrowth, err = num(0, 1e6, "a cost per node-hour in [0, 1e6]")
	case ParamPlanAhead:
		p.PlanAhead, err = seconds(0)
	case ParamQuantum:
		p.Quantum, err = seconds(0)
		if err == nil && p.Quantum == 0 {
			err = policies.ParamError(k, "seconds > 0", raw)
		}
	case ParamTimeLimit:
		var x float64
		x, err = num(0, 86400, "seconds in [0, 86400]")
		p.TimeLimit = time.Duration(x * float64(time.Second))
	case ParamMaxNodes:
		var x float64
		x, err = num(0, math.MaxInt32, "a node count ≥ 0")
		if err == nil && x != math.Trunc(x) {
			err = policies.ParamError(k, "a whole node count", raw)
		}
		p.MaxNodes = int64(x)
	case ParamMaxVars, ParamMaxRows, ParamMaxNonzeros:
		var x float64
		x, err = num(1, 1e9, "a count in [1, 1e9]")
		if err == nil && x != math.Trunc(x) {
			err = policies.ParamError(k, "a whole count", raw)
		}
		switch k {
		case ParamMaxVars:
			p.Limits.Vars = int(x)
		case ParamMaxRows:
			p.Limits.Rows = int(x)
		default:
			p.Limits.Nonzeros = int(x)
		}
	case ParamMaxPending:
		var x float64
		x, err = num(0, 1e9, "a job count ≥ 0")
		if err == nil && x != math.Trunc(x) {
			err = policies.ParamError(k, "a whole job count", raw)
		}
		p.MaxPending = int(x)
	case ParamSLOValue:
		p.SLOValue, err = num(1, 1e12, "a value in [1, 1e12] (best effort is worth 1)")
	case ParamEpsilon:
		p.Epsilon, err = num(1e-6, 0.5, "a value in [1e-6, 0.5]")
	case ParamOverDecay:
		p.OverDecay, err = num(1e-3, 1e6, "a factor in [0.001, 1e6]")
	case ParamWarmStart, ParamDumpProblems, ParamBEPlanAhead:
		b, ok := policies.ParamBool(raw)
		if !ok {
			return policies.ParamError(k, "true or false", raw)
		}
		switch k {
		case ParamWarmStart:
			p.WarmStart = b
		case ParamBEPlanAhead:
			p.BEPlanAhead = b
		default:
			p.DumpProblems = b
		}
	}
	return err
}

// planSlices is the number of time slices of the plan-ahead window for the engine's cycle (0:
// event-driven), and the quantum it uses: quantum_s, else the cycle, else 5 s.
func (p Params) planSlices(cycle traces.Time) (int64, traces.Time) {
	q := p.Quantum
	if q == 0 {
		q = cycle
	}
	if q == 0 {
		q = defaultQuantum
	}
	return max(1, (p.PlanAhead+q-1)/q), q
}

// CheckSlices refuses a plan-ahead window of more than MaxPlanSlices time slices, naming the
// keys that make it: plan_ahead_s=327680 (5 s slices) or quantum_s=0.001 asked for tens of
// thousands of start options per job and ran out of memory.
func (p Params) CheckSlices(cycle traces.Time) error {
	n, q := p.planSlices(cycle)
	if n <= MaxPlanSlices {
		return nil
	}
	from := "policy.params." + ParamQuantum
	switch {
	case p.Quantum == 0 && cycle > 0:
		from = "engine.cycle_s, as policy.params." + ParamQuantum + " is unset"
	case p.Quantum == 0:
		from = "the default, as policy.params." + ParamQuantum + " and engine.cycle_s are unset"
	}
	return fmt.Errorf("policy.params.%s=%g with time slices of %g s (%s) makes %d slices, over the bound of %d; raise %s or lower %s",
		ParamPlanAhead, traces.Seconds(p.PlanAhead), traces.Seconds(q), from, n, MaxPlanSlices, ParamQuantum, ParamPlanAhead)
}

// parseFlags reads a feature set: letters p, u and o, optionally joined by '+' ("p+u+o", "pu");
// "base", "none" or "" for none.
func parseFlags(s string) (p, u, o bool, err error) {
	switch strings.ToLower(s) {
	case "", "base", "none":
		return false, false, false, nil
	}
	for _, c := range strings.ToLower(s) {
		switch c {
		case 'p':
			p = true
		case 'u':
			u = true
		case 'o':
			o = true
		case '+':
		default:
			return false, false, false, fmt.Errorf("unknown flag %q in %q (want p, u, o, e.g. p+u+o; or base)", c, s)
		}
	}
	return p, u, o, nil
}

// Flags renders the feature set as the paper names systems: base, p, p+u, p+u+o, …
func (p Params) Flags() string {
	var parts []string
	if p.Preempt {
		parts = append(parts, "p")
	}
	if p.Under {
		parts = append(parts, "u")
	}
	if p.Over {
		parts = append(parts, "o")
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, "+")
}
