// Package stats provides the small set of descriptive and inferential
// statistics that schedlab's reports need: means and sample standard
// deviations, Student-t confidence intervals of the mean across seeds,
// quantiles and empirical CDFs, the Mann–Whitney U test, and a seeded
// bootstrap confidence interval for the relative change between two means.
//
// Every function is deterministic: nothing reads the wall clock or a global
// random source, and randomised procedures take an explicit *rand.Rand.
// Functions never panic on bad input; descriptive helpers return NaN where the
// statistic is undefined, and functions that can fail for several reasons
// return an error.
package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ErrEmpty is returned (wrapped) when a sample has no values.
var ErrEmpty = errors.New("stats: empty sample")

// ErrNonFinite is returned (wrapped) when a sample contains NaN or ±Inf.
var ErrNonFinite = errors.New("stats: sample contains NaN or Inf")

// CI is a point estimate with a two-sided confidence interval.
type CI struct {
	// Estimate is the point estimate (for example the sample mean).
	Estimate float64
	// Lo and Hi bound the interval. Both are NaN when the interval is
	// undefined, e.g. for a mean computed from a single sample.
	Lo, Hi float64
	// Level is the confidence level, e.g. 0.95.
	Level float64
}

// HalfWidth returns (Hi-Lo)/2, the "±" part of a symmetric interval.
// It is NaN when the interval is undefined.
func (c CI) HalfWidth() float64 { return (c.Hi - c.Lo) / 2 }

// Defined reports whether Lo and Hi are both finite numbers.
func (c CI) Defined() bool {
	return !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) && !math.IsInf(c.Lo, 0) && !math.IsInf(c.Hi, 0)
}

// String formats the interval as "estimate [lo, hi]".
func (c CI) String() string {
	return fmt.Sprintf("%.4g [%.4g, %.4g]", c.Estimate, c.Lo, c.Hi)
}

// Mean returns the arithmetic mean of xs, or NaN if xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Variance returns the unbiased sample variance of xs (denominator n-1),
// or NaN if xs has fewer than two values. It uses a two-pass algorithm
// for numerical stability.
func Variance(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	var ss, comp float64
	for _, x := range xs {
		d := x - m
		ss += d * d
		comp += d
	}
	n := float64(len(xs))
	return (ss - comp*comp/n) / (n - 1)
}

// StdDev returns the sample standard deviation of xs (denominator n-1),
// or NaN if xs has fewer than two values.
func StdDev(xs []float64) float64 { return math.Sqrt(Variance(xs)) }

// checkFinite returns an error if xs is empty or has a non-finite value.
func checkFinite(xs []float64) error {
	if len(xs) == 0 {
		return ErrEmpty
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w (value %d is %v)", ErrNonFinite, i, x)
		}
	}
	return nil
}

// TQuantile returns the two-sided critical value of Student's t
// distribution with dof degrees of freedom for confidence level, i.e. the
// (1+level)/2 quantile. It returns NaN if dof < 1 or level is not in (0, 1).
func TQuantile(level float64, dof int) float64 {
	if dof < 1 || !(level > 0 && level < 1) {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}
	return t.Quantile(1 - (1-level)/2)
}

// MeanCI returns the sample mean of xs with a Student-t confidence interval
// at the given level (e.g. 0.95) using n-1 degrees of freedom. With a single
// value the estimate is that value and Lo and Hi are NaN. It returns an
// error if xs is empty, contains NaN or ±Inf, or level is not in (0, 1).
func MeanCI(xs []float64, level float64) (CI, error) {
	if !(level > 0 && level < 1) {
		return CI{}, fmt.Errorf("stats: confidence level %v not in (0, 1)", level)
	}
	if err := checkFinite(xs); err != nil {
		return CI{}, err
	}
	m := Mean(xs)
	if len(xs) < 2 {
		return CI{Estimate: m, Lo: math.NaN(), Hi: math.NaN(), Level: level}, nil
	}
	se := StdDev(xs) / math.Sqrt(float64(len(xs)))
	h := TQuantile(level, len(xs)-1) * se
	return CI{Estimate: m, Lo: m - h, Hi: m + h, Level: level}, nil
}

// MeanCI95 is MeanCI(xs, 0.95).
func MeanCI95(xs []float64) (CI, error) { return MeanCI(xs, 0.95) }

// Quantile returns the p-quantile of xs (0 <= p <= 1) using linear
// interpolation between order statistics (Hyndman & Fan type 7, the
// default of R and NumPy). xs need not be sorted and is not modified.
// It returns NaN if xs is empty, contains NaN, or p is outside [0, 1].
func Quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	for _, x := range s {
		if math.IsNaN(x) {
			return math.NaN()
		}
	}
	slices.Sort(s)
	return quantileSorted(s, p)
}

// quantileSorted is Quantile for sorted, NaN-free, non-empty s.
func quantileSorted(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return s[lo]
	}
	return s[lo] + frac*(s[lo+1]-s[lo])
}

// Median returns Quantile(xs, 0.5).
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Point is one step of an empirical distribution function.
type Point struct {
	// X is a distinct sample value.
	X float64
	// P is the fraction of samples less than or equal to X.
	P float64
}

// ECDF returns the empirical cumulative distribution function of xs as one
// Point per distinct value, in increasing order of X; P of the last point
// is 1. NaN values are ignored. It returns nil if no value remains.
func ECDF(xs []float64) []Point {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	n := float64(len(s))
	var pts []Point
	for i := 0; i < len(s); i++ {
		if i+1 < len(s) && s[i+1] == s[i] {
			continue
		}
		pts = append(pts, Point{X: s[i], P: float64(i+1) / n})
	}
	pts[len(pts)-1].P = 1
	return pts
}

// Summary holds the five-number summary used by box plots.
type Summary struct {
	// N is the number of values.
	N int
	// Min and Max are the extreme values.
	Min, Max float64
	// Q1, Median and Q3 are the type-7 quartiles.
	Q1, Median, Q3 float64
	// LoWhisker and HiWhisker are the most extreme values within 1.5 IQR
	// of the box (Tukey's rule).
	LoWhisker, HiWhisker float64
	// Outliers are the values outside the whiskers, in increasing order.
	Outliers []float64
}

// Summarize returns the five-number summary and Tukey whiskers of xs.
// It returns an error if xs is empty or contains NaN or ±Inf.
func Summarize(xs []float64) (Summary, error) {
	if err := checkFinite(xs); err != nil {
		return Summary{}, err
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := Summary{
		N:      len(s),
		Min:    s[0],
		Max:    s[len(s)-1],
		Q1:     quantileSorted(s, 0.25),
		Median: quantileSorted(s, 0.5),
		Q3:     quantileSorted(s, 0.75),
	}
	iqr := sum.Q3 - sum.Q1
	lo, hi := sum.Q1-1.5*iqr, sum.Q3+1.5*iqr
	sum.LoWhisker, sum.HiWhisker = sum.Q1, sum.Q3
	for _, x := range s {
		if x >= lo {
			sum.LoWhisker = math.Min(x, sum.Q1)
			break
		}
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] <= hi {
			sum.HiWhisker = math.Max(s[i], sum.Q3)
			break
		}
	}
	for _, x := range s {
		if x < sum.LoWhisker || x > sum.HiWhisker {
			sum.Outliers = append(sum.Outliers, x)
		}
	}
	return sum, nil
}
