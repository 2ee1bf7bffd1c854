// Package milp compiles an STRL/pSTRL expression (package strl) over a cluster and a plan-ahead
// window into a mixed-integer linear program on policies/solver, as TetriSched (EuroSys 2016,
// §5) and JamaisVu (CMU-PDL-16-104, §4.1.2, Alg. 1) describe, and decodes a solution back into
// the leaves chosen and the machines each takes from every partition.
//
// # Partitions and time
//
// Machines that no allocation leaf (nck, lnck) can tell apart — the same membership in every
// leaf's equivalence set — form one partition; the program counts machines per partition, never
// per machine, so its size grows with partitions × time slices. The window is Grid.Slices slices
// of Grid.Quantum from Grid.Origin; a leaf starting at s for d covers slices ⌊(s−origin)/q⌋ up to
// ⌈(s+d−origin)/q⌉ (clipped to the window); a KillnCk returns its machines over the slices
// ⌊(start_p−origin)/q⌋ … ⌊(finish_p−origin)/q⌋. Machine m is held by running work for the first
// Problem.Busy[m] slices. Counts are exact: within a partition machines are interchangeable, and
// busy periods all start at the window's origin, so any per-slice counts within capacity can be
// realised by concrete machines (interval colouring).
//
// # Formulation (gen in TetriSched's terms)
//
// Every node n gets an indicator I_n: a binary variable, or the constant 1 for a root sum or max
// (choosing such a root but none of its children is the same as not choosing it). Leaves and
// operators contribute:
//
//   - nck(S, k, …, v): partition variables P_x ∈ [0, |S∩x|] integer with Σ_x P_x = k·I, usage P_x
//     in its slices; worth v·I. When there is no choice — S lies in one partition (P = k·I) or
//     k = |S| (P_x = |S∩x|·I) — no partition variables are made. A leaf whose set has fewer
//     than k machines is fixed to I = 0.
//   - lnck: Σ_x P_x ≤ k·I; worth (v/k)·Σ_x P_x.
//   - killnck(S, k, start_p, finish_p, c): P_x with Σ_x P_x = k·I (fixed multiples of I as for
//     nck when there is no choice — always, for a running job's whole allocation), usage −P_x in its slices (capacity returned); worth −c·I. lkillnck: Σ ≤ k·I, worth
//     −(c/k)·Σ P_x. Its machines must be held (busy) through every slice it returns them in, and
//     no machine may be in two kills.
//   - max(e…): a binary I_i per child with Σ I_i ≤ I; worth Σ of the children's worth.
//   - sum(e…): a binary I_i ≤ I per child; worth Σ.
//   - min(e…): children share I; a free variable V ≤ worth of each child; worth V.
//   - scale(e, s): worth s·(worth of e). barrier(e, v): worth(e) ≥ v·I; worth v·I.
//
// Supply: for every partition x and slice t, Σ usage ≤ avail(x, t), the machines of x not busy
// at t. The objective maximises the root's worth.
package milp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/traces"
)

// Grid is the plan-ahead window.
type Grid struct {
	Origin  traces.Time // start of slice 0 (now)
	Quantum traces.Time // slice length
	Slices  int
}

// Slice returns the slice holding time t (may be outside [0, Slices)).
func (g Grid) Slice(t traces.Time) int {
	d := t - g.Origin
	if d >= 0 {
		return int(d / g.Quantum)
	}
	return -int((-d + g.Quantum - 1) / g.Quantum)
}

// Start returns the start time of slice i.
func (g Grid) Start(i int) traces.Time { return g.Origin + traces.Time(i)*g.Quantum }

// Problem is one compile's input.
type Problem struct {
	// Machines are the cluster (names must be distinct; Rack and GPU are what sets select by).
	Machines []traces.Machine
	// Busy[m] is how many slices, from slice 0, machine m is held by running work (0: free now).
	// Nil means every machine is free.
	Busy []int
	Grid Grid
	Expr strl.Expr
	// Reserved are allocations already decided (greedy mode: the plans of jobs solved earlier
	// in the cycle): nck leaves chosen for certain, worth nothing, whose usage counts against
	// supply. They take part in partitioning; Program.Leaves lists them after the expression's.
	Reserved []*strl.NCk
}

