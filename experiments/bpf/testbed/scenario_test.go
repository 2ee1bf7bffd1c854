// Package testbed holds the scenario of the bpf-testbed reproduction (BPF Figs. 9-10 as the
// authors ran them on their cluster): the job list jobs.txt is derived here from the authors'
// own job file and run scripts (see SOURCE.md) and checked against the committed copy
// (`go test ./experiments/bpf/testbed -update` rewrites it).
package testbed

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

var update = flag.Bool("update", false, "rewrite jobs.txt from the authors' job file and scripts")

// The cluster (ccra script/auto_setup_cluster.sh at 361188ba): yarnVcores=32,
// yarnNodeMem = 32 × 1024 × 2 MB, yarn.scheduler.minimum-allocation-mb 1024.
const (
	nodeVcores = 32
	nodeMemMB  = 65536
	minAllocMB = 1024
)

// lqQueue is one LQ's generator script (b1i3 interactives-queue-<q>.sh): `sleep first`, then a
// job every period seconds, jobs dumpjob ids idBase .. idBase+jobs-1 (run-interactive-<k>_<q>.sh:
// dumpjob <idBase+k> bursty<q>).
type lqQueue struct {
	name          string
	first, period int
	idBase, jobs  int
}

var lqQueues = []lqQueue{
	{"bursty0", 150, 150, 0, 500},
	{"bursty1", 200, 110, 500, 500},
	{"bursty2", 250, 60, 1000, 500},
}

// tqWaves is batches-all.sh: run-batch-0..7 at 0 s, sleep 160, 8..15, sleep 160, 16..19 (run-batch-k.sh:
// dumpjob 100000+k batch0).
var tqWaves = []struct{ at, from, to int }{{0, 0, 8}, {160, 8, 16}, {320, 16, 20}}

// queryNames names the job file's DAGs by the BigBench query (queries_bb.txt) whose stages they
// repeat task for task (TestQueryNames checks it when the shared data is present).
var queryNames = map[int64]string{
	0: "query27", 100000: "query9", 100001: "query21", 100002: "query9", 100003: "query21",
	100004: "query17", 100005: "query17", 100006: "query17", 100007: "query17", 100008: "query17",
	100009: "query21", 100010: "query17", 100011: "query16", 100012: "query9", 100013: "query9",
	100014: "query16", 100015: "query16", 100016: "query17", 100017: "query21", 100018: "query9",
	100019: "query16",
}

// container returns the share of a node YARN allocates for a task profile's (cpu, mem) share:
// the authors' Tez emulation asks for ⌊cpu × vcores⌋ vcores (at least 1) and ⌊mem × MB⌋ MB, and
// the scheduler rounds memory up to a multiple of minimum-allocation-mb.
func container(cpu, mem float64) (float64, float64) {
	v := max(math.Floor(cpu*nodeVcores), 1)
	mb := math.Ceil(math.Floor(mem*nodeMemMB)/minAllocMB) * minAllocMB
	return v / nodeVcores, mb / nodeMemMB
}

// naturalOrder lists a DAG's stages in the order the Tez AM serves them: its
// DAGSchedulerNaturalOrder (the default tez.am.dag.scheduler.class) gives a vertex's task
// requests the priority (distanceFromRoot + 1) × 3V + 3 × vertexId, lower first, where
// distanceFromRoot is the longest path from a root and vertex ids follow the order the vertices
// were added (the job file's). The engine's policies serve a job's runnable stages in stage order,
// so this order makes them serve producers before consumers, as the AM does.
func naturalOrder(stages []traces.Stage) []traces.Stage {
	depth := make([]int, len(stages))
	var dist func(i int) int
	dist = func(i int) int {
		if depth[i] > 0 {
			return depth[i] - 1
		}
		d := 0
		for _, p := range stages[i].Parents {
			d = max(d, dist(int(p))+1)
		}
		depth[i] = d + 1
		return d
	}
	order := make([]int, len(stages))
	for i := range stages {
		dist(i)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return depth[a] - depth[b] })
	pos := make([]int32, len(stages))
	for k, i := range order {
		pos[i] = int32(k)
	}
	out := make([]traces.Stage, len(stages))
	for k, i := range order {
		st := stages[i]
		st.Parents = make([]int32, len(stages[i].Parents))
		for pi, p := range stages[i].Parents {
			st.Parents[pi] = pos[p]
		}
		out[k] = st
	}
	return out
}

// scenario builds the job list the cluster ran from the authors' job file.
func scenario(t testing.TB) []traces.Job {
	t.Helper()
	src, err := tpcdag.ReadFile("ccra_jobs_input_3_1_40_BB.slice.txt", tpcdag.Options{Machines: 40})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]traces.Job{}
	for _, j := range src.Jobs {
		j.Stages = naturalOrder(j.Stages)
		for si := range j.Stages {
			st := &j.Stages[si]
			c, m := container(st.Demand.Float(0), st.Demand.Float(1))
			st.Demand = traces.VecOf(c, m)
		}
		byID[j.ID] = j
	}
	var jobs []traces.Job
	add := func(id int64, profile int64, queue string, at int) {
		j, ok := byID[profile]
		if !ok {
			t.Fatalf("the job file has no DAG %d", profile)
		}
		j.Stages = append([]traces.Stage(nil), j.Stages...)
		j.ID, j.Queue, j.Submit = id, queue, traces.FromSeconds(float64(at))
		j.Name = queryNames[profile]
		jobs = append(jobs, j)
	}
	for _, w := range tqWaves {
		for k := w.from; k < w.to; k++ {
			add(int64(100000+k), int64(100000+k), "batch0", w.at)
		}
	}
	for _, q := range lqQueues {
		for k := range q.jobs {
			// Every LQ DAG of the job file (ids 0-4499) has DAG 0's profile (SOURCE.md).
			add(int64(q.idBase+k), 0, q.name, q.first+k*q.period)
		}
	}
	w := &traces.Workload{Name: "bpf-testbed", Dims: src.Dims, Cluster: src.Cluster, Jobs: jobs}
	w.SortJobs()
	return w.Jobs
}

