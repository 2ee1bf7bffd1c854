package main

import (
	"fmt"
	"strconv"
)

// formatRate writes a per-second rate with a unit that keeps three significant digits in view:
// "2.51M events/s", "48.3k events/s", "512 events/s" (never "0.00M events/s").
func formatRate(perSecond float64, what string) string {
	// Round first, so that 999,999 is "1M", not "1e+03k".
	r, err := strconv.ParseFloat(fmt.Sprintf("%.3g", perSecond), 64)
	if err != nil {
		r = perSecond
	}
	for _, u := range []struct {
		scale float64
		unit  string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if r >= u.scale {
			return fmt.Sprintf("%.3g%s %s/s", r/u.scale, u.unit, what)
		}
	}
	if r >= 10 || r == 0 {
		return fmt.Sprintf("%.0f %s/s", r, what)
	}
	return fmt.Sprintf("%.2g %s/s", r, what)
}
