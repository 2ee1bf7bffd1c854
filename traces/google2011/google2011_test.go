package google2011

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// fmtRec renders the fields of a record that tests and golden files compare.
func fmtRec(r *JobRecord) string {
	return fmt.Sprintf("id=%d submit=%d sched=%d end=%d final=%s runtime=%d tasks=%d cpu=%.6g mem=%.6g user=%.8s name=%.8s logical=%.8s sc=%d prio=%d resub=%d",
		r.ID, r.Submit, r.FirstSchedule, r.End, r.FinalState, r.Runtime, r.Tasks, r.CPURequest, r.MemRequest,
		r.User, r.JobName, r.LogicalJobName, r.SchedClass, r.Priority, r.Resubmissions)
}

func je(t int64, id int64, typ EventType) string {
	return fmt.Sprintf("%d,,%d,%d,user%d,1,name%d,logical%d", t, id, typ, id%2, id, id%3)
}

func te(t int64, id int64, idx int, typ EventType, prio int, cpu, mem string) string {
	return fmt.Sprintf("%d,,%d,%d,,%d,user%d,1,%d,%s,%s,,", t, id, idx, typ, id%2, prio, cpu, mem)
}

// jeMissing is je with the missing_info field set (an event the trace reconstructed).
func jeMissing(t int64, id int64, typ EventType, missing int) string {
	return fmt.Sprintf("%d,%d,%d,%d,user%d,1,name%d,logical%d", t, missing, id, typ, id%2, id, id%3)
}

// distinctJobs returns n SUBMIT lines of n jobs.
func distinctJobs(n int) []byte {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = je(700*s1, int64(i), Submit)
	}
	return lines(ls...)
}

func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// scanLines runs the job scanner over in-memory job and task events.
func scanLines(t *testing.T, jobs, tasks []byte) ([]string, ScanStats, error) {
	t.Helper()
	dir := t.TempDir()
	src := Source{JobEvents: []string{writeFile(t, dir, "job_events.csv", jobs)}}
	if tasks != nil {
		src.TaskEvents = []string{writeFile(t, dir, "task_events.csv", tasks)}
	}
	var got []string
	var st ScanStats
	err := scanJobs(src, func(r *JobRecord) error {
		got = append(got, fmtRec(r))
		return nil
	}, &st)
	return got, st, err
}

const (
	s1 = traces.Second
	h  = traces.Hour
)

