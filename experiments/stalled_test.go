package experiments

import (
	"strings"
	"testing"
)

func TestStallWarning(t *testing.T) {
	for _, tc := range []struct {
		name       string
		unfinished int
		horizon    float64
		stopAfter  string
		want       string
	}{
		{"all finished", 0, 0, "", ""},
		{"stalled", 3, 0, "", "3 of 10 jobs never finished"},
		{"horizon ends it", 3, 3600, "", ""},
		{"stop rule ends it", 3, 0, "tq0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Outcome{}
			o.Summary.Jobs, o.Summary.Completed, o.Summary.Unfinished = 10, 10-tc.unfinished, tc.unfinished
			o.Config.Engine.HorizonS, o.Config.Engine.StopAfterQueue = tc.horizon, tc.stopAfter
			got := o.StallWarning()
			if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
				t.Errorf("StallWarning() = %q, want prefix %q", got, tc.want)
			}
		})
	}
}
