package google2011

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
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

// FuzzTaskLevel feeds arbitrary bytes (plain or gzip) as task_events, beside a fixed job_events
// file, to the task-level import: it must end in a *ParseError naming the file, or produce jobs
// that form a valid workload and agree with the counts it reports.
func FuzzTaskLevel(f *testing.F) {
	f.Add(lines(te(700*s1, 1, 0, Submit, 2, "0.1", "0.01"), te(701*s1, 1, 0, Schedule, 2, "0.1", "0.01"), te(710*s1, 1, 0, Evict, 2, "0.1", "0.01"),
		te(711*s1, 1, 0, Schedule, 2, "0.1", "0.01"), te(800*s1, 1, 0, Finish, 2, "0.1", "0.01"), te(801*s1, 2, 3, Schedule, 9, "0.5", "")))
	f.Add(gz(f, lines(te(0, 2, 0, Schedule, 9, "0", "0"), te(0, 2, 1, Schedule, 10, "0.2", "0.1"), te(900*s1, 2, 1, Kill, 10, "", ""))))
	f.Add([]byte("0,2,1,0,77,1,u,3,9,,,,\n5,,1,70000,,1,u,0,0,1,1,0,1\n"))
	jobs := lines(je(0, 2, Submit), je(700*s1, 1, Submit), je(701*s1, 1, Schedule), je(900*s1, 1, Finish))
	f.Fuzz(func(t *testing.T, data []byte) {
		opener := func(name string) (io.ReadCloser, error) {
			if name == "job_events.csv" {
				return io.NopCloser(bytes.NewReader(jobs)), nil
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
		o, err := Options{Machines: 4, Placements: true}.normalize(Source{TaskEvents: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		c := &conversion{o: o, jobFiles: []string{"job_events.csv"}, taskFiles: []string{"task_events.csv"}, opener: opener,
			meta: canonical.Meta{Dims: []string{"cpu", "mem"}, Cluster: MixCluster(4)}, st: Stats{Level: LevelTask}}
		w := &traces.Workload{Dims: c.meta.Dims, Cluster: c.meta.Cluster}
		err = c.run(func(j *traces.Job) error {
			w.Jobs = append(w.Jobs, *j)
			return nil
		})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || (pe.File != "task_events.csv" && pe.File != "job_events.csv") || pe.Msg == "" {
				t.Fatalf("error without location: %v (%T)", err, err)
			}
			return
		}
		w.Jobs = sortJobs(w.Jobs)
		w.Placements = c.meta.Placements
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
		st := &c.st.Tasks
		if int64(len(w.Placements)) != c.st.Placements || c.st.Placements+c.st.PlacementsOff > st.Imported {
			t.Fatalf("%d placements (%d off the cluster) of %d tasks", len(w.Placements), c.st.PlacementsOff, st.Imported)
		}
		var outcomes int64
		for _, n := range st.Outcomes {
			outcomes += n
		}
		if w.Tasks() != st.Imported || outcomes != st.Imported || st.Imported+st.NeverScheduled != st.Seen || int64(len(w.Jobs)) != c.st.Imported {
			t.Fatalf("%d tasks in %d jobs; stats %+v, imported jobs %d", w.Tasks(), len(w.Jobs), *st, c.st.Imported)
		}
	})
}
