package fit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// scan is the brute-force answer: the lowest machine m ≥ from whose free capacity fits d.
func scan(free []traces.Vec, d traces.Vec, from int) (int, bool) {
	for m := max(from, 0); m < len(free); m++ {
		if d.Fits(free[m]) {
			return m, true
		}
	}
	return 0, false
}

// TestTreeMatchesALinearScan checks First and FirstFrom against a scan over random machine
// states, demands and updates, on sizes that are and are not powers of two.
func TestTreeMatchesALinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randVec := func() traces.Vec {
		return traces.Vec{rng.Int64N(5), rng.Int64N(5), rng.Int64N(3)}
	}
	for _, n := range []int{1, 2, 3, 7, 16, 33, 40} {
		t.Run(fmt.Sprintf("machines=%d", n), func(t *testing.T) {
			free := make([]traces.Vec, n)
			for m := range free {
				free[m] = randVec()
			}
			tr := New(free)
			for step := range 3000 {
				switch rng.IntN(4) {
				case 0:
					m := rng.IntN(n)
					free[m] = randVec()
					tr.Set(m, free[m])
				case 1:
					tr.SetAll(func(m int) traces.Vec { return free[m] })
				}
				d := randVec()
				want, wantOK := scan(free, d, 0)
				if got, ok := tr.First(d); ok != wantOK || (ok && got != want) {
					t.Fatalf("step %d: First(%v) = %d,%t; a scan says %d,%t (free %v)", step, d, got, ok, want, wantOK, free)
				}
				from := rng.IntN(n+2) - 1
				want, wantOK = scan(free, d, from)
				if got, ok := tr.FirstFrom(d, from); ok != wantOK || (ok && got != want) {
					t.Fatalf("step %d: FirstFrom(%v, %d) = %d,%t; a scan says %d,%t (free %v)", step, d, from, got, ok, want, wantOK, free)
				}
				for m := range free {
					if tr.Free(m) != free[m] {
						t.Fatalf("step %d: Free(%d) = %v, want %v", step, m, tr.Free(m), free[m])
					}
				}
			}
		})
	}
}

func TestTree(t *testing.T) {
	vec := func(a, b int64) traces.Vec { return traces.Vec{a, b} }
	for _, tc := range []struct {
		name string
		free []traces.Vec
		d    traces.Vec
		from int
		want int // -1: no machine fits
	}{
		{"the maxima fit but no machine does: cpu on one, memory on another", []traces.Vec{vec(4, 0), vec(0, 4)}, vec(2, 2), 0, -1},
		{"backtracks from a left subtree whose maxima mislead", []traces.Vec{vec(4, 0), vec(0, 4), vec(1, 1), vec(3, 3)}, vec(2, 2), 0, 3},
		{"the lowest of several fitting machines", []traces.Vec{vec(0, 0), vec(2, 2), vec(5, 5)}, vec(1, 1), 0, 1},
		{"a zero demand fits a machine with nothing free", []traces.Vec{vec(0, 0)}, vec(0, 0), 0, 0},
		{"padding leaves fit nothing, not even a zero demand", []traces.Vec{vec(0, 0), vec(0, 0), vec(0, 0)}, vec(0, 0), 3, -1},
		{"from skips lower machines", []traces.Vec{vec(5, 5), vec(0, 0), vec(5, 5)}, vec(1, 1), 1, 2},
		{"no machines", nil, vec(0, 0), 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(tc.free)
			got, ok := tr.FirstFrom(tc.d, tc.from)
			if !ok {
				got = -1
			}
			if got != tc.want {
				t.Fatalf("FirstFrom(%v, %d) over %v = %d, want %d", tc.d, tc.from, tc.free, got, tc.want)
			}
		})
	}
	t.Run("Reset reuses the tree for a different number of machines", func(t *testing.T) {
		tr := New([]traces.Vec{vec(1, 1), vec(1, 1), vec(1, 1), vec(9, 9), vec(1, 1)})
		tr.Reset(2)
		if tr.Len() != 2 {
			t.Fatalf("Len() = %d, want 2", tr.Len())
		}
		if _, ok := tr.First(vec(0, 0)); ok {
			t.Fatalf("a reset tree's machines fit a demand before they are set")
		}
		tr.Set(1, vec(3, 3))
		if m, ok := tr.First(vec(2, 2)); !ok || m != 1 {
			t.Fatalf("First after Set = %d,%t, want 1,true", m, ok)
		}
		if tr.Max() != vec(3, 3) {
			t.Fatalf("Max() = %v, want %v", tr.Max(), vec(3, 3))
		}
	})
}

// TestTreeWidensDimensions starts with machines that have capacity in one dimension only: a
// demand for another fits nowhere until a machine gets some, and Max reports 0 there meanwhile.
func TestTreeWidensDimensions(t *testing.T) {
	free := []traces.Vec{{3}, {5}, {2}}
	tr := New(free)
	if m := tr.Max(); m != (traces.Vec{5}) {
		t.Errorf("Max = %v", m)
	}
	if _, ok := tr.First(traces.Vec{1, 1}); ok {
		t.Error("a demand for memory fit machines without any")
	}
	if m, ok := tr.First(traces.Vec{4}); !ok || m != 1 {
		t.Errorf("First(4) = %d, %t", m, ok)
	}
	tr.Set(2, traces.Vec{2, 0, 7})
	if m, ok := tr.First(traces.Vec{1, 0, 1}); !ok || m != 2 {
		t.Errorf("after widening: First = %d, %t", m, ok)
	}
	if m, ok := tr.FirstFrom(traces.Vec{1}, 1); !ok || m != 1 {
		t.Errorf("FirstFrom = %d, %t", m, ok)
	}
	if m := tr.Max(); m != (traces.Vec{5, 0, 7}) {
		t.Errorf("Max = %v", m)
	}
	var empty Tree
	if _, ok := empty.First(traces.Vec{}); ok || empty.Max() != never.max {
		t.Error("an empty tree fit something")
	}
}
