package cora

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/internal/grant"
	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/traces"
)

// Name is the registry name.
const Name = "cora"

// CORA is the scheduler. See the package documentation.
type CORA struct {
	cfg  config
	dump string
	lp   solver.ModelSolver // created at the first LP solve (tests may set it)
	done func()             // releases lp
	fill grant.Filler

	// Scratch for building a problem.
	ids  []policies.JobID
	jobs []jobwork.Job
	meta []Meta

	// The decision in force: jobs in service order and their shares (nil: none).
	decided bool
	order   []policies.JobID
	shares  map[policies.JobID]traces.Vec
	orderSh []*traces.Vec
	slots   map[policies.JobID]int // planned completion slot, for the starts' reasons

	log    eventLog
	shadow shadowLog
	counts counters

	// solving describes the solve under way for Activity, which progress lines call from
	// another goroutine: the LP's variables, or the exact solver's jobs × slots (0: none).
	solvingLP, solvingExact atomic.Int64
}

// counters are the deterministic per-run counts reported as metrics.
type counters struct {
	events, failures, timeouts, fallbacks, inexact, lpDiffers, lpFractional, sizeLimited int
}

var (
	_ policies.Policy   = (*CORA)(nil)
	_ policies.Reporter = (*CORA)(nil)
)

// New builds the policy from its parameters (see the package documentation).
func New(o policies.Options) (policies.Policy, error) {
	cfg, err := parseParams(o.Params)
	if err != nil {
		return nil, err
	}
	p := &CORA{cfg: cfg, dump: o.DumpModels, shares: map[policies.JobID]traces.Vec{}, slots: map[policies.JobID]int{}}
	p.fill.Why = p.startReason
	return p, nil
}

// Name returns "cora".
func (p *CORA) Name() string { return Name }

// Schedule solves the CORA problem for the active jobs when something changed since the last
// call (an arrival, a task or job completion), then starts tasks as the decision says.
func (p *CORA) Schedule(v policies.View, plan *policies.Plan) error {
	active := v.Active()
	if len(active) == 0 {
		return nil
	}
	if len(v.Changed()) > 0 || !p.decided {
		if err := p.decide(v, active); err != nil {
			return err
		}
	}
	p.orderSh = p.orderSh[:0]
	kept := p.order[:0]
	for _, j := range p.order {
		if js := v.JobState(j); js.Arrived && !js.Done {
			kept = append(kept, j)
			if s, ok := p.shares[j]; ok {
				p.orderSh = append(p.orderSh, &s)
			} else {
				p.orderSh = append(p.orderSh, nil)
			}
		}
	}
	p.order = kept
	p.fill.Fill(v, plan, p.order, p.orderSh)
	return nil
}

// decide builds and solves the problem for the active jobs and installs the decision; a failed
// solve keeps the previous decision (jobs that arrived since go last, without a share).
func (p *CORA) decide(v policies.View, active []policies.JobID) error {
	now := v.Now()
	capacity := v.Capacity()
	sl := NewSlotting(now, p.cfg.slot, capacity)
	if len(sl.Dims) == 0 {
		return fmt.Errorf("cora: no resource dimension has a whole unit of capacity (capacity %v)", capacity.Format(len(v.Dims())))
	}
	p.ids, p.jobs, p.meta = p.ids[:0], p.jobs[:0], p.meta[:0]
	for _, j := range active {
		info := v.Job(j)
		p.ids = append(p.ids, j)
		p.jobs = append(p.jobs, jobwork.Remaining(v, j))
		p.meta = append(p.meta, Meta{Submit: info.Submit, Deadline: info.Deadline, Weight: info.Weight})
	}
	sl.Fit(capacity, p.jobs, p.cfg.maxSlots)
	prob := sl.Problem(capacity, p.jobs)
	rec := eventRecord{time: traces.Seconds(now), active: len(active), slots: prob.Slots, slot: traces.Seconds(sl.Slot), solver: p.cfg.solver}
	p.counts.events++
	sol, err := p.solve(prob, &rec)
	if err != nil {
		if errors.Is(err, solver.ErrWasmNotFound) || errors.Is(err, solver.ErrWasmMismatch) {
			return fmt.Errorf("cora: %w", err)
		}
		p.counts.failures++
		rec.err = err.Error()
		if rec.status == "" {
			rec.status = "failed"
		}
		p.fallback(active)
		rec.min, rec.sum = math.NaN(), math.NaN()
	} else {
		p.install(sl, prob, sol)
		rec.min, rec.sum = sol.MinUtility(), sum(sol.Utility)
	}
	p.log.add(rec)
	if p.cfg.shadow {
		p.shadow.add(traces.Seconds(now), len(active), rec.min, Shadow(prob, now, capacity, p.jobs, p.meta, p.cfg.rrh))
	}
	return nil
}

// checkSize refuses a problem over the size bounds before a solver allocates for it: more than
// MaxProblemSlots slots, or for the LP more than max_lp_vars variables.
func (p *CORA) checkSize(prob *Problem) error {
	if prob.Slots > MaxProblemSlots {
		return fmt.Errorf("cora: %d slots, over the bound of %d (raise policy.params.%s or set %s)", prob.Slots, MaxProblemSlots, ParamSlot, ParamMaxSlots)
	}
	if p.cfg.solver == SolverLP {
		if vars := 4 * prob.Jobs() * prob.Slots * prob.Resources(); vars > p.cfg.maxLPVars {
			return fmt.Errorf("cora: the FINAL LP would have %d variables (4 × %d jobs × %d slots × %d resources), over policy.params.%s=%d",
				vars, prob.Jobs(), prob.Slots, prob.Resources(), ParamMaxLPVars, p.cfg.maxLPVars)
		}
	}
	return nil
}

