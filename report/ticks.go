package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a logarithmic axis: labelled ticks at powers of ten and
// unlabelled minor ticks at 2–9 times them. When at most two powers of
// ten fall inside the range, the 2× and 5× ticks are labelled too. Unlike
// plot.LogTicks it never panics; a non-positive range yields no ticks.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	e0 := int(math.Floor(math.Log10(lo)))
	e1 := int(math.Ceil(math.Log10(hi)))
	if e1-e0 > 40 { // far too many decades: label every few only
		e0 = e1 - 40
	}
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	decades := 0
	for e := e0; e <= e1; e++ {
		if in(math.Pow10(e)) {
			decades++
		}
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		p := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (decades <= 2 && (m == 2 || m == 5)) {
				t.Label = formatTick(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logScale is plot.LogScale without the panic: non-positive values map to
// NaN (validation keeps them off log axes; this is a safety net).
type logScale struct{}

// Normalize implements plot.Normalizer.
func (logScale) Normalize(lo, hi, x float64) float64 {
	if lo <= 0 || hi <= 0 || x <= 0 {
		return math.NaN()
	}
	l := math.Log(lo)
	return (math.Log(x) - l) / (math.Log(hi) - l)
}

// linearTicks marks a linear axis with about target labelled ticks at
// multiples of 1, 2 or 5 times a power of ten, all printed with the same
// number of decimals, and no minor ticks.
type linearTicks struct{ target int }

// Ticks implements plot.Ticker.
func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step := niceStep(lo, hi, t.target)
	if step == 0 {
		return nil
	}
	decimals := 0
	if e := math.Floor(math.Log10(step) + 1e-9); e < 0 {
		decimals = int(-e)
	}
	scientific := math.Max(math.Abs(lo), math.Abs(hi)) >= 1e6 || step < 1e-4
	k0 := math.Ceil(lo/step - 1e-9)
	k1 := math.Floor(hi/step + 1e-9)
	n := k1 - k0 + 1
	if !(n >= 1 && n <= 100) || k0+1 == k0 {
		// Float precision exhausted (e.g. a narrow range far from 0).
		return nil
	}
	var ticks []plot.Tick
	for i := 0; i < int(n); i++ {
		v := (k0 + float64(i)) * step
		if v == 0 {
			v = 0 // no "-0"
		}
		label := strconv.FormatFloat(v, 'f', decimals, 64)
		if scientific {
			label = formatTick(roundTo(v, step))
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// niceStep returns the step among {1, 2, 5}×10^k whose number of ticks in
// [lo, hi] is closest to target, preferring more ticks on ties.
func niceStep(lo, hi float64, target int) float64 {
	if target < 2 {
		target = 2
	}
	span := hi - lo
	base := math.Floor(math.Log10(span / float64(target)))
	best, bestScore := 0.0, math.Inf(1)
	for e := base - 1; e <= base+1; e++ {
		for _, m := range []float64{1, 2, 5} {
			step := m * math.Pow(10, e)
			n := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
			if n < 2 {
				continue
			}
			score := math.Abs(n - float64(target))
			if score < bestScore || (score == bestScore && step < best) {
				best, bestScore = step, score
			}
		}
	}
	return best
}

// roundTo rounds v to a multiple of step, removing representation noise
// such as 0.30000000000000004.
func roundTo(v, step float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(math.Round(v/step)*step, 'g', 12, 64), 64)
	return r
}

// formatTick formats a tick value compactly: plain decimals within
// [1e-4, 1e6), otherwise "1e6"-style scientific notation.
func formatTick(v float64) string {
	a := math.Abs(v)
	if v == 0 || (a >= 1e-4 && a < 1e6) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return formatSci(v)
}

// formatSci formats v in the shortest compact scientific notation, e.g.
// "1e6", "2.5e-7".
func formatSci(v float64) string {
	s := strconv.FormatFloat(v, 'e', -1, 64) // e.g. "1e+06"
	// Drop the '+' and leading zeros of the exponent: "1e6", "2.5e-7".
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 'e' {
			out = append(out, 'e')
			i++
			if s[i] == '-' {
				out = append(out, '-')
			}
			j := i + 1
			for j < len(s)-1 && s[j] == '0' {
				j++
			}
			out = append(out, s[j:]...)
			break
		}
		out = append(out, c)
	}
	return string(out)
}
