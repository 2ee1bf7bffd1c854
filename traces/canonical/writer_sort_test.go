package canonical

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestSortByteBudget sorts with the default (byte-budget) runs, made small enough to spill more
// than maxFanIn runs, through AppendOwned.
func TestSortByteBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := randomWorkload(rng, 1500)
	rng.Shuffle(len(w.Jobs), func(i, j int) { w.Jobs[i], w.Jobs[j] = w.Jobs[j], w.Jobs[i] })
	for _, ext := range []string{"parquet", "arrow"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s."+ext)
		cw, err := NewWriter(path, MetaOf(w), WithSortBySubmit(0, ""))
		if err != nil {
			t.Fatal(err)
		}
		cw.cfg.runBytes = 3 << 10
		for i := range w.Jobs {
			j := cloneJob(&w.Jobs[i])
			if err := cw.AppendOwned(&j); err != nil {
				t.Fatal(err)
			}
		}
		if len(cw.runs) <= maxFanIn {
			t.Fatalf("%d runs, want more than %d", len(cw.runs), maxFanIn)
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		want := *w
		want.Jobs = append([]traces.Job(nil), w.Jobs...)
		want.SortJobs()
		checkSame(t, got, &want)
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d files in the directory, want 1", len(entries))
		}
	}
}

// TestSortRunErrorCleansUp damages a run file before Close: Close must fail naming the output
// and leave no file behind, neither the output nor any run.
func TestSortRunErrorCleansUp(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(11, 12)), 400)
	for _, ext := range []string{"parquet", "arrow"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "e."+ext)
		cw, err := NewWriter(path, MetaOf(w), WithSortBySubmit(100, ""))
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Jobs {
			if err := cw.Append(&w.Jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if len(cw.runs) < 2 {
			t.Fatalf("%d runs, want several", len(cw.runs))
		}
		fi, err := os.Stat(cw.runs[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(cw.runs[1], fi.Size()/2); err != nil {
			t.Fatal(err)
		}
		err = cw.Close()
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Close with a damaged run: %v, want an error naming %s", err, path)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%d files left behind", len(entries))
		}
	}
}

// cloneJob deep-copies j.
func cloneJob(j *traces.Job) traces.Job {
	c := *j
	if j.Utility != nil {
		u := *j.Utility
		c.Utility = &u
	}
	c.Stages = append([]traces.Stage(nil), j.Stages...)
	return c
}

// TestSortKeys checks the radix sort of run keys against a comparison sort, with negative and
// repeated keys.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 100, 255, 256, 3000, 20000} {
		for _, spread := range []int64{1, 3, 1 << 20, 1 << 62} {
			w := &Writer{}
			for i := range n {
				w.keys = append(w.keys, runKey{submit: rng.Int64N(spread) - spread/2, id: rng.Int64N(spread) - spread/3, off: uint32(i)})
			}
			want := slices.Clone(w.keys)
			slices.SortFunc(want, cmpKeys)
			w.sortKeys()
			if !slices.Equal(w.keys, want) {
				t.Fatalf("n=%d spread=%d: radix sort differs", n, spread)
			}
		}
	}
}

// TestSetMeta changes the workload metadata after the jobs went in: a sorting Writer takes it
// until Close, a plain one until its first batch is written.
func TestSetMeta(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(13, 14)), 300)
	later := MetaOf(w)
	later.Name, later.Source = "renamed", "known at the end"
	later.Cluster = traces.Uniform(7, traces.VecOf(2, 2), 0)
	for _, ext := range []string{"parquet", "arrow"} {
		path := filepath.Join(t.TempDir(), "m."+ext)
		cw, err := NewWriter(path, Meta{Name: "provisional", Dims: w.Dims, Cluster: traces.Uniform(1, traces.VecOf(1, 1), 0)}, WithSortBySubmit(0, ""))
		if err != nil {
			t.Fatal(err)
		}
		cw.cfg.runBytes = 4 << 10 // spill: SetMeta must not care
		for i := range w.Jobs {
			if err := cw.Append(&w.Jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := cw.SetMeta(later); err != nil {
			t.Fatal(err)
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		want := *w
		want.Name, want.Source, want.Cluster = later.Name, later.Source, later.Cluster
		checkSame(t, got, &want)
		if err := cw.SetMeta(later); err == nil {
			t.Error("SetMeta after Close succeeded")
		}

		plain, err := NewWriter(filepath.Join(t.TempDir(), "p."+ext), MetaOf(w), WithBatchRows(10))
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Jobs[:40] {
			if err := plain.Append(&w.Jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := plain.SetMeta(later); err == nil || !strings.Contains(err.Error(), "after rows were written") {
			t.Errorf("SetMeta after a batch: %v", err)
		}
		plain.Abort()
	}
}
