package google2011

import (
	"math/rand/v2"
	"testing"
)

// TestIDTableMatchesMap drives idTable and a Go map with the same random puts, gets and deletes
// (keys from small and large ranges, so probe runs wrap around and collide) and compares them.
func TestIDTableMatchesMap(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tab idTable
		ref := map[int64]*jobState{}
		span := int64(50 + rng.IntN(5000))
		for step := range 20000 {
			id := rng.Int64N(span)
			if seed%2 == 1 {
				id = id*6252007148 + 1 // trace-like large IDs
			}
			switch rng.IntN(3) {
			case 0:
				st := &jobState{seq: uint64(step)}
				tab.put(id, st)
				ref[id] = st
			case 1:
				tab.del(id)
				delete(ref, id)
			default:
				if got, want := tab.get(id), ref[id]; got != want {
					t.Fatalf("seed %d step %d: get(%d) = %p, want %p", seed, step, id, got, want)
				}
			}
			if tab.len() != len(ref) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, tab.len(), len(ref))
			}
		}
		for id, want := range ref {
			if got := tab.get(id); got != want {
				t.Fatalf("seed %d: final get(%d) = %p, want %p", seed, id, got, want)
			}
		}
		n := 0
		tab.each(func(*jobState) { n++ })
		if n != len(ref) {
			t.Fatalf("seed %d: each visited %d, want %d", seed, n, len(ref))
		}
	}
}
