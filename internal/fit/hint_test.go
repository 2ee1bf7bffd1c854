package fit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestFirstHintedMatchesALinearScan runs plans as a greedy policy does — searches for a few
// demands (and multiples of them), each answer taken from — with capacity growing between plans
// and sometimes within one, and checks every FirstHinted answer against a scan. One Hints serves
// two trees in turn, as a placer that switches from its own tree to a shared one.
func TestFirstHintedMatchesALinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	randVec := func(hi int64) traces.Vec {
		return traces.Vec{rng.Int64N(hi), rng.Int64N(hi), rng.Int64N(hi / 2)}
	}
	for _, n := range []int{1, 2, 3, 7, 16, 33, 100} {
		t.Run(fmt.Sprintf("machines=%d", n), func(t *testing.T) {
			var h Hints
			var trees [2]*Tree
			var frees [2][]traces.Vec
			for k := range trees {
				frees[k] = make([]traces.Vec, n)
				for m := range frees[k] {
					frees[k][m] = randVec(12)
				}
				trees[k] = New(frees[k])
			}
			demands := []traces.Vec{randVec(4), randVec(4), randVec(4)}
			hinted := 0
			for step := range 4000 {
				k := step / 1000 % 2
				tr, free := trees[k], frees[k]
				switch r := rng.IntN(20); {
				case r == 0: // capacity grows (a release between or within plans)
					m := rng.IntN(n)
					free[m] = free[m].Add(randVec(6))
					tr.Set(m, free[m])
				case r == 1:
					demands[rng.IntN(len(demands))] = randVec(4)
				case r == 2:
					tr.SetAll(func(m int) traces.Vec { return free[m] })
				}
				d := demands[rng.IntN(len(demands))]
				if rng.IntN(3) == 0 {
					d = d.Add(randVec(2)) // at least as large: a hint applies
				}
				want, wantOK := scan(free, d, 0)
				if h.tree == tr && h.gen == tr.gen && h.n > 0 {
					hinted++
				}
				got, ok := tr.FirstHinted(d, &h)
				if ok != wantOK || (ok && got != want) {
					t.Fatalf("step %d: FirstHinted(%v) = %d,%t; a scan says %d,%t (free %v)", step, d, got, ok, want, wantOK, free)
				}
				if ok {
					free[got] = free[got].Sub(d)
					tr.Set(got, free[got])
				}
			}
			if hinted < 1000 {
				t.Fatalf("only %d of 4000 searches had hints: the test does not exercise them", hinted)
			}
		})
	}
}
