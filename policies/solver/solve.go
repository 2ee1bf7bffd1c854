package solver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// Presolve selects HiGHS's presolve mode; the zero value lets HiGHS choose
// (its default, which presolves).
type Presolve uint8

// Presolve modes.
const (
	PresolveAuto Presolve = iota // HiGHS "choose"
	PresolveOn                   // "on"
	PresolveOff                  // "off"
)

func (p Presolve) highs() string {
	switch p {
	case PresolveOn:
		return "on"
	case PresolveOff:
		return "off"
	}
	return "choose"
}

// Options controls one solve. The zero value is valid: no time limit,
// HiGHS's default MIP gap, one thread, random seed 0, presolve chosen by
// HiGHS, no log. Equal models solved with equal Options give equal
// solutions (HiGHS is deterministic single-threaded).
type Options struct {
	// TimeLimit bounds HiGHS's solve time; 0 means none. When the limit is
	// hit the result is StatusFeasible (a solution was found) or
	// StatusLimit (none). A context deadline that is sooner acts as the
	// time limit too, so a deadline normally yields the best solution so
	// far rather than an error.
	TimeLimit time.Duration
	// MaxNodes bounds the branch-and-bound nodes of a MIP (HiGHS mip_max_nodes); 0 means no
	// limit. Unlike TimeLimit it is deterministic: the same model stops at the same node on
	// any machine. Reaching it gives StatusFeasible or StatusLimit, like a time limit.
	MaxNodes int64
	// MIPGap is the relative MIP gap at which branch and bound stops
	// (HiGHS mip_rel_gap); 0 means HiGHS's default 1e-4. Use a tiny value
	// such as 1e-9 to demand a proven optimum.
	MIPGap float64
	// Threads must be 0 or 1: the WebAssembly build of HiGHS is
	// single-threaded (use a Pool for parallelism across models).
	Threads int
	// RandomSeed is HiGHS's random_seed (default 0).
	RandomSeed int
	// Presolve selects presolve on, off or auto (default auto).
	Presolve Presolve
	// Log, when non-nil, receives HiGHS's log output.
	Log io.Writer
	// WarmStart optionally seeds the solve with a basis (LPs) or a
	// starting solution (MIPs). It is ignored, and Stats.WarmStarted is
	// false, when HiGHS rejects it (for example wrong dimensions).
	WarmStart *WarmStart
	// DumpDir, when set, makes Solve write the model in LP format to
	// DumpDir/<name>-<seq>.lp before solving (the `--dump-models DIR` of
	// runs). Dump failures are returned as errors.
	DumpDir string
	// Tuning sets further HiGHS options by name (tuning experiments; see Setting). They apply
	// after the fields above (so they win over them) and are undone before a solve with
	// different Tuning.
	Tuning []Setting
}

// Status is the outcome of a solve.
type Status uint8

// Solve outcomes.
const (
	// StatusUnknown is the zero value; no solve has completed.
	StatusUnknown Status = iota
	// StatusOptimal: an optimal solution (within MIPGap for MIPs).
	StatusOptimal
	// StatusFeasible: a limit (time, iterations, nodes) stopped the solve
	// with a feasible but not proven optimal solution.
	StatusFeasible
	// StatusInfeasible: the model has no feasible solution.
	StatusInfeasible
	// StatusUnbounded: the objective is unbounded.
	StatusUnbounded
	// StatusInfeasibleOrUnbounded: HiGHS proved one of the two but not
	// which (rare; happens for MIPs whose relaxation is unbounded).
	StatusInfeasibleOrUnbounded
	// StatusLimit: a limit stopped the solve before any feasible solution
	// was found.
	StatusLimit
	// StatusError: HiGHS reported an error; Solve also returns an error
	// wrapping ErrSolverFailed.
	StatusError
)

var statusNames = [...]string{"unknown", "optimal", "feasible", "infeasible", "unbounded",
	"infeasible-or-unbounded", "limit", "error"}

// String returns a lower-case name such as "optimal".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// HasSolution reports whether Result.Values holds a feasible solution.
func (s Status) HasSolution() bool { return s == StatusOptimal || s == StatusFeasible }

