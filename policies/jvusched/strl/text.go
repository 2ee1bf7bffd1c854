package strl

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Format renders e on one line in the text form Parse reads.
func Format(e Expr) string {
	return string(appendExpr(nil, e, -1))
}

// FormatIndent renders e with each operand of max, min and sum on its own line, indented by
// two spaces per level; Parse reads it too.
func FormatIndent(e Expr) string {
	return string(appendExpr(nil, e, 0))
}

// appendExpr appends e; depth < 0 means one line.
func appendExpr(b []byte, e Expr, depth int) []byte {
	b = append(b, opName(e)...)
	if l := e.Label(); l != "" {
		b = append(b, '[')
		b = append(b, l...)
		b = append(b, ']')
	}
	b = append(b, '(')
	switch e := e.(type) {
	case *NCk:
		b = appendLeaf(b, e.Set, e.K, e.Start, e.Dur, e.Value)
	case *KillNCk:
		b = appendLeaf(b, e.Set, e.K, e.StartP, e.FinishP, e.Cost)
	case *Scale:
		b = appendExpr(b, e.Child, depth)
		b = append(b, ", "...)
		b = appendFloat(b, e.Factor)
	case *Barrier:
		b = appendExpr(b, e.Child, depth)
		b = append(b, ", "...)
		b = appendFloat(b, e.Value)
	default:
		for i, c := range Children(e) {
			if depth >= 0 {
				b = append(b, '\n')
				b = append(b, strings.Repeat("  ", depth+1)...)
			} else if i > 0 {
				b = append(b, ' ')
			}
			next := depth
			if depth >= 0 {
				next = depth + 1
			}
			b = appendExpr(b, c, next)
			if i < len(Children(e))-1 {
				b = append(b, ',')
			}
		}
		if depth >= 0 {
			b = append(b, '\n')
			b = append(b, strings.Repeat("  ", depth)...)
		}
	}
	return append(b, ')')
}

func appendLeaf(b []byte, s Set, k int, t1, t2 traces.Time, v float64) []byte {
	b = append(b, s.String()...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, ", "...)
	b = AppendTime(b, t1)
	b = append(b, ", "...)
	b = AppendTime(b, t2)
	b = append(b, ", "...)
	return appendFloat(b, v)
}

func appendFloat(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// AppendTime appends t (µs) as exact decimal seconds: 10, 2.5, 0.000001.
func AppendTime(b []byte, t traces.Time) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, t/traces.Second, 10)
	if frac := t % traces.Second; frac != 0 {
		s := strconv.FormatInt(frac+traces.Second, 10)[1:] // six digits, leading zeros kept
		b = append(b, '.')
		b = append(b, strings.TrimRight(s, "0")...)
	}
	return b
}

// bare reports whether c may appear in an unquoted name or label.
func bare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '/' || c == '+' || c == '-' || c == '@'
}

func isBare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !bare(s[i]) {
			return false
		}
	}
	return true
}

