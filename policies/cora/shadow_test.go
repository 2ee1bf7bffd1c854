package cora

import (
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/policies/internal/jobwork"
	"github.com/schedlab/schedlab/policies/rrh"
	"github.com/schedlab/schedlab/traces"
)

func TestSequenceSlots(t *testing.T) {
	// C = 4; work 6, 2, 8 → served in order 1, 0, 2: cumulative 2, 8, 16 → slots 1, 2, 4.
	p := &Problem{Slots: 4, Capacity: []int64{4}, Work: [][]int64{{6}, {2}, {8}}, Utility: Table{{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}}
	if got := SequenceSlots(p, []int{1, 0, 2}); !slices.Equal(got, []int{2, 1, 4}) {
		t.Errorf("slots %v, want [2 1 4]", got)
	}
}

// TestFairSlots checks weighted processor sharing by hand: C = 3, work 3, 3, 12 with weights 1,
// 2, 3. Virtual time runs at 3/6 per slot: job 1 (ratio 1.5) ends at 3 slots; then 3/4: job 0
// (ratio 3, 1.5 later) at 3 + 1.5·4/3 = 5; then 3/3: job 2 (ratio 4) at 5 + 1 = 6.
func TestFairSlots(t *testing.T) {
	p := &Problem{Slots: 6, Capacity: []int64{3}, Work: [][]int64{{3}, {3}, {12}}}
	meta := []Meta{{Weight: 1}, {Weight: 2}, {Weight: 3}}
	if got := FairSlots(p, meta); !slices.Equal(got, []int{5, 3, 6}) {
		t.Errorf("slots %v, want [5 3 6]", got)
	}
	// Equal weights (0 reads as 1) on equal work finish together.
	p = &Problem{Slots: 2, Capacity: []int64{2}, Work: [][]int64{{2}, {2}}}
	if got := FairSlots(p, []Meta{{}, {Weight: -1}}); !slices.Equal(got, []int{2, 2}) {
		t.Errorf("slots %v, want [2 2]", got)
	}
}

// TestShadowOrders: one job with an early target and a gradual utility, one with a later target
// and a steep one, one flat; C = 2.
func TestShadowOrders(t *testing.T) {
	sig := func(p, mu, target float64) *traces.Utility {
		return &traces.Utility{Kind: traces.UtilitySigmoid, Priority: p, Decay: mu, Target: traces.FromSeconds(target)}
	}
	jobs := []jobwork.Job{
		{Work: [traces.MaxDims]float64{20}, Utility: sig(2, 0.05, 10), Submit: 0},
		{Work: [traces.MaxDims]float64{20}, Utility: sig(2, 5, 25), Submit: 1},
		{Work: [traces.MaxDims]float64{20}, Utility: sig(2, 0, 0), Submit: 2},
	}
	meta := []Meta{{Submit: 0, Deadline: traces.FromSeconds(10)}, {Submit: 1, Deadline: traces.FromSeconds(25)}, {Submit: 2}}
	capacity := traces.VecOf(2)
	sl := NewSlotting(0, 10*traces.Second, capacity)
	p := sl.Problem(capacity, jobs)
	m := Shadow(p, 0, capacity, jobs, meta, rrh.DefaultParams())
	ex, err := Exact(p, ExactBudget{})
	if err != nil {
		t.Fatal(err)
	}
	// No rule's projected min exceeds the exact max-min, and RRH serves the steep job first.
	for name, v := range map[string]float64{"fifo": m.FIFO, "fair": m.Fair, "edf": m.EDF, "rrh": m.RRH} {
		if v > ex.MinUtility()+1e-12 {
			t.Errorf("%s's min %v exceeds the exact max-min %v", name, v, ex.MinUtility())
		}
	}
	if got := SequenceSlots(p, rrh.Rank(0, capacity, jobs, rrh.DefaultParams())); got[1] != 1 {
		t.Errorf("RRH slots %v: the steep job should end first", got)
	}
}

// TestShadowMetrics summarizes four events by hand: CORA's min 1, 1, 0.5, 0 against Fair's 0.5,
// 0.9, 0.5, 0: gains 0.5, 0.1, 0, 0 and relative gains 0.5, 0.1, 0, 0 (0 where CORA's min is 0).
func TestShadowMetrics(t *testing.T) {
	var l shadowLog
	for i, fair := range []float64{0.5, 0.9, 0.5, 0} {
		cora := []float64{1, 1, 0.5, 0}[i]
		l.add(float64(i), 2, cora, ShadowMins{FIFO: cora, Fair: fair, EDF: cora, RRH: cora})
	}
	m := map[string]float64{}
	l.metrics(m)
	for k, want := range map[string]float64{
		"cora.shadow.fair.positive":          0.5,
		"cora.shadow.fair.mean_gain":         0.15,
		"cora.shadow.fair.share_rel_gain_18": 0.25,  // only the first event's 50% reaches 18%
		"cora.shadow.fair.rel_gain_q35":      0.005, // sorted 0, 0, 0.1, 0.5: rank 1.05 → 0 + 0.05·0.1
		"cora.shadow.fifo.positive":          0,
		"cora.shadow.fifo.share_rel_gain_18": 0,
	} {
		if got := m[k]; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
}