// HiGHS kHighsModelStatus values.
const (
	hmsNotset                = 0
	hmsLoadError             = 1
	hmsModelError            = 2
	hmsPresolveError         = 3
	hmsSolveError            = 4
	hmsPostsolveError        = 5
	hmsModelEmpty            = 6
	hmsOptimal               = 7
	hmsInfeasible            = 8
	hmsUnboundedOrInfeasible = 9
	hmsUnbounded             = 10
	hmsObjectiveBound        = 11
	hmsObjectiveTarget       = 12
	hmsTimeLimit             = 13
	hmsIterationLimit        = 14
	hmsUnknown               = 15
	hmsSolutionLimit         = 16
	hmsInterrupt             = 17
	solutionStatusFeasible   = 2
	basisValidityValid       = 1
	highsObjSenseMinimize    = 1
	highsObjSenseMaximize    = -1
	highsMatrixFormatRowwise = 2
	highsVarTypeInteger      = 1
	highsVarTypeContinuous   = 0
	highsStatusError         = -1
	maxArenaBytes            = 1 << 31
)

var highsModelStatusNames = map[int]string{
	hmsNotset: "not set", hmsLoadError: "load error", hmsModelError: "model error",
	hmsPresolveError: "presolve error", hmsSolveError: "solve error", hmsPostsolveError: "postsolve error",
	hmsModelEmpty: "empty", hmsOptimal: "optimal", hmsInfeasible: "infeasible",
	hmsUnboundedOrInfeasible: "unbounded or infeasible", hmsUnbounded: "unbounded",
	hmsObjectiveBound: "objective bound", hmsObjectiveTarget: "objective target",
	hmsTimeLimit: "time limit", hmsIterationLimit: "iteration limit", hmsUnknown: "unknown",
	hmsSolutionLimit: "solution limit", hmsInterrupt: "interrupted",
}

// Stats are the statistics of one solve.
type Stats struct {
	// WallTime is the wall time of the whole Solve call: marshalling the
	// model into the instance, HiGHS's run and copying results out.
	WallTime time.Duration
	// SolverTime is HiGHS's own run time (Highs_getRunTime).
	SolverTime time.Duration
	// SimplexIterations is HiGHS's simplex_iteration_count (for MIPs, HiGHS
	// reports the LP iterations of the whole tree here too).
	SimplexIterations int64
	// IPMIterations is HiGHS's ipm_iteration_count.
	IPMIterations int64
	// Nodes is the number of branch-and-bound nodes (mip_node_count); 0
	// for LPs.
	Nodes int64
	// MIPGap is the final relative gap (mip_gap); 0 for LPs.
	MIPGap float64
	// MIPDualBound is the final dual (best) bound of a MIP; 0 for LPs.
	MIPDualBound float64
	// WarmStarted reports whether Options.WarmStart was accepted by HiGHS.
	WarmStarted bool
	// NewInstance reports whether the solve ran on a freshly created
	// instance (its creation time is included in WallTime).
	NewInstance bool
}

// Overhead is the part of WallTime spent outside HiGHS's own run: model
// marshalling, option setting and result copying.
func (s Stats) Overhead() time.Duration { return s.WallTime - s.SolverTime }

// BasisStatus is the simplex basis status of a variable or row
// (kHighsBasisStatus).
type BasisStatus int32

// Basis statuses.
const (
	BasisLower    BasisStatus = 0 // nonbasic at lower bound
	BasisBasic    BasisStatus = 1
	BasisUpper    BasisStatus = 2 // nonbasic at upper bound
	BasisZero     BasisStatus = 3 // free nonbasic at zero
	BasisNonbasic BasisStatus = 4
)

// Basis is a simplex basis: one status per variable and per row.
type Basis struct {
	Vars []BasisStatus // one per variable, in Var order
	Rows []BasisStatus // one per row, in Row order
}

