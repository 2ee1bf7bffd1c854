package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// RelChange returns (mean(treat) - mean(base)) / mean(base), the relative
// change of the mean of treat with respect to the mean of base (0.1 means
// 10% larger). It returns NaN if either sample is empty or mean(base) is 0.
func RelChange(base, treat []float64) float64 {
	mb := Mean(base)
	if mb == 0 {
		return math.NaN()
	}
	return (Mean(treat) - mb) / mb
}

// BootstrapRelChangeCI estimates a percentile bootstrap confidence interval
// for RelChange(base, treat). Each of iters replicates resamples base and
// treat independently with replacement using rng; the interval bounds are
// the (1-level)/2 and (1+level)/2 type-7 quantiles of the replicates.
// Estimate is RelChange on the original samples.
//
// The result depends only on the inputs and the state of rng, so a seeded
// rng gives reproducible intervals. Replicates whose resampled base mean is
// zero are discarded; if more than half are discarded it returns an error.
// It also returns an error for empty or non-finite samples, a zero base
// mean, level outside (0, 1), iters < 1, or a nil rng.
func BootstrapRelChangeCI(base, treat []float64, level float64, iters int, rng *rand.Rand) (CI, error) {
	if rng == nil {
		return CI{}, errors.New("stats: bootstrap needs a non-nil *rand.Rand")
	}
	if iters < 1 {
		return CI{}, fmt.Errorf("stats: bootstrap iterations %d < 1", iters)
	}
	if !(level > 0 && level < 1) {
		return CI{}, fmt.Errorf("stats: confidence level %v not in (0, 1)", level)
	}
	if err := checkFinite(base); err != nil {
		return CI{}, fmt.Errorf("stats: bootstrap base sample: %w", err)
	}
	if err := checkFinite(treat); err != nil {
		return CI{}, fmt.Errorf("stats: bootstrap treatment sample: %w", err)
	}
	est := RelChange(base, treat)
	if math.IsNaN(est) {
		return CI{}, errors.New("stats: bootstrap base sample has mean 0; relative change undefined")
	}
	reps := make([]float64, 0, iters)
	for range iters {
		mb := resampleMean(base, rng)
		if mb == 0 {
			continue
		}
		mt := resampleMean(treat, rng)
		reps = append(reps, (mt-mb)/mb)
	}
	if 2*len(reps) < iters {
		return CI{}, fmt.Errorf("stats: bootstrap discarded %d of %d replicates with zero base mean", iters-len(reps), iters)
	}
	slices.Sort(reps)
	alpha := (1 - level) / 2
	return CI{
		Estimate: est,
		Lo:       quantileSorted(reps, alpha),
		Hi:       quantileSorted(reps, 1-alpha),
		Level:    level,
	}, nil
}

// resampleMean returns the mean of len(xs) draws with replacement from xs.
func resampleMean(xs []float64, rng *rand.Rand) float64 {
	var s float64
	n := len(xs)
	for range n {
		s += xs[rng.IntN(n)]
	}
	return s / float64(n)
}
