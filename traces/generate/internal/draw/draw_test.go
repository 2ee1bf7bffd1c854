package draw

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestApportion(t *testing.T) {
	tests := []struct {
		n    int
		f    []float64
		want []int
	}{
		{10, []float64{0.2, 0.6, 0.2}, []int{2, 6, 2}},
		{100, []float64{0.2, 0.6, 0.2}, []int{20, 60, 20}},
		{7, []float64{1.0 / 6, 1.0 / 3, 0, 0.5}, []int{1, 2, 0, 4}}, // remainders .17 .33 0 .5
		{3, []float64{1, 1, 1}, []int{1, 1, 1}},
		{1, []float64{0.5, 0.5}, []int{1, 0}}, // tie goes to the lower index
		{5, []float64{0, 3}, []int{0, 5}},
		{0, []float64{0.3, 0.7}, []int{0, 0}},
	}
	for _, tc := range tests {
		if got := Apportion(tc.n, tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("Apportion(%d, %v) = %v, want %v", tc.n, tc.f, got, tc.want)
		}
	}
}

func TestLabelsKeepCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	got := Labels(r, []int{3, 0, 2})
	counts := make([]int, 3)
	for _, l := range got {
		counts[l]++
	}
	if !slices.Equal(counts, []int{3, 0, 2}) {
		t.Errorf("labels %v have counts %v", got, counts)
	}
}

func TestWeighted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cum := []float64{1, 1, 4} // weights 1, 0, 3
	counts := make([]int, 3)
	const n = 40000
	for range n {
		counts[Weighted(r, cum)]++
	}
	if counts[1] != 0 {
		t.Errorf("zero-weight index drawn %d times", counts[1])
	}
	// Binomial(40000, 0.25): sd ≈ 87.
	if math.Abs(float64(counts[0])-n/4) > 400 {
		t.Errorf("index 0 drawn %d times, want ≈ %d", counts[0], n/4)
	}
}

func TestStreamsIndependent(t *testing.T) {
	a := Streams(rand.New(rand.NewPCG(5, 5)), 2)
	b := Streams(rand.New(rand.NewPCG(5, 5)), 2)
	for range 100 {
		a[0].Uint64() // use stream 0 of a only
	}
	if a[1].Uint64() != b[1].Uint64() {
		t.Error("stream 1 depends on stream 0's use")
	}
	if a[0].Uint64() == b[1].Uint64() {
		t.Error("streams coincide")
	}
}

func TestDistributions(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 50000
	var se, sn, sn2, su float64
	for range n {
		se += Exp(r, 130)
		x := Normal(r, 1.25, 0.1)
		sn += x
		sn2 += x * x
		u := Uniform(r, 4, 6)
		if u < 4 || u >= 6 {
			t.Fatalf("uniform draw %v outside [4,6)", u)
		}
		su += u
	}
	mn := sn / n
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"exp mean", se / n, 130, 130 * 4 / math.Sqrt(n)},
		{"normal mean", mn, 1.25, 0.1 * 4 / math.Sqrt(n)},
		{"normal sd", math.Sqrt(sn2/n - mn*mn), 0.1, 0.003},
		{"uniform mean", su / n, 5, 0.02},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %v, want %v ± %v", c.name, c.got, c.want, c.tol)
		}
	}
}
