package tpcdag

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
)

func dumpQueues(qs []Queue) string {
	var b strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&b, "queue %q type=%s weight=%g start=%d period=%d line=%d\n", q.Name, q.Type, q.Weight, q.Start, q.Period, q.Line)
		for _, x := range q.Bursts {
			fmt.Fprintf(&b, "  burst duration=%d period=%d rates=%v demand=%v\n", x.Duration, x.Period, x.Rates, x.Demand)
		}
	}
	return b.String()
}

func TestQueuesGolden(t *testing.T) {
	for _, file := range []string{
		"queue_input.txt",
		"queue_input_multi_interactives.txt",
		"root_queue_input_1_8_40_TPC_H.txt",
		"queue_input_new_synthetic.txt",
	} {
		t.Run(file, func(t *testing.T) {
			qs, err := ReadQueues(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "queues_"+strings.TrimSuffix(file, ".txt"), dumpQueues(qs))
		})
	}
}

func TestQueues(t *testing.T) {
	qs, err := ReadQueues("testdata/root_queue_input_1_8_40_TPC_H.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 9 {
		t.Fatalf("queues = %d, want 9", len(qs))
	}
	lq := qs[0]
	if lq.Name != "bursty0" || lq.Type != QueueLQ || lq.Weight != 1 || lq.Start != 0 || lq.Period != 800_000_000 ||
		len(lq.Bursts) != 1 || lq.Bursts[0].Duration != 25_000_000 || fmt.Sprint(lq.Bursts[0].Rates) != "[40 40]" {
		t.Errorf("bursty0 = %+v", lq)
	}
	for _, q := range qs[1:] {
		if q.Type != QueueBatch || len(q.Bursts) != 0 || !strings.HasPrefix(q.Name, "batch") || ClassOf(q.Name) != "tq" {
			t.Errorf("batch queue = %+v", q)
		}
	}

	qs, err = ReadQueues("testdata/queue_input_new_synthetic.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Type != QueueLQ || qs[0].Start != 100_000_000 || len(qs[0].Bursts) != 2 ||
		qs[0].Bursts[1].Duration != 10_500_000 || qs[0].Bursts[1].Period != 500_000_000 || fmt.Sprint(qs[0].Bursts[1].Demand) != "[0.25 0]" ||
		qs[1].Type != QueueBatch || qs[1].Weight != 2.5 || qs[1].Bursts != nil {
		t.Errorf("new generation = %s", dumpQueues(qs))
	}
}

func TestQueuesCorrupt(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty", "", 1, "file", "no queues"},
		{"missing count", "# 0\nbatch 1.0 0\n", 3, "numSegments", "unexpected end of file"},
		{"non-numeric count", "batch 1.0 0\nmany\n", 2, "numSegments", "non-negative integer"},
		{"truncated segments", "lq 1 0 800\n2\n25 40\n", 4, "segment", "unexpected end of file"},
		{"segment cut by comment", "lq 1 0 800\n2\n25 40\n# 1\nb\n0\n", 4, "segment", "comment line"},
		{"segment with one field", "lq 1 0 800\n1\n25\n", 3, "segment", "at least 2 fields"},
		{"negative rate", "lq 1 0 800\n1\n25 -4\n", 3, "rate1", "negative"},
		{"negative weight", "q -1\n0\n", 1, "weight", "negative"},
		{"non-numeric start", "q 1 soon\n0\n", 1, "startTime", "want a number"},
		{"too many header fields", "q 1 0 800 9\n0\n", 1, "queue", "5 fields"},
		{"duplicate queue", "a\n0\nb\n0\na\n0\n", 5, "name", "duplicate queue \"a\" (first on line 1)"},
		{"new generation read for 3 fields with type 1", "batch 1 0\n0.5\n", 2, "numBursts", "non-negative integer"},
		{"new batch without weight", "b 0 0\n", 2, "weight", "unexpected end of file"},
		{"new lq burst with 3 fields", "l 1 0\n1\n25 100 0.5\n", 3, "burst", "4 fields"},
		{"new lq alpha above 1", "l 1 0\n1\n25 100 1.5 0.2\n", 3, "alpha_cpu", "whole cluster"},
		{"new lq overflowing period", "l 1 0\n1\n25 1e20 0.5 0.2\n", 3, "period", "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := ParseQueues(strings.NewReader(tc.in), "q.txt")
			if err == nil {
				t.Fatalf("no error; parsed %s", dumpQueues(qs))
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line != tc.line || se.Field != tc.field || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %v\nwant q.txt:%d: %s: ...%s...", err, tc.line, tc.field, tc.msg)
			}
		})
	}
}

func TestSharedQueues(t *testing.T) {
	dir := testutil.SharedData(t, "tpc-dags/input_bopf_2017-01-26")
	want := map[string]int{
		"queue_input.txt": 2, "queue_input_multi_batches.txt": 5, "queue_input_multi_interactives.txt": 5,
		"root_queue_input_1_1_1000_BB.txt": 2, "root_queue_input_1_8_40_TPC_H.txt": 9,
	}
	for file, n := range want {
		qs, err := ReadQueues(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if len(qs) != n {
			t.Errorf("%s: %d queues, want %d", file, len(qs), n)
		}
	}
}
