package tpcdag

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFixtures seeds a fuzz target with the real fixtures matching pattern (the committed corpus
// under testdata/fuzz/<target> is added by the fuzzing engine itself).
func addFixtures(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzParse(f *testing.F) {
	addFixtures(f, "*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, o := range []Options{{}, {Dims: 6, LastStageWins: true}} {
			w, err := Parse(bytes.NewReader(data), "fuzz.txt", o)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "tpcdag: ") {
					t.Fatalf("error without package prefix: %v", err)
				}
				var se *SyntaxError
				if errors.As(err, &se) && (se.File != "fuzz.txt" || se.Line < 1 || se.Field == "") {
					t.Fatalf("error without location: %#v", se)
				}
				continue
			}
			if err := w.Validate(); err != nil {
				t.Fatalf("Parse returned an invalid workload: %v", err)
			}
			if len(w.Jobs) == 0 {
				t.Fatal("Parse returned no jobs and no error")
			}
		}
	})
}

func FuzzParseQueues(f *testing.F) {
	addFixtures(f, "*queue*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ParseQueues(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Field == "" {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		if len(qs) == 0 {
			t.Fatal("no queues and no error")
		}
		for _, q := range qs {
			if q.Name == "" || (q.Type != QueueBatch && q.Type != QueueLQ) || q.Weight < 0 || q.Start < 0 {
				t.Fatalf("bad queue %+v", q)
			}
		}
	})
}
