package claim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

type token struct {
	kind byte // 'w' word, 's' selector, 'n' number, 'o' operator/punctuation, 0 end
	text string
	val  string // selector value
	pos  int
}

func lex(src string) ([]token, error) {
	var toks []token
	isWord := func(c byte) bool {
		return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				(src[j] == '-' || src[j] == '+') && j > i && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: 'n', text: src[i:j], pos: i})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (isWord(src[j]) || src[j] == '-' && j+1 < len(src) && isWord(src[j+1]) && inMetric(src[i:j])) {
				j++
			}
			word := src[i:j]
			if j < len(src) && src[j] == '=' && (j+1 >= len(src) || src[j+1] != '=') {
				// key=value
				k := j + 1
				var val string
				if k < len(src) && src[k] == '"' {
					end := strings.IndexByte(src[k+1:], '"')
					if end < 0 {
						return nil, fmt.Errorf("unterminated quote at column %d", k+1)
					}
					val = src[k+1 : k+1+end]
					k += end + 2
				} else {
					e := k
					for e < len(src) && !strings.ContainsRune(" \t\n(),", rune(src[e])) {
						e++
					}
					val = src[k:e]
					k = e
				}
				if val == "" {
					return nil, fmt.Errorf("selector %s= has no value (column %d)", word, i+1)
				}
				toks = append(toks, token{kind: 's', text: word, val: val, pos: i})
				i = k
				continue
			}
			toks = append(toks, token{kind: 'w', text: word, pos: i})
			i = j
		default:
			for _, op := range []string{"±", "+/-", "<=", ">=", "<", ">", "=", "+", "-", "*", "/", "(", ")", ",", ":", "%"} {
				if strings.HasPrefix(src[i:], op) {
					text := op
					if op == "+/-" {
						text = "±"
					}
					toks = append(toks, token{kind: 'o', text: text, pos: i})
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("unexpected %q at column %d", c, i+1)
		next:
		}
	}
	return append(toks, token{pos: len(src)}), nil
}

// inMetric allows "-" inside names only after a by_class./by_queue. prefix (class names like
// "best-effort"); elsewhere "-" is subtraction.
func inMetric(prefix string) bool {
	return strings.HasPrefix(prefix, "by_class.") || strings.HasPrefix(prefix, "by_queue.") || strings.HasPrefix(prefix, "queue_dominant_share.")
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }
func (p *parser) errf(format string, args ...any) error {
	t := p.peek()
	at := "end"
	if t.kind != 0 {
		at = fmt.Sprintf("%q (column %d)", t.text, t.pos+1)
	}
	return fmt.Errorf("%s at %s", fmt.Sprintf(format, args...), at)
}
func (p *parser) isOp(s string) bool { t := p.peek(); return t.kind == 'o' && t.text == s }

// ParseCheck parses a claim check (see the package documentation for the grammar).
func ParseCheck(src string) (*Check, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	c := &Check{Src: src}
	if t := p.peek(); t.kind == 'w' && t.text == "for" {
		p.next()
		if t := p.next(); t.kind != 'w' || t.text != "each" {
			p.i--
			return nil, p.errf("want \"for each KEY:\"")
		}
		for {
			t := p.next()
			if t.kind != 'w' {
				p.i--
				return nil, p.errf("want an axis key after \"for each\"")
			}
			c.ForEach = append(c.ForEach, t.text)
			if p.isOp(",") {
				p.next()
				continue
			}
			if !p.isOp(":") {
				return nil, p.errf("want \",\" or \":\"")
			}
			p.next()
			break
		}
	}
	if c.LHS, err = p.expr(); err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != 'o' || !slices.Contains([]string{"<", "<=", ">", ">=", "="}, t.text) {
		return nil, p.errf("want a comparison (<, <=, >, >=, =)")
	}
	c.Op = p.next().text
	if c.RHS, err = p.expr(); err != nil {
		return nil, err
	}
	if p.isOp("±") {
		p.next()
		if c.Tol, err = p.tolerance(); err != nil {
			return nil, err
		}
	} else if c.Op == "=" {
		return nil, p.errf("\"=\" needs a tolerance (A = B ± 10%%, or ± 0 for an exact match)")
	}
	if p.peek().kind != 0 {
		return nil, p.errf("unexpected")
	}
	nOps := 0
	c.Operands(func(*Operand) { nOps++ })
	if nOps == 0 {
		return nil, fmt.Errorf("compares only numbers; name a metric")
	}
	return c, nil
}

// tolerance parses the number after "±": "25%" (relative) or "0.5" (absolute).
func (p *parser) tolerance() (*Tolerance, error) {
	t := p.peek()
	if t.kind != 'n' {
		return nil, p.errf("want a tolerance after \"±\" (a number, or a percentage such as 25%%)")
	}
	p.next()
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return nil, fmt.Errorf("bad tolerance %q at column %d: want a number ≥ 0", t.text, t.pos+1)
	}
	tol := &Tolerance{Value: v, Src: t.text}
	if p.isOp("%") {
		p.next()
		tol.Value, tol.Relative, tol.Src = v/100, true, t.text+"%"
	}
	return tol, nil
}

// ParseExpr parses an expression of the claim language without a comparison (a reference
// number's "ours").
func ParseExpr(src string) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != 0 {
		return nil, p.errf("unexpected")
	}
	return e, nil
}

func (p *parser) expr() (Expr, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.next().text[0]
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = binExpr{op, l, r}
	}
	return l, nil
}

func (p *parser) term() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		op := p.next().text[0]
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = binExpr{op, l, r}
	}
	return l, nil
}

func (p *parser) unary() (Expr, error) {
	if p.isOp("-") {
		p.next()
		e, err := p.primary()
		if err != nil {
			return nil, err
		}
		return negExpr{e}, nil
	}
	return p.primary()
}

var aggs = []string{"mean", "median", "p90", "p99", "min", "max"}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == 'n':
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q at column %d", t.text, t.pos+1)
		}
		if p.isOp("%") {
			p.next()
			return numExpr{v / 100, t.text + "%"}, nil
		}
		return numExpr{v, t.text}, nil
	case t.kind == 'o' && t.text == "(":
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errf("want \")\"")
		}
		p.next()
		return e, nil
	case t.kind == 'w' && slices.Contains(aggs, t.text) && p.toks[p.i+1].kind == 'o' && p.toks[p.i+1].text == "(":
		p.i += 2
		o, err := p.operand()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errf("want \")\" closing %s(", t.text)
		}
		p.next()
		o.Agg = t.text
		return o, nil
	case t.kind == 's' || t.kind == 'w':
		return p.operand()
	}
	return nil, p.errf("want a number, \"(\" or an operand (selectors and a metric)")
}

func (p *parser) operand() (*Operand, error) {
	o := &Operand{Agg: "mean"}
	for p.peek().kind == 's' {
		t := p.next()
		o.Where = append(o.Where, Selector{Key: t.text, Value: t.val})
	}
	t := p.peek()
	if t.kind != 'w' {
		return nil, p.errf("want a metric name after the selectors")
	}
	p.next()
	o.Metric = t.text
	return o, nil
}
