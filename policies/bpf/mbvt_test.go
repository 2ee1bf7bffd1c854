package bpf_test

import (
	"testing"

	"github.com/schedlab/schedlab/traces"
)

func TestMBVTOrdersQueuesByEffectiveVirtualTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		warp float64
		at10 map[string]int32 // started at t=10s once 8 TQ tasks finished
		at17 map[string]int32 // started at t=17s once 2 LQ tasks finished
	}{
		// At 10s the TQ's virtual time is 10 (whole cluster for 10s); the arriving LQ starts
		// from it. A warp of 5 puts the LQ 5 ahead, beyond the tie tolerance: it takes all 8
		// free units. Progressing at share 0.8 it uses its warp up after 6.25s; by 17s its
		// virtual time (15.6) is past the TQ's (11.4), so the TQ gets what the LQ frees.
		{"a warped LQ takes every freed resource, then pays the warp back", 5,
			map[string]int32{"lq": 8}, map[string]int32{"tq": 2}},
		// Without a warp both start equal and share by DRF (ties to the lower queue index).
		{"without a warp the LQ shares by DRF", 0,
			map[string]int32{"lq": 5, "tq": 3}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"warp_s": tc.warp}
			f, p := fixture(t, "mbvt", []traces.Vec{vec(10, 10)}, params,
				job("tq", "tq", 0, 20, vec(1, 1), 100),
				job("lq", "lq", 10, 10, vec(1, 1), 5),
			)
			if got, _ := step(t, f, p, 0); !same(got, map[string]int32{"tq": 10}) {
				t.Fatalf("t=0: started %v", got)
			}
			if err := f.Finish(0, 0, 8); err != nil {
				t.Fatal(err)
			}
			if got, _ := step(t, f, p, 10); !same(got, tc.at10) {
				t.Fatalf("t=10s: started %v, want %v", got, tc.at10)
			}
			if tc.at17 == nil {
				return
			}
			if err := f.Finish(1, 0, 2); err != nil {
				t.Fatal(err)
			}
			if got, _ := step(t, f, p, 17); !same(got, tc.at17) {
				t.Fatalf("t=17s: started %v, want %v", got, tc.at17)
			}
		})
	}
}

func TestMBVTDerivesTheWarpFromTheBurst(t *testing.T) {
	// No warp declared: the LQ's warp is its burst's size, 0.8 of the cluster for 5s = 4.
	// Arriving at 10s with the TQ at virtual time 10, it is 4 ahead and takes all 8 free units.
	f, p := fixture(t, "mbvt", []traces.Vec{vec(10, 10)}, nil,
		job("tq", "tq", 0, 20, vec(1, 1), 100),
		job("lq", "lq", 10, 8, vec(1, 1), 5),
	)
	step(t, f, p, 0)
	if err := f.Finish(0, 0, 8); err != nil {
		t.Fatal(err)
	}
	if got, _ := step(t, f, p, 10); !same(got, map[string]int32{"lq": 8}) {
		t.Fatalf("t=10s: started %v, want all 8 LQ tasks", got)
	}
}
