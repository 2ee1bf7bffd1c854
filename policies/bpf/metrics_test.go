package bpf_test

import (
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/traces"
)

func TestCompletionsSplitLQAndTQJobs(t *testing.T) {
	s := traces.FromSeconds
	c := bpf.Completions([]bpf.JobTime{
		{Queue: "lq0", Class: "lq", Submit: s(10), Finish: s(40), Completed: true},
		{Queue: "lq0", Class: "LQ", Submit: s(100), Finish: s(110), Completed: true},
		{Queue: "lq0", Class: "lq", Submit: s(200), Finish: -1},
		{Queue: "tq0", Class: "tq", Submit: 0, Finish: s(500), Completed: true},
		{Queue: "default", Class: "", Submit: 0, Finish: -1},
	})
	if !slices.Equal(c.LQ, []float64{10, 30}) || c.LQAvg != 20 || c.LQUnfinished != 1 {
		t.Fatalf("LQ: %v avg %v unfinished %d; want [10 30], 20, 1", c.LQ, c.LQAvg, c.LQUnfinished)
	}
	if !slices.Equal(c.TQ, []float64{500}) || c.TQAvg != 500 || c.TQUnfinished != 1 {
		t.Fatalf("TQ: %v avg %v unfinished %d; want [500], 500, 1 (a classless job counts as TQ)", c.TQ, c.TQAvg, c.TQUnfinished)
	}
	if e := bpf.Completions(nil); e.LQAvg != 0 || e.TQAvg != 0 {
		t.Fatalf("empty input: averages %v, %v; want 0", e.LQAvg, e.TQAvg)
	}
}

func TestFactorOfImprovement(t *testing.T) {
	for _, tc := range []struct {
		name        string
		drf, policy float64
		want        float64
		wantErr     bool
	}{
		{"a policy twice as fast as DRF improves by 2", 100, 50, 2, false},
		{"a slower policy improves by less than 1", 50, 100, 0.5, false},
		{"a zero policy average is an error", 100, 0, 0, true},
		{"a negative DRF average is an error", -1, 10, 0, true},
		{"an infinite average is an error", math.Inf(1), 10, 0, true},
		{"a NaN average is an error", math.NaN(), 10, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bpf.FactorOfImprovement(tc.drf, tc.policy)
			if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
				t.Fatalf("got %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestCDFHasOneStepPerDistinctValue(t *testing.T) {
	got := bpf.CDF([]float64{3, 1, 3, 2})
	want := []bpf.CDFPoint{{X: 1, P: 0.25}, {X: 2, P: 0.5}, {X: 3, P: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("CDF = %v, want %v", got, want)
	}
	if len(bpf.CDF(nil)) != 0 {
		t.Fatal("CDF of nothing is not empty")
	}
}

func TestLongWindowSharesTakeTheDominantResourceOfTheAverage(t *testing.T) {
	usage := [][][traces.MaxDims]float64{
		{{0.4, 0.0}, {0.0, 0.4}, {0.2, 0.2}}, // alternating resources: dominant of the average 0.2
		{{0.5, 0.1}},                         // a shorter series is idle afterwards
	}
	got, err := bpf.LongWindowShares(usage, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.2, 0.2}, {0.25, 0}}
	for q := range want {
		for l := range want[q] {
			if math.Abs(got[q][l]-want[q][l]) > 1e-12 {
				t.Fatalf("queue %d long window %d: %v, want %v (all: %v)", q, l, got[q][l], want[q][l], got)
			}
		}
	}
	for _, tc := range []struct {
		name      string
		dims, per int
	}{
		{"a long window of no usage windows is refused", 2, 0},
		{"zero resource dimensions are refused", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := bpf.LongWindowShares(usage, tc.dims, tc.per); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestCheckFairness(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shares []bpf.QueueShare
		tol    float64
		ok     bool
		bad    []string
	}{
		{"TQs above every LQ pass", []bpf.QueueShare{
			{Queue: "lq0", Kind: bpf.LQ, Admitted: true, Share: 0.1},
			{Queue: "tq0", Kind: bpf.TQ, Admitted: true, Share: 0.4},
			{Queue: "tq1", Kind: bpf.TQ, Admitted: true, Share: 0.3},
		}, 0, true, nil},
		{"a TQ below an LQ fails", []bpf.QueueShare{
			{Queue: "lq0", Kind: bpf.LQ, Admitted: true, Share: 0.5},
			{Queue: "tq0", Kind: bpf.TQ, Admitted: true, Share: 0.4},
			{Queue: "tq1", Kind: bpf.TQ, Admitted: true, Share: 0.6},
		}, 0, false, []string{"tq0"}},
		{"the tolerance absorbs a small shortfall", []bpf.QueueShare{
			{Queue: "lq0", Kind: bpf.LQ, Admitted: true, Share: 0.5},
			{Queue: "tq0", Kind: bpf.TQ, Admitted: true, Share: 0.45},
		}, 0.1, true, nil},
		{"rejected queues take no part", []bpf.QueueShare{
			{Queue: "lq0", Kind: bpf.LQ, Admitted: false, Share: 0.9},
			{Queue: "tq0", Kind: bpf.TQ, Admitted: true, Share: 0.1},
			{Queue: "tq1", Kind: bpf.TQ, Admitted: false, Share: 0},
		}, 0, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := bpf.CheckFairness(tc.shares, tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, v := range c.Violations {
				bad = append(bad, v.TQ)
			}
			if c.OK != tc.ok || !slices.Equal(bad, tc.bad) {
				t.Fatalf("check %+v; want ok %v, violations %v", c, tc.ok, tc.bad)
			}
		})
	}
	if _, err := bpf.CheckFairness(nil, -1); err == nil {
		t.Fatal("a negative tolerance was accepted")
	}
}

func TestShareTableJoinsKindsAndAdmissions(t *testing.T) {
	jobs := []bpf.JobTime{{Queue: "a", Class: "lq"}, {Queue: "b", Class: "tq"}, {Queue: "c", Class: "lq"}}
	adm := []bpf.Admission{{Queue: "c", Kind: bpf.LQ, Class: bpf.Rejected}}
	got, err := bpf.ShareTable([]string{"a", "b", "c"}, []float64{0.1, 0.2, 0.3}, adm, jobs)
	if err != nil {
		t.Fatal(err)
	}
	want := []bpf.QueueShare{
		{Queue: "a", Kind: bpf.LQ, Admitted: true, Share: 0.1},
		{Queue: "b", Kind: bpf.TQ, Admitted: true, Share: 0.2},
		{Queue: "c", Kind: bpf.LQ, Admitted: false, Share: 0.3},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("table %+v, want %+v", got, want)
	}
	if _, err := bpf.ShareTable([]string{"a"}, nil, nil, nil); err == nil {
		t.Fatal("mismatched lengths were accepted")
	}
}
