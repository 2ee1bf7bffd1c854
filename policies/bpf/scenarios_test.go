package bpf_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// The experiment specs (experiments/bpf) replay scenarios the bpf generator cannot express as
// BoPF jobs_input files (queue names bursty*/batch* give classes lq/tq; 2 resources as
// fractions of one machine; read with workload.machines: 40 and workload.pooled: true). They
// are written from the scenarios built here; `go test ./policies/bpf -update` rewrites them.

// writeBoPFJobs writes jobs in the BoPF jobs_input format, dagId = the job's index.
func writeBoPFJobs(w io.Writer, jobs []traces.Job) error {
	for i := range jobs {
		if err := tpcdag.WriteJob(w, int64(i), jobs[i].Name, &jobs[i]); err != nil {
			return err
		}
	}
	return nil
}

// fig1Workload is the motivating example (BPF §2.1, Fig. 1 and 4): LQ A (bursty0) submits a
// memory-bound MapReduce job every 600 s from 200 s; its first two bursts fill the cluster's
// memory for 30 s, the last two (from its third burst on) are twelve times larger and exceed
// its fair share; TQ B (batch0) holds BigBench jobs from time 0.
func fig1Workload(t testing.TB) *traces.Workload {
	t.Helper()
	w := tqWorkload(t, "batch0", 4)
	for n, s := range []float64{200, 800, 1400, 2000} {
		tasks := int32(80)
		if n >= 2 {
			tasks *= 12
		}
		w.Jobs = append(w.Jobs, traces.Job{
			Name: fmt.Sprintf("A/burst%d", n), Queue: "bursty0", Class: "lq", Submit: traces.FromSeconds(s),
			Stages: []traces.Stage{
				{Name: "Map1", Tasks: tasks, Demand: traces.VecOf(0.1, 0.5), Duration: 30 * traces.Second, Estimate: 30 * traces.Second},
				{Name: "Reducer2", Tasks: 4, Demand: traces.VecOf(0.1, 0.1), Duration: 10 * traces.Second, Estimate: 10 * traces.Second, Parents: []int32{0}},
			},
		})
	}
	return finish(t, w)
}

// tqWorkload is a workload on 40 pooled machines whose TQ holds every BigBench query reps
// times, all at time 0.
func tqWorkload(t testing.TB, queue string, reps int) *traces.Workload {
	t.Helper()
	bb, err := tpcdag.ReadFile("testdata/queries_bb.txt", tpcdag.Options{LastStageWins: true})
	if err != nil {
		t.Fatal(err)
	}
	w := &traces.Workload{Name: queue, Dims: bb.Dims, Cluster: traces.Uniform(40, traces.VecOf(1, 1), 0)}
	w.Cluster.Pooled = true
	for rep := 0; rep < reps; rep++ {
		for _, q := range bb.Jobs {
			j := q
			j.Queue, j.Class, j.Submit = queue, "tq", 0
			w.Jobs = append(w.Jobs, j)
		}
	}
	return w
}

func finish(t testing.TB, w *traces.Workload) *traces.Workload {
	t.Helper()
	w.SortJobs()
	for i := range w.Jobs {
		w.Jobs[i].ID = int64(i)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestScenarioFilesMatchTheirScenarios(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		w    *traces.Workload
	}{
		{"the fig9 file holds the fig9 scenario", "fig9_jobs.txt", bopfNames(fig9Workload(t))},
		{"the fig1 file holds the motivating example", "fig1_jobs.txt", fig1Workload(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeBoPFJobs(&buf, tc.w.Jobs); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("%s differs from the scenario (run with -update if intended)", path)
			}
			// Read back as the experiments read it, the file is the same workload.
			got, err := tpcdag.ReadFile(path, tpcdag.Options{Machines: 40})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Jobs) != len(tc.w.Jobs) {
				t.Fatalf("%d jobs read back, want %d", len(got.Jobs), len(tc.w.Jobs))
			}
			for i := range got.Jobs {
				a, b := got.Jobs[i], tc.w.Jobs[i]
				if a.Queue != b.Queue || a.Class != b.Class || a.Submit != b.Submit || a.Tasks() != b.Tasks() || a.Work() != b.Work() || a.CriticalPath(true) != b.CriticalPath(true) {
					t.Fatalf("job %d read back as %s/%s at %d (%d tasks, work %d), want %s/%s at %d (%d tasks, work %d)",
						i, a.Queue, a.Class, a.Submit, a.Tasks(), a.Work(), b.Queue, b.Class, b.Submit, b.Tasks(), b.Work())
				}
			}
		})
	}
}

// bopfNames renames the fig9 queues as BoPF names them (bursty<i>, batch0), so the file's
// classes come from the names.
func bopfNames(w *traces.Workload) *traces.Workload {
	names := map[string]string{"lq0": "bursty0", "lq1": "bursty1", "lq2": "bursty2", "tq0": "batch0"}
	for i := range w.Jobs {
		w.Jobs[i].Queue = names[w.Jobs[i].Queue]
		w.Jobs[i].Deadline = 0 // the format has no deadlines; t is derived as 25 s all the same
	}
	return w
}

func TestFig1BPFBoundsThePriorityOfTheMotivatingLQ(t *testing.T) {
	w := fig1Workload(t)
	type run struct {
		jct   []float64 // LQ A's jobs, in burst order (-1: unfinished)
		share map[string]float64
	}
	runs := map[string]run{}
	for _, name := range []string{"drf", "sp", "bpf"} {
		p := comparator(t, name, map[string]any{"period_s": 600})
		e, err := replay.New(w, p, replay.Config{Horizon: 2600 * traces.Second})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run()
		if err != nil {
			t.Fatal(err)
		}
		var r run
		for _, j := range res.Jobs {
			if j.Queue == "bursty0" {
				r.jct = append(r.jct, traces.Seconds(j.JCT()))
			}
		}
		r.share = replay.Summarize(res).QueueDominantShare
		runs[name] = r
	}
	for i := 0; i < 2; i++ {
		if b, s, d := runs["bpf"].jct[i], runs["sp"].jct[i], runs["drf"].jct[i]; b != s || !(b < d) {
			t.Fatalf("burst %d within the fair share: BPF %.0fs, SP %.0fs, DRF %.0fs; want BPF = SP < DRF", i, b, s, d)
		}
	}
	if b, s := runs["bpf"].share["batch0"], runs["sp"].share["batch0"]; !(b > s) {
		t.Fatalf("TQ B's share up to 2600s: BPF %.3f, SP %.3f; want BPF to give more back to the TQ", b, s)
	}
}
