package jvusched

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/jvusched/milp"
	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/traces"
)

// Name is the policy's registry name.
const Name = "jvusched"

// beValue is a best-effort job's value; SLO jobs are worth Params.SLOValue.
const beValue = 1.0

// defaultQuantum is the plan's time slice when neither quantum_s nor the engine's cycle sets it.
const defaultQuantum = 5 * traces.Second

// Policy is JVuSched. Build it with New.
type Policy struct {
	prm  Params
	dump string
	ms   solver.ModelSolver

	ready   bool
	cl      cluster
	cycleT  traces.Time // the u back-off's unit: the engine's cycle, or the quantum
	delay   traces.Time // the engine's preemption delay
	quantum traces.Time
	slices  int

	jobs      []jobState
	releaseAt []traces.Time // per machine: when resources we preempted there come back
	calls     int64
	prevPlan  map[string]bool // labels of the leaves chosen in the previous cycle (warm start)

	stats stats
	rec   records

	// solving is the variable count of the MILP being solved (0: none), for Activity, which
	// progress lines call from another goroutine.
	solving atomic.Int64
}

// jobState is what the policy learns about a job across cycles.
type jobState struct {
	seen bool
	// extra is nominal time the u handler added to the job's estimate; incs counts the
	// increments (t of expinc).
	extra traces.Time
	incs  int
	// late: an SLO job that could no longer meet its deadline (counted once).
	late, unschedulable bool
}

var (
	_ policies.Policy   = (*Policy)(nil)
	_ policies.Reporter = (*Policy)(nil)
)

// New builds jvusched from options (policy.params.*; DumpModels).
func New(o policies.Options) (policies.Policy, error) {
	prm, err := ParseParams(o.Params)
	if err != nil {
		return nil, err
	}
	if err := prm.CheckSlices(o.Cycle); err != nil {
		return nil, err
	}
	return newPolicy(prm, o.DumpModels, solver.DefaultPool()), nil
}

func newPolicy(prm Params, dump string, ms solver.ModelSolver) *Policy {
	return &Policy{prm: prm, dump: dump, ms: ms}
}

// Name implements policies.Policy.
func (p *Policy) Name() string { return Name }

// cluster is the machines as the policy plans with them.
type cluster struct {
	machines []traces.Machine
	racks    []string // in order of first appearance
	perRack  map[string]int
	gpus     int
}

func (p *Policy) setup(v policies.View) error {
	n := v.NumMachines()
	if n < 2 {
		return errors.New("jvusched places tasks on whole machines; it needs a cluster of machines, not pooled mode")
	}
	p.cl = cluster{machines: make([]traces.Machine, n), perRack: map[string]int{}}
	for m := 0; m < n; m++ {
		mc := *v.Machine(m)
		p.cl.machines[m] = mc
		if _, ok := p.cl.perRack[mc.Rack]; !ok {
			p.cl.racks = append(p.cl.racks, mc.Rack)
		}
		p.cl.perRack[mc.Rack]++
		if mc.GPU {
			p.cl.gpus++
		}
	}
	p.releaseAt = make([]traces.Time, n)
	if t, ok := v.(policies.Timing); ok {
		p.cycleT, p.delay = t.SchedulingCycle(), t.PreemptionDelay()
	}
	if err := p.prm.CheckSlices(p.cycleT); err != nil { // New checked it, unless built without the cycle
		return fmt.Errorf("jvusched: %w", err)
	}
	ns, q := p.prm.planSlices(p.cycleT)
	p.quantum, p.slices = q, int(ns)
	if p.cycleT == 0 {
		p.cycleT = p.quantum
	}
	p.ready = true
	return nil
}

func (p *Policy) job(j policies.JobID) *jobState {
	if int(j) >= len(p.jobs) {
		p.jobs = append(p.jobs, make([]jobState, int(j)+1-len(p.jobs))...)
	}
	return &p.jobs[j]
}

// running is a running job as the cycle sees it.
type running struct {
	id       policies.JobID
	tasks    []policies.RunningTask
	finish   traces.Time // expected completion
	busy     int         // slices its machines are held
	cost     float64     // preemption cost
	killable bool
}

// pending is a pending job as the cycle sees it.
type pending struct {
	id   policies.JobID
	info *policies.JobInfo
	k    int
	est  traces.Time // nominal runtime estimate (with u's additions)
	slo  bool
}