// WarmStart carries starting information for a solve of a model that is a
// modification of a previous one (typical for a scheduler re-solving at
// every event). Every part is optional.
type WarmStart struct {
	// Basis seeds the simplex method of an LP (ignored for MIPs). Its
	// lengths must match the model; take it from a previous
	// Result.Basis.
	Basis *Basis
	// Values is a full starting point for a MIP (len NumVars), e.g. a
	// previous Result.Values; HiGHS uses it as an incumbent if feasible.
	Values []float64
	// PartialVars and PartialValues give a partial MIP start (HiGHS
	// completes it by solving a sub-MIP). Used only when Values is nil.
	PartialVars []Var
	// PartialValues are the values of PartialVars, in the same order.
	PartialValues []float64
}

// Result is the outcome of Solve.
type Result struct {
	// Status is the outcome; see Status.
	Status Status
	// HiGHSStatus is HiGHS's model status text (e.g. "time limit").
	HiGHSStatus string
	// Objective is the objective value of Values (with offset), when
	// Status.HasSolution().
	Objective float64
	// Values are the primal values, one per variable, when
	// Status.HasSolution(); nil otherwise.
	Values []float64
	// RowDuals and ReducedCosts are the dual values of the rows and
	// variables of an LP solved to optimality; nil otherwise.
	RowDuals, ReducedCosts []float64
	// Basis is the final simplex basis of an LP when HiGHS has a valid one
	// (pass it back via WarmStart); nil otherwise.
	Basis *Basis
	// Stats are the solve statistics.
	Stats Stats
}

// WarmStart returns starting information for a re-solve of a modified
// model from this result: its basis (LPs) and values (MIPs).
func (r *Result) WarmStart() *WarmStart {
	if r == nil {
		return nil
	}
	ws := &WarmStart{Basis: r.Basis}
	if r.Status.HasSolution() {
		ws.Values = r.Values
	}
	return ws
}

// appliedOptions caches the per-solve options last set on an instance, so
// that a solve with unchanged options makes no option calls.
type appliedOptions struct {
	set       bool
	output    bool
	seed      int32
	timeLimit float64
	mipGap    float64
	maxNodes  int32
	presolve  Presolve
}

const defaultMIPGap = 1e-4

// applyOptions sets HiGHS options that differ from the instance's current
// ones.
func (in *instance) applyOptions(ctx context.Context, o *Options) error {
	if o.Threads > 1 || o.Threads < 0 {
		return fmt.Errorf("solver: %w: Threads=%d (the WebAssembly build of HiGHS is single-threaded; use a Pool to solve several models in parallel)", ErrUnsupported, o.Threads)
	}
	if o.RandomSeed < 0 || o.RandomSeed > math.MaxInt32 {
		return fmt.Errorf("solver: %w: RandomSeed %d out of range", ErrInvalidOption, o.RandomSeed)
	}
	if math.IsNaN(o.MIPGap) || o.MIPGap < 0 {
		return fmt.Errorf("solver: %w: MIPGap %v", ErrInvalidOption, o.MIPGap)
	}
	timeLimit := math.Inf(1)
	if o.TimeLimit > 0 {
		timeLimit = o.TimeLimit.Seconds()
	}
	if dl, ok := ctx.Deadline(); ok {
		// HiGHS stops at the deadline and returns its best solution; see
		// interruptChannel for the grace period.
		left := time.Until(dl)
		left -= min(left/50, 20*time.Millisecond)
		timeLimit = math.Min(timeLimit, math.Max(left.Seconds(), 1e-3))
	}
	gap := o.MIPGap
	if gap == 0 {
		gap = defaultMIPGap
	}
	if o.MaxNodes < 0 {
		return fmt.Errorf("solver: %w: MaxNodes %d", ErrInvalidOption, o.MaxNodes)
	}
	maxNodes := int32(math.MaxInt32) // HiGHS's "no limit" (kHighsIInf)
	if o.MaxNodes > 0 && o.MaxNodes < math.MaxInt32 {
		maxNodes = int32(o.MaxNodes)
	}
	a := &in.applied
	output := o.Log != nil
	if !a.set || a.output != output {
		if err := in.setBoolOption(ctx, "output_flag", output); err != nil {
			return err
		}
		a.output = output
	}
	if !a.set || a.seed != int32(o.RandomSeed) {
		if err := in.setIntOption(ctx, "random_seed", int32(o.RandomSeed)); err != nil {
			return err
		}
		a.seed = int32(o.RandomSeed)
	}
	if !a.set || a.timeLimit != timeLimit {
		if err := in.setDoubleOption(ctx, "time_limit", timeLimit); err != nil {
			return err
		}
		a.timeLimit = timeLimit
	}
	if !a.set || a.mipGap != gap {
		if err := in.setDoubleOption(ctx, "mip_rel_gap", gap); err != nil {
			return err
		}
		a.mipGap = gap
	}
	if !a.set || a.maxNodes != maxNodes {
		if err := in.setIntOption(ctx, "mip_max_nodes", maxNodes); err != nil {
			return err
		}
		a.maxNodes = maxNodes
	}
	if !a.set || a.presolve != o.Presolve {
		if err := in.setStringOption(ctx, "presolve", o.Presolve.highs()); err != nil {
			return err
		}
		a.presolve = o.Presolve
	}
	a.set = true
	return nil
}