// Limits checked by Compile.
const (
	MaxMachines = 1 << 20
	MaxSlices   = 1 << 16
	// MaxCells bounds partitions × slices of the supply table.
	MaxCells = 1 << 24
)

// ErrProblem is wrapped by every error Compile returns for bad input.
var ErrProblem = errors.New("milp: invalid problem")

// ErrTooLarge is wrapped by the SizeError Compile returns when the model would pass
// Options.Limits.
var ErrTooLarge = errors.New("milp: model too large")

// Limits bound the size of a compiled model; 0 leaves a dimension unbounded. Compile checks
// them while it builds, before each step that would pass them allocates, so an absurd problem
// costs at most the limits' memory.
type Limits struct {
	Vars, Rows, Nonzeros int
}

// SizeError reports the first limit a model would pass: What (variables, rows or nonzeros)
// would reach Size, over Limit.
type SizeError struct {
	What        string
	Size, Limit int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("milp: the model would have %d %s, over the limit of %d", e.Size, e.What, e.Limit)
}

func (e *SizeError) Unwrap() error { return ErrTooLarge }

// Partition is a class of machines no allocation leaf tells apart.
type Partition struct {
	Machines []int // indices into Problem.Machines, ascending
}

// PartVar is a leaf's take from one partition.
type PartVar struct {
	Partition int
	Cap       int        // machines of the leaf's set in the partition
	Var       solver.Var // its count, or -1 when the count is Take·I
	// Take is the count when the leaf is chosen and Var is -1: K for a leaf whose set lies in
	// one partition, Cap for a leaf that takes (or kills) its whole set.
	Take int
}

// Leaf is a compiled nck/lnck/killnck/lkillnck.
type Leaf struct {
	Node  int       // pre-order index of the node in the expression
	Expr  strl.Expr // *strl.NCk or *strl.KillNCk
	K     int
	Ind   solver.Var // its indicator
	Parts []PartVar
	// First and End bound the slices it uses (allocation) or returns (kill) in the window.
	First, End int
	// Fixed reports that the leaf can never be chosen (its set has fewer than K machines).
	Fixed bool
}

// Kill reports whether the leaf is a KillnCk.
func (l *Leaf) Kill() bool { _, ok := l.Expr.(*strl.KillNCk); return ok }

// Program is a compiled problem.
type Program struct {
	Model      *solver.Model
	Partitions []Partition
	// Avail[x][t] is how many machines of partition x are free in slice t.
	Avail  [][]int
	Leaves []Leaf
	// Binaries and Integers count the model's 0-1 and general integer variables.
	Binaries, Integers int
}

// Options tune compilation.
type Options struct {
	// Name is the model's name (dump file names).
	Name string
	// NoNames leaves variables and rows unnamed (slightly faster; dumps show x<j> and r<i>).
	NoNames bool
	// Limits bound the model's size (zero: none).
	Limits Limits
}

type ind struct {
	v   solver.Var
	one bool // the constant 1
}

type term struct {
	v solver.Var
	c float64
}

type compiler struct {
	p      *Problem
	opts   Options
	m      *solver.Model
	prog   *Program
	byName map[string]int
	member []bool
	// sets: canonical text → resolved membership
	sets map[string][]bool
	// partOf[m] is machine m's partition.
	partOf  []int
	usage   [][][]term // [partition][slice]
	node    int
	killed  []bool // machines named by a kill
	scratch []term
	// usageNZ counts the usage terms: the supply rows' nonzeros, added last.
	usageNZ int
}

// grow checks that adding vars variables, rows rows and nz nonzeros keeps the model within
// Options.Limits (the usage terms count as the supply rows' nonzeros they become).
func (c *compiler) grow(vars, rows, nz int) error {
	l := c.opts.Limits
	switch {
	case l.Vars > 0 && c.m.NumVars()+vars > l.Vars:
		return &SizeError{"variables", c.m.NumVars() + vars, l.Vars}
	case l.Rows > 0 && c.m.NumRows()+rows > l.Rows:
		return &SizeError{"rows", c.m.NumRows() + rows, l.Rows}
	case l.Nonzeros > 0 && c.m.NumNonzeros()+c.usageNZ+nz > l.Nonzeros:
		return &SizeError{"nonzeros", c.m.NumNonzeros() + c.usageNZ + nz, l.Nonzeros}
	}
	return nil
}

