package report

import (
	"errors"
	"strings"
	"testing"
)

func TestGanttRejectsBadBars(t *testing.T) {
	rows, groups := []string{"m0"}, []string{"q"}
	for _, tc := range []struct {
		name string
		f    *Figure
		want string
	}{
		{"no rows", NewGantt("g", "", "t [s]", "Machine", nil, groups, Bar{}), "no rows"},
		{"no bars", NewGantt("g", "", "t [s]", "Machine", rows, groups), "no bars"},
		{"row", NewGantt("g", "", "t [s]", "Machine", rows, groups, Bar{Row: 1, End: 1}), "row 1 of 1"},
		{"group", NewGantt("g", "", "t [s]", "Machine", rows, groups, Bar{Group: 2, End: 1}), "group 2 of 1"},
		{"backwards", NewGantt("g", "", "t [s]", "Machine", rows, groups, Bar{Start: 2, End: 1}), "ends (1) before it starts (2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Validate()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalid containing %q", err, tc.want)
			}
		})
	}
}
