package main

import "testing"

func TestEventRate(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0 events/s"},
		{0.5, "0.5 events/s"},
		{3.25, "3.2 events/s"},
		{512, "512 events/s"},
		{4_321, "4.32k events/s"},
		{48_260, "48.3k events/s"},
		{999_499, "999k events/s"},
		{999_999, "1M events/s"},
		{2_514_000, "2.51M events/s"},
		{31_400_000, "31.4M events/s"},
		{1.5e9, "1.5G events/s"},
	} {
		if got := formatRate(tc.in, "events"); got != tc.want {
			t.Errorf("formatRate(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
