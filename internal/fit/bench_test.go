package fit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// BenchmarkTree runs a placement loop against a Tree: each operation places a random demand on
// the first machine that fits (taking it), or, when none fits, frees a random earlier placement
// and asks again, as a full cluster does. Machines are identical (uniform) or of the Google 2011
// cell's three shapes of capacity (mixed), where one dimension often runs out before the other.
func BenchmarkTree(b *testing.B) {
	for _, tc := range []struct {
		name     string
		machines int
		mixed    bool
	}{{"uniform", 256, false}, {"mixed", 12583, true}} {
		b.Run(fmt.Sprintf("machines=%s%d", tc.name, tc.machines), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			free := make([]traces.Vec, tc.machines)
			for m := range free {
				switch {
				case !tc.mixed:
					free[m] = traces.VecOf(1, 1)
				case m%20 == 0:
					free[m] = traces.VecOf(1, 1)
				case m%3 == 0:
					free[m] = traces.VecOf(0.5, 0.25)
				default:
					free[m] = traces.VecOf(0.5, 0.5)
				}
			}
			t := New(free)
			type placed struct {
				m int
				d traces.Vec
			}
			var live []placed
			demand := func() traces.Vec {
				return traces.VecOf(0.01+0.1*rng.Float64()*rng.Float64(), 0.005+0.1*rng.Float64()*rng.Float64())
			}
			b.ResetTimer()
			for range b.N {
				d := demand()
				m, ok := t.First(d)
				if !ok {
					k := rng.IntN(len(live))
					p := live[k]
					live[k] = live[len(live)-1]
					live = live[:len(live)-1]
					t.Set(p.m, t.Free(p.m).Add(p.d))
					continue
				}
				t.Set(m, t.Free(m).Sub(d))
				live = append(live, placed{m, d})
			}
		})
	}
}
