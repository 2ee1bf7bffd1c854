package report

import (
	"testing"

	"github.com/schedlab/schedlab/report/stats"
)

// TestErrorBarsStayInTheDomain: the error bars and bands of a fraction stay in [0, 1] and of a
// time at or above 0 (the report drew an SLO miss rate's bar down to −0.33), while a signed
// metric keeps Student's t interval.
func TestErrorBarsStayInTheDomain(t *testing.T) {
	miss := [][]float64{{0, 0, 0.5}, {1, 1, 0.9}}
	for _, tc := range []struct {
		d      stats.Domain
		lo, hi float64 // the extreme bounds drawn must lie within
	}{{stats.Fraction, 0, 1}, {stats.NonNegative, 0, 1e9}} {
		f := NewBars("b", "", "policy", "SLO miss rate", []string{"a", "b"}, CategorySeries{Label: "s", Samples: miss})
		f.YDomain = tc.d
		b, err := f.build(f.style())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range b.ink {
			if s.kind != shapeSegment {
				continue
			}
			n++
			if s.y0 < tc.lo || s.y1 > tc.hi {
				t.Errorf("%v: error bar [%v, %v] leaves [%v, %v]", tc.d, s.y0, s.y1, tc.lo, tc.hi)
			}
		}
		if n != 2 {
			t.Errorf("%v: %d error bars, want 2", tc.d, n)
		}
		l := NewLines("l", "", "x", "SLO miss rate", Series{Label: "s", X: []float64{1, 2}, Samples: miss})
		l.YDomain = tc.d
		lb, err := l.build(l.style())
		if err != nil {
			t.Fatal(err)
		}
		bands := 0
		for _, s := range lb.ink {
			if s.kind == shapeRect {
				bands++
				if s.y0 < tc.lo || s.y1 > tc.hi {
					t.Errorf("%v: band [%v, %v] leaves [%v, %v]", tc.d, s.y0, s.y1, tc.lo, tc.hi)
				}
			}
		}
		if bands != 1 {
			t.Errorf("%v: %d band pieces, want 1", tc.d, bands)
		}
	}
	// Signed: the Student-t bar goes below zero.
	f := NewBars("b", "", "policy", "delta", []string{"a", "b"}, CategorySeries{Label: "s", Samples: miss})
	b, err := f.build(f.style())
	if err != nil {
		t.Fatal(err)
	}
	below := false
	for _, s := range b.ink {
		below = below || s.kind == shapeSegment && s.y0 < 0
	}
	if !below {
		t.Errorf("a signed metric's interval was clipped")
	}
}

func TestFormatInterval(t *testing.T) {
	for _, tc := range []struct {
		ci   stats.CI
		want string
	}{
		{stats.CI{Estimate: 101.5, Lo: 95.1, Hi: 107.9}, "101.5 ± 6.4"},
		{stats.CI{Estimate: 0.55, Lo: 0, Hi: 1}, "0.55 [0.00, 1.00]"},
		{stats.CI{Estimate: 914, Lo: 0, Hi: 6815}, "914 [0, 6815]"},
		{stats.CI{Estimate: 2, Lo: 1, Hi: 4}, "2.0 [1.0, 4.0]"},
	} {
		if got := FormatInterval(tc.ci); got != tc.want {
			t.Errorf("FormatInterval(%v) = %q, want %q", tc.ci, got, tc.want)
		}
	}
}
