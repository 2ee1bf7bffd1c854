package decima

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/tpch_2g_cut.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse(bytes.NewReader(data), "fuzz.json", Options{Executors: 10})
		if err != nil {
			var se *SyntaxError
			if !strings.HasPrefix(err.Error(), "decima: ") {
				t.Fatalf("error without package prefix: %v", err)
			}
			if errors.As(err, &se) && (se.Line < 1 || se.Col < 1 || se.Field == "") {
				t.Fatalf("error without location: %#v", se)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
	})
}
