package google2011

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestCraftedBadInput imports the crafted inputs under testdata/bad (one directory of job_events,
// task_events and machine_events files each): every one ends in a *ParseError naming the file,
// line (0 for the input as a whole), field and reason — at the job level, and at the task level
// too when the input has task_events — instead of an empty or wrong workload.
func TestCraftedBadInput(t *testing.T) {
	cases := []struct {
		dir   string
		level string // LevelJob or LevelTask; "" for both (the task level only with task_events)
		file  string // the file named
		line  int64
		field string
		msg   string
		is    error // wrapped by the error, if not nil
	}{
		{"quote-unterminated", "", "job_events.csv", 2, "user", "unterminated quote", nil},
		{"quote-inside-field", "", "job_events.csv", 2, "job name", "quote inside an unquoted field", nil},
		{"quote-then-text", "", "job_events.csv", 1, "user", "text after the closing quote", nil},
		{"finish-before-submit", "", "job_events.csv", 2, "event type", "SUBMIT of job 1 after its FINISH: a finished job is not resubmitted", nil},
		{"finish-before-submit-from-start", "", "job_events.csv", 3, "event type", "FINISH of job 1 before any SUBMIT of it: the input begins at the trace's beginning", nil},
		{"finish-while-pending", "", "job_events.csv", 2, "event type", "FINISH of job 1 while it is pending", nil},
		{"submit-twice", "", "job_events.csv", 2, "event type", "SUBMIT of job 1 while it is pending", nil},
		{"schedule-twice", "", "job_events.csv", 3, "event type", "SCHEDULE of job 1 while it is running", nil},
		{"event-after-end", "", "job_events.csv", 4, "event type", "SCHEDULE of job 1 after it ended", nil},
		{"update-running-while-pending", "", "job_events.csv", 2, "event type", "UPDATE_RUNNING of job 1 while it is pending", nil},
		{"no-finished-job", "", "job_events.csv", 0, "", "no job to import: none of its 1 jobs finished inside the trace window (unfinished 1,", nil},
		{"task-quote-unterminated", "", "task_events.csv", 1, "user", "unterminated quote", nil},
		{"task-finish-before-submit-from-start", "", "task_events.csv", 2, "event type", "FINISH of task 1 of job 1 before any SUBMIT of it", nil},
		{"task-finish-while-pending", "", "task_events.csv", 2, "event type", "FINISH of task 0 of job 1 while it is pending", nil},
		{"task-schedule-twice", "", "task_events.csv", 3, "event type", "SCHEDULE of task 0 of job 1 while it is running", nil},
		{"task-request-1e308", "", "task_events.csv", 1, "CPU request", "1e+308 is outside the fixed-point range", traces.ErrRange},
		{"task-memory-1e300", "", "task_events.csv", 1, "memory request", "1e+300 is outside the fixed-point range", traces.ErrRange},
		{"task-never-scheduled", LevelTask, "job_events.csv", 0, "", "no job to import: none of its 1 jobs has a task scheduled in the input (1 tasks seen", nil},
		{"task-never-scheduled", LevelJob, "job_events.csv", 0, "", "no job to import: none of its 1 jobs finished inside the trace window (unfinished 0, still open 1,", nil},
		{"machine-capacity-1e308", "", "machine_events.csv", 2, "CPUs", "1e+308 is outside the fixed-point range", traces.ErrRange},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.dir] = true
		dir := filepath.Join("testdata", "bad", c.dir)
		var src Source
		for _, tab := range []struct {
			name  string
			files *[]string
		}{{JobEventsTable, &src.JobEvents}, {TaskEventsTable, &src.TaskEvents}, {MachineEventsTable, &src.MachineEvents}} {
			if p := filepath.Join(dir, tab.name+".csv"); fileExists(p) {
				*tab.files = []string{p}
			}
		}
		levels := []string{c.level}
		if c.level == "" {
			levels = []string{LevelJob}
			if len(src.TaskEvents) > 0 {
				levels = append(levels, LevelTask)
			}
		}
		for _, level := range levels {
			t.Run(c.dir+"/level="+level, func(t *testing.T) {
				w, _, err := WorkloadStats(src, Options{Level: level})
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("got %v (%T, %d jobs), want a *ParseError", err, err, jobsOf(w))
				}
				if filepath.Base(pe.File) != c.file || pe.Line != c.line || pe.Field != c.field || !strings.Contains(pe.Msg, c.msg) {
					t.Errorf("error %q: want %s line %d, field %q, message containing %q", err, c.file, c.line, c.field, c.msg)
				}
				if c.is != nil && !errors.Is(err, c.is) {
					t.Errorf("error %q does not wrap %v", err, c.is)
				}
			})
		}
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !covered[e.Name()] {
			t.Errorf("testdata/bad/%s has no case", e.Name())
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func jobsOf(w *traces.Workload) int {
	if w == nil {
		return 0
	}
	return len(w.Jobs)
}

// TestQuotedFields: fields quoted as CSV quotes them are read unquoted, doubled quotes and
// commas inside included.
func TestQuotedFields(t *testing.T) {
	jobs := lines(`"700000000",,"17",0,"us""er,1",1,"name",""`, `701000000,,17,1,user,1,name,`, `702000000,,17,4,user,1,name,`)
	var got []JobRecord
	dir := t.TempDir()
	err := ScanJobs(Source{JobEvents: []string{writeFile(t, dir, "job_events.csv", jobs)}}, func(r *JobRecord) error {
		got = append(got, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != 17 || got[0].Submit != 700*s1 || got[0].User != `us"er,1` || got[0].LogicalJobName != "" || got[0].Runtime != 1*s1 {
		t.Errorf("records %+v", got)
	}
}
