package stats

import (
	"errors"
	"fmt"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// MWResult is the outcome of a two-sided Mann–Whitney U test.
type MWResult struct {
	// U is the statistic of the first sample: the number of pairs (x, y)
	// with x > y, plus half the number of tied pairs. It ranges over
	// [0, n1*n2], and n1*n2/2 means no location shift.
	U float64
	// P is the two-sided p-value for the null hypothesis that both
	// samples come from the same distribution.
	P float64
	// Exact reports whether P comes from the exact permutation
	// distribution of U (conditional on the ties, if any) rather than the
	// normal approximation with tie and continuity corrections.
	Exact bool
}

// MannWhitneyU performs a two-sided Mann–Whitney U (Wilcoxon rank-sum) test
// of x against y through github.com/aclements/go-moremath/stats (the
// implementation golang.org/x/perf's benchstat builds on).
//
// The p-value is exact for samples of up to
// moremath.MannWhitneyExactLimit (50) values each without ties, and of up to
// moremath.MannWhitneyTiesExactLimit (25) each with ties: tied samples get the
// exact distribution of U given the tie pattern (Klotz 1966). Larger samples
// use the normal approximation with tie correction and a continuity
// correction of 0.5. (schedlab's earlier implementation used the normal
// approximation whenever there were ties, so small tied samples — common
// with deterministic metrics across seeds — now get somewhat different,
// exact p-values.) If every value is tied the p-value is 1.
//
// It returns an error if either sample is empty or contains NaN or ±Inf.
func MannWhitneyU(x, y []float64) (MWResult, error) {
	if err := checkFinite(x); err != nil {
		return MWResult{}, fmt.Errorf("mann-whitney: first sample: %w", err)
	}
	if err := checkFinite(y); err != nil {
		return MWResult{}, fmt.Errorf("mann-whitney: second sample: %w", err)
	}
	res := MWResult{Exact: mwExact(x, y)}
	r, err := moremath.MannWhitneyUTest(x, y, moremath.LocationDiffers)
	if errors.Is(err, moremath.ErrSamplesEqual) {
		// Every value is tied: U is n1*n2/2 in every arrangement, so P = 1
		// exactly.
		res.U, res.P, res.Exact = float64(len(x)*len(y))/2, 1, true
		return res, nil
	}
	if err != nil {
		return MWResult{}, fmt.Errorf("mann-whitney: %w", err)
	}
	res.U, res.P = r.U, min(r.P, 1)
	return res, nil
}

// mwExact reports whether moremath.MannWhitneyUTest uses the exact
// distribution for samples x and y (finite, non-empty).
func mwExact(x, y []float64) bool {
	limit := moremath.MannWhitneyExactLimit
	all := append(slices.Clone(x), y...)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			limit = moremath.MannWhitneyTiesExactLimit
			break
		}
	}
	return len(x) <= limit && len(y) <= limit
}
