package external

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
)

// TestPlanReasons: the optional start_reasons and preempt_reasons reach the plan aligned with
// their decisions; more reasons than decisions, or an overlong one, are malformed plans.
func TestPlanReasons(t *testing.T) {
	for _, tc := range []struct {
		name, line, want, err string
	}{
		{"none", `{"type":"plan","call":1,"starts":[[0,0,0,1]],"preempts":[]}`, "[] []", ""},
		{"both", `{"type":"plan","call":1,"starts":[[0,0,0,1],[1,0,0,1]],"preempts":[[2,0,0]],"start_reasons":["oldest"],"preempt_reasons":["over quota"]}`, "[oldest] [over quota]", ""},
		{"too many", `{"type":"plan","call":1,"starts":[],"preempts":[],"start_reasons":["x"]}`, "", "at most one reason per decision"},
		{"too long", `{"type":"plan","call":1,"starts":[[0,0,0,1]],"preempts":[],"start_reasons":["` + strings.Repeat("x", 300) + `"]}`, "", "start_reasons[0]: 300 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r reply
			if err := decode([]byte(tc.line), &r); err != nil {
				t.Fatal(err)
			}
			var p policies.Plan
			err := r.toPlan(&p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s, q []string
			for i := range p.Starts {
				if r := p.StartReason(i); !r.IsZero() {
					s = append(s, r.String())
				}
			}
			for i := range p.Preempts {
				if r := p.PreemptReason(i); !r.IsZero() {
					q = append(q, r.String())
				}
			}
			if got := "[" + strings.Join(s, ",") + "] [" + strings.Join(q, ",") + "]"; got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