func appendName(b []byte, s string) []byte {
	if isBare(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

func appendItem(b []byte, it Item) []byte {
	switch it.Kind {
	case ItemAll:
		return append(b, '*')
	case ItemGPU:
		return append(b, "gpu"...)
	case ItemRack:
		return appendName(append(b, "rack="...), it.Name)
	}
	if it.Name == "gpu" || !isBare(it.Name) {
		return appendName(append(b, "machine="...), it.Name)
	}
	return append(b, it.Name...)
}

// SyntaxError is a Parse error at a position of the input.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("strl: line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// MaxInput is the longest text Parse accepts (64 MiB).
const MaxInput = 64 << 20

// Parse reads one expression in the text form. Whitespace and '#' comments (to the end of the
// line) may appear between tokens. The expression is validated (Validate).
func Parse(text string) (Expr, error) {
	p := &parser{s: text, line: 1, lineStart: 0}
	e, err := p.parseWhole()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ParseTime reads decimal seconds with at most six fractional digits into µs, exactly.
func ParseTime(s string) (traces.Time, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 6 || strings.ContainsAny(whole+frac, "+-eE") {
		return 0, fmt.Errorf("time %q: want decimal seconds with at most six fractional digits", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > int64(MaxTime/traces.Second) {
		return 0, fmt.Errorf("time %q: out of range", s)
	}
	var f int64
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64); err != nil {
			return 0, fmt.Errorf("time %q: bad fraction", s)
		}
	}
	t := w*traces.Second + f
	if neg {
		t = -t
	}
	return t, nil
}

type parser struct {
	s         string
	i         int
	line      int
	lineStart int
	depth     int
}

func (p *parser) errAt(i int, format string, args ...any) error {
	line, start := 1, 0
	for k := 0; k < i && k < len(p.s); k++ {
		if p.s[k] == '\n' {
			line++
			start = k + 1
		}
	}
	return &SyntaxError{Line: line, Col: i - start + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skip() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *parser) expect(c byte) error {
	p.skip()
	if p.i >= len(p.s) {
		return p.errAt(p.i, "want %q, got end of input", c)
	}
	if p.s[p.i] != c {
		return p.errAt(p.i, "want %q, got %q", c, p.s[p.i])
	}
	p.i++
	return nil
}

// peek reports whether the next token starts with c.
func (p *parser) peek(c byte) bool {
	p.skip()
	return p.i < len(p.s) && p.s[p.i] == c
}

// word reads a run of bare characters.
func (p *parser) word() string {
	p.skip()
	start := p.i
	for p.i < len(p.s) && bare(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// name reads a bare or quoted name.
func (p *parser) name() (string, error) {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		start := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] != '"' {
			if p.s[p.i] == '\\' {
				p.i++
			}
			p.i++
		}
		if p.i >= len(p.s) {
			return "", p.errAt(start, "unterminated quoted name")
		}
		p.i++
		s, err := strconv.Unquote(p.s[start:p.i])
		if err != nil {
			return "", p.errAt(start, "bad quoted name: %v", err)
		}
		return s, nil
	}
	start := p.i
	w := p.word()
	if w == "" {
		return "", p.errAt(start, "want a name")
	}
	return w, nil
}

func (p *parser) parseWhole() (Expr, error) {
	if len(p.s) > MaxInput {
		return nil, fmt.Errorf("strl: input of %d bytes, more than %d", len(p.s), MaxInput)
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.s) {
		return nil, p.errAt(p.i, "unexpected %q after the expression", p.s[p.i])
	}
	return e, nil
}

func (p *parser) expr() (Expr, error) {
	p.skip()
	at := p.i
	op := p.word()
	if op == "" {
		if p.i >= len(p.s) {
			return nil, p.errAt(p.i, "want an expression, got end of input")
		}
		return nil, p.errAt(p.i, "want an expression, got %q", p.s[p.i])
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxDepth {
		return nil, p.errAt(at, "nested deeper than %d", MaxDepth)
	}
	label := ""
	if p.peek('[') {
		p.i++
		p.skip()
		ls := p.i
		label = p.word()
		if label == "" {
			return nil, p.errAt(ls, "want a label of letters, digits and _ . : / + - @")
		}
		if err := p.expect(']'); err != nil {
			return nil, err
		}
	}
	if err := p.expect('('); err != nil {
		return nil, err
	}
	var e Expr
	var err error
	switch op {
	case "nck", "lnck":
		var l leafArgs
		if l, err = p.leaf(); err == nil {
			e = &NCk{Tag: label, Set: l.set, K: l.k, Start: l.t1, Dur: l.t2, Value: l.v, Linear: op == "lnck"}
		}
	case "killnck", "lkillnck":
		var l leafArgs
		if l, err = p.leaf(); err == nil {
			e = &KillNCk{Tag: label, Set: l.set, K: l.k, StartP: l.t1, FinishP: l.t2, Cost: l.v, Linear: op == "lkillnck"}
		}
	case "max", "min", "sum":
		var cs []Expr
		if cs, err = p.list(); err == nil {
			switch op {
			case "max":
				e = &Max{Tag: label, Children: cs}
			case "min":
				e = &Min{Tag: label, Children: cs}
			default:
				e = &Sum{Tag: label, Children: cs}
			}
		}
	case "scale", "barrier":
		var c Expr
		var x float64
		if c, err = p.expr(); err == nil {
			if err = p.expect(','); err == nil {
				x, err = p.float()
			}
		}
		if err == nil {
			if op == "scale" {
				e = &Scale{Tag: label, Child: c, Factor: x}
			} else {
				e = &Barrier{Tag: label, Child: c, Value: x}
			}
		}
	default:
		return nil, p.errAt(at, "unknown operator %q (want nck, lnck, killnck, lkillnck, max, min, sum, scale or barrier)", op)
	}
	if err != nil {
		return nil, err
	}
	if err := p.expect(')'); err != nil {
		return nil, err
	}
	if err := checkNode(e); err != nil {
		return nil, p.errAt(at, "%v", err)
	}
	return e, nil
}

type leafArgs struct {
	set    Set
	k      int
	t1, t2 traces.Time
	v      float64
}

func (p *parser) leaf() (leafArgs, error) {
	var l leafArgs
	var err error
	if l.set, err = p.set(); err != nil {
		return l, err
	}
	if err = p.expect(','); err != nil {
		return l, err
	}
	p.skip()
	at := p.i
	w := p.number()
	k, perr := strconv.Atoi(w)
	if perr != nil || k < 1 || k > MaxK {
		return l, p.errAt(at, "k %q: want an integer in 1..%d", w, MaxK)
	}
	l.k = k
	for _, t := range []*traces.Time{&l.t1, &l.t2} {
		if err = p.expect(','); err != nil {
			return l, err
		}
		p.skip()
		at := p.i
		tt, terr := ParseTime(p.number())
		if terr != nil {
			return l, p.errAt(at, "%v", terr)
		}
		*t = tt
	}
	if err = p.expect(','); err != nil {
		return l, err
	}
	l.v, err = p.float()
	return l, err
}

// number reads a numeric token.
func (p *parser) number() string {
	p.skip()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *parser) float() (float64, error) {
	p.skip()
	at := p.i
	w := p.number()
	x, err := strconv.ParseFloat(w, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, p.errAt(at, "want a finite number, got %q", w)
	}
	return x, nil
}

func (p *parser) list() ([]Expr, error) {
	var cs []Expr
	for {
		c, err := p.expr()
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
		if !p.peek(',') {
			return cs, nil
		}
		p.i++
	}
}

func (p *parser) set() (Set, error) {
	if err := p.expect('{'); err != nil {
		return Set{}, err
	}
	var s Set
	for {
		p.skip()
		at := p.i
		var it Item
		switch {
		case p.peek('*'):
			p.i++
			it = Item{Kind: ItemAll}
		case p.i < len(p.s) && p.s[p.i] == '"':
			n, err := p.name()
			if err != nil {
				return Set{}, err
			}
			it = Item{Kind: ItemMachine, Name: n}
		default:
			w := p.word()
			switch {
			case w == "":
				return Set{}, p.errAt(at, "want a set item (a machine name, rack=NAME, machine=NAME, gpu or *)")
			case w == "gpu":
				it = Item{Kind: ItemGPU}
			case (w == "rack" || w == "machine") && p.peek('='):
				p.i++
				n, err := p.name()
				if err != nil {
					return Set{}, err
				}
				it = Item{Kind: ItemMachine, Name: n}
				if w == "rack" {
					it.Kind = ItemRack
				}
			default:
				it = Item{Kind: ItemMachine, Name: w}
			}
		}
		s.Items = append(s.Items, it)
		if p.peek('}') {
			p.i++
			return s, nil
		}
		if err := p.expect(','); err != nil {
			return Set{}, err
		}
	}
}
