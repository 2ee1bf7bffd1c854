package predict

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMedianHeapMatchesSortedMedian(t *testing.T) {
	for _, tc := range []struct {
		name   string
		seed   uint64
		n      int
		spread int64
	}{
		{"many distinct values", 1, 2000, 1 << 40},
		{"many duplicates", 2, 2000, 5},
		{"a single value repeated", 3, 50, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 7))
			var m medianHeap
			var all []int64
			for i := 0; i < tc.n; i++ {
				x := r.Int64N(tc.spread)
				m.Add(x)
				all = append(all, x)
				s := slices.Clone(all)
				slices.Sort(s)
				var want float64
				if k := len(s); k%2 == 1 {
					want = float64(s[k/2])
				} else {
					want = (float64(s[k/2-1]) + float64(s[k/2])) / 2
				}
				if got := m.Median(); got != want {
					t.Fatalf("after %d values: median %v, want %v", i+1, got, want)
				}
			}
			if m.Len() != tc.n {
				t.Fatalf("Len = %d, want %d", m.Len(), tc.n)
			}
		})
	}
	var empty medianHeap
	if !math.IsNaN(empty.Median()) {
		t.Errorf("median of nothing = %v, want NaN", empty.Median())
	}
}

// TestHistoryEstimators pins each estimator on a hand-computed history 10, 20, 60, 30, 40
// (α = 0.5, recent window 3).
func TestHistoryEstimators(t *testing.T) {
	steps := []struct {
		add                              int64
		average, median, rolling, recent float64
	}{
		{10, 10, 10, 10, 10},
		{20, 15, 15, 15, 15},            // rolling: .5·20 + .5·10
		{60, 30, 20, 37.5, 30},          // rolling: .5·60 + .5·15
		{30, 30, 25, 33.75, 110.0 / 3},  // recent: 20, 60, 30
		{40, 32, 30, 36.875, 130.0 / 3}, // recent: 60, 30, 40; rolling: .5·40 + .5·33.75
	}
	h := history{useMed: true}
	if !math.IsNaN(h.estimate(estAverage)) {
		t.Fatal("an empty history must estimate NaN")
	}
	for i, s := range steps {
		h.add(s.add, 0.5, 3)
		for _, c := range []struct {
			e    estimator
			want float64
		}{{estAverage, s.average}, {estMedian, s.median}, {estRolling, s.rolling}, {estRecent, s.recent}} {
			if got := h.estimate(c.e); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("after %d runtimes, estimator %d = %v, want %v", i+1, c.e, got, c.want)
			}
		}
	}
	if len(h.ring) != 3 || cap(h.ring) > 3 {
		t.Errorf("recent ring has len %d cap %d, want both bounded by the window 3", len(h.ring), cap(h.ring))
	}
}

func TestScoreIsRMSENormalizedByMeanRuntime(t *testing.T) {
	for _, tc := range []struct {
		name         string
		pred, actual []float64
		want         float64
	}{
		{"no prediction yet", nil, nil, math.NaN()},
		{"one over and one under", []float64{10, 30}, []float64{20, 20}, 0.5}, // rmse 10 / mean 20
		{"exact", []float64{5, 7}, []float64{5, 7}, 0},
		{"uneven runtimes", []float64{0, 300}, []float64{100, 300}, math.Sqrt(5000) / 200},
		{"zero runtimes predicted exactly", []float64{0}, []float64{0}, 0},
		{"zero runtimes predicted wrong", []float64{1}, []float64{0}, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s score
			for i := range tc.pred {
				s.add(tc.pred[i], tc.actual[i])
			}
			got := s.nrmse()
			if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12 && got != tc.want) {
				t.Errorf("nrmse = %v, want %v", got, tc.want)
			}
		})
	}
}