// layout of the per-solve arena (byte offsets).
type arenaLayout struct {
	info                                 uint32 // 8-byte out slot
	cost, lower, upper, rlower, rupper   uint32
	start, index, value, integrality     uint32
	colValue, colDual, rowValue, rowDual uint32
	colBasis, rowBasis                   uint32
	wsColBasis, wsRowBasis, wsValues     uint32
	wsIndex, wsPartial                   uint32
	total                                uint32
}

func layoutFor(m *Model, ws *WarmStart) (arenaLayout, error) {
	n, r, nz := uint64(m.NumVars()), uint64(m.NumRows()), uint64(m.NumNonzeros())
	var l arenaLayout
	off := uint64(0)
	take := func(bytes uint64) uint32 {
		p := off
		off += (bytes + 7) &^ 7
		return uint32(p)
	}
	l.info = take(8)
	l.cost, l.lower, l.upper = take(8*n), take(8*n), take(8*n)
	l.rlower, l.rupper = take(8*r), take(8*r)
	l.start, l.index, l.value = take(4*(r+1)), take(4*nz), take(8*nz)
	l.integrality = take(4 * n)
	l.colValue, l.colDual, l.rowValue, l.rowDual = take(8*n), take(8*n), take(8*r), take(8*r)
	l.colBasis, l.rowBasis = take(4*n), take(4*r)
	if ws != nil {
		if ws.Basis != nil {
			l.wsColBasis, l.wsRowBasis = take(4*n), take(4*r)
		}
		if ws.Values != nil {
			l.wsValues = take(8 * n)
		} else if ws.PartialVars != nil {
			k := uint64(len(ws.PartialVars))
			l.wsIndex, l.wsPartial = take(4*k), take(8*k)
		}
	}
	if off >= maxArenaBytes {
		return l, fmt.Errorf("solver: %w: model too large for 32-bit wasm memory", ErrInvalidModel)
	}
	l.total = uint32(off)
	return l, nil
}

