package google2011

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzParseJobEvents feeds arbitrary bytes (plain or gzip) to the job_events scanner: it must
// return records or a *ParseError naming the file, never panic or report an inconsistent record.
func FuzzParseJobEvents(f *testing.F) {
	f.Add(lines(je(700*s1, 1, Submit), je(701*s1, 1, Schedule), je(800*s1, 1, Finish)))
	f.Add(gz(f, lines(je(0, 2, Submit), je(0, 2, Schedule), je(5000*s1, 2, Kill))))
	f.Fuzz(func(t *testing.T, data []byte) {
		opener := func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		var st ScanStats
		n := int64(0)
		err := scanJobFiles([]string{"fuzz.csv"}, nil, opener, func(r *JobRecord) error {
			n++
			switch {
			case r.ID < 0:
				t.Fatalf("negative id: %+v", r)
			case r.Submit < -1 || r.FirstSchedule < -1 || r.End < -1:
				t.Fatalf("bad times: %+v", r)
			case r.Runtime != -1 && (r.FinalState != Finish || r.Runtime != r.End-r.FirstSchedule || r.Runtime < 0 || r.FirstSchedule <= 0):
				t.Fatalf("bad runtime: %+v", r)
			case r.End == -1 && r.FinalState.Terminal():
				t.Fatalf("open job with a terminal state: %+v", r)
			case r.SchedClass < -1 || r.SchedClass > 3:
				t.Fatalf("bad class: %+v", r)
			}
			return nil
		}, &st)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.csv" || pe.Msg == "" || !strings.HasPrefix(err.Error(), "google2011: fuzz.csv") {
				t.Fatalf("error without location: %v (%T)", err, err)
			}
			return
		}
		if n != st.Records || n > st.JobEvents {
			t.Fatalf("%d records from %d lines (stats %d)", n, st.JobEvents, st.Records)
		}
	})
}