// write renders jobs in the Carbyne/BoPF format tpcdag reads, dagId = the job's dumpjob id.
func write(w io.Writer, jobs []traces.Job) {
	for i := range jobs {
		tpcdag.WriteJob(w, jobs[i].ID, "BIG_BENCH "+jobs[i].Name, &jobs[i])
	}
}

func TestJobsFileIsTheScenario(t *testing.T) {
	want := scenario(t)
	var buf bytes.Buffer
	write(&buf, want)
	if *update {
		if err := os.WriteFile("jobs.txt", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("jobs.txt")
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatal("jobs.txt differs from the scenario (run with -update if intended)")
	}
	w, err := tpcdag.ReadFile("jobs.txt", tpcdag.Options{Machines: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != len(want) {
		t.Fatalf("%d jobs read back, want %d", len(w.Jobs), len(want))
	}
	for i := range w.Jobs {
		a, b := w.Jobs[i], want[i]
		if a.ID != b.ID || a.Queue != b.Queue || a.Submit != b.Submit || a.Tasks() != b.Tasks() || a.Work() != b.Work() {
			t.Fatalf("job %d read back as %d %s at %v (%d tasks), want %d %s at %v (%d tasks)",
				i, a.ID, a.Queue, a.Submit, a.Tasks(), b.ID, b.Queue, b.Submit, b.Tasks())
		}
	}
}

// TestScenarioFacts pins what the scripts and the usage logs say, so a change to the derivation
// that breaks one is caught by name.
func TestScenarioFacts(t *testing.T) {
	jobs := scenario(t)
	count := map[string]int{}
	first := map[string]traces.Time{}
	tasksTQ := map[int64]int64{}
	for _, j := range jobs {
		if _, ok := first[j.Queue]; !ok {
			first[j.Queue] = j.Submit
		}
		count[j.Queue]++
		if j.Queue == "batch0" {
			tasksTQ[j.ID] = j.Tasks()
		}
	}
	for q, n := range map[string]int{"bursty0": 500, "bursty1": 500, "bursty2": 500, "batch0": 20} {
		if count[q] != n {
			t.Errorf("%s: %d jobs, want %d", q, count[q], n)
		}
	}
	for q, s := range map[string]float64{"bursty0": 150, "bursty1": 200, "bursty2": 250, "batch0": 0} {
		if first[q] != traces.FromSeconds(s) {
			t.Errorf("%s: first job at %v µs, want %v s", q, first[q], s)
		}
	}
	// The Tez client logs of the (non-validation) multi_LQs_DRF run print each TQ DAG's
	// TotalTasks: the same DAG ids ran with these sizes.
	logTotals := []int64{382, 1535, 382, 1535, 635, 635, 635, 635, 635, 1535, 635, 831, 382, 382, 831, 831, 635, 1535, 382, 831}
	for k, n := range logTotals {
		if got := tasksTQ[int64(100000+k)]; got != n {
			t.Errorf("TQ DAG %d: %d tasks, the run's Tez log says %d", 100000+k, got, n)
		}
	}
	// The usage logs show query27's containers as (6 vcores, 22528 MB) and (9 vcores, 15360 MB).
	for _, tc := range []struct{ cpu, mem, wantC, wantM float64 }{
		{0.21, 0.33, 6.0 / 32, 22528.0 / 65536},
		{0.29, 0.22, 9.0 / 32, 15360.0 / 65536},
	} {
		if c, m := container(tc.cpu, tc.mem); c != tc.wantC || m != tc.wantM {
			t.Errorf("container(%v, %v) = (%v, %v), want (%v, %v)", tc.cpu, tc.mem, c, m, tc.wantC, tc.wantM)
		}
	}
}

// TestQueryNames checks the names given to the job file's DAGs against the BigBench queries.
func TestQueryNames(t *testing.T) {
	const path = "../../../../shared/data/tpc-dags/workload/queries_bb.txt"
	q, err := tpcdag.ReadFile(path, tpcdag.Options{Machines: 40, LastStageWins: true})
	if err != nil {
		t.Skipf("shared data absent: %v", err)
	}
	src, err := tpcdag.ReadFile("ccra_jobs_input_3_1_40_BB.slice.txt", tpcdag.Options{Machines: 40})
	if err != nil {
		t.Fatal(err)
	}
	sig := func(j traces.Job) string {
		var parts []string
		for _, s := range j.Stages {
			parts = append(parts, fmt.Sprintf("%s/%d/%d", s.Name, s.Duration, s.Tasks))
		}
		slices.Sort(parts)
		return strings.Join(parts, ";")
	}
	byName := map[string]traces.Job{}
	for _, j := range q.Jobs {
		byName[j.Name] = j
	}
	for _, j := range src.Jobs {
		want, ok := byName["BIG_BENCH "+queryNames[j.ID]]
		if !ok {
			t.Fatalf("DAG %d: no BigBench %q", j.ID, queryNames[j.ID])
		}
		if j.ID == 0 { // query27 with 20× its tasks
			for si := range want.Stages {
				want.Stages[si].Tasks *= 20
			}
		}
		if sig(j) != sig(want) {
			t.Errorf("DAG %d is not %s: %s vs %s", j.ID, queryNames[j.ID], sig(j), sig(want))
		}
	}
}