// solve runs one model on the instance. ctx must carry the instance (see
// instKey).
func (in *instance) solve(ctx context.Context, m *Model, o *Options) (*Result, error) {
	t0 := time.Now()
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("solver: solve not started: %w", context.Cause(ctx))
	}
	stop, release := interruptChannel(ctx)
	in.done = stop
	in.log = o.Log
	defer func() {
		release()
		in.done, in.log = nil, nil
	}()

	if err := in.resetTuning(ctx, o.Tuning); err != nil {
		return nil, err
	}
	if err := in.applyOptions(ctx, o); err != nil {
		return nil, err
	}
	if err := in.applyTuning(ctx, o.Tuning); err != nil {
		return nil, err
	}
	ws := o.WarmStart
	if ws != nil {
		if ws.Values != nil && len(ws.Values) != m.NumVars() {
			ws = nil // wrong dimension: ignore, as HiGHS would reject it
		} else if ws.PartialVars != nil && len(ws.PartialVars) != len(ws.PartialValues) {
			ws = nil
		}
	}
	l, err := layoutFor(m, ws)
	if err != nil {
		return nil, err
	}
	base, err := in.reserve(ctx, l.total)
	if err != nil {
		return nil, err
	}
	if err := in.passModel(ctx, m, base, &l); err != nil {
		return nil, err
	}
	res := &Result{}
	if ws != nil {
		ok, err := in.applyWarmStart(ctx, m, ws, base, &l)
		if err != nil {
			return nil, err
		}
		res.Stats.WarmStarted = ok
	}
	if _, err := in.call(ctx, in.fn.zeroAllClocks, uint64(in.highs)); err != nil {
		return nil, err
	}
	runStatus, err := in.call(ctx, in.fn.run, uint64(in.highs))
	if err != nil {
		return nil, err
	}
	if err := in.collect(ctx, m, base, &l, res); err != nil {
		return nil, err
	}
	if res.Status == StatusInfeasibleOrUnbounded && o.Presolve != PresolveOff {
		// Presolve could not tell which; HiGHS's advice is to solve again
		// without presolve.
		first := res.Stats
		if err := in.setStringOption(ctx, "presolve", PresolveOff.highs()); err != nil {
			return nil, err
		}
		in.applied.presolve = PresolveOff
		if _, err := in.call(ctx, in.fn.clearSolver, uint64(in.highs)); err != nil {
			return nil, err
		}
		if runStatus, err = in.call(ctx, in.fn.run, uint64(in.highs)); err != nil {
			return nil, err
		}
		*res = Result{}
		if err := in.collect(ctx, m, base, &l, res); err != nil {
			return nil, err
		}
		res.Stats.WarmStarted = first.WarmStarted
		res.Stats.SimplexIterations += first.SimplexIterations
		res.Stats.IPMIterations += first.IPMIterations
		res.Stats.Nodes += first.Nodes
	}
	res.Stats.WallTime = time.Since(t0)
	if int32(runStatus) == highsStatusError && res.Status != StatusError {
		// HiGHS flagged an error but gave a usable model status (e.g.
		// infeasible detected during an erroring phase): trust the status
		// only if it is a definite outcome.
		if !res.Status.HasSolution() && res.Status != StatusInfeasible && res.Status != StatusUnbounded {
			res.Status = StatusError
		}
	}
	if res.Status == StatusError {
		return res, fmt.Errorf("solver: %w: model status %q", ErrSolverFailed, res.HiGHSStatus)
	}
	return res, nil
}

func (in *instance) passModel(ctx context.Context, m *Model, base uint32, l *arenaLayout) error {
	n, r, nz := m.NumVars(), m.NumRows(), m.NumNonzeros()
	view, ok := in.mem.Read(base, l.total)
	if !ok {
		return fmt.Errorf("solver: %w: arena outside memory", ErrAborted)
	}
	putF64s(view[l.cost:], m.cost)
	putF64s(view[l.lower:], m.lower)
	putF64s(view[l.upper:], m.upper)
	putF64s(view[l.rlower:], m.rlower)
	putF64s(view[l.rupper:], m.rupper)
	putI32s(view[l.start:], m.rstart)
	putI32s(view[l.index:], m.rindex)
	putF64s(view[l.value:], m.rvalue)
	sense := int32(highsObjSenseMinimize)
	if m.sense == Maximize {
		sense = highsObjSenseMaximize
	}
	if m.IsMIP() {
		integ := view[l.integrality:]
		for j, t := range m.vtype {
			v := byte(highsVarTypeContinuous)
			if t != Continuous {
				v = highsVarTypeInteger
			}
			integ[4*j], integ[4*j+1], integ[4*j+2], integ[4*j+3] = v, 0, 0, 0
		}
	}
	// No view of memory is used past this point: calls may grow memory.
	if _, err := in.call(ctx, in.fn.clearModel, uint64(in.highs)); err != nil {
		return err
	}
	args := []uint64{
		uint64(in.highs), uint64(n), uint64(r), uint64(nz),
		highsMatrixFormatRowwise, api.EncodeI32(sense), api.EncodeF64(m.offset),
		uint64(base + l.cost), uint64(base + l.lower), uint64(base + l.upper),
		uint64(base + l.rlower), uint64(base + l.rupper),
		uint64(base + l.start), uint64(base + l.index), uint64(base + l.value),
	}
	fn := in.fn.passLp
	if m.IsMIP() {
		args = append(args, uint64(base+l.integrality))
		fn = in.fn.passMip
	}
	st, err := in.call(ctx, fn, args...)
	if err != nil {
		return err
	}
	if int32(st) == highsStatusError {
		return fmt.Errorf("solver: %w: HiGHS rejected the model (Highs_passLp/passMip error)", ErrInvalidModel)
	}
	return nil
}