// Compile builds the program of p.
func Compile(p *Problem, opts Options) (*Program, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	c := &compiler{p: p, opts: opts, m: solver.NewModel(opts.Name), prog: &Program{}, sets: map[string][]bool{}}
	c.m.SetSense(solver.Maximize)
	c.prog.Model = c.m
	c.byName = make(map[string]int, len(p.Machines))
	for i, m := range p.Machines {
		if _, dup := c.byName[m.Name]; dup {
			return nil, fmt.Errorf("%w: two machines called %q", ErrProblem, m.Name)
		}
		c.byName[m.Name] = i
	}
	c.member = make([]bool, len(p.Machines))
	if err := c.partition(); err != nil {
		return nil, err
	}
	nx, ns := len(c.prog.Partitions), p.Grid.Slices
	if nx*ns > MaxCells {
		return nil, fmt.Errorf("%w: %d partitions × %d slices exceed %d cells", ErrProblem, nx, ns, MaxCells)
	}
	// The supply table holds a list of usage terms per cell: bounded like nonzeros.
	if l := opts.Limits.Nonzeros; l > 0 && nx*ns > l {
		return nil, &SizeError{"supply cells (partitions × slices)", nx * ns, l}
	}
	c.prog.Avail = make([][]int, nx)
	c.usage = make([][][]term, nx)
	for x := range c.prog.Partitions {
		c.prog.Avail[x] = make([]int, ns)
		c.usage[x] = make([][]term, ns)
		for _, m := range c.prog.Partitions[x].Machines {
			b := 0
			if p.Busy != nil {
				b = p.Busy[m]
			}
			for t := b; t < ns; t++ {
				c.prog.Avail[x][t]++
			}
		}
	}
	c.killed = make([]bool, len(p.Machines))
	var root ind
	switch p.Expr.(type) {
	case *strl.Sum, *strl.Max:
		root = ind{one: true}
	default:
		root = ind{v: c.m.AddBinary(0, c.name("I", 0))}
	}
	obj, err := c.gen(p.Expr, root)
	if err != nil {
		return nil, err
	}
	for _, r := range p.Reserved {
		iv := c.m.AddVar(1, 1, 0, solver.Binary, c.name("R", c.node))
		if _, err := c.leaf(c.node, r, r.Set, r.K, r.Linear, 0, ind{v: iv}); err != nil {
			return nil, err
		}
		c.node++
	}
	for _, t := range obj {
		_, _, cost, _, _ := c.m.VarInfo(t.v)
		c.m.SetCost(t.v, cost+t.c)
	}
	if err := c.supply(); err != nil {
		return nil, err
	}
	if err := c.grow(0, 0, 0); err != nil { // the exact size, with the few rows not checked ahead
		return nil, err
	}
	for j := 0; j < c.m.NumVars(); j++ {
		switch _, _, _, t, _ := c.m.VarInfo(solver.Var(j)); t {
		case solver.Binary:
			c.prog.Binaries++
		case solver.Integer:
			c.prog.Integers++
		}
	}
	return c.prog, nil
}

func check(p *Problem) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrProblem, fmt.Sprintf(format, args...))
	}
	g := p.Grid
	switch {
	case len(p.Machines) == 0 || len(p.Machines) > MaxMachines:
		return bad("%d machines, want 1..%d", len(p.Machines), MaxMachines)
	case g.Quantum <= 0:
		return bad("quantum %d µs, want > 0", g.Quantum)
	case g.Slices < 1 || g.Slices > MaxSlices:
		return bad("%d slices, want 1..%d", g.Slices, MaxSlices)
	case g.Origin < 0 || g.Origin > strl.MaxTime:
		return bad("origin %d µs out of range", g.Origin)
	case p.Busy != nil && len(p.Busy) != len(p.Machines):
		return bad("busy lists %d machines, the cluster has %d", len(p.Busy), len(p.Machines))
	}
	for m, b := range p.Busy {
		if b < 0 {
			return bad("machine %s busy for %d slices", p.Machines[m].Name, b)
		}
	}
	for _, r := range p.Reserved {
		if r == nil || r.Linear {
			return bad("a reservation must be an nck")
		}
		if err := strl.Validate(r); err != nil {
			return err
		}
	}
	return strl.Validate(p.Expr)
}

