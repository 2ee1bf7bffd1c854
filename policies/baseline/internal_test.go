package baseline

import (
	"math/rand/v2"
	"testing"
)

// TestIndexHeapMatchesALinearScan drives two heaps that share one position index through random
// inserts, re-keys and removals and checks every top, membership and position against maps.
func TestIndexHeapMatchesALinearScan(t *testing.T) {
	t.Run("random sets and removes keep the smallest key on top of each heap", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		const ids = 64
		pos := make([]int32, ids)
		heaps := [2]indexHeap{{pos: &pos}, {pos: &pos}}
		want := [2]map[int32]key{{}, {}}
		for step := range 20000 {
			id := int32(rng.IntN(ids))
			h := id % 2 // an id lives in one heap only, as jobs do in queue heaps
			if rng.IntN(4) == 0 {
				heaps[h].remove(id)
				delete(want[h], id)
			} else {
				k := key{a: int64(rng.IntN(3)), s: float64(rng.IntN(3)), b: int64(rng.IntN(3)), id: int64(id)}
				heaps[h].set(id, k)
				want[h][id] = k
			}
			for i := range heaps {
				if heaps[i].len() != len(want[i]) {
					t.Fatalf("step %d: heap %d has %d entries, want %d", step, i, heaps[i].len(), len(want[i]))
				}
				var best int32 = -1
				for id, k := range want[i] {
					if best < 0 || k.less(new(want[i][best])) {
						best = id
					}
					if !heaps[i].has(id) {
						t.Fatalf("step %d: heap %d lost %d", step, i, id)
					}
				}
				got, ok := heaps[i].peek()
				if ok != (best >= 0) || (ok && got != best) {
					t.Fatalf("step %d: heap %d top %d,%t; want %d", step, i, got, ok, best)
				}
			}
		}
	})
}