func TestScanJobsSemantics(t *testing.T) {
	nan := math.NaN()
	rec := func(id, submit, sched, end int64, final EventType, runtime int64, tasks int32, cpu, mem float64, prio int8, resub int32) string {
		return fmtRec(&JobRecord{ID: id, Submit: submit, FirstSchedule: sched, End: end, FinalState: final, Runtime: runtime,
			Tasks: tasks, CPURequest: cpu, MemRequest: mem, User: fmt.Sprintf("user%d", id%2), JobName: fmt.Sprintf("name%d", id),
			LogicalJobName: fmt.Sprintf("logical%d", id%3), SchedClass: 1, Priority: prio, Resubmissions: resub})
	}
	cases := []struct {
		name        string
		jobs, tasks []byte
		want        []string
		check       func(t *testing.T, st ScanStats)
	}{
		{"finish", lines(je(700*s1, 1, Submit), je(701*s1, 1, Schedule), je(800*s1, 1, Finish)), nil,
			[]string{rec(1, 700*s1, 701*s1, 800*s1, Finish, 99*s1, 0, nan, nan, -1, 0)}, nil},
		{"before window", lines(je(0, 2, Submit), je(0, 2, Schedule), je(5000*s1, 2, Finish)), nil,
			[]string{rec(2, 0, 0, 5000*s1, Finish, -1, 0, nan, nan, -1, 0)}, nil},
		{"killed", lines(je(700*s1, 3, Submit), je(701*s1, 3, Schedule), je(900*s1, 3, Kill)), nil,
			[]string{rec(3, 700*s1, 701*s1, 900*s1, Kill, -1, 0, nan, nan, -1, 0)}, nil},
		{"still open", lines(je(700*s1, 4, Submit), je(701*s1, 4, Schedule), je(702*s1, 4, UpdateRunning)), nil,
			[]string{rec(4, 700*s1, 701*s1, -1, UpdateRunning, -1, 0, nan, nan, -1, 0)},
			func(t *testing.T, st ScanStats) {
				if st.OpenAtEnd != 1 {
					t.Errorf("OpenAtEnd = %d", st.OpenAtEnd)
				}
			}},
		{"after window", lines(je(700*s1, 5, Submit), je(701*s1, 5, Schedule), je(math.MaxInt64, 5, Finish)), nil,
			[]string{rec(5, 700*s1, 701*s1, math.MaxInt64, Finish, -1, 0, nan, nan, -1, 0)}, nil},
		{"resubmitted after fail", lines(
			je(1000*s1, 6, Submit), je(1100*s1, 6, Schedule), je(1200*s1, 6, Fail),
			je(1300*s1, 6, Submit), je(1350*s1, 6, Schedule), je(1500*s1, 6, Finish)), nil,
			[]string{rec(6, 1000*s1, 1100*s1, 1500*s1, Finish, 400*s1, 0, nan, nan, -1, 1)},
			func(t *testing.T, st ScanStats) {
				if st.Resubmissions != 1 {
					t.Errorf("Resubmissions = %d", st.Resubmissions)
				}
			}},
		{"resubmitted after report", lines(
			je(1000*s1, 8, Submit), je(1001*s1, 8, Schedule), je(1002*s1, 8, Fail),
			je(1002*s1+h+1, 9, Submit),         // reports job 8
			jeMissing(1002*s1+h+2, 8, Lost, 1), // late, reconstructed by the trace: counted, ignored
			je(1002*s1+h+3, 8, Submit), je(1002*s1+h+4, 8, Schedule), je(1002*s1+h+5, 8, Finish)), nil,
			[]string{
				rec(8, 1000*s1, 1001*s1, 1002*s1, Fail, -1, 0, nan, nan, -1, 0),
				rec(8, 1002*s1+h+3, 1002*s1+h+4, 1002*s1+h+5, Finish, 1, 0, nan, nan, -1, 0),
				rec(9, 1002*s1+h+1, -1, -1, Submit, -1, 0, nan, nan, -1, 0),
			},
			func(t *testing.T, st ScanStats) {
				if st.LateJobEvents != 1 {
					t.Errorf("LateJobEvents = %d", st.LateJobEvents)
				}
			}},
		{"report order", lines(
			je(700*s1, 10, Submit), je(701*s1, 11, Submit), je(702*s1, 12, Submit),
			je(703*s1, 11, Schedule), je(704*s1, 11, Finish), je(705*s1, 10, Schedule), je(706*s1, 10, Finish)), nil,
			[]string{
				rec(11, 701*s1, 703*s1, 704*s1, Finish, 1*s1, 0, nan, nan, -1, 0),
				rec(10, 700*s1, 705*s1, 706*s1, Finish, 1*s1, 0, nan, nan, -1, 0),
				rec(12, 702*s1, -1, -1, Submit, -1, 0, nan, nan, -1, 0),
			}, nil},
		{"tasks", lines(je(700*s1, 13, Submit), je(701*s1, 13, Schedule), je(800*s1, 13, Finish)),
			lines(
				te(700*s1, 13, 0, Submit, 2, "0.1", "0.01"),
				te(700*s1, 13, 1, Submit, 2, "0.2", "0.02"),
				te(700*s1, 13, 2, Submit, 2, "", ""),
				te(701*s1, 13, 0, Schedule, 2, "0.1", "0.01"),
				te(702*s1, 13, 1, Evict, 9, "0.2", "0.02"),
				te(703*s1, 13, 1, Submit, 9, "0.9", "0.09"),
				te(704*s1, 13, 2, UpdatePending, 2, "0.3", "0.03"),
				te(800*s1, 13, 0, Finish, 2, "0.1", "0.01"),
				te(900*s1, 13, 1, Kill, 9, "", ""),         // after the job's FINISH, within the grace period
				te(901*s1, 14, 0, Submit, 0, "0.5", "0.5"), // a job without job events
			),
			[]string{rec(13, 700*s1, 701*s1, 800*s1, Finish, 99*s1, 3, 0.2, 0.02, 9, 0)},
			func(t *testing.T, st ScanStats) {
				if st.OrphanJobs != 1 || st.TaskEvents != 10 || st.JobEvents != 3 {
					t.Errorf("stats %+v", st)
				}
			}},
		{"late task event", lines(je(700*s1, 15, Submit), je(701*s1, 15, Schedule), je(702*s1, 15, Finish), je(702*s1+h+1, 16, Submit)),
			lines(te(702*s1+h+2, 15, 0, Kill, 0, "", "")),
			[]string{
				rec(15, 700*s1, 701*s1, 702*s1, Finish, 1*s1, 0, nan, nan, -1, 0),
				rec(16, 702*s1+h+1, -1, -1, Submit, -1, 0, nan, nan, -1, 0),
			},
			func(t *testing.T, st ScanStats) {
				if st.LateTaskEvents != 1 {
					t.Errorf("LateTaskEvents = %d", st.LateTaskEvents)
				}
			}},
		{"a history begun before the input", lines(je(700*s1, 18, Kill), je(701*s1, 18, Submit), je(702*s1, 18, Schedule), je(703*s1, 18, Finish)), nil,
			[]string{rec(18, 701*s1, 702*s1, 703*s1, Finish, 1*s1, 0, nan, nan, -1, 0)}, nil},
		{"crlf and blank lines", []byte(je(700*s1, 17, Submit) + "\r\n\r\n" + je(701*s1, 17, Schedule) + "\r\n\n" + je(702*s1, 17, Finish)), nil,
			[]string{rec(17, 700*s1, 701*s1, 702*s1, Finish, 1*s1, 0, nan, nan, -1, 0)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, st, err := scanLines(t, c.jobs, c.tasks)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("records:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(c.want, "\n     "))
			}
			if c.check != nil {
				c.check(t, st)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	good := je(700*s1, 1, Submit)
	cases := []struct {
		name   string
		file   string // name of the job_events file
		data   []byte
		tasks  []byte
		line   int64
		field  string
		substr string
	}{
		{"empty", "job_events.csv", nil, nil, 0, "", "empty file"},
		{"blank only", "job_events.csv", []byte("\n\n"), nil, 0, "", "empty file"},
		{"empty gzip", "job_events.csv.gz", gz(t, nil), nil, 0, "", "empty file"},
		{"truncated gzip", "job_events.csv.gz", func() []byte {
			b := gz(t, distinctJobs(2000))
			return b[:len(b)/2]
		}(), nil, -1, "", "truncated"},
		{"corrupt gzip", "job_events.csv.gz", func() []byte {
			b := gz(t, distinctJobs(2000))
			for i := 20; i < 60; i++ {
				b[i] ^= 0x5a
			}
			return b
		}(), nil, -1, "", "gzip: "},
		{"header", "job_events.csv", lines("time,missing info,job ID,event type,user,scheduling class,job name,logical job name", good), nil, 1, "", "unexpected header line"},
		{"few fields", "job_events.csv", lines(good, "700000000,,1,0,u,1,n"), nil, 2, "", "7 fields, want 8"},
		{"many fields", "job_events.csv", lines(good + ",x"), nil, 1, "", "9 fields, want 8"},
		{"non-numeric id", "job_events.csv", lines("700000000,,abc,0,u,1,n,l"), nil, 1, "job ID", `not an integer: "abc"`},
		{"missing time", "job_events.csv", lines(",,1,0,u,1,n,l"), nil, 1, "time", "missing"},
		{"negative time", "job_events.csv", lines("-5,,1,0,u,1,n,l"), nil, 1, "time", "negative value -5"},
		{"overflowing time", "job_events.csv", lines("9223372036854775808,,1,0,u,1,n,l"), nil, 1, "time", "overflows"},
		{"time backwards", "job_events.csv", lines(good, "\n", "600000000,,1,1,u,1,n,l"), nil, 4, "time", "earlier than the previous"},
		{"unknown event type", "job_events.csv", lines("700000000,,1,9,u,1,n,l"), nil, 1, "event type", "unknown event type 9"},
		{"bad scheduling class", "job_events.csv", lines("700000000,,1,0,u,7,n,l"), nil, 1, "scheduling class", "outside 0..3"},
		{"bad missing info", "job_events.csv", lines("700000000,5,1,0,u,1,n,l"), nil, 1, "missing info", "outside 0..2"},
		{"task priority missing", "job_events.csv", lines(good), lines("700000000,,1,0,,0,u,1,,0.1,0.1,,"), 1, "priority", "missing"},
		{"task cpu not a number", "job_events.csv", lines(good), lines("700000000,,1,0,,0,u,1,9,abc,0.1,,"), 1, "CPU request", "not a number"},
		{"task mem negative", "job_events.csv", lines(good), lines("700000000,,1,0,,0,u,1,9,0.1,-0.5,,"), 1, "memory request", "negative"},
		{"task mem infinite", "job_events.csv", lines(good), lines("700000000,,1,0,,0,u,1,9,0.1,Inf,,"), 1, "memory request", "finite"},
		{"task index negative", "job_events.csv", lines(good), lines("700000000,,1,-1,,0,u,1,9,0.1,0.1,,"), 1, "task index", "negative"},
		{"task restriction", "job_events.csv", lines(good), lines("700000000,,1,0,,0,u,1,9,0.1,0.1,,2"), 1, "different machines restriction", "outside 0..1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := Source{JobEvents: []string{writeFile(t, dir, c.file, c.data)}}
			if c.tasks != nil {
				src.TaskEvents = []string{writeFile(t, dir, "task_events.csv", c.tasks)}
			}
			err := ScanJobs(src, func(*JobRecord) error { return nil })
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *ParseError", err, err)
			}
			if !strings.HasPrefix(err.Error(), "google2011: ") || !strings.Contains(pe.Msg, c.substr) || pe.Field != c.field ||
				c.line >= 0 && pe.Line != c.line || c.line < 0 && pe.Line < 1 || !strings.HasSuffix(pe.File, ".csv") && !strings.HasSuffix(pe.File, ".gz") {
				t.Errorf("error %q (%+v): want line %d, field %q, message containing %q", err, *pe, c.line, c.field, c.substr)
			}
		})
	}
}

func TestFnErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ScanJobs(miniSource(), func(*JobRecord) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Errorf("err %v after %d records, want stop after 5", err, n)
	}
}

// TestGoldenMini pins the records, task histories and workload of the committed 300-job fixture.
func TestGoldenMini(t *testing.T) {
	var b bytes.Buffer
	var st ScanStats
	var runtimes int
	if err := scanJobs(miniSource(), func(r *JobRecord) error {
		fmt.Fprintln(&b, fmtRec(r))
		if r.Runtime > 0 {
			runtimes++
		}
		return nil
	}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Records != 300 || runtimes != 300 || st.JobEvents != 900 || st.TaskEvents != 1599 {
		t.Errorf("mini fixture: %d records, %d with runtime, %d job events, %d task events; want 300, 300, 900, 1599", st.Records, runtimes, st.JobEvents, st.TaskEvents)
	}
	fmt.Fprintf(&b, "stats %+v\n", st)
	goldenCompare(t, "mini_jobs.txt", b.Bytes())

	b.Reset()
	tasks, events := 0, 0
	if err := ScanTasks(miniSource(), func(r *TaskRecord) error {
		tasks++
		events += len(r.Events)
		if tasks > 120 {
			return nil // keep the golden file small
		}
		fmt.Fprintf(&b, "job=%d task=%d final=%s events=", r.JobID, r.Index, r.FinalState())
		for i, e := range r.Events {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d:%s@m%d/p%d/%.4g", e.Time, e.Type, e.Machine, e.Priority, e.CPURequest)
		}
		b.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if tasks != 517 || events != 1599 { // SOURCE.txt says 533 tasks; the rows hold 517 distinct (job, index) pairs
		t.Errorf("ScanTasks: %d tasks with %d events, want 517 and 1599", tasks, events)
	}
	goldenCompare(t, "mini_tasks.txt", b.Bytes())

	w, wst, err := WorkloadStats(miniSource(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	fmt.Fprintf(&b, "name %s\nsource %s\njobs %d tasks %d machines %d hash %s\n", w.Name, w.Source, len(w.Jobs), w.Tasks(), len(w.Cluster.Machines), w.Hash())
	wst.Fprint(&b)
	for _, j := range w.Jobs[:10] {
		s := j.Stages[0]
		fmt.Fprintf(&b, "job %d submit %d class %s prio %d tasks %d demand %s duration %d\n", j.ID, j.Submit, j.Class, j.Priority, s.Tasks, s.Demand.Format(2), s.Duration)
	}
	goldenCompare(t, "mini_workload.txt", b.Bytes())
}

func TestImportRoundTrip(t *testing.T) {
	want, err := Workload(miniSource(), Options{Name: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".parquet", ".arrow"} {
		path := filepath.Join(t.TempDir(), "mini"+ext)
		st, err := Import(miniSource(), Options{Name: "mini"}, path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Imported != int64(len(want.Jobs)) {
			t.Errorf("imported %d, want %d", st.Imported, len(want.Jobs))
		}
		got, err := canonical.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash() != want.Hash() || !reflect.DeepEqual(got.Jobs, want.Jobs) || got.Source != want.Source {
			t.Errorf("%s: imported workload differs from Workload()", ext)
		}
	}
}

func TestWorkloadWithoutTasks(t *testing.T) {
	src := miniSource()
	src.TaskEvents = nil
	w, st, err := WorkloadStats(src, Options{DefaultCPU: 0.5, DefaultMem: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if st.DefaultDemand != 300 || len(w.Jobs) != 300 || len(w.Cluster.Machines) != 12583 || st.Level != LevelJob {
		t.Errorf("default demand %d, jobs %d, machines %d", st.DefaultDemand, len(w.Jobs), len(w.Cluster.Machines))
	}
	for _, j := range w.Jobs {
		if s := j.Stages[0]; s.Tasks != 1 || s.Demand != traces.VecOf(0.5, 0.25) || j.Priority != -1 || s.Duration <= 0 {
			t.Fatalf("job %d: %+v", j.ID, j)
		}
	}
	var b bytes.Buffer
	st.Fprint(&b)
	if !strings.Contains(b.String(), "task counts and per-task demands are unknown") || !strings.Contains(w.Source, "task counts and demands unknown") {
		t.Errorf("a job-level import without task_events must say so:\n%s\nsource %s", b.String(), w.Source)
	}
	if _, err := Workload(src, Options{DefaultCPU: 2}); err == nil {
		t.Error("default request 2 accepted")
	}
}

func TestClusterOf(t *testing.T) {
	src := Source{MachineEvents: []string{filepath.Join("testdata", "machines")}}
	hashB, hashC := "HofLGzk1Or/8Ildj2+Lqv0UGGvY82NLoni8+J/Yy0RU=", "70ZOvysYGtB6j9MUHMPzA2Iy7GRzWu4U9E0CmmYw3+I="
	for _, tc := range []struct {
		at   traces.Time
		want []traces.Machine
		st   MachineStats
	}{
		{0, []traces.Machine{
			{Name: "m5", Capacity: traces.VecOf(0.5, 0.2493), Platform: hashB},
			{Name: "m6", Capacity: traces.VecOf(0.5, 0.4995), Platform: hashB},
			{Name: "m7", Capacity: traces.VecOf(1, 1), Platform: hashC},
		}, MachineStats{Skipped: 1}},
		// Machine 6 is removed at 835,150 s and added again at 900,000 s.
		{850_000 * s1, []traces.Machine{
			{Name: "m5", Capacity: traces.VecOf(0.5, 0.2493), Platform: hashB},
			{Name: "m7", Capacity: traces.VecOf(1, 1), Platform: hashC},
		}, MachineStats{Skipped: 1, Gone: 1}},
		// Machine 5's memory is updated at 1,000,000 s.
		{1_000_000 * s1, []traces.Machine{
			{Name: "m5", Capacity: traces.VecOf(0.5, 0.749), Platform: hashB},
			{Name: "m6", Capacity: traces.VecOf(0.5, 0.4995), Platform: hashB},
			{Name: "m7", Capacity: traces.VecOf(1, 1), Platform: hashC},
		}, MachineStats{Skipped: 1}},
	} {
		c, st, err := ClusterOf(src, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if st != tc.st || !reflect.DeepEqual(c.Machines, tc.want) {
			t.Errorf("ClusterOf(t=%d) = %+v, %+v; want %+v, %+v", tc.at, c.Machines, st, tc.want, tc.st)
		}
	}
	// Machines added after the time are counted, not kept.
	late := writeFile(t, t.TempDir(), "machine_events.csv", lines("0,1,0,p,0.5,0.5", "5000000000,2,0,p,1,1"))
	if c, st, err := ClusterOf(Source{MachineEvents: []string{late}}, 0); err != nil || len(c.Machines) != 1 || st.Later != 1 {
		t.Errorf("late machine: %+v, %+v, %v", c.Machines, st, err)
	}
	// A workload over these machines clamps nothing (requests are normalized to the largest).
	src.JobEvents, src.TaskEvents = miniSource().JobEvents, miniSource().TaskEvents
	w, st, err := WorkloadStats(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if st.Machines != 3 || st.MachineStats.Skipped != 1 || st.Tasks.ClampedRequest != 0 {
		t.Errorf("stats %+v", st)
	}
	if _, _, err := ClusterOf(Source{MachineEvents: []string{writeFile(t, t.TempDir(), "machine_events.csv", lines("0,1,3,,0.5,0.5"))}}, 0); err == nil || !strings.Contains(err.Error(), `field "event type"`) {
		t.Errorf("bad machine event type: %v", err)
	}
}

func TestMachineMix(t *testing.T) {
	c := MixCluster(0)
	if len(c.Machines) != PublishedMachines {
		t.Fatalf("%d machines", len(c.Machines))
	}
	total := c.Total()
	// Table 1: 6732*.5 + 3863*.5 + 1001*.5 + 795 + 126*.25 + 52*.5 + 5*.5 + 5*.5 + 3 + .5 cores.
	if got, want := total.Float(0), 6732*0.5+3863*0.5+1001*0.5+795+126*0.25+52*0.5+5*0.5+5*0.5+3+0.5; math.Abs(got-want) > 1e-6 {
		t.Errorf("total cpu %v, want %v", got, want)
	}
	platforms := map[string]int{}
	for _, m := range c.Machines {
		platforms[m.Platform]++
	}
	if !reflect.DeepEqual(platforms, map[string]int{"A": 126, "B": 6732 + 3863 + 1001 + 52 + 5 + 5 + 1, "C": 795 + 3}) {
		t.Errorf("platforms %v", platforms)
	}
	// Scaled: counts follow the shares by largest remainder and always add up.
	for _, n := range []int{1, 10, 100, 1000, 12509, 50000} {
		counts := apportion(machineMix, n)
		sum := 0
		for i, k := range counts {
			sum += k
			exact := float64(machineMix[i].Machines) * float64(n) / PublishedMachines
			if math.Abs(float64(k)-exact) >= 1 {
				t.Errorf("n=%d: configuration %d gets %d machines, its share is %.2f", n, i, k, exact)
			}
		}
		if sum != n || len(MixCluster(n).Machines) != n {
			t.Errorf("n=%d: %d machines", n, sum)
		}
	}
	if got := apportion(machineMix, 100); !slices.Equal(got, []int{54, 31, 8, 6, 1, 0, 0, 0, 0, 0}) {
		t.Errorf("100 machines: %v", got)
	}
	for _, bad := range []string{"", "machines,platform,cpu,memory\n", "x,y\n", "machines,platform,cpu,memory\n0,B,0.5,0.5\n", "machines,platform,cpu,memory\n3,B,1.5,0.5\n", "m,p,c,x\n1,B,0.5,0.5\n"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("parseMix(%q) accepted", bad)
		}
	}
}

func TestDiscoverAndSourceOf(t *testing.T) {
	src, err := Discover(filepath.Join("testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(src, miniSource()) {
		t.Errorf("Discover = %+v", src)
	}
	src, err = SourceOf(filepath.Join("testdata", "mini", "job_events"), filepath.Join("testdata", "machines", "machine_events.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(src.JobEvents) != 1 || len(src.MachineEvents) != 1 || len(src.TaskEvents) != 0 {
		t.Errorf("SourceOf = %+v", src)
	}
	// A part file named only by number is known by its directory's name.
	part := filepath.Join("testdata", "mini", "job_events", "part-00000-of-00001.csv.gz")
	src, err = SourceOf(part)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(src.JobEvents, []string{part}) || len(src.TaskEvents)+len(src.MachineEvents) != 0 {
		t.Errorf("SourceOf(%s) = %+v", part, src)
	}
	dir := t.TempDir()
	writeFile(t, dir, "x.csv", lines(je(700*s1, 1, Submit)))
	for _, bad := range [][]string{{filepath.Join(dir, "x.csv")}, {dir}, {filepath.Join(dir, "missing")}, nil} {
		if _, err := SourceOf(bad...); err == nil || !strings.HasPrefix(err.Error(), "google2011: ") {
			t.Errorf("SourceOf(%v) error = %v", bad, err)
		}
	}
	empty := filepath.Join(dir, "job_events")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ScanJobs(Source{JobEvents: []string{empty}}, func(*JobRecord) error { return nil }); err == nil || !strings.Contains(err.Error(), "no .csv or .csv.gz files") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestEventType(t *testing.T) {
	for e, want := range map[EventType]string{Submit: "SUBMIT", Finish: "FINISH", UpdateRunning: "UPDATE_RUNNING", 9: "EventType(9)"} {
		if e.String() != want {
			t.Errorf("%d.String() = %q", e, e.String())
		}
	}
	for e := Submit; e <= UpdateRunning; e++ {
		if got, want := e.Terminal(), e >= Evict && e <= Lost; got != want {
			t.Errorf("%s.Terminal() = %v", e, got)
		}
	}
}

func TestFastFloat(t *testing.T) {
	for _, s := range []string{"0", "1", "0.0625", "3.815e-06", "0.004662", "0.5", "1e-22", "123456789012345", "0.1", "7.629e-06", "1E5", "0.12345678901234"} {
		got, ok := fastFloat([]byte(s))
		var want float64
		fmt.Sscan(s, &want)
		if !ok || got != want {
			t.Errorf("fastFloat(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", ".", "1e", "1e400", "1234567890123456789", "-1", "NaN", "1.5x"} {
		if _, ok := fastFloat([]byte(s)); ok {
			t.Errorf("fastFloat(%q) took the fast path", s)
		}
	}
}

// TestSharedMonth scans all 500 job_events parts when the shared data is present: the whole
// month's job runtimes come out of job_events alone.
func TestSharedMonth(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("skipped with -short and -race")
	}
	dir := testutil.SharedData(t, "google2011/job_events")
	files, _ := filepath.Glob(filepath.Join(dir, "part-*-of-00500.csv.gz"))
	if len(files) != 500 {
		t.Skipf("%d job_events parts, want all 500", len(files))
	}
	var st ScanStats
	finished, withRuntime := 0, 0
	if err := scanJobs(Source{JobEvents: []string{dir}}, func(r *JobRecord) error {
		if r.FinalState == Finish {
			finished++
		}
		if r.Runtime > 0 {
			withRuntime++
		}
		return nil
	}, &st); err != nil {
		t.Fatal(err)
	}
	// 672,075 SUBMITs of which one is a resubmission; 385,582 FINISH events (JamaisVu §3.2).
	if st.Records != 672074 || finished != 385582 || st.Resubmissions != 1 || withRuntime < 385000 {
		t.Errorf("month: %d records, %d finished, %d with runtime, %d resubmissions", st.Records, finished, withRuntime, st.Resubmissions)
	}
}

// TestSharedTaskEvents imports the window the shared data covers (job_events and task_events
// parts 0-9) at the task level and pins what it holds.
func TestSharedTaskEvents(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("skipped with -short and -race")
	}
	src, err := Window(testutil.SharedData(t, "google2011"), 0, 9)
	if err != nil {
		t.Skip(err)
	}
	w, st, err := WorkloadStats(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	ts := st.Tasks
	// 1,827,856 rows of 464,004 tasks of 14,484 jobs on 12,509 machines; 20,747 tasks are never
	// scheduled in the window.
	if st.Level != LevelTask || st.Scan.TaskEvents != 1827856 || ts.Seen != 464004 || ts.NeverScheduled != 20747 || ts.Imported != 443257 ||
		w.Tasks() != ts.Imported || int64(len(w.Jobs)) != st.Imported || st.Imported != 14443 || ts.Machines != 12509 || len(w.Cluster.Machines) != 12509 {
		t.Errorf("window: %d jobs, %d tasks, %d machines; stats %+v", len(w.Jobs), w.Tasks(), len(w.Cluster.Machines), st)
	}
	if ts.Outcomes[traces.TaskRunning] == 0 || ts.StartedBefore == 0 || ts.Evictions == 0 || ts.End != 50711946042 {
		t.Errorf("task stats %+v", ts)
	}
}

func TestWindow(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		writeFile(t, dir, filepath.Join(JobEventsTable, PartName(i)), nil)
		writeFile(t, dir, filepath.Join(TaskEventsTable, PartName(i)), nil)
	}
	src, err := Window(dir, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := Source{
		JobEvents:  []string{filepath.Join(dir, "job_events", "part-00001-of-00500.csv.gz"), filepath.Join(dir, "job_events", "part-00002-of-00500.csv.gz")},
		TaskEvents: []string{filepath.Join(dir, "task_events", "part-00001-of-00500.csv.gz"), filepath.Join(dir, "task_events", "part-00002-of-00500.csv.gz")},
	}
	if !reflect.DeepEqual(src, want) {
		t.Errorf("Window = %+v", src)
	}
	for _, bad := range [][2]int{{2, 3}, {-1, 0}, {2, 1}, {0, 500}} {
		if _, err := Window(dir, bad[0], bad[1]); err == nil {
			t.Errorf("Window(%d, %d) succeeded", bad[0], bad[1])
		}
	}
}
