package jamaisvu

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// Sample is one observed job of the source trace (e.g. a Google cluster trace job).
type Sample struct {
	Runtime  traces.Time // µs, > 0
	Tasks    int32       // > 0
	Features traces.Features
}

// FeatureCount is one feature vector of a class's probability mass function with its count.
type FeatureCount struct {
	Features traces.Features
	Count    int
}

// Class is one job class: the samples whose log runtime fell nearest to one k-means centroid.
type Class struct {
	// CentroidS is the class centre, the geometric mean runtime in seconds (exp of the centroid
	// of ln runtime).
	CentroidS float64
	// Weight is the class's share of the samples.
	Weight float64
	// Runtimes are the class's runtimes, sorted: its empirical runtime distribution.
	Runtimes []traces.Time
	// Tasks are the class's task counts, sorted: its empirical task-count distribution.
	Tasks []int32
	// Features is the PMF of feature vectors, sorted by (User, JobName, LogicalJobName).
	Features []FeatureCount
	// Samples are the class's samples, in input order, for joint draws.
	Samples []Sample

	featureTotal int
	featureCum   []int // cumulative counts of Features
}

// Model is the fitted workload model: the job classes, ordered by increasing centroid.
type Model struct {
	Classes []Class
	// Dropped is the number of samples with more than the maximum task count.
	Dropped int
}

// maxIterations bounds Lloyd's iterations; 1-D k-means converges long before.
const maxIterations = 1000

// Fit derives the job classes as JamaisVu §5 does: it drops samples with more than maxTasks tasks
// (0 = no limit), clusters the rest by k-means on ln(runtime) into at most k classes (k-means++
// seeding with r, then Lloyd's iterations until no sample changes class; k is capped at the number
// of distinct runtimes, and a centroid that loses all its samples keeps its position), and records
// per class its weight, its empirical runtime and task-count distributions and the PMF of its
// feature vectors. Classes are ordered by increasing runtime; empty classes are dropped.
func Fit(samples []Sample, k int, maxTasks int32, r *rand.Rand) (*Model, error) {
	if r == nil {
		return nil, errors.New("jamaisvu: nil *rand.Rand")
	}
	if k < 1 {
		return nil, fmt.Errorf("jamaisvu: Options.K: want ≥ 1, got %d", k)
	}
	m := &Model{}
	var kept []Sample
	for i, s := range samples {
		if s.Runtime <= 0 {
			return nil, fmt.Errorf("jamaisvu: Options.Samples[%d].Runtime: must be positive, got %d", i, s.Runtime)
		}
		if s.Tasks <= 0 {
			return nil, fmt.Errorf("jamaisvu: Options.Samples[%d].Tasks: must be positive, got %d", i, s.Tasks)
		}
		if maxTasks > 0 && s.Tasks > maxTasks {
			m.Dropped++
			continue
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("jamaisvu: Options.Samples: none of the %d samples has at most %d tasks", len(samples), maxTasks)
	}
	x := make([]float64, len(kept))
	for i, s := range kept {
		x[i] = math.Log(traces.Seconds(s.Runtime))
	}
	centroids := kmeans(x, k, r)
	assign := make([]int, len(x))
	for i, v := range x {
		assign[i] = nearest(centroids, v)
	}
	classes := make([]Class, len(centroids))
	for i, s := range kept {
		c := &classes[assign[i]]
		c.Samples = append(c.Samples, s)
	}
	for ci := range classes {
		c := &classes[ci]
		if len(c.Samples) == 0 {
			continue
		}
		c.CentroidS = math.Exp(centroids[ci])
		c.Weight = float64(len(c.Samples)) / float64(len(kept))
		counts := map[traces.Features]int{}
		for _, s := range c.Samples {
			c.Runtimes = append(c.Runtimes, s.Runtime)
			c.Tasks = append(c.Tasks, s.Tasks)
			counts[s.Features]++
		}
		slices.Sort(c.Runtimes)
		slices.Sort(c.Tasks)
		for f, n := range counts {
			c.Features = append(c.Features, FeatureCount{Features: f, Count: n})
		}
		slices.SortFunc(c.Features, func(a, b FeatureCount) int {
			return cmp.Or(cmp.Compare(a.Features.User, b.Features.User),
				cmp.Compare(a.Features.JobName, b.Features.JobName),
				cmp.Compare(a.Features.LogicalJobName, b.Features.LogicalJobName))
		})
		for _, fc := range c.Features {
			c.featureTotal += fc.Count
			c.featureCum = append(c.featureCum, c.featureTotal)
		}
		m.Classes = append(m.Classes, *c)
	}
	return m, nil
}

// kmeans clusters the 1-D values x into at most k centroids, returned sorted ascending.
func kmeans(x []float64, k int, r *rand.Rand) []float64 {
	distinct := slices.Clone(x)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	k = min(k, len(distinct))
	// k-means++: the first centre uniformly, each next one with probability ∝ squared distance to
	// the nearest chosen centre.
	centroids := []float64{x[r.IntN(len(x))]}
	d2 := make([]float64, len(x))
	for len(centroids) < k {
		var total float64
		for i, v := range x {
			d := v - centroids[nearest(centroids, v)]
			d2[i] = float64(d * d)
			total += d2[i]
		}
		target := float64(r.Float64() * total)
		pick := -1
		var acc float64
		for i := range x {
			acc += d2[i]
			if d2[i] > 0 && acc > target {
				pick = i
				break
			}
		}
		if pick < 0 { // rounding left target at the very end: take the last point not yet a centre
			for i := len(x) - 1; i >= 0; i-- {
				if d2[i] > 0 {
					pick = i
					break
				}
			}
		}
		centroids = append(centroids, x[pick])
	}
	slices.Sort(centroids)
	assign := make([]int, len(x))
	for i := range assign {
		assign[i] = -1
	}
	sums := make([]float64, k)
	counts := make([]int, k)
	for range maxIterations {
		changed := false
		for i, v := range x {
			if c := nearest(centroids, v); c != assign[i] {
				assign[i] = c
				changed = true
			}
		}
		if !changed {
			break
		}
		clear(sums)
		clear(counts)
		for i, v := range x {
			sums[assign[i]] += v
			counts[assign[i]]++
		}
		for c := range centroids {
			if counts[c] > 0 {
				centroids[c] = sums[c] / float64(counts[c])
			}
		}
	}
	// Lloyd's steps keep 1-D centroids in order; sort anyway so the contract never depends on it.
	slices.Sort(centroids)
	return centroids
}

// nearest returns the index of the centroid closest to v, the lowest index on ties.
func nearest(centroids []float64, v float64) int {
	best, bestD := 0, math.Inf(1)
	for i, c := range centroids {
		if d := math.Abs(v - c); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// drawFeatures draws a feature vector from the class's PMF.
func (c *Class) drawFeatures(r *rand.Rand) traces.Features {
	x := r.IntN(c.featureTotal)
	i, _ := slices.BinarySearchFunc(c.featureCum, x, func(cum, x int) int {
		if cum <= x {
			return -1
		}
		return 1
	})
	return c.Features[i].Features
}