// solve runs the configured solver and records its statistics.
func (p *CORA) solve(prob *Problem, rec *eventRecord) (*Solution, error) {
	if err := p.checkSize(prob); err != nil {
		rec.status = statusSizeLimit
		p.counts.sizeLimited++
		return nil, err
	}
	if p.cfg.solver == SolverExact {
		p.solvingExact.Store(int64(prob.Jobs()) * int64(prob.Slots))
		defer p.solvingExact.Store(0)
		sw := solver.StartStopwatch()
		sol, err := Exact(prob, ExactBudget{})
		rec.wall = sw.Elapsed().Seconds() * 1000
		if err != nil {
			return nil, err
		}
		rec.status = "optimal"
		if sol.Inexact {
			rec.status = "inexact"
			p.counts.inexact++
		}
		rec.rounds, rec.branches = sol.Stats.Rounds, sol.Stats.Branches
		return sol, nil
	}
	if p.lp == nil {
		s, err := solver.NewSolver(context.Background())
		if err != nil {
			return nil, err
		}
		p.lp, p.done = s, func() { s.Close() }
	}
	p.solvingLP.Store(4 * int64(prob.Jobs()) * int64(prob.Slots) * int64(prob.Resources()))
	defer p.solvingLP.Store(0)
	lpr := &lpRecord{}
	rec.lp = lpr
	sw := solver.StartStopwatch()
	res, err := SolveLP(context.Background(), p.lp, prob, p.cfg.lpScale, solver.Options{TimeLimit: p.cfg.timeLimit, DumpDir: p.dump})
	rec.wall = sw.Elapsed().Seconds() * 1000
	if res != nil && res.FINAL != nil {
		m := res.FINAL.Model
		lpr.vars, lpr.rows, lpr.scale, lpr.underflow = m.NumVars(), m.NumRows(), res.FINAL.Scale, res.FINAL.Underflow
	}
	if res != nil && res.Result != nil {
		st := res.Result.Stats
		lpr.iterations, lpr.highsMS = st.SimplexIterations, st.SolverTime.Seconds()*1000
		rec.status = res.Result.Status.String()
		if res.Result.Status == solver.StatusFeasible || res.Result.Status == solver.StatusLimit {
			rec.status = "timeout"
			p.counts.timeouts++
		}
	}
	if err != nil {
		return nil, err
	}
	lpr.fractional, lpr.objective = res.Info.Fractional, res.Info.Objective
	if res.Info.Fractional > 1e-6 {
		p.counts.lpFractional++
	}
	if p.cfg.compareExact {
		sw := solver.StartStopwatch()
		ex, err := Exact(prob, ExactBudget{})
		lpr.exactWall = sw.Elapsed().Seconds() * 1000
		if err == nil {
			lpr.compared = true
			lpr.exactMin, lpr.exactSum = ex.MinUtility(), sum(ex.Utility)
			lpr.same = CompareSorted(res.Solution.Sorted(), ex.Sorted()) == 0
			if !lpr.same {
				p.counts.lpDiffers++
			}
		}
	}
	return res.Solution, nil
}

// Activity says what the policy is doing for progress lines ("solving a 12,000-variable LP";
// "" between solves). It is safe to call while the replay runs; nothing in the run reads it.
func (p *CORA) Activity() string {
	if n := p.solvingLP.Load(); n > 0 {
		return "solving a " + grouped(n) + "-variable LP (FINAL)"
	}
	if n := p.solvingExact.Load(); n > 0 {
		return "solving CORA exactly over " + grouped(n) + " job-slots"
	}
	return ""
}

// grouped writes n with thousands separators: 12,000.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// install makes a solution the decision in force: jobs in its order, each with its first-slot
// allocation as its share (modelled dimensions; others unlimited).
func (p *CORA) install(sl Slotting, prob *Problem, sol *Solution) {
	p.decided = true
	p.order = p.order[:0]
	clear(p.shares)
	clear(p.slots)
	for _, i := range sol.Order {
		j := p.ids[i]
		p.order = append(p.order, j)
		p.slots[j] = sol.Slot[i]
		var s traces.Vec
		for d := range s {
			s[d] = math.MaxInt64 / 4
		}
		for k, d := range sl.Dims {
			s[d] = sol.First[i][k] * traces.Unit
		}
		p.shares[j] = s
	}
}

// fallback keeps the previous decision for the jobs still active and appends the others in
// submit order without a share (FIFO order when there was no decision yet).
func (p *CORA) fallback(active []policies.JobID) {
	p.counts.fallbacks++
	p.decided = true
	in := map[policies.JobID]bool{}
	for _, j := range p.order {
		in[j] = true
	}
	for _, j := range active {
		if !in[j] {
			p.order = append(p.order, j)
		}
	}
}

// statusSizeLimit is the events table's status of a problem over the size bounds, not solved.
const statusSizeLimit = "size_limit"

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
