package fromgoogle

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate/jamaisvu"
	"github.com/schedlab/schedlab/traces/google2011"
)

// A tiny trace in the 2011 format: job 1 finishes after 100 s with tasks 0 and 1; job 2 is
// killed; job 3 finishes but has no task events.
const (
	jobEvents = `600000000,,1,0,alice,1,wc,wcl
600000000,,2,0,bob,1,sort,sortl
600000000,,3,0,carol,1,grep,grepl
601000000,,1,1,alice,1,wc,wcl
601000000,,2,1,bob,1,sort,sortl
601000000,,3,1,carol,1,grep,grepl
650000000,,2,5,bob,1,sort,sortl
701000000,,1,4,alice,1,wc,wcl
702000000,,3,4,carol,1,grep,grepl
`
	taskEvents = `600000001,,1,0,,0,alice,1,2,0.1,0.1,0,0
600000001,,1,1,,0,alice,1,2,0.1,0.1,0,0
600000001,,2,0,,0,bob,1,2,0.1,0.1,0,0
`
)

func TestSamples(t *testing.T) {
	dir := t.TempDir()
	jp, tp := filepath.Join(dir, "job_events.csv"), filepath.Join(dir, "task_events.csv")
	if err := os.WriteFile(jp, []byte(jobEvents), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, []byte(taskEvents), 0o644); err != nil {
		t.Fatal(err)
	}
	got, st, err := Samples(google2011.Source{JobEvents: []string{jp}, TaskEvents: []string{tp}})
	if err != nil {
		t.Fatal(err)
	}
	want := jamaisvu.Sample{Runtime: 100 * traces.Second, Tasks: 2, Features: traces.Features{User: "alice", JobName: "wc", LogicalJobName: "wcl"}}
	if len(got) != 1 || got[0] != want {
		t.Errorf("samples %+v, want [%+v]", got, want)
	}
	if st != (Stats{Records: 3, NoRuntime: 1, NoTasks: 1, Samples: 1, First: 600 * traces.Second, Last: 701 * traces.Second, TaskFiles: 1}) {
		t.Errorf("stats %+v", st)
	}
	if s := st.String(); !strings.HasPrefix(s, "3 job records: 1 samples (33.3%)") {
		t.Errorf("stats string %q", s)
	}
	if n := st.Note(); !strings.HasPrefix(n, "1 finished jobs with task events, submitted from 0.17 h to finished by 0.19 h of the trace (1 task_events files)") {
		t.Errorf("note %q", n)
	}
	// Without task events no job has tasks: an error that says what to pass.
	if _, _, err := Samples(google2011.Source{JobEvents: []string{jp}}); err == nil || !strings.Contains(err.Error(), "job_events/ and task_events/") {
		t.Errorf("got %v, want an error naming the directory to pass", err)
	}
}

func TestSharedMiniTrace(t *testing.T) {
	base := "../../../../../shared/data/google2011/fixtures/mini_300jobs_"
	if _, err := os.Stat(base + "job_events.csv"); err != nil {
		t.Skipf("shared trace data not found (a fresh clone has none): %v", err)
	}
	samples, st, err := Samples(google2011.Source{JobEvents: []string{base + "job_events.csv"}, TaskEvents: []string{base + "task_events.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's 300 jobs all FINISH inside parts 0-13 and have task events.
	if st.Records != 300 || st.Samples != 300 {
		t.Errorf("stats %v", st)
	}
	o := jamaisvu.Defaults()
	o.Samples = samples
	w, err := jamaisvu.Generate(o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != o.Jobs {
		t.Errorf("%d jobs", len(w.Jobs))
	}
}

// TestOfferedLoadOnTrace generates 1,000-job EXP1 and DEADLINE-60 workloads from the committed
// slice of the Google 2011 trace (experiments/jvu/testdata/google2011) and, when present and not
// -short, the month in the shared data, and checks that they offer load 0.9 over the span of their
// submissions within 0.1% (the µs rounding of submission times), the tolerance the generator
// promises whatever the tail of the work.
func TestOfferedLoadOnTrace(t *testing.T) {
	dirs := []string{"../../../../experiments/jvu/testdata/google2011"}
	if _, err := os.Stat("../../../../../shared/data/google2011/job_events"); err == nil && !testing.Short() {
		dirs = append(dirs, "../../../../../shared/data/google2011")
	}
	for _, dir := range dirs {
		src, err := google2011.Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		samples, _, err := Samples(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, mix := range []string{"EXP1", "DEADLINE-60"} {
			for _, joint := range []bool{false, true} {
				for seed := uint64(1); seed <= 5; seed++ {
					o := jamaisvu.Defaults()
					o.Samples, o.Mix, o.Joint = samples, mix, joint
					w, err := jamaisvu.Generate(o, rand.New(rand.NewPCG(seed, 2)))
					if err != nil {
						t.Fatal(err)
					}
					var work float64
					var last traces.Time
					for _, j := range w.Jobs {
						last = max(last, j.Submit)
						work += float64(j.Stages[0].Tasks) * traces.Seconds(j.Stages[0].Duration)
					}
					if load := work / (256 * traces.Seconds(last)); load < 0.9*0.999 || load > 0.9*1.001 {
						t.Errorf("%s/%s joint=%v seed %d: offered load %.4f, want 0.9 ± 0.1%%", filepath.Base(dir), mix, joint, seed, load)
					}
				}
			}
		}
	}
}

// TestDiscoverJobEventsDir checks that the job_events directory itself finds the task_events
// beside it (README's wording, issue 25), and that without one the error says what to pass.
func TestDiscoverJobEventsDir(t *testing.T) {
	dir := t.TempDir()
	for _, tb := range []struct{ table, data string }{{google2011.JobEventsTable, jobEvents}, {google2011.TaskEventsTable, taskEvents}} {
		if err := os.MkdirAll(filepath.Join(dir, tb.table), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tb.table, google2011.PartName(0)), []byte(tb.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := Discover(filepath.Join(dir, google2011.JobEventsTable))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Samples(src)
	if err != nil || len(got) != 1 {
		t.Fatalf("samples from the job_events directory: %v, %v", got, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, google2011.TaskEventsTable)); err != nil {
		t.Fatal(err)
	}
	if _, err := Discover(filepath.Join(dir, google2011.JobEventsTable)); err == nil || !strings.Contains(err.Error(), "job_events/ and task_events/") {
		t.Errorf("got %v, want an error naming the directory to pass", err)
	}
}
