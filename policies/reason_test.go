package policies

import "testing"

func TestReasonString(t *testing.T) {
	for _, tc := range []struct {
		r    Reason
		want string
	}{
		{Reason{}, ""},
		{Because("head of queue"), "head of queue"},
		{BecauseValue("lowest dominant share", 0.123456), "lowest dominant share 0.123"},
		{BecauseValue("MILP value", 189), "MILP value 189"},
		{BecauseValue("job", 123456), "job 123456"},
		{BecauseOf("hard guarantee", "LQ-0"), "hard guarantee LQ-0"},
		{Reason{What: "x", Arg: "q", Value: 1.5, HasValue: true}, "x q 1.5"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.r, got, tc.want)
		}
	}
	var p Plan
	p.Starts = append(p.Starts, Start{Job: 1})
	p.StartBecause(Start{Job: 2}, Because("second"))
	if len(p.StartReasons) != 2 || !p.StartReason(0).IsZero() || p.StartReason(1).What != "second" || !p.StartReason(5).IsZero() {
		t.Errorf("reasons not aligned with starts: %+v", p.StartReasons)
	}
	p.Reset()
	if len(p.StartReasons) != 0 {
		t.Error("Reset kept reasons")
	}
}
