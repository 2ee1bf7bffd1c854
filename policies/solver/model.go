package solver

import (
	"errors"
	"fmt"
	"math"
)

// Inf is +∞, for unbounded variable and row bounds (use -Inf for −∞).
var Inf = math.Inf(1)

// VarType is the kind of a variable.
type VarType uint8

// Variable kinds.
const (
	Continuous VarType = iota // real-valued
	Integer                   // integer-valued
	Binary                    // integer in [0, 1]
)

// String returns "continuous", "integer" or "binary".
func (t VarType) String() string {
	switch t {
	case Continuous:
		return "continuous"
	case Integer:
		return "integer"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("VarType(%d)", uint8(t))
}

// Sense is the optimisation direction; the zero value is Minimize.
type Sense uint8

// Optimisation directions.
const (
	Minimize Sense = iota
	Maximize
)

// String returns "minimize" or "maximize".
func (s Sense) String() string {
	if s == Maximize {
		return "maximize"
	}
	return "minimize"
}

// Var identifies a variable (a column) of a Model: its index, in order of
// addition from 0.
type Var int32

// Row identifies a linear constraint of a Model: its index, in order of
// addition from 0.
type Row int32

// Model is a linear or mixed-integer linear program:
//
//	minimise or maximise  Σ cost_j x_j + offset
//	subject to            rowLower_i ≤ Σ_j a_ij x_j ≤ rowUpper_i
//	                      lower_j ≤ x_j ≤ upper_j, x_j integer for integer and binary j.
//
// Rows are stored sparse, row-wise. A Model is a plain value builder: it is
// not safe for concurrent mutation, but a finished Model may be solved from
// several goroutines at once (Solve only reads it). Names are optional and
// used only for debugging and model export.
type Model struct {
	// Name is the model's name, used in exports and dump file names.
	Name string

	sense  Sense
	offset float64

	cost, lower, upper []float64
	vtype              []VarType
	vnames             []string
	nInt               int

	rlower, rupper []float64
	rnames         []string
	rstart         []int32 // len NumRows()+1
	rindex         []int32
	rvalue         []float64

	stamp []int32 // scratch for duplicate detection in AddRow
	slot  []int32
	err   error // first construction error, reported by Validate
}

// NewModel returns an empty minimisation model.
func NewModel(name string) *Model {
	return &Model{Name: name, rstart: []int32{0}}
}

// SetSense sets the optimisation direction.
func (m *Model) SetSense(s Sense) { m.sense = s }

// Sense returns the optimisation direction.
func (m *Model) Sense() Sense { return m.sense }

// SetOffset sets the constant term of the objective.
func (m *Model) SetOffset(c float64) { m.offset = c }

// Offset returns the constant term of the objective.
func (m *Model) Offset() float64 { return m.offset }

// NumVars returns the number of variables.
func (m *Model) NumVars() int { return len(m.cost) }

// NumRows returns the number of rows.
func (m *Model) NumRows() int { return len(m.rlower) }

// NumNonzeros returns the number of stored constraint coefficients.
func (m *Model) NumNonzeros() int { return len(m.rindex) }

// IsMIP reports whether the model has integer or binary variables.
func (m *Model) IsMIP() bool { return m.nInt > 0 }

func (m *Model) setErr(err error) {
	if m.err == nil {
		m.err = err
	}
}

// AddVar adds a variable with bounds [lb, ub], objective coefficient cost
// and kind t, and returns it. For Binary the bounds are intersected with
// [0, 1]. name may be empty.
func (m *Model) AddVar(lb, ub, cost float64, t VarType, name string) Var {
	if m.rstart == nil {
		m.rstart = []int32{0}
	}
	switch t {
	case Continuous:
	case Integer:
		m.nInt++
	case Binary:
		m.nInt++
		lb, ub = math.Max(lb, 0), math.Min(ub, 1)
	default:
		m.setErr(fmt.Errorf("variable %d: unknown type %d", len(m.cost), t))
	}
	v := Var(len(m.cost))
	m.cost = append(m.cost, cost)
	m.lower = append(m.lower, lb)
	m.upper = append(m.upper, ub)
	m.vtype = append(m.vtype, t)
	if name != "" || m.vnames != nil {
		for len(m.vnames) < int(v) {
			m.vnames = append(m.vnames, "")
		}
		m.vnames = append(m.vnames, name)
	}
	return v
}

// AddContinuous adds a continuous variable in [lb, ub].
func (m *Model) AddContinuous(lb, ub, cost float64, name string) Var {
	return m.AddVar(lb, ub, cost, Continuous, name)
}

// AddInteger adds an integer variable in [lb, ub].
func (m *Model) AddInteger(lb, ub, cost float64, name string) Var {
	return m.AddVar(lb, ub, cost, Integer, name)
}

// AddBinary adds a 0-1 variable.
func (m *Model) AddBinary(cost float64, name string) Var {
	return m.AddVar(0, 1, cost, Binary, name)
}

func (m *Model) validVar(v Var) bool { return v >= 0 && int(v) < len(m.cost) }

// SetCost changes the objective coefficient of v.
func (m *Model) SetCost(v Var, cost float64) {
	if !m.validVar(v) {
		m.setErr(fmt.Errorf("SetCost: no variable %d", v))
		return
	}
	m.cost[v] = cost
}

// SetBounds changes the bounds of v.
func (m *Model) SetBounds(v Var, lb, ub float64) {
	if !m.validVar(v) {
		m.setErr(fmt.Errorf("SetBounds: no variable %d", v))
		return
	}
	m.lower[v], m.upper[v] = lb, ub
}

// VarInfo returns the bounds, cost, kind and name of v; it panics if v is
// not a variable of m.
func (m *Model) VarInfo(v Var) (lb, ub, cost float64, t VarType, name string) {
	if int(v) < len(m.vnames) {
		name = m.vnames[v]
	}
	return m.lower[v], m.upper[v], m.cost[v], m.vtype[v], name
}

// AddRow adds the constraint lb ≤ Σ coefs[k]·vars[k] ≤ ub and returns it.
// Use lb = -Inf or ub = Inf for one-sided rows and lb = ub for equalities.
// Repeated variables are summed and zero coefficients dropped. name may be
// empty. Errors (mismatched lengths, unknown variables) are reported by
// Validate and Solve.
func (m *Model) AddRow(lb, ub float64, vars []Var, coefs []float64, name string) Row {
	if m.rstart == nil {
		m.rstart = []int32{0}
	}
	r := Row(len(m.rlower))
	if len(vars) != len(coefs) {
		m.setErr(fmt.Errorf("row %d: %d variables but %d coefficients", r, len(vars), len(coefs)))
	}
	if n := len(m.cost); len(m.stamp) < n {
		m.stamp = append(m.stamp, make([]int32, n-len(m.stamp))...)
		m.slot = append(m.slot, make([]int32, n-len(m.slot))...)
	}
	stamp := int32(r) + 1
	start := len(m.rindex)
	for k := 0; k < len(vars) && k < len(coefs); k++ {
		v, c := vars[k], coefs[k]
		if !m.validVar(v) {
			m.setErr(fmt.Errorf("row %d: no variable %d", r, v))
			continue
		}
		if m.stamp[v] == stamp {
			m.rvalue[m.slot[v]] += c
			continue
		}
		m.stamp[v] = stamp
		m.slot[v] = int32(len(m.rindex))
		m.rindex = append(m.rindex, int32(v))
		m.rvalue = append(m.rvalue, c)
	}
	// Drop zeros (including those produced by summing duplicates).
	w := start
	for k := start; k < len(m.rindex); k++ {
		if m.rvalue[k] != 0 {
			m.rindex[w], m.rvalue[w] = m.rindex[k], m.rvalue[k]
			w++
		}
	}
	m.rindex, m.rvalue = m.rindex[:w], m.rvalue[:w]
	m.rstart = append(m.rstart, int32(w))
	m.rlower = append(m.rlower, lb)
	m.rupper = append(m.rupper, ub)
	if name != "" || m.rnames != nil {
		for len(m.rnames) < int(r) {
			m.rnames = append(m.rnames, "")
		}
		m.rnames = append(m.rnames, name)
	}
	return r
}

// SetRowBounds changes the bounds of row r.
func (m *Model) SetRowBounds(r Row, lb, ub float64) {
	if r < 0 || int(r) >= len(m.rlower) {
		m.setErr(fmt.Errorf("SetRowBounds: no row %d", r))
		return
	}
	m.rlower[r], m.rupper[r] = lb, ub
}

// RowInfo returns the bounds, name and terms of r; it panics if r is not a
// row of m. The returned slices alias the model and must not be modified.
func (m *Model) RowInfo(r Row) (lb, ub float64, vars []int32, coefs []float64, name string) {
	if int(r) < len(m.rnames) {
		name = m.rnames[r]
	}
	s, e := m.rstart[r], m.rstart[r+1]
	return m.rlower[r], m.rupper[r], m.rindex[s:e], m.rvalue[s:e], name
}

// Eval returns the objective value of x (len NumVars, else it panics) and
// its largest violation of a bound, a row or integrality (0 when x is
// feasible).
func (m *Model) Eval(x []float64) (objective, maxViolation float64) {
	objective = m.offset
	for j, c := range m.cost {
		objective += c * x[j]
		maxViolation = math.Max(maxViolation, math.Max(m.lower[j]-x[j], x[j]-m.upper[j]))
		if m.vtype[j] != Continuous {
			maxViolation = math.Max(maxViolation, math.Abs(x[j]-math.Round(x[j])))
		}
	}
	for i := range m.rlower {
		act := 0.0
		for k := m.rstart[i]; k < m.rstart[i+1]; k++ {
			act += m.rvalue[k] * x[m.rindex[k]]
		}
		maxViolation = math.Max(maxViolation, math.Max(m.rlower[i]-act, act-m.rupper[i]))
	}
	return objective, maxViolation
}

// Validate reports the first problem that makes the model unsolvable:
// construction errors, NaN or infinite coefficients, and inconsistent or
// NaN bounds. The error wraps ErrInvalidModel.
func (m *Model) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("solver: %w: %s", ErrInvalidModel, fmt.Sprintf(format, args...))
	}
	if m.err != nil {
		return bad("%v", m.err)
	}
	if len(m.cost) > math.MaxInt32/2 || len(m.rindex) > math.MaxInt32/2 {
		return bad("model too large")
	}
	if math.IsNaN(m.offset) || math.IsInf(m.offset, 0) {
		return bad("objective offset %v", m.offset)
	}
	for j := range m.cost {
		if c := m.cost[j]; math.IsNaN(c) || math.IsInf(c, 0) {
			return bad("variable %s: cost %v", m.varLabel(j), c)
		}
		if err := checkBounds(m.lower[j], m.upper[j]); err != nil {
			return bad("variable %s: %v", m.varLabel(j), err)
		}
	}
	for i := range m.rlower {
		if err := checkBounds(m.rlower[i], m.rupper[i]); err != nil {
			return bad("row %s: %v", m.rowLabel(i), err)
		}
		for k := m.rstart[i]; k < m.rstart[i+1]; k++ {
			if c := m.rvalue[k]; math.IsNaN(c) || math.IsInf(c, 0) {
				return bad("row %s: coefficient %v of variable %s", m.rowLabel(i), c, m.varLabel(int(m.rindex[k])))
			}
		}
	}
	return nil
}

var errBounds = errors.New("invalid bounds")

func checkBounds(lb, ub float64) error {
	switch {
	case math.IsNaN(lb) || math.IsNaN(ub):
		return fmt.Errorf("%w [%v, %v]: NaN", errBounds, lb, ub)
	case math.IsInf(lb, 1) || math.IsInf(ub, -1):
		return fmt.Errorf("%w [%v, %v]", errBounds, lb, ub)
	}
	// lb > ub is allowed: it is a (trivially) infeasible model, which HiGHS
	// reports as such.
	return nil
}

func (m *Model) varLabel(j int) string {
	if j < len(m.vnames) && m.vnames[j] != "" {
		return fmt.Sprintf("%d (%s)", j, m.vnames[j])
	}
	return fmt.Sprint(j)
}

func (m *Model) rowLabel(i int) string {
	if i < len(m.rnames) && m.rnames[i] != "" {
		return fmt.Sprintf("%d (%s)", i, m.rnames[i])
	}
	return fmt.Sprint(i)
}
