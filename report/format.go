package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/schedlab/schedlab/report/stats"
)

// FormatNumber formats v with three significant digits; see FormatSig.
func FormatNumber(v float64) string { return FormatSig(v, 3) }

// FormatSig formats v with at least sig significant digits (sig < 1 is
// treated as 1). Digits left of the decimal point are never replaced by
// zeros, so 12345 stays "12345" while 3.14159 becomes "3.14" and 0.012345
// becomes "0.0123". Magnitudes of 1e6 and above or below 1e-4 use compact
// scientific notation ("1.23e6", "4.5e-7"). NaN is "n/a"; infinities are
// "inf" and "-inf".
func FormatSig(v float64, sig int) string {
	sig = max(sig, 1)
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e6 || a < 1e-4 {
		return formatTick(roundSig(v, sig))
	}
	exp := int(math.Floor(math.Log10(a)))
	decimals := max(0, sig-1-exp)
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-0" || (len(s) > 1 && s[0] == '-' && isZeros(s[1:])) {
		s = s[1:]
	}
	return s
}

// roundSig rounds v to sig significant digits.
func roundSig(v float64, sig int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', sig-1, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// isZeros reports whether s consists only of '0' and '.'.
func isZeros(s string) bool {
	for _, c := range s {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// FormatMeanCI formats a mean with its confidence-interval half-width as
// "mean ± half". The half-width is rounded to two significant digits and
// the mean to the same decimal place, e.g. (123.456, 1.234) gives
// "123.5 ± 1.2". If half is NaN, infinite or not positive, only the mean is
// printed, with FormatNumber.
func FormatMeanCI(mean, half float64) string {
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return FormatNumber(mean)
	}
	if math.IsNaN(half) || math.IsInf(half, 0) || half <= 0 {
		return FormatNumber(mean)
	}
	a := math.Max(math.Abs(mean), half)
	if a >= 1e6 || half < 1e-4 {
		return formatSci(roundSig(mean, 3)) + " ± " + formatSci(roundSig(half, 2))
	}
	decimals := max(0, 1-int(math.Floor(math.Log10(half))))
	decimals = min(decimals, 12)
	m := strconv.FormatFloat(mean, 'f', decimals, 64)
	if len(m) > 1 && m[0] == '-' && isZeros(m[1:]) {
		m = m[1:]
	}
	return m + " ± " + strconv.FormatFloat(half, 'f', decimals, 64)
}

// FormatCI formats a mean confidence interval as FormatMeanCI does.
func FormatCI(ci stats.CI) string { return FormatMeanCI(ci.Estimate, ci.HalfWidth()) }

// FormatRelChange formats a relative change (0.123 is +12.3%) as a signed
// percentage with three significant digits, e.g. "+12.3%" or "-4.05%".
func FormatRelChange(rel float64) string {
	if math.IsNaN(rel) || math.IsInf(rel, 0) {
		return FormatNumber(rel)
	}
	s := FormatSig(rel*100, 3)
	if s != "0" && s[0] != '-' {
		s = "+" + s
	}
	return s + "%"
}

// FormatInterval formats a confidence interval: as FormatCI does ("mean ±
// half") when it is symmetric, else as "mean [lo, hi]" with the bounds at
// the mean's precision (a bounded or log-scale interval, see
// stats.DomainMeanCI). An undefined interval gives the mean alone.
func FormatInterval(ci stats.CI) string {
	if !ci.Defined() || ci.Symmetric() {
		return FormatCI(ci)
	}
	half := math.Max(ci.Estimate-ci.Lo, ci.Hi-ci.Estimate)
	if math.IsNaN(ci.Estimate) || math.IsInf(ci.Estimate, 0) || !(half > 0) {
		return FormatNumber(ci.Estimate)
	}
	a := math.Max(math.Abs(ci.Estimate), half)
	if a >= 1e6 || half < 1e-4 {
		return fmt.Sprintf("%s [%s, %s]", formatSci(roundSig(ci.Estimate, 3)), formatSci(roundSig(ci.Lo, 3)), formatSci(roundSig(ci.Hi, 3)))
	}
	decimals := min(max(0, 1-int(math.Floor(math.Log10(half)))), 12)
	f := func(x float64) string {
		s := strconv.FormatFloat(x, 'f', decimals, 64)
		if len(s) > 1 && s[0] == '-' && isZeros(s[1:]) {
			s = s[1:]
		}
		return s
	}
	return fmt.Sprintf("%s [%s, %s]", f(ci.Estimate), f(ci.Lo), f(ci.Hi))
}

// FormatSamplesIn formats the mean of xs with its 95% confidence interval
// in domain d (stats.DomainMeanCI, FormatInterval); it is "n/a" for an
// empty sample or one with NaN or infinite values.
func FormatSamplesIn(xs []float64, d stats.Domain) string {
	ci, err := stats.DomainMeanCI(xs, 0.95, d)
	if err != nil {
		return "n/a"
	}
	return FormatInterval(ci)
}

// FormatMeanCISamples formats the mean of xs with its Student-t 95%
// confidence-interval half-width, as FormatMeanCI does; it is "n/a" for an
// empty sample or one with NaN or infinite values.
func FormatMeanCISamples(xs []float64) string {
	ci, err := stats.MeanCI95(xs)
	if err != nil {
		return "n/a"
	}
	return FormatCI(ci)
}