func (in *instance) applyWarmStart(ctx context.Context, m *Model, ws *WarmStart, base uint32, l *arenaLayout) (bool, error) {
	view, _ := in.mem.Read(base, l.total)
	if ws.Basis != nil && !m.IsMIP() {
		b := ws.Basis
		if len(b.Vars) != m.NumVars() || len(b.Rows) != m.NumRows() {
			return false, nil
		}
		for j, s := range b.Vars {
			putI32At(view[l.wsColBasis:], j, int32(s))
		}
		for i, s := range b.Rows {
			putI32At(view[l.wsRowBasis:], i, int32(s))
		}
		st, err := in.call(ctx, in.fn.setBasis, uint64(in.highs), uint64(base+l.wsColBasis), uint64(base+l.wsRowBasis))
		if err != nil {
			return false, err
		}
		return int32(st) != highsStatusError, nil
	}
	if !m.IsMIP() {
		return false, nil
	}
	if ws.Values != nil {
		putF64s(view[l.wsValues:], ws.Values)
		st, err := in.call(ctx, in.fn.setSolution, uint64(in.highs), uint64(base+l.wsValues), 0, 0, 0)
		if err != nil {
			return false, err
		}
		return int32(st) != highsStatusError, nil
	}
	if k := len(ws.PartialVars); k > 0 {
		for i, v := range ws.PartialVars {
			if !m.validVar(v) {
				return false, nil
			}
			putI32At(view[l.wsIndex:], i, int32(v))
		}
		putF64s(view[l.wsPartial:], ws.PartialValues)
		st, err := in.call(ctx, in.fn.setSparseSol, uint64(in.highs), uint64(k), uint64(base+l.wsIndex), uint64(base+l.wsPartial))
		if err != nil {
			return false, err
		}
		return int32(st) != highsStatusError, nil
	}
	return false, nil
}

