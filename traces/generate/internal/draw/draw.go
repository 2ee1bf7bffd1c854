// Package draw holds the random-draw helpers the workload generators share. Products are wrapped
// in explicit float64 conversions so the compiler cannot fuse them into FMA instructions, which
// would make results differ between architectures.
package draw

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Streams splits r into n independent generators: it draws n seeds from r up front, in order, so
// stream i does not depend on how much the other streams are used.
func Streams(r *rand.Rand, n int) []*rand.Rand {
	out := make([]*rand.Rand, n)
	for i := range out {
		out[i] = rand.New(rand.NewPCG(r.Uint64(), uint64(i)))
	}
	return out
}

// Exp draws from an exponential distribution with the given mean.
func Exp(r *rand.Rand, mean float64) float64 { return float64(r.ExpFloat64() * mean) }

// Normal draws from a normal distribution N(mean, std).
func Normal(r *rand.Rand, mean, std float64) float64 { return float64(r.NormFloat64()*std) + mean }

// Uniform draws from the uniform distribution on [lo, hi).
func Uniform(r *rand.Rand, lo, hi float64) float64 { return lo + float64(r.Float64()*(hi-lo)) }

// Apportion splits n items into len(fractions) groups proportionally to fractions (which must be
// non-negative with a positive sum) by the largest-remainder method: each group gets
// ⌊n·f/Σf⌋, and the items left over go to the groups with the largest remainders, ties to the
// lower index. The counts sum to n.
func Apportion(n int, fractions []float64) []int {
	var total float64
	for _, f := range fractions {
		total += f
	}
	counts := make([]int, len(fractions))
	rem := make([]float64, len(fractions))
	left := n
	for i, f := range fractions {
		exact := float64(float64(n)*f) / total
		counts[i] = int(math.Floor(exact))
		rem[i] = exact - float64(counts[i])
		left -= counts[i]
	}
	order := make([]int, len(fractions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for k := 0; left > 0; k = (k + 1) % len(order) {
		counts[order[k]]++
		left--
	}
	return counts
}

// Labels returns a random permutation of the multiset with counts[i] copies of label i: exactly
// the apportioned mix, in random order.
func Labels(r *rand.Rand, counts []int) []int {
	var out []int
	for label, c := range counts {
		for range c {
			out = append(out, label)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Weighted draws an index with probability proportional to cum[i]-cum[i-1], where cum is the
// non-decreasing cumulative weight array with a positive last element.
func Weighted(r *rand.Rand, cum []float64) int {
	x := float64(r.Float64() * cum[len(cum)-1])
	i, _ := slices.BinarySearchFunc(cum, x, func(c, x float64) int {
		if c <= x {
			return -1
		}
		return 1
	})
	return min(i, len(cum)-1)
}
