package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactLimit bounds n1*n2 for which MannWhitneyU computes the exact null
// distribution of U (only used when there are no ties).
const exactLimit = 2500

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
	// distribution (small samples without ties) rather than the normal
	// approximation with tie and continuity corrections.
	Exact bool
}

// MannWhitneyU performs a two-sided Mann–Whitney U (Wilcoxon rank-sum) test
// of x against y. When there are no ties and len(x)*len(y) <= 2500 the
// p-value is exact; otherwise it uses the normal approximation with tie
// correction and a continuity correction of 0.5. If every value is tied the
// p-value is 1. It returns an error if either sample is empty or contains
// NaN or ±Inf.
func MannWhitneyU(x, y []float64) (MWResult, error) {
	if err := checkFinite(x); err != nil {
		return MWResult{}, fmt.Errorf("mann-whitney: first sample: %w", err)
	}
	if err := checkFinite(y); err != nil {
		return MWResult{}, fmt.Errorf("mann-whitney: second sample: %w", err)
	}
	n1, n2 := len(x), len(y)
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortStableFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// Midranks, the rank sum of x, and the tie-correction term.
	var r1, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u := r1 - float64(n1*(n1+1))/2
	res := MWResult{U: u}
	if !ties && n1*n2 <= exactLimit {
		dist := uDistribution(n1, n2)
		k := int(math.Round(u))
		var lower, upper float64
		for i, p := range dist {
			if i <= k {
				lower += p
			}
			if i >= k {
				upper += p
			}
		}
		res.P = math.Min(1, 2*math.Min(lower, upper))
		res.Exact = true
		return res, nil
	}
	n := float64(n1 + n2)
	mu := float64(n1) * float64(n2) / 2
	sigma2 := float64(n1) * float64(n2) / 12 * ((n + 1) - tieTerm/(n*(n-1)))
	if sigma2 <= 0 {
		res.P = 1
		return res, nil
	}
	d := math.Abs(u-mu) - 0.5
	if d < 0 {
		d = 0
	}
	z := d / math.Sqrt(sigma2)
	res.P = math.Min(1, 2*distuv.UnitNormal.Survival(z))
	return res, nil
}

// uDistribution returns P(U = u) for u = 0..n1*n2 under the null
// hypothesis without ties, using the recurrence on the position of the
// largest observation:
//
//	P_{i,j}(u) = i/(i+j) P_{i-1,j}(u-j) + j/(i+j) P_{i,j-1}(u).
func uDistribution(n1, n2 int) []float64 {
	// prev[j] is the distribution for sizes (i-1, j); cur[j] for (i, j).
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = []float64{1}
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1}
		for j := 1; j <= n2; j++ {
			d := make([]float64, i*j+1)
			a := float64(i) / float64(i+j)
			b := float64(j) / float64(i+j)
			for k, p := range prev[j] {
				d[k+j] += a * p
			}
			for k, p := range cur[j-1] {
				d[k] += b * p
			}
			cur[j] = d
		}
		prev = cur
	}
	return prev[n2]
}
