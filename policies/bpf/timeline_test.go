package bpf

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// bruteLevel is the committed level at time t under a list of intervals.
type interval struct {
	from, to int64
	d        traces.Vec
}

func brutePeak(ivs []interval, from, to int64, k int) []int64 {
	// The level only changes at interval endpoints, so checking from and every endpoint inside
	// [from, to) finds the maximum.
	points := []int64{from}
	for _, iv := range ivs {
		for _, p := range []int64{iv.from, iv.to} {
			if p > from && p < to {
				points = append(points, p)
			}
		}
	}
	out := make([]int64, k)
	for i, t := range points {
		var lvl traces.Vec
		for _, iv := range ivs {
			if iv.from <= t && t < iv.to {
				lvl = lvl.Add(iv.d)
			}
		}
		for d := 0; d < k; d++ {
			if i == 0 || lvl[d] > out[d] {
				out[d] = lvl[d]
			}
		}
	}
	return out
}

func TestTimelinePeakMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		intervals int
		span      int64
		seed      uint64
	}{
		{"a few wide intervals over a short span", 5, 20, 1},
		{"many intervals sharing endpoints on a coarse grid", 200, 50, 2},
		{"many intervals with distinct endpoints", 300, 1_000_000, 3},
		{"intervals spanning many buckets", 300, 50 * traces.Second, 4},
		{"intervals on bucket boundaries", 200, 20, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 99))
			const k = 3
			tl := newTimeline(k)
			var ivs []interval
			for i := 0; i < tc.intervals; i++ {
				a := r.Int64N(tc.span)
				b := a + 1 + r.Int64N(tc.span/4+1)
				if tc.span == 20 { // whole seconds: every endpoint on a bucket boundary
					a *= traces.Second
					b *= traces.Second
				}
				var d traces.Vec
				for x := 0; x < k; x++ {
					d[x] = r.Int64N(10)
				}
				tl.add(a, b, &d)
				ivs = append(ivs, interval{a, b, d})
				for q := 0; q < 3; q++ {
					from := r.Int64N(tc.span+10) - 5
					to := from + r.Int64N(tc.span/3+2)
					if tc.span == 20 {
						from *= traces.Second
						to *= traces.Second
					}
					got := tl.peakOver(from, to)
					want := brutePeak(ivs, from, to, k)
					if to <= from {
						want = make([]int64, k)
					}
					for x := 0; x < k; x++ {
						if got[x] != want[x] {
							t.Fatalf("after %d intervals, peak[%d,%d) dim %d = %d, want %d", i+1, from, to, x, got[x], want[x])
						}
					}
				}
			}
		})
	}
}

func TestTimelineMergesEqualBreakpoints(t *testing.T) {
	tl := newTimeline(1)
	d := traces.Vec{5}
	for i := 0; i < 10; i++ {
		tl.add(100, 200, &d)
	}
	if tl.size() != 2 {
		t.Fatalf("ten identical intervals made %d breakpoints, want 2", tl.size())
	}
	if got := tl.peakOver(150, 160)[0]; got != 50 {
		t.Fatalf("peak inside = %d, want 50", got)
	}
	if got := tl.peakOver(200, 300)[0]; got != 0 {
		t.Fatalf("peak from the end on = %d, want 0 (intervals are half-open)", got)
	}
	if got := tl.peakOver(0, 100)[0]; got != 0 {
		t.Fatalf("peak before = %d, want 0 (the query is half-open)", got)
	}
}