func (c *compiler) name(prefix string, parts ...int) string {
	if c.opts.NoNames {
		return ""
	}
	b := []byte(prefix)
	for i, x := range parts {
		if i > 0 {
			b = append(b, '_')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(b)
}

// resolve returns the membership of set s (cached by its text).
func (c *compiler) resolve(s strl.Set) ([]bool, error) {
	key := s.String()
	if r, ok := c.sets[key]; ok {
		return r, nil
	}
	r := make([]bool, len(c.p.Machines))
	if _, err := s.Resolve(c.p.Machines, r, c.byName); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProblem, err)
	}
	c.sets[key] = r
	return r, nil
}

// partition groups machines by their membership in the allocation leaves' sets.
func (c *compiler) partition() error {
	var alloc [][]bool
	var err error
	walk := func(e strl.Expr) {
		if n, ok := e.(*strl.NCk); ok && err == nil {
			key := n.Set.String()
			if _, seen := c.sets[key]; seen {
				return
			}
			var r []bool
			if r, err = c.resolve(n.Set); err == nil {
				alloc = append(alloc, r)
			}
		}
	}
	strl.Walk(c.p.Expr, walk)
	for _, r := range c.p.Reserved {
		walk(r)
	}
	if err != nil {
		return err
	}
	c.partOf = make([]int, len(c.p.Machines))
	ids := map[string]int{}
	sig := make([]byte, len(alloc))
	for m := range c.p.Machines {
		for i, r := range alloc {
			sig[i] = '0'
			if r[m] {
				sig[i] = '1'
			}
		}
		x, ok := ids[string(sig)]
		if !ok {
			x = len(c.prog.Partitions)
			ids[string(sig)] = x
			c.prog.Partitions = append(c.prog.Partitions, Partition{})
		}
		c.partOf[m] = x
		c.prog.Partitions[x].Machines = append(c.prog.Partitions[x].Machines, m)
	}
	return nil
}

// caps counts a membership's machines per partition, in partition order (zeros dropped).
func (c *compiler) caps(r []bool) []PartVar {
	counts := make([]int, len(c.prog.Partitions))
	for m, in := range r {
		if in {
			counts[c.partOf[m]]++
		}
	}
	var out []PartVar
	for x, n := range counts {
		if n > 0 {
			out = append(out, PartVar{Partition: x, Cap: n, Var: -1})
		}
	}
	return out
}

