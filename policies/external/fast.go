package external

import "bytes"

// fastPlan parses the canonical form of a plan message — exactly
// {"type":"plan","call":N,"starts":[[a,b,c,d],…],"preempts":[[a,b,c],…]} with no white space,
// as the reference clients write it — into r without reflection. It reports false for anything
// else, and the caller then decodes with the strict decoder, which accepts every valid form and
// words the errors. The fuzz test checks that both agree wherever fastPlan accepts.
func fastPlan(line []byte, r *reply) bool {
	line = bytes.TrimSuffix(line, []byte("\n"))
	p := parser{b: line}
	if !p.lit(`{"type":"plan","call":`) {
		return false
	}
	call, ok := p.int()
	if !ok || !p.lit(`,"starts":`) {
		return false
	}
	if r.Starts, ok = p.tuples(r.Starts[:0]); !ok || !p.lit(`,"preempts":`) {
		return false
	}
	if r.Preempts, ok = p.tuples(r.Preempts[:0]); !ok || !p.lit(`}`) || p.i != len(p.b) {
		return false
	}
	r.Type, r.Call = "plan", call
	return true
}

type parser struct {
	b []byte
	i int
}

func (p *parser) lit(s string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		return false
	}
	p.i += len(s)
	return true
}

// int reads a JSON integer of at most 15 digits (so it is exact in float64, as the strict
// decoder's range checks assume).
func (p *parser) int() (int64, bool) {
	neg := p.i < len(p.b) && p.b[p.i] == '-'
	if neg {
		p.i++
	}
	start := p.i
	var x int64
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		x = x*10 + int64(p.b[p.i]-'0')
		p.i++
	}
	n := p.i - start
	if n == 0 || n > 15 || (n > 1 && p.b[start] == '0') {
		return 0, false
	}
	if neg {
		x = -x
	}
	return x, true
}

// tuples reads [[int,…],…] appending to dst, reusing its inner slices' storage.
func (p *parser) tuples(dst [][]int64) ([][]int64, bool) {
	if !p.lit("[") {
		return dst, false
	}
	if p.lit("]") {
		return dst, true
	}
	for {
		if !p.lit("[") {
			return dst, false
		}
		var t []int64
		if len(dst) < cap(dst) {
			t = dst[:len(dst)+1][len(dst)][:0]
		}
		for {
			x, ok := p.int()
			if !ok {
				return dst, false
			}
			t = append(t, x)
			if p.lit("]") {
				break
			}
			if !p.lit(",") {
				return dst, false
			}
		}
		dst = append(dst, t)
		if p.lit("]") {
			return dst, true
		}
		if !p.lit(",") {
			return dst, false
		}
	}
}
