package alibaba2018

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/alibaba_set_0_cut.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, st, err := Parse(bytes.NewReader(data), "fuzz.csv", Options{Machines: 3})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "alibaba2018: ") {
				t.Fatalf("error without package prefix: %v", err)
			}
			var se *SyntaxError
			if errors.As(err, &se) && (se.Line < 1 || se.Field == "") {
				t.Fatalf("error without location: %#v", se)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
		if st.Rows != st.Tasks+st.SkippedRows || int(st.Jobs) != len(w.Jobs) {
			t.Fatalf("inconsistent stats %+v for %d jobs", *st, len(w.Jobs))
		}
	})
}
