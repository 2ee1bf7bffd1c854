package tpcdag

import (
	"bytes"
	"os"
	"reflect"

	"github.com/schedlab/schedlab/traces"
	"testing"
)

// TestWriteJobRoundTrip parses a BoPF jobs_input file, writes every job back with WriteJob and
// parses that: the jobs must come back equal, and the bytes written twice must be the same.
func TestWriteJobRoundTrip(t *testing.T) {
	const file = "testdata/jobs_input_1_8_40_TPC_H_cut.txt"
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w1, err := Parse(bytes.NewReader(raw), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(jobs []traces.Job) []byte {
		var b bytes.Buffer
		for i := range jobs {
			if err := WriteJob(&b, jobs[i].ID, jobs[i].Name, &jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	out := write(w1.Jobs)
	w2, err := Parse(bytes.NewReader(out), "written", Options{})
	if err != nil {
		t.Fatalf("parsing what WriteJob wrote: %v", err)
	}
	if len(w2.Jobs) != len(w1.Jobs) || len(w1.Jobs) == 0 {
		t.Fatalf("%d jobs written back as %d", len(w1.Jobs), len(w2.Jobs))
	}
	for i := range w1.Jobs {
		if !reflect.DeepEqual(w1.Jobs[i], w2.Jobs[i]) {
			t.Fatalf("job %d changed in a round trip:\n%+v\n%+v", i, w1.Jobs[i], w2.Jobs[i])
		}
	}
	if again := write(w2.Jobs); !bytes.Equal(again, out) {
		t.Error("writing the parsed jobs again gave other bytes")
	}
}