// cycle is one scheduling point's working state.
type cycle struct {
	now     traces.Time
	grid    milp.Grid
	busy    []int
	running []running
	pending []pending
	killed  map[policies.JobID]bool
	taken   []bool // machines started on in this plan
	chosen  map[string]bool
	solves  int64 // MILPs solved so far in this cycle
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(v policies.View, plan *policies.Plan) error {
	if !p.ready {
		if err := p.setup(v); err != nil {
			return err
		}
	}
	p.calls++
	c := &cycle{now: v.Now(), killed: map[policies.JobID]bool{}, chosen: map[string]bool{}}
	c.grid = milp.Grid{Origin: c.now, Quantum: p.quantum, Slices: p.slices}
	if err := p.observe(v, c); err != nil {
		return err
	}
	if len(c.pending) == 0 {
		p.prevPlan = nil
		return nil
	}
	var err error
	if p.prm.Mode == ModeGreedy {
		err = p.greedy(c, plan)
	} else {
		err = p.global(c, plan)
	}
	p.prevPlan = c.chosen
	return err
}

// observe reads the running and pending jobs, applies the under-estimate handler, and fills the
// machines' busy slices.
func (p *Policy) observe(v policies.View, c *cycle) error {
	n := len(p.cl.machines)
	c.busy = make([]int, n)
	c.taken = make([]bool, n)
	owner := make([]bool, n)
	for _, j := range v.Active() {
		js := v.JobState(j)
		info := v.Job(j)
		st := p.job(j)
		if !st.seen {
			st.seen = true
			if len(info.Stages) != 1 {
				return fmt.Errorf("jvusched schedules single-stage (gang) jobs; job %d (id %d) has %d stages", j, info.ID, len(info.Stages))
			}
			d := info.Stages[0].Demand
			for m := range p.cl.machines {
				if !d.Fits(p.cl.machines[m].Capacity) {
					return fmt.Errorf("jvusched places one task per whole machine; job %d (id %d) demands %s per task, more than machine %s has (%s)",
						j, info.ID, d.Format(len(v.Dims())), p.cl.machines[m].Name, p.cl.machines[m].Capacity.Format(len(v.Dims())))
				}
			}
		}
		switch {
		case js.Running > 0:
			r := p.observeRunning(v, c, j, info, st)
			for _, t := range r.tasks {
				c.busy[t.Machine] = max(c.busy[t.Machine], r.busy)
				owner[t.Machine] = true
			}
			c.running = append(c.running, r)
		case js.Pending > 0:
			k := int(js.Pending)
			if k > n {
				if !st.unschedulable {
					st.unschedulable = true
					p.stats.unschedulable++
				}
				continue
			}
			c.pending = append(c.pending, pending{id: j, info: info, k: k, est: estimate(info) + st.extra, slo: info.Deadline > 0})
		}
	}
	// Machines held without a running task: resources we preempted, still draining.
	for m := 0; m < n; m++ {
		if owner[m] || v.Free(m) == p.cl.machines[m].Capacity {
			continue
		}
		left := p.releaseAt[m] - c.now
		c.busy[m] = max(1, int((left+p.quantum-1)/p.quantum))
	}
	// SLO jobs first, each class in submit (JobID) order: greedy's FCFS queues and max_pending.
	slices.SortStableFunc(c.pending, func(a, b pending) int {
		if a.slo != b.slo {
			if a.slo {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	return nil
}

func estimate(info *policies.JobInfo) traces.Time {
	return max(1, info.Stages[0].Estimate)
}

// observeRunning computes a running job's expected completion, raising its estimate when it is
// late and u is on, and its preemption cost.
func (p *Policy) observeRunning(v policies.View, c *cycle, j policies.JobID, info *policies.JobInfo, st *jobState) running {
	tasks := slices.Clone(v.RunningTasks(j))
	start := tasks[0].Start
	factor := 1.0
	for _, t := range tasks {
		start = min(start, t.Start)
		if t.Slowed && info.Placement.Slowdown > 1 {
			factor = info.Placement.Slowdown
		}
	}
	expected := func() traces.Time {
		return start + stretch(estimate(info)+st.extra, factor)
	}
	f := expected()
	if c.now >= f && p.prm.Under {
		inc := p.cycleT
		if p.prm.Backoff == BackoffExpInc {
			inc <<= min(st.incs, 40)
		}
		st.extra += traces.Time(float64(inc) / factor)
		st.incs++
		p.stats.increments++
		f = expected()
	}
	f = max(f, c.now+1) // without u a late job is expected to end within this slice
	r := running{id: j, tasks: tasks, finish: f, busy: int((f - c.now + p.quantum - 1) / p.quantum)}
	r.cost = p.runningValue(info, f, len(tasks), c.now-start) + p.prm.Epsilon
	r.killable = p.prm.Preempt
	return r
}

func stretch(d traces.Time, factor float64) traces.Time {
	if factor == 1 {
		return d
	}
	return traces.Time(float64(d)*factor + 0.5)
}

// sloValue is an SLO job's value when it completes at c, before tie-breaking: SLOValue up to
// the deadline, then 0 — or, with o, falling linearly to 0 over OverDecay estimated runtimes.
func (p *Policy) sloValue(deadline, est, c traces.Time) float64 {
	if c <= deadline {
		return p.prm.SLOValue
	}
	if !p.prm.Over {
		return 0
	}
	return p.prm.SLOValue * max(0, 1-float64(c-deadline)/(p.prm.OverDecay*float64(est)))
}

// runningValue is what completing a running job of k tasks that has run for ran at its
// expected completion f is worth: its preemption cost before ε.
func (p *Policy) runningValue(info *policies.JobInfo, f traces.Time, k int, ran traces.Time) float64 {
	if info.Deadline <= 0 {
		return p.beKillCost(k, ran)
	}
	if v := p.sloValue(info.Deadline, estimate(info), f); v > 0 {
		return v
	}
	if p.prm.LateSLO == LateBE {
		return p.beKillCost(k, ran)
	}
	return 0
}

// beBase is the value of a best-effort job of k tasks completing at once, and the initial value
// of its preemption cost: 1, or 1 per task with be_value=node.
func (p *Policy) beBase(k int) float64 {
	if p.prm.BEValue == BEPerNode {
		return beValue * float64(k)
	}
	return beValue
}

// beKillCost is c(t) of a best-effort job of k tasks that has run for ran: its initial value,
// plus be_kill_growth per node-hour of work done.
func (p *Policy) beKillCost(k int, ran traces.Time) float64 {
	c := p.beBase(k)
	if g := p.prm.BEKillGrowth; g > 0 && ran > 0 {
		c += g * float64(k) * traces.Seconds(ran) / 3600
	}
	return c
}

// window is the plan-ahead span the best-effort decay is measured against.
func (p *Policy) window() traces.Time { return traces.Time(p.slices) * p.quantum }

// beWorth is a best-effort job's value completing delay after its earliest completion:
// W/(W+delay) for window W — 1 at once, ½ a window later.
func (p *Policy) beWorth(delay traces.Time) float64 {
	w := float64(p.window())
	return w / (w + float64(delay))
}

// tieBreak is the small preference for earlier completion that keeps SLO options of equal value
// from being postponed cycle after cycle: below Epsilon/10, growing with the delay.
func (p *Policy) tieBreak(delay traces.Time) float64 {
	w := float64(p.window())
	return 0.1 * p.prm.Epsilon * float64(delay) / (float64(delay) + w)
}

// placement is one way to place a job: an equivalence set and its runtime factor.
type placement struct {
	tag    string
	set    strl.Set
	size   int // machines in the set
	factor float64
}

// placements lists the job's placement options: preferred resources at nominal runtime, and
// for a soft constraint anywhere at Slowdown × runtime; none for a hard one elsewhere.
func (p *Policy) placements(info *policies.JobInfo, k int) []placement {
	all := placement{tag: "any", set: strl.All(), size: len(p.cl.machines), factor: 1}
	pl := info.Placement
	var pref []placement
	switch pl.Kind {
	case traces.PlacementGPU:
		pref = []placement{{tag: "gpu", set: strl.GPU(), size: p.cl.gpus, factor: 1}}
	case traces.PlacementRack:
		if k == 1 {
			return []placement{all} // one task is always on one rack
		}
		for i, r := range p.cl.racks {
			pref = append(pref, placement{tag: "r" + strconv.Itoa(i), set: strl.Rack(r), size: p.cl.perRack[r], factor: 1})
		}
	default:
		return []placement{all}
	}
	if !pl.Hard {
		all.factor = max(1, pl.Slowdown)
		all.tag = "slow"
		pref = append(pref, all)
	}
	return pref
}

// options builds a pending job's start options over the window; nil when it has none worth
// anything (and late_slo is drop) or none fits.
func (p *Policy) options(c *cycle, j *pending) *strl.Max {
	st := p.job(j.id)
	var leaves []strl.Expr
	build := func(asBE bool) {
		leaves = leaves[:0]
		c0 := c.now + j.est
		for _, pl := range p.placements(j.info, j.k) {
			if pl.size < j.k {
				continue
			}
			d := stretch(j.est, pl.factor)
			starts := c.grid.Slices
			if (!j.slo || asBE) && !p.prm.BEPlanAhead {
				starts = 1
			}
			for i := 0; i < starts; i++ {
				start := c.grid.Start(i)
				done := start + d
				var v float64
				if j.slo && !asBE {
					if v = p.sloValue(j.info.Deadline, j.est, done); v > 0 {
						v -= p.tieBreak(done - c0)
					}
				} else {
					v = p.beBase(j.k) * p.beWorth(done-c0)
				}
				if v <= 0 {
					continue
				}
				leaves = append(leaves, &strl.NCk{
					Tag: leafTag(j.id, pl.tag, start), Set: pl.set, K: j.k, Start: start, Dur: d, Value: v,
				})
			}
		}
	}
	fits := false
	for _, pl := range p.placements(j.info, j.k) {
		fits = fits || pl.size >= j.k
	}
	if !fits { // more tasks than its preferred resources (hard) or the cluster has machines
		if !st.unschedulable {
			st.unschedulable = true
			p.stats.unschedulable++
		}
		return nil
	}
	build(false)
	if len(leaves) == 0 && j.slo {
		if !st.late {
			st.late = true
			p.stats.late++
		}
		if p.prm.LateSLO == LateBE {
			build(true)
		}
	}
	if len(leaves) == 0 {
		return nil
	}
	return &strl.Max{Tag: "j" + strconv.Itoa(int(j.id)), Children: slices.Clone(leaves)}
}

func leafTag(j policies.JobID, placement string, start traces.Time) string {
	return "j" + strconv.Itoa(int(j)) + "." + placement + "@" + strconv.FormatInt(start, 10)
}

// global solves every pending job in one MILP.
func (p *Policy) global(c *cycle, plan *policies.Plan) error {
	var options []strl.Expr
	leaves := 0
	for i := range c.pending {
		if p.prm.MaxPending > 0 && len(options) == p.prm.MaxPending {
			break
		}
		if opts := p.options(c, &c.pending[i]); opts != nil {
			// Every option is a variable: jobs past max_milp_vars options cannot fit and
			// wait for a later cycle (only under such a backlog; the order is max_pending's).
			if lim := p.prm.Limits.Vars; lim > 0 && len(options) > 0 && leaves+len(opts.Children) > lim {
				break
			}
			leaves += len(opts.Children)
			options = append(options, opts)
		}
	}
	if len(options) == 0 {
		return nil
	}
	// A MILP over the size limits is recorded and retried with the first half of the jobs;
	// when one job's alone is over them, nothing starts this cycle (as after a solver failure).
	for n := len(options); ; n /= 2 {
		terms, kills := p.kills(c, options[:n])
		terms = append(terms, options[:n]...)
		_, err := p.solveAndApply(c, plan, &strl.Sum{Children: terms}, nil, kills, -1, n)
		if !errors.Is(err, errTooLarge) {
			return err
		}
		if n == 1 {
			return nil
		}
	}
}

// errTooLarge is solveAndApply's report of a MILP over the size limits (recorded as a
// fallback); global retries with fewer jobs, greedy moves on to the next job.
var errTooLarge = errors.New("jvusched: MILP over the size limits")

// greedy solves one MILP per pending job (§4.1.4): SLO jobs first, then best effort, each in
// FCFS order; each job's options with the running jobs' KillnCk terms, and the plans of the jobs
// before it (this cycle) held as reservations.
func (p *Policy) greedy(c *cycle, plan *policies.Plan) error {
	var reserved []*strl.NCk
	for i := range c.pending {
		j := &c.pending[i]
		opts := p.options(c, j)
		if opts == nil {
			continue
		}
		sets := []strl.Expr{opts} // every allocation set of the MILP: the partitions kills group by
		for _, r := range reserved {
			sets = append(sets, r)
		}
		terms, kills := p.kills(c, sets)
		terms = append(terms, opts)
		chosen, err := p.solveAndApply(c, plan, &strl.Sum{Children: terms}, reserved, kills, j.id, 1)
		if errors.Is(err, errTooLarge) {
			continue // recorded as a fallback: this job does not start this cycle
		}
		if err != nil {
			return err
		}
		for _, l := range chosen {
			if l.Start > c.now {
				reserved = append(reserved, &strl.NCk{Tag: reservedPrefix + l.Tag, Set: l.Set, K: l.K, Start: l.Start, Dur: l.Dur})
			}
		}
	}
	return nil
}

// statusSizeLimit is the cycles table's status of a MILP not solved because compiling it passed
// the size limits (max_milp_vars, max_milp_rows, max_milp_nonzeros).
const statusSizeLimit = "size_limit"

// reservedPrefix marks the labels of greedy mode's reservations.
const reservedPrefix = "res."

// solveAndApply compiles e, solves it and applies the solution: kills become preemptions,
// options that start now become starts on concrete machines. It returns the chosen options
// (starting now or later).
func (p *Policy) solveAndApply(c *cycle, plan *policies.Plan, e strl.Expr, reserved []*strl.NCk, kills map[string][]*running, job policies.JobID, considered int) ([]*strl.NCk, error) {
	solve := c.solves
	c.solves++
	name := fmt.Sprintf("jvusched_c%06d_s%d", p.calls, solve)
	prob := &milp.Problem{Machines: p.cl.machines, Busy: slices.Clone(c.busy), Grid: c.grid, Expr: e, Reserved: reserved}
	prog, err := milp.Compile(prob, milp.Options{Name: name, Limits: p.prm.Limits})
	if errors.Is(err, milp.ErrTooLarge) {
		p.stats.solves++
		p.stats.fallbacks++
		p.stats.sizeLimited++
		p.rec.add(cycleRow{
			t: c.now, call: p.calls, solve: solve, job: int64(job), pending: int64(len(c.pending)),
			considered: int64(considered), running: int64(len(c.running)), slices: int64(c.grid.Slices),
			status: statusSizeLimit, fallback: true,
		})
		return nil, errTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("jvusched: t=%d: %w", c.now, err)
	}
	opts := solver.Options{TimeLimit: p.prm.TimeLimit, MaxNodes: p.prm.MaxNodes, MIPGap: 1e-9}
	if p.dump != "" {
		opts.DumpDir = p.dump
		if p.prm.DumpProblems {
			if err := writeFile(filepath.Join(p.dump, name+".problem"), milp.FormatProblem(prob)); err != nil {
				return nil, err
			}
		}
	}
	if p.prm.WarmStart && len(p.prevPlan) > 0 {
		opts.WarmStart = warmStart(prog, p.prevPlan)
	}
	p.solving.Store(int64(prog.Model.NumVars()))
	res, err := p.ms.Solve(context.Background(), prog.Model, opts)
	p.solving.Store(0)
	row := cycleRow{
		t: c.now, call: p.calls, solve: solve, job: int64(job), pending: int64(len(c.pending)),
		considered: int64(considered), running: int64(len(c.running)), leaves: int64(len(prog.Leaves)),
		rows: int64(prog.Model.NumRows()), cols: int64(prog.Model.NumVars()), binaries: int64(prog.Binaries),
		integers: int64(prog.Integers), nonzeros: int64(prog.Model.NumNonzeros()),
		partitions: int64(len(prog.Partitions)), slices: int64(c.grid.Slices),
	}
	p.stats.solves++
	if err != nil {
		if errors.Is(err, solver.ErrWasmNotFound) || errors.Is(err, solver.ErrWasmMismatch) {
			return nil, fmt.Errorf("jvusched: %w", err)
		}
		row.status = "error"
		row.fallback = true
		p.stats.fallbacks++
		p.rec.add(row)
		return nil, nil
	}
	row.status = res.Status.String()
	row.objective, row.gap = res.Objective, res.Stats.MIPGap
	row.nodes, row.iters = res.Stats.Nodes, res.Stats.SimplexIterations
	row.wallMS = float64(res.Stats.WallTime.Microseconds()) / 1000
	row.solverMS = float64(res.Stats.SolverTime.Microseconds()) / 1000
	row.warm = res.Stats.WarmStarted
	switch res.Status {
	case solver.StatusOptimal:
	case solver.StatusFeasible:
		row.limit = true
		p.stats.limitIncumbent++
		p.noteLimit()
	default:
		row.limit = res.Status == solver.StatusLimit
		if row.limit {
			p.noteLimit()
		}
		row.fallback = true
		p.stats.fallbacks++
		p.rec.add(row)
		return nil, nil
	}
	chosen, preempts, err := p.apply(c, plan, prog, res.Values, kills)
	if err != nil {
		return nil, fmt.Errorf("jvusched: t=%d: %w", c.now, err)
	}
	for _, l := range chosen {
		if l.Start == c.now {
			row.starts++
		}
	}
	row.preempts = int64(preempts)
	p.rec.add(row)
	return chosen, nil
}

// Activity says what the policy is doing for progress lines ("solving a 12,000-variable MILP";
// "" between solves). It is safe to call while the replay runs; nothing in the run reads it.
func (p *Policy) Activity() string {
	n := p.solving.Load()
	if n == 0 {
		return ""
	}
	return "solving a " + grouped(n) + "-variable MILP"
}

// grouped writes n with thousands separators: 12,000.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// warmStart turns the previous cycle's chosen leaves into a partial start: their indicators 1.
func warmStart(prog *milp.Program, prev map[string]bool) *solver.WarmStart {
	ws := &solver.WarmStart{}
	for i := range prog.Leaves {
		l := &prog.Leaves[i]
		if !l.Fixed && prev[l.Expr.Label()] {
			ws.PartialVars = append(ws.PartialVars, l.Ind)
			ws.PartialValues = append(ws.PartialValues, 1)
		}
	}
	if len(ws.PartialVars) == 0 {
		return nil
	}
	return ws
}

// apply turns a solution into preemptions and starts, and returns the chosen options.
func (p *Policy) apply(c *cycle, plan *policies.Plan, prog *milp.Program, values []float64, kills map[string][]*running) (chosen []*strl.NCk, preempts int, err error) {
	choices, err := prog.Decode(values)
	if err != nil {
		return nil, 0, err
	}
	freed := make([]bool, len(p.cl.machines)) // machines killed now and free at once
	for _, ch := range choices {
		l := &prog.Leaves[ch.Leaf]
		k, ok := l.Expr.(*strl.KillNCk)
		if !ok || !ch.Chosen {
			continue
		}
		group := kills[k.Tag]
		if group == nil {
			return nil, 0, fmt.Errorf("kill %s has no running job", k.Tag)
		}
		victims, err := p.victims(prog, l, ch, group)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range victims {
			p.preempt(c, plan, r, freed, policies.BecauseValue("MILP kill option, cost", k.Cost))
			preempts++
		}
	}
	for _, ch := range choices {
		l := &prog.Leaves[ch.Leaf]
		n, ok := l.Expr.(*strl.NCk)
		if !ok || !ch.Chosen || strings.HasPrefix(n.Tag, reservedPrefix) {
			continue
		}
		c.chosen[n.Tag] = true
		chosen = append(chosen, n)
		if l.First != 0 {
			continue // a plan for later: re-planned next cycle
		}
		j, err := jobOfTag(n.Tag)
		if err != nil {
			return nil, 0, err
		}
		busy := int((n.Dur + p.quantum - 1) / p.quantum)
		for i, pv := range l.Parts {
			need := ch.Counts[i]
			for _, m := range prog.Partitions[pv.Partition].Machines {
				if need == 0 {
					break
				}
				if c.taken[m] || (c.busy[m] > 0 && !freed[m]) {
					continue
				}
				c.taken[m] = true
				c.busy[m] = max(busy, 1)
				plan.StartBecause(policies.Start{Job: j, Stage: 0, Machine: int32(m), Count: 1}, policies.BecauseValue("MILP value", n.Value))
				need--
			}
			if need > 0 {
				return nil, 0, fmt.Errorf("%s: %d machine(s) short in partition %d (compiler and plan disagree)", n.Tag, need, pv.Partition)
			}
		}
	}
	return chosen, preempts, nil
}

// jobOfTag reads the job of an option's label, "j<job>.<placement>@<start µs>".
func jobOfTag(tag string) (policies.JobID, error) {
	s, ok := strings.CutPrefix(tag, "j")
	if i := strings.IndexByte(s, '.'); ok && i > 0 {
		if j, err := strconv.Atoi(s[:i]); err == nil {
			return policies.JobID(j), nil
		}
	}
	return 0, fmt.Errorf("option label %q names no job", tag)
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("jvusched: dump: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("jvusched: dump: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("jvusched: dump: %w", err)
	}
	return nil
}
