package borg2019

import (
	"errors"
	"os"
	"testing"
)

func FuzzDetect(f *testing.F) {
	for _, file := range []string{"testdata/instance_events_synthetic.json", "testdata/collection_events_header_synthetic.csv", "testdata/part-000.json.gz"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("part-000", b)
	}
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		err := Detect(name, head)
		if err == nil {
			return
		}
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || ue.Evidence == "" || ue.File != name {
			t.Fatalf("Detect returned %#v", err)
		}
	})
}
