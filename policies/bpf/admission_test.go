package bpf

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// lq is a periodic contract over a (100, 100) cluster, in seconds and absolute units.
func lq(start, period, duration float64, count int, demand ...int64) *Contract {
	var d traces.Vec
	copy(d[:], demand)
	c := &Contract{Start: traces.FromSeconds(start), Count: count, Shapes: []Shape{{
		Duration: traces.FromSeconds(duration), Period: traces.FromSeconds(period), Demand: d,
	}}}
	return c
}

// step is one admission: a TQ when lq is nil.
type admitStep struct {
	lq     *Contract
	class  Class
	failed Condition
	burst  int
}

func TestAdmissionControlDecidesEachBranch(t *testing.T) {
	capacity := traces.Vec{100, 100}
	tq := admitStep{class: Elastic}
	for _, tc := range []struct {
		name  string
		soft  bool
		steps []admitStep
	}{
		{"a TQ is elastic when no guarantee exists", true, []admitStep{tq, tq}},
		{"an LQ within its fair share and free capacity gets a hard guarantee", true, []admitStep{
			tq, {lq: lq(0, 100, 10, 5, 50, 20), class: Hard},
		}},
		{"an LQ overlapping a hard guarantee beyond capacity gets a soft guarantee", true, []admitStep{
			{lq: lq(0, 100, 10, 5, 60), class: Hard},
			{lq: lq(5, 100, 10, 5, 50), class: Soft, failed: CondResource, burst: 0},
		}},
		{"under N-BPF an LQ failing the resource condition is elastic", false, []admitStep{
			{lq: lq(0, 100, 10, 5, 60), class: Hard},
			{lq: lq(5, 100, 10, 5, 50), class: Elastic, failed: CondResource, burst: 0},
		}},
		{"an LQ whose bursts exceed its long-term fair share is elastic", true, []admitStep{
			tq, {lq: lq(0, 100, 60, 5, 100), class: Elastic, failed: CondFairness, burst: 0},
		}},
		{"a queue that would push a guaranteed burst past its fair share is rejected", true, []admitStep{
			{lq: lq(0, 100, 30, 5, 100), class: Hard}, // ratio 0.3: safe for up to 3 queues
			tq, tq,
			{class: Rejected, failed: CondSafety},
			{lq: lq(0, 100, 1, 5, 1), class: Rejected, failed: CondSafety},
		}},
		{"a burst of exactly its fair share passes the fairness condition", true, []admitStep{
			tq, tq, tq, {lq: lq(0, 100, 50, 5, 50), class: Hard}, // 0.25 × 4 queues = 1
		}},
		{"a soft queue's guarantee is protected by the safety condition too", true, []admitStep{
			{lq: lq(0, 100, 40, 3, 100), class: Hard},
			{lq: lq(0, 100, 40, 3, 100), class: Soft, failed: CondResource, burst: 0},
			{class: Rejected, failed: CondSafety}, // 0.4 × 3 > 1
		}},
		{"bursts that touch without overlapping fit (ON periods are half-open)", true, []admitStep{
			{lq: lq(0, 100, 10, 5, 60), class: Hard},
			{lq: lq(10, 100, 10, 5, 60), class: Hard},
		}},
		{"the resource condition is checked at every burst, not only the first", true, []admitStep{
			tq,
			{lq: lq(50, 150, 25, 20, 0, 100), class: Hard},
			{lq: lq(100, 110, 25, 20, 0, 100), class: Soft, failed: CondResource, burst: 1},
			{lq: lq(150, 60, 25, 20, 0, 100), class: Elastic, failed: CondFairness, burst: 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac, err := NewAdmissionControl(capacity, 2, tc.soft)
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range tc.steps {
				var d Decision
				if st.lq == nil {
					d = ac.AdmitTQ()
				} else {
					if err := st.lq.Validate(); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					d = ac.AdmitLQ(i, st.lq)
				}
				if d.Class != st.class || d.Failed != st.failed {
					t.Fatalf("step %d: got %v (failed %v: %s), want %v (failed %v)", i, d.Class, d.Failed, d.Reason(), st.class, st.failed)
				}
				if (st.failed == CondResource || st.failed == CondFairness) && d.Burst != st.burst {
					t.Fatalf("step %d: failed at burst %d, want %d", i, d.Burst, st.burst)
				}
				if d.Reason() == "" {
					t.Fatalf("step %d: empty reason", i)
				}
			}
		})
	}
}

func TestAdmissionReasonsNameTheBlockingQueue(t *testing.T) {
	ac, err := NewAdmissionControl(traces.Vec{100}, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	c := lq(0, 100, 60, 2, 100)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := ac.AdmitLQ(7, c); d.Class != Hard {
		t.Fatalf("first LQ: %v", d.Class)
	}
	d := ac.AdmitTQ()
	if d.Class != Rejected || d.Blocker != 7 {
		t.Fatalf("TQ after a 0.6 burst: %v blocked by %d, want rejected by 7", d.Class, d.Blocker)
	}
	got := d.Describe(func(id int) string { return "lq-seven" })
	if !strings.Contains(got, `"lq-seven"`) || !strings.Contains(got, "safety (2)") {
		t.Fatalf("reason %q does not name the condition and the blocking queue", got)
	}
	if ac.Admitted() != 1 || ac.Count(Rejected) != 1 || ac.Count(Hard) != 1 {
		t.Fatalf("counts: admitted %d, rejected %d, hard %d", ac.Admitted(), ac.Count(Rejected), ac.Count(Hard))
	}
}

func TestNewAdmissionControlRejectsBadArguments(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity traces.Vec
		dims     int
	}{
		{"zero dimensions are refused", traces.Vec{1}, 0},
		{"more dimensions than a vector holds are refused", traces.Vec{1}, traces.MaxDims + 1},
		{"a negative capacity is refused", traces.Vec{-1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewAdmissionControl(tc.capacity, tc.dims, true); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestContractIndexesBurstsByTime(t *testing.T) {
	c := &Contract{Start: 10, Count: 5, Shapes: []Shape{
		{Duration: 2, Period: 5, Demand: traces.Vec{1}},
		{Duration: 1, Period: 3, Demand: traces.Vec{2}},
	}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Bursts start at 10, 15, 18, 23, 26; the last cycle ends at 31.
	wantStarts := []traces.Time{10, 15, 18, 23, 26}
	for n, w := range wantStarts {
		if b := c.Burst(n); b.Start != w {
			t.Fatalf("burst %d starts at %d, want %d", n, b.Start, w)
		}
	}
	for _, tc := range []struct {
		name string
		t    traces.Time
		n    int
		ok   bool
	}{
		{"before the first burst there is none", 9, 0, false},
		{"the first instant belongs to burst 0", 10, 0, true},
		{"an OFF period belongs to the burst before it", 14, 0, true},
		{"the second shape's cycle is found", 17, 1, true},
		{"the pattern repeats", 24, 3, true},
		{"the last cycle ends after its period", 30, 4, true},
		{"after the last cycle there is none", 31, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := c.Index(tc.t)
			if ok != tc.ok || (ok && n != tc.n) {
				t.Fatalf("Index(%d) = %d, %v; want %d, %v", tc.t, n, ok, tc.n, tc.ok)
			}
		})
	}
	if got := burstsBefore(c, 23); got != 3 {
		t.Fatalf("bursts before 23 = %d, want 3", got)
	}
	if got := burstsBefore(c, 24); got != 4 {
		t.Fatalf("bursts before 24 = %d, want 4", got)
	}
	if got := burstsBefore(c, 5); got != 1 {
		t.Fatalf("bursts before a horizon preceding the start = %d, want 1", got)
	}
}

func TestContractValidateRejectsMalformedContracts(t *testing.T) {
	ok := Shape{Duration: 1, Period: 2}
	for _, tc := range []struct {
		name string
		c    Contract
	}{
		{"a contract without shapes is invalid", Contract{Count: 1}},
		{"a contract without bursts is invalid", Contract{Count: 0, Shapes: []Shape{ok}}},
		{"a contract starting before time 0 is invalid", Contract{Start: -1, Count: 1, Shapes: []Shape{ok}}},
		{"a burst longer than its period is invalid", Contract{Count: 1, Shapes: []Shape{{Duration: 3, Period: 2}}}},
		{"a zero period is invalid", Contract{Count: 1, Shapes: []Shape{{Duration: 0, Period: 0}}}},
		{"a negative demand is invalid", Contract{Count: 1, Shapes: []Shape{{Duration: 1, Period: 2, Demand: traces.Vec{-1}}}}},
		{"a contract beyond the time range is invalid", Contract{Count: 1 << 30, Shapes: []Shape{{Duration: 1, Period: 1 << 40}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.c.Validate(); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
