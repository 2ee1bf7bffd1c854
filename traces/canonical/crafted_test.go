package canonical

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite the crafted files under testdata/bad")

// craftedOne is a valid one-job workload on two machines, which each crafted file breaks in one
// place.
func craftedOne() *traces.Workload {
	return &traces.Workload{Name: "crafted", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(2, traces.VecOf(1, 1), 0), Jobs: []traces.Job{{
		ID: 1, Submit: traces.Second, Stages: []traces.Stage{{Name: "a", Tasks: 1, Demand: traces.VecOf(0.5, 0.5), Duration: traces.Second, Estimate: traces.Second}},
	}}}
}

// craftedFiles builds the files under testdata/bad: each is a sealed canonical Arrow file (its
// checksum matches, so the reader gets past it) written column by column, without validation.
var craftedFiles = map[string]func() (w *traces.Workload, cluster string, mutate func(*encoder)){
	"parent-minus-1.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Stages[0].Parents = []int32{-1}
		return w, "", nil
	},
	"parent-7-of-1.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Stages[0].Parents = []int32{7}
		return w, "", nil
	},
	"parent-2147483647.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Stages[0].Parents = []int32{math.MaxInt32}
		return w, "", nil
	},
	"num-stages-2147483647.arrow": func() (*traces.Workload, string, func(*encoder)) {
		return craftedOne(), "", func(e *encoder) { e.numStages.v[0] = math.MaxInt32 }
	},
	"machines-67108864.arrow": func() (*traces.Workload, string, func(*encoder)) {
		return craftedOne(), `{"pooled":false,"n":67108864,"capacity":[[67108864,1000000,1000000,0,0,0,0]]}`, nil
	},
	"utility-priority-nan.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Utility = &traces.Utility{Kind: traces.UtilitySigmoid, Priority: math.NaN(), Decay: 1, Target: 5 * traces.Second}
		return w, "", nil
	},
	"utility-kind-cubic.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Utility = &traces.Utility{Kind: "cubic", Priority: 1}
		return w, "", nil
	},
	"submit-beyond-clock.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Submit = math.MaxInt64 - 5
		return w, "", nil
	},
	"duration-beyond-clock.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Jobs[0].Stages[0].Duration = math.MaxInt64
		return w, "", nil
	},
	"demand-fits-no-machine.arrow": func() (*traces.Workload, string, func(*encoder)) {
		w := craftedOne()
		w.Cluster.Machines[0].Capacity, w.Cluster.Machines[1].Capacity = traces.VecOf(2, 1), traces.VecOf(1, 2)
		w.Jobs[0].Stages[0].Demand = traces.VecOf(2, 2)
		return w, "", nil
	},
}

// writeCrafted writes one crafted file: w's jobs encoded, then changed by mutate; the cluster
// metadata replaced by cluster when not empty.
func writeCrafted(t *testing.T, path string, w *traces.Workload, cluster string, mutate func(*encoder)) {
	md, err := MetaOf(w).metadata()
	if err != nil {
		t.Fatal(err)
	}
	if cluster != "" {
		vals := slices.Clone(md.Values())
		vals[md.FindKey(KeyCluster)] = cluster
		md = arrow.NewMetadata(md.Keys(), vals)
	}
	enc := newEncoder(arrow.NewSchema(Schema.Fields(), &md))
	for i := range w.Jobs {
		if err := enc.add(&w.Jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if mutate != nil {
		mutate(enc)
	}
	rec := enc.record()
	defer rec.Release()
	writeRaw(t, path, rec.Schema(), rec)
}

// TestCraftedBadInput reads each crafted file under testdata/bad as `schedlab run`, `trace
// inspect` and `trace stats` do (limits, and validation as the jobs are read; then Validate, as a
// run does once the cluster is final): each is one error naming the file, the row and the
// field, found before anything is allocated by the sizes the file states. go test -update
// rewrites the files.
func TestCraftedBadInput(t *testing.T) {
	dir := filepath.Join("testdata", "bad")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, build := range craftedFiles {
			w, cluster, mutate := build()
			writeCrafted(t, filepath.Join(dir, name), w, cluster, mutate)
		}
	}
	limits := traces.Limits{Tasks: 1 << 24, Machines: 1 << 20}
	for _, tc := range []struct {
		file   string
		limits traces.Limits
		want   string
	}{
		{"parent-minus-1.arrow", limits, "row 0: traces: job 0 (id 1) stage 0: parents: parent -1 out of range (job has 1 stages)"},
		{"parent-7-of-1.arrow", limits, "row 0: traces: job 0 (id 1) stage 0: parents: parent 7 out of range (job has 1 stages)"},
		{"parent-2147483647.arrow", limits, "row 0: traces: job 0 (id 1) stage 0: parents: parent 2147483647 out of range"},
		{"num-stages-2147483647.arrow", limits, "row 1: job id 1 has 1 of 2147483647 stage rows at end of file"},
		{"num-stages-2147483647.arrow", traces.Limits{JobTasks: 1 << 20}, "row 0: column num_stages: traces: job 0 (id 1): tasks: 2147483647 exceeds the limit of 1048576 tasks per job"},
		{"machines-67108864.arrow", limits, "bad metadata: schedlab.cluster: traces: workload: cluster.machines: 67108864 exceeds the limit of 1048576 machines"},
		{"utility-priority-nan.arrow", limits, "row 0: traces: job 0 (id 1): utility.priority: must be a finite number ≥ 0, got NaN"},
		{"utility-kind-cubic.arrow", limits, `row 0: traces: job 0 (id 1): utility.kind: unknown kind "cubic"`},
		{"submit-beyond-clock.arrow", limits, "row 0: traces: job 0 (id 1): submit: 9223372036854775802 µs is beyond the clock's range"},
		{"duration-beyond-clock.arrow", limits, "row 0: traces: job 0 (id 1) stage 0: duration: 9223372036854775807 µs is beyond the clock's range"},
		{"demand-fits-no-machine.arrow", limits, "traces: job 0 (id 1) stage 0: demand: [2 2] fits on no machine (machine capacities [2 1], [1 2])"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			w, err := ReadWith(path, Options{Limits: tc.limits, Validate: true})
			if err == nil {
				err = w.Validate()
			}
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("read and validated without an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.file) && !strings.HasPrefix(msg, "traces: ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line with the file name and %q", msg, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("reading allocated %d MiB", grew>>20)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if craftedFiles[e.Name()] == nil {
			t.Errorf("testdata/bad/%s is not built by craftedFiles", e.Name())
		}
	}
}
