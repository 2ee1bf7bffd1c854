package decima

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/traces"
)

// catalog reads the test file under two size names.
func catalog(t *testing.T) map[string]*traces.Workload {
	t.Helper()
	c := map[string]*traces.Workload{}
	for _, size := range []string{"2g", "5g"} {
		f, err := os.Open("testdata/tpch_2g_cut.json")
		if err != nil {
			t.Fatal(err)
		}
		w, err := Parse(f, "tpch_"+size+".json", Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c[size] = w
	}
	return c
}

func TestStream(t *testing.T) {
	o := StreamDefaults()
	o.Catalog = catalog(t)
	o.InitJobs, o.StreamJobs = 3, 2000
	a, err := Stream(o, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Stream(o, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Fatal("same seed, different streams")
	}
	if len(a.Jobs) != 2003 {
		t.Fatalf("%d jobs, want 2003", len(a.Jobs))
	}
	ids := map[int64]bool{}
	sizes := map[string]int{}
	queries := map[string]int{}
	var gaps []float64
	for i, j := range a.Jobs {
		if ids[j.ID] {
			t.Fatalf("duplicate id %d", j.ID)
		}
		ids[j.ID] = true
		if (i < 3) != (j.Submit == 0) && j.Submit != 0 {
			t.Errorf("job %d submitted at %v", i, traces.Seconds(j.Submit))
		}
		if j.Submit%traces.Millisecond != 0 {
			t.Errorf("job %d: arrival %d µs is not a whole millisecond (decima-sim truncates)", i, j.Submit)
		}
		f := strings.Fields(j.Name)
		sizes[f[len(f)-1]]++
		queries[j.Features.LogicalJobName]++
		if i >= 3 {
			gaps = append(gaps, traces.Seconds(j.Submit-a.Jobs[i-1].Submit))
		}
	}
	if len(sizes) != 2 || len(queries) != 4 {
		t.Errorf("sizes %v queries %v: want both sizes and all four queries drawn", sizes, queries)
	}
	var mean float64
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	// Exponential gaps of mean 25 s truncated to ms: mean ≈ 24.9995 s, sd of the mean 25/√2000 ≈ 0.56.
	if math.Abs(mean-25) > 2 {
		t.Errorf("mean gap %.2f s, want ≈ 25", mean)
	}
}

func TestStreamValidate(t *testing.T) {
	good := StreamDefaults()
	good.Catalog = catalog(t)
	for name, mod := range map[string]func(*StreamOptions){
		"no catalog":   func(o *StreamOptions) { o.Catalog = nil },
		"unknown size": func(o *StreamOptions) { o.Sizes = "2g,7g" },
		"no jobs":      func(o *StreamOptions) { o.InitJobs, o.StreamJobs = 0, 0 },
		"negative":     func(o *StreamOptions) { o.InitJobs = -1 },
		"zero gap":     func(o *StreamOptions) { o.MeanInterarrivalS = 0 },
		"bad key rule": func(o *StreamOptions) { o.Key = "x" },
	} {
		o := good
		mod(&o)
		if _, err := Stream(o, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.HasPrefix(err.Error(), "decima: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := Stream(good, nil); err == nil {
		t.Error("nil rand accepted")
	}
	o := good
	o.Sizes = "5g"
	w, err := Stream(o, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		if !strings.HasSuffix(j.Name, " 5g") {
			t.Fatalf("sizes=5g drew %q", j.Name)
		}
	}
}

func TestReadDirSharedData(t *testing.T) {
	dir := testutil.SharedData(t, "decima-tpch")
	c, err := ReadDir(dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 7 {
		t.Fatalf("%d sizes, want 7", len(c))
	}
	if _, err := ReadDir(t.TempDir(), nil, Options{}); err == nil {
		t.Error("empty folder accepted")
	}
}
