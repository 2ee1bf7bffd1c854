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
	if st != (Stats{Records: 3, NoRuntime: 1, NoTasks: 1, Samples: 1}) {
		t.Errorf("stats %+v", st)
	}
	if s := st.String(); !strings.HasPrefix(s, "3 job records: 1 samples (33.3%)") {
		t.Errorf("stats string %q", s)
	}
	// Without task events no job has tasks: an error that says why.
	if _, _, err := Samples(google2011.Source{JobEvents: []string{jp}}); err == nil || !strings.Contains(err.Error(), "2 without tasks") {
		t.Errorf("got %v, want an error counting jobs without tasks", err)
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