func putI32At(b []byte, i int, v int32) {
	u := uint32(v)
	b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

func (in *instance) collect(ctx context.Context, m *Model, base uint32, l *arenaLayout, res *Result) error {
	h := uint64(in.highs)
	ms, err := in.call(ctx, in.fn.getModelStatus, h)
	if err != nil {
		return err
	}
	hms := int(int32(ms))
	res.HiGHSStatus = highsModelStatusNames[hms]
	if res.HiGHSStatus == "" {
		res.HiGHSStatus = fmt.Sprintf("model status %d", hms)
	}
	info := base + l.info
	primalStatus, err := in.intInfo(ctx, "primal_solution_status", info)
	if err != nil {
		return err
	}
	hasSol := primalStatus == solutionStatusFeasible
	switch hms {
	case hmsOptimal:
		res.Status = StatusOptimal
	case hmsModelEmpty:
		// No variables: the optimum is the offset.
		res.Status = StatusOptimal
		hasSol = true
	case hmsInfeasible:
		res.Status = StatusInfeasible
	case hmsUnbounded:
		res.Status = StatusUnbounded
	case hmsUnboundedOrInfeasible:
		res.Status = StatusInfeasibleOrUnbounded
	case hmsObjectiveBound, hmsObjectiveTarget, hmsTimeLimit, hmsIterationLimit,
		hmsUnknown, hmsSolutionLimit, hmsInterrupt:
		if hasSol {
			res.Status = StatusFeasible
		} else {
			res.Status = StatusLimit
		}
	default:
		res.Status = StatusError
	}
	if res.Status == StatusOptimal && !hasSol && m.NumVars() > 0 {
		res.Status = StatusError
	}

	rt, err := in.call(ctx, in.fn.getRunTime, h)
	if err != nil {
		return err
	}
	res.Stats.SolverTime = time.Duration(api.DecodeF64(rt) * float64(time.Second))
	if v, err := in.intInfo(ctx, "simplex_iteration_count", info); err == nil {
		res.Stats.SimplexIterations = max(v, 0)
	} else {
		return err
	}
	if v, err := in.intInfo(ctx, "ipm_iteration_count", info); err == nil {
		res.Stats.IPMIterations = max(v, 0)
	} else {
		return err
	}
	if m.IsMIP() {
		if res.Stats.Nodes, err = in.int64Info(ctx, "mip_node_count", info); err != nil {
			return err
		}
		res.Stats.Nodes = max(res.Stats.Nodes, 0)
		if res.Stats.MIPGap, err = in.doubleInfo(ctx, "mip_gap", info); err != nil {
			return err
		}
		if res.Stats.MIPDualBound, err = in.doubleInfo(ctx, "mip_dual_bound", info); err != nil {
			return err
		}
		if res.Status == StatusOptimal && res.Stats.MIPGap > 1e300 {
			res.Stats.MIPGap = 0
		}
	}
	if !res.Status.HasSolution() {
		return nil
	}
	n, r := m.NumVars(), m.NumRows()
	if _, err := in.call(ctx, in.fn.getSolution, h, uint64(base+l.colValue), uint64(base+l.colDual),
		uint64(base+l.rowValue), uint64(base+l.rowDual)); err != nil {
		return err
	}
	obj, err := in.call(ctx, in.fn.getObjective, h)
	if err != nil {
		return err
	}
	res.Objective = api.DecodeF64(obj)
	view, ok := in.mem.Read(base, l.total)
	if !ok {
		return fmt.Errorf("solver: %w: arena outside memory", ErrAborted)
	}
	res.Values = make([]float64, n)
	getF64s(view[l.colValue:], res.Values)
	if hms == hmsModelEmpty {
		for j := range res.Values {
			res.Values[j] = 0
		}
		res.Objective = m.offset
	}
	if m.IsMIP() || res.Status != StatusOptimal {
		return nil
	}
	duals := make([]float64, n+r)
	res.ReducedCosts, res.RowDuals = duals[:n:n], duals[n:]
	getF64s(view[l.colDual:], res.ReducedCosts)
	getF64s(view[l.rowDual:], res.RowDuals)

	validity, err := in.intInfo(ctx, "basis_validity", info)
	if err != nil {
		return err
	}
	if validity == basisValidityValid {
		if _, err := in.call(ctx, in.fn.getBasis, h, uint64(base+l.colBasis), uint64(base+l.rowBasis)); err != nil {
			return err
		}
		view, _ = in.mem.Read(base, l.total)
		st := make([]BasisStatus, n+r)
		for j := 0; j < n+r; j++ {
			off := l.colBasis + uint32(4*j)
			if j >= n {
				off = l.rowBasis + uint32(4*(j-n))
			}
			st[j] = BasisStatus(int32(uint32(view[off]) | uint32(view[off+1])<<8 | uint32(view[off+2])<<16 | uint32(view[off+3])<<24))
		}
		res.Basis = &Basis{Vars: st[:n:n], Rows: st[n:]}
	}
	return nil
}

// interruptChannel returns the channel whose closing interrupts a running
// solve (host functions poll it whenever HiGHS reads the clock) and a
// release function. Cancellation interrupts at once. A deadline is also
// HiGHS's time limit, so HiGHS normally stops by itself and returns its
// best solution; the solve is interrupted only if HiGHS overruns the
// deadline by a grace period of a tenth of the budget (at least 100 ms, at
// most 2 s).
func interruptChannel(ctx context.Context) (<-chan struct{}, func()) {
	done := ctx.Done()
	if done == nil {
		return nil, func() {}
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return done, func() {}
	}
	grace := min(max(100*time.Millisecond, time.Until(dl)/10), 2*time.Second)
	ch := make(chan struct{})
	var (
		once  sync.Once
		mu    sync.Mutex
		timer *time.Timer
	)
	closeCh := func() { once.Do(func() { close(ch) }) }
	stopAfter := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			closeCh()
			return
		}
		mu.Lock()
		timer = time.AfterFunc(grace, closeCh)
		mu.Unlock()
	})
	return ch, func() {
		stopAfter()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
	}
}
