package milp

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/policies/solver"
	"github.com/schedlab/schedlab/traces"
)

// FormatProblem renders p in the problem text form ParseProblem reads:
//
//	grid origin=10 quantum=10 slices=3
//	machine m1 rack=r1 gpu
//	machine m2 rack=r1 gpu busy=1
//	expr
//	sum(…)
//
// Lines "reserve nck(…)" list Problem.Reserved. Times are decimal seconds; busy is in slices;
// everything after the line "expr" is the
// expression (strl text form). '#' starts a comment line before it. Machine and rack names are
// written Go-quoted when they are not plain tokens.
func FormatProblem(p *Problem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "grid origin=%s quantum=%s slices=%d\n", strl.AppendTime(nil, p.Grid.Origin), strl.AppendTime(nil, p.Grid.Quantum), p.Grid.Slices)
	for m, mc := range p.Machines {
		b.WriteString("machine ")
		b.WriteString(token(mc.Name))
		if mc.Rack != "" {
			b.WriteString(" rack=")
			b.WriteString(token(mc.Rack))
		}
		if mc.GPU {
			b.WriteString(" gpu")
		}
		if p.Busy != nil && p.Busy[m] > 0 {
			fmt.Fprintf(&b, " busy=%d", p.Busy[m])
		}
		b.WriteByte('\n')
	}
	for _, r := range p.Reserved {
		b.WriteString("reserve ")
		b.WriteString(strl.Format(r))
		b.WriteByte('\n')
	}
	b.WriteString("expr\n")
	b.WriteString(strl.FormatIndent(p.Expr))
	b.WriteByte('\n')
	return b.String()
}

func token(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n\"=#\\") && strconv.Quote(s) == `"`+s+`"` {
		return s
	}
	return strconv.Quote(s)
}

func untoken(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		return strconv.Unquote(s)
	}
	return s, nil
}

// ParseProblem reads a problem in the text form FormatProblem writes. Errors name the line.
func ParseProblem(text string) (*Problem, error) {
	if len(text) > strl.MaxInput {
		return nil, fmt.Errorf("milp: problem of %d bytes, more than %d", len(text), strl.MaxInput)
	}
	p := &Problem{}
	busy := false
	sawGrid := false
	lines := strings.SplitAfter(text, "\n")
	for n, raw := range lines {
		line := strings.TrimSpace(raw)
		lineNo := n + 1
		bad := func(format string, args ...any) error {
			return fmt.Errorf("milp: problem line %d: %s", lineNo, fmt.Sprintf(format, args...))
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "grid":
			for _, f := range fields[1:] {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "origin", "quantum":
					t, err := strl.ParseTime(v)
					if err != nil {
						return nil, bad("%s: %v", k, err)
					}
					if k == "origin" {
						p.Grid.Origin = t
					} else {
						p.Grid.Quantum = t
					}
				case "slices":
					s, err := strconv.Atoi(v)
					if err != nil || s < 1 || s > MaxSlices {
						return nil, bad("slices %q: want 1..%d", v, MaxSlices)
					}
					p.Grid.Slices = s
				default:
					return nil, bad("unknown grid field %q (want origin, quantum, slices)", k)
				}
			}
			sawGrid = true
		case "machine":
			if len(fields) < 2 {
				return nil, bad("machine needs a name")
			}
			if len(p.Machines) >= MaxMachines {
				return nil, bad("more than %d machines", MaxMachines)
			}
			name, err := untoken(fields[1])
			if err != nil {
				return nil, bad("machine name %s: %v", fields[1], err)
			}
			m := traces.Machine{Name: name, Capacity: traces.VecOf(1, 1)}
			b := 0
			for _, f := range fields[2:] {
				k, v, hasV := strings.Cut(f, "=")
				switch {
				case k == "gpu" && !hasV:
					m.GPU = true
				case k == "rack" && hasV:
					if m.Rack, err = untoken(v); err != nil {
						return nil, bad("rack %s: %v", v, err)
					}
				case k == "busy" && hasV:
					if b, err = strconv.Atoi(v); err != nil || b < 0 || b > MaxSlices {
						return nil, bad("busy %q: want 0..%d slices", v, MaxSlices)
					}
					busy = busy || b > 0
				default:
					return nil, bad("unknown machine field %q (want rack=NAME, gpu, busy=SLICES)", f)
				}
			}
			p.Machines = append(p.Machines, m)
			p.Busy = append(p.Busy, b)
		case "reserve":
			e, err := strl.Parse(strings.TrimPrefix(line, "reserve"))
			if err != nil {
				return nil, bad("reservation: %v", err)
			}
			r, ok := e.(*strl.NCk)
			if !ok || r.Linear {
				return nil, bad("a reservation must be an nck")
			}
			p.Reserved = append(p.Reserved, r)
		case "expr":
			if !sawGrid {
				return nil, bad("expr before grid")
			}
			rest := strings.TrimPrefix(strings.TrimLeft(raw, " \t"), "expr") + strings.Join(lines[n+1:], "")
			e, err := strl.Parse(rest)
			if err != nil {
				if se, ok := err.(*strl.SyntaxError); ok {
					return nil, fmt.Errorf("milp: problem line %d, column %d: %s", lineNo+se.Line-1, se.Col, se.Msg)
				}
				return nil, bad("expression: %v", err)
			}
			p.Expr = e
			if !busy {
				p.Busy = nil
			}
			if err := check(p); err != nil {
				return nil, err
			}
			return p, nil
		default:
			return nil, bad("unknown directive %q (want grid, machine, reserve, expr)", fields[0])
		}
	}
	return nil, fmt.Errorf("milp: problem has no expr line")
}

// WriteModel writes m in a stable text form for golden files: the sense, every variable with
// its kind, bounds and objective coefficient, and every row with its terms and bounds.
func WriteModel(w io.Writer, m *solver.Model) error {
	bw := bufio.NewWriter(w)
	num := func(x float64) string {
		switch {
		case math.IsInf(x, 1):
			return "+inf"
		case math.IsInf(x, -1):
			return "-inf"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	vname := func(j int32) string {
		if _, _, _, _, n := m.VarInfo(solver.Var(j)); n != "" {
			return n
		}
		return "x" + strconv.Itoa(int(j))
	}
	fmt.Fprintf(bw, "%s %d vars %d rows %d nonzeros\n", m.Sense(), m.NumVars(), m.NumRows(), m.NumNonzeros())
	for j := 0; j < m.NumVars(); j++ {
		lb, ub, cost, t, _ := m.VarInfo(solver.Var(j))
		fmt.Fprintf(bw, "var %s %s [%s, %s]", vname(int32(j)), t, num(lb), num(ub))
		if cost != 0 {
			fmt.Fprintf(bw, " cost %s", num(cost))
		}
		bw.WriteByte('\n')
	}
	for i := 0; i < m.NumRows(); i++ {
		lb, ub, vars, coefs, name := m.RowInfo(solver.Row(i))
		if name == "" {
			name = "r" + strconv.Itoa(i)
		}
		fmt.Fprintf(bw, "row %s:", name)
		for k, v := range vars {
			fmt.Fprintf(bw, " %+g %s", coefs[k], vname(v))
		}
		switch {
		case lb == ub:
			fmt.Fprintf(bw, " = %s", num(lb))
		case math.IsInf(lb, -1):
			fmt.Fprintf(bw, " <= %s", num(ub))
		case math.IsInf(ub, 1):
			fmt.Fprintf(bw, " >= %s", num(lb))
		default:
			fmt.Fprintf(bw, " in [%s, %s]", num(lb), num(ub))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