func (c *compiler) gen(e strl.Expr, in ind) ([]term, error) {
	node := c.node
	c.node++
	if in.one {
		switch e.(type) {
		case *strl.Max, *strl.Sum:
		default:
			// Only a root sum or max is chosen for certain (Compile); keep gen total anyway.
			in = ind{v: c.m.AddVar(1, 1, 0, solver.Binary, c.name("I", node))}
		}
	}
	switch e := e.(type) {
	case *strl.NCk:
		return c.leaf(node, e, e.Set, e.K, e.Linear, e.Value, in)
	case *strl.KillNCk:
		return c.leaf(node, e, e.Set, e.K, e.Linear, -e.Cost, in)
	case *strl.Max, *strl.Sum:
		_, isMax := e.(*strl.Max)
		n := len(strl.Children(e))
		rows, nz := 0, 0 // a max links its children in one row, a sum each in its own
		switch {
		case isMax:
			rows, nz = 1, n+1
		case !in.one:
			rows, nz = n, 2*n
		}
		if err := c.grow(n, rows, nz); err != nil {
			return nil, err
		}
		var out []term
		var link []term
		for i, ch := range strl.Children(e) {
			iv := c.m.AddBinary(0, c.name("I", c.node))
			link = append(link, term{iv, 1})
			if !isMax && !in.one {
				c.m.AddRow(-solver.Inf, 0, []solver.Var{iv, in.v}, []float64{1, -1}, c.name("sum", node, i))
			}
			f, err := c.gen(ch, ind{v: iv})
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
		if isMax {
			ub := 1.0
			if !in.one {
				link = append(link, term{in.v, -1})
				ub = 0
			}
			c.addRow(-solver.Inf, ub, link, c.name("max", node))
		}
		return out, nil
	case *strl.Min:
		v := c.m.AddContinuous(-solver.Inf, solver.Inf, 0, c.name("V", node))
		for i, ch := range e.Children {
			f, err := c.gen(ch, in)
			if err != nil {
				return nil, err
			}
			row := append([]term{{v, 1}}, negate(f)...)
			c.addRow(-solver.Inf, 0, row, c.name("min", node, i))
		}
		return []term{{v, 1}}, nil
	case *strl.Scale:
		f, err := c.gen(e.Child, in)
		if err != nil {
			return nil, err
		}
		for i := range f {
			f[i].c *= e.Factor
		}
		return f, nil
	case *strl.Barrier:
		f, err := c.gen(e.Child, in)
		if err != nil {
			return nil, err
		}
		row := append(slices.Clone(f), term{in.v, -e.Value})
		c.addRow(0, solver.Inf, row, c.name("bar", node))
		return []term{{in.v, e.Value}}, nil
	}
	return nil, fmt.Errorf("%w: unknown node %T", ErrProblem, e)
}

func negate(f []term) []term {
	out := make([]term, len(f))
	for i, t := range f {
		out[i] = term{t.v, -t.c}
	}
	return out
}

func (c *compiler) addRow(lb, ub float64, ts []term, name string) {
	vars := make([]solver.Var, len(ts))
	coefs := make([]float64, len(ts))
	for i, t := range ts {
		vars[i], coefs[i] = t.v, t.c
	}
	c.m.AddRow(lb, ub, vars, coefs, name)
}

// leaf compiles an nck/lnck (worth ≥ 0 or any) or killnck/lkillnck (worth = −cost).
func (c *compiler) leaf(node int, e strl.Expr, set strl.Set, k int, linear bool, worth float64, in ind) ([]term, error) {
	kill := false
	var first, end int
	g := c.p.Grid
	switch e := e.(type) {
	case *strl.NCk:
		first = g.Slice(e.Start)
		if first < 0 || first >= g.Slices {
			return nil, fmt.Errorf("%w: %s starts at %s s, outside the window [%s, %s) s", ErrProblem, strl.Format(e),
				strl.AppendTime(nil, e.Start), strl.AppendTime(nil, g.Origin), strl.AppendTime(nil, g.Start(g.Slices)))
		}
		end = min(g.Slices, int((e.Start+e.Dur-g.Origin+g.Quantum-1)/g.Quantum))
	case *strl.KillNCk:
		kill = true
		first = g.Slice(e.StartP)
		if first < 0 {
			return nil, fmt.Errorf("%w: %s returns machines before the window starts", ErrProblem, strl.Format(e))
		}
		end = min(g.Slices, g.Slice(e.FinishP)+1)
		first = min(first, end)
	}
	iv := in.v
	r, err := c.resolve(set)
	if err != nil {
		return nil, err
	}
	parts := c.caps(r)
	total := 0
	for _, pv := range parts {
		total += pv.Cap
	}
	l := Leaf{Node: node, Expr: e, K: k, Ind: iv, First: first, End: end}
	if kill {
		for m, inSet := range r {
			if !inSet {
				continue
			}
			if c.killed[m] {
				return nil, fmt.Errorf("%w: machine %s is in two kill sets", ErrProblem, c.p.Machines[m].Name)
			}
			c.killed[m] = true
			if busy := c.busy(m); busy < end {
				return nil, fmt.Errorf("%w: %s returns machine %s in slice %d, but it is held only for %d slices", ErrProblem,
					strl.Format(e), c.p.Machines[m].Name, end-1, busy)
			}
		}
	}
	if total < k && !linear {
		l.Fixed = true
		c.m.SetBounds(iv, 0, 0)
		c.prog.Leaves = append(c.prog.Leaves, l)
		return nil, nil
	}
	// A usage term per partition and slice; with a choice between partitions, an integer per
	// partition and the demand row.
	usage := len(parts) * max(end-first, 0)
	vars, rows, nz := 0, 0, 0
	if linear || (len(parts) > 1 && total != k) {
		vars, rows, nz = len(parts), 1, len(parts)+1
	}
	sign := 1.0
	if kill {
		// A kill's usage terms become nonzeros only in supply rows some allocation also uses:
		// they are counted when supply adds those rows, not here.
		sign, usage = -1, 0
	}
	if err := c.grow(vars, rows, nz+usage); err != nil {
		return nil, err
	}
	c.usageNZ += usage
	if !linear && (len(parts) == 1 || total == k) {
		// No choice between partitions: the counts are fixed multiples of I.
		for i := range parts {
			pv := &parts[i]
			pv.Take = pv.Cap
			if len(parts) == 1 {
				pv.Take = k
			}
			for t := first; t < end; t++ {
				c.usage[pv.Partition][t] = append(c.usage[pv.Partition][t], term{iv, sign * float64(pv.Take)})
			}
		}
		l.Parts = parts
		c.prog.Leaves = append(c.prog.Leaves, l)
		return []term{{iv, worth}}, nil
	}
	demand := make([]term, 0, len(parts)+1)
	var out []term
	for i := range parts {
		pv := &parts[i]
		pv.Var = c.m.AddInteger(0, float64(min(pv.Cap, k)), 0, c.name("P", node, pv.Partition))
		demand = append(demand, term{pv.Var, 1})
		for t := first; t < end; t++ {
			c.usage[pv.Partition][t] = append(c.usage[pv.Partition][t], term{pv.Var, sign})
		}
		if linear {
			out = append(out, term{pv.Var, worth / float64(k)})
		}
	}
	demand = append(demand, term{iv, -float64(k)})
	lb := 0.0
	if linear {
		lb = -solver.Inf
	}
	c.addRow(lb, 0, demand, c.name("d", node))
	l.Parts = parts
	c.prog.Leaves = append(c.prog.Leaves, l)
	if linear {
		return out, nil
	}
	return []term{{iv, worth}}, nil
}

func (c *compiler) busy(m int) int {
	if c.p.Busy == nil {
		return 0
	}
	return c.p.Busy[m]
}

// supply adds Σ usage ≤ avail(x, t) wherever some allocation uses partition x in slice t.
func (c *compiler) supply() error {
	for x := range c.usage {
		for t, ts := range c.usage[x] {
			pos, neg := 0, 0 // allocation terms (counted in usageNZ) and kill terms
			for _, u := range ts {
				if u.c > 0 {
					pos++
				} else {
					neg++
				}
			}
			c.usageNZ -= pos // from here on counted by the model, if the row is added
			if pos > 0 {
				// Its allocation terms were counted in usageNZ; its kill terms count now.
				if err := c.grow(0, 1, pos+neg); err != nil {
					return err
				}
				c.addRow(-solver.Inf, float64(c.prog.Avail[x][t]), ts, c.name("s", x, t))
			}
		}
	}
	return nil
}

// Choice is a leaf's part of a solution.
type Choice struct {
	Leaf   int  // index into Program.Leaves
	Chosen bool // its indicator is 1
	// Counts[i] is how many machines it takes from (or, for a kill, returns to) partition
	// Leaf.Parts[i].Partition.
	Counts []int
}

// Decode reads a solution (Result.Values) into one Choice per leaf.
func (p *Program) Decode(values []float64) ([]Choice, error) {
	if len(values) != p.Model.NumVars() {
		return nil, fmt.Errorf("milp: decode: %d values for %d variables", len(values), p.Model.NumVars())
	}
	out := make([]Choice, len(p.Leaves))
	for i := range p.Leaves {
		l := &p.Leaves[i]
		ch := Choice{Leaf: i, Chosen: values[l.Ind] > 0.5, Counts: make([]int, len(l.Parts))}
		for j, pv := range l.Parts {
			switch {
			case pv.Var >= 0:
				ch.Counts[j] = int(math.Round(values[pv.Var]))
			case ch.Chosen:
				ch.Counts[j] = pv.Take
			}
		}
		out[i] = ch
	}
	return out, nil
}
