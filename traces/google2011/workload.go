package google2011

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// Default per-task requests for jobs without task_events: the medians of the first request of
// every task in task_events parts 0-9 (463,804 tasks).
const (
	DefaultCPURequest = 0.03125
	DefaultMemRequest = 0.02545
)

// Options configure the conversion of job records into a workload.
type Options struct {
	// Name is the workload's name; empty means "google2011".
	Name string
	// DefaultCPU and DefaultMem are the per-task demand of jobs whose requests are unknown
	// (no task_events for them); zero means DefaultCPURequest and DefaultMemRequest.
	DefaultCPU, DefaultMem float64
}

func (o Options) normalize() (Options, error) {
	if o.Name == "" {
		o.Name = "google2011"
	}
	if o.DefaultCPU == 0 {
		o.DefaultCPU = DefaultCPURequest
	}
	if o.DefaultMem == 0 {
		o.DefaultMem = DefaultMemRequest
	}
	for _, v := range []float64{o.DefaultCPU, o.DefaultMem} {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return o, fmt.Errorf("google2011: default request %v outside [0, 1]", v)
		}
	}
	return o, nil
}

// Exclusions counts the job records left out of a workload, by the first rule they fail.
type Exclusions struct {
	Unfinished     int64 // ended with EVICT, FAIL, KILL or LOST
	StillOpen      int64 // no terminal event by the end of the input
	NoSubmit       int64 // no SUBMIT event in the input
	BeforeWindow   int64 // submitted before the trace window (SUBMIT at time 0)
	NeverScheduled int64 // FINISH without a SCHEDULE, or the first SCHEDULE before the window
	AfterWindow    int64 // FINISH after the trace window
	ZeroRuntime    int64 // FINISH at the time of the first SCHEDULE
}

// Total returns the number of excluded records.
func (e Exclusions) Total() int64 {
	return e.Unfinished + e.StillOpen + e.NoSubmit + e.BeforeWindow + e.NeverScheduled + e.AfterWindow + e.ZeroRuntime
}

// Stats describes a conversion.
type Stats struct {
	Scan     ScanStats
	Imported int64 // jobs in the workload
	Excluded Exclusions
	// DefaultDemand counts jobs whose demand is the default (requests unknown or all zero).
	DefaultDemand int64
	// ClampedDemand counts jobs whose request exceeded the largest machine in some dimension.
	ClampedDemand int64
	// Machines is the cluster size; SkippedMachines the machines without a known capacity.
	Machines, SkippedMachines int
}

// Fprint writes a human-readable summary.
func (s *Stats) Fprint(w io.Writer) {
	fmt.Fprintf(w, "input: %d job_events lines in %d files, %d task_events lines in %d files, %.1f MB gzip\n",
		s.Scan.JobEvents, s.Scan.JobEventFiles, s.Scan.TaskEvents, s.Scan.TaskEventFiles, float64(s.Scan.GzipBytes)/1e6)
	fmt.Fprintf(w, "jobs: %d records, %d imported, %d excluded (unfinished %d, still open %d, no submit %d, before window %d, never scheduled %d, after window %d, zero runtime %d)\n",
		s.Scan.Records, s.Imported, s.Excluded.Total(), s.Excluded.Unfinished, s.Excluded.StillOpen, s.Excluded.NoSubmit,
		s.Excluded.BeforeWindow, s.Excluded.NeverScheduled, s.Excluded.AfterWindow, s.Excluded.ZeroRuntime)
	fmt.Fprintf(w, "resubmissions %d, late job events %d, late task events %d, jobs only in task_events %d, default demand %d, clamped demand %d, machines %d (skipped %d)\n",
		s.Scan.Resubmissions, s.Scan.LateJobEvents, s.Scan.LateTaskEvents, s.Scan.OrphanJobs, s.DefaultDemand, s.ClampedDemand, s.Machines, s.SkippedMachines)
}

// exclude returns the field of x that rec falls under, or nil if rec is imported. The population
// is the jobs that ended with FINISH, submitted, scheduled and finished inside the trace window,
// with a positive runtime.
func (x *Exclusions) exclude(rec *JobRecord) *int64 {
	switch {
	case rec.End == -1:
		return &x.StillOpen
	case rec.FinalState != Finish:
		return &x.Unfinished
	case rec.Submit == -1:
		return &x.NoSubmit
	case rec.Submit == BeforeWindow:
		return &x.BeforeWindow
	case rec.FirstSchedule <= BeforeWindow:
		return &x.NeverScheduled
	case rec.End == AfterWindow:
		return &x.AfterWindow
	case rec.Runtime <= 0:
		return &x.ZeroRuntime
	}
	return nil
}

// Meta returns the workload-level fields of an import of src: name, provenance, dimensions
// ["cpu", "mem"] and the cluster (ClusterOf when machine_events are given, else DefaultCluster).
func Meta(src Source, o Options) (canonical.Meta, Stats, error) {
	var st Stats
	o, err := o.normalize()
	if err != nil {
		return canonical.Meta{}, st, err
	}
	m := canonical.Meta{Name: o.Name, Dims: []string{"cpu", "mem"}}
	if len(src.MachineEvents) > 0 {
		m.Cluster, st.SkippedMachines, err = ClusterOf(src)
		if err != nil {
			return m, st, err
		}
	} else {
		m.Cluster = DefaultCluster()
	}
	st.Machines = len(m.Cluster.Machines)
	var parts []string
	for _, t := range []struct {
		name  string
		paths []string
	}{{JobEventsTable, src.JobEvents}, {TaskEventsTable, src.TaskEvents}, {MachineEventsTable, src.MachineEvents}} {
		files, err := expand(t.paths)
		if err != nil {
			return m, st, err
		}
		if d := describe(t.name, files); d != "" {
			parts = append(parts, d)
		}
	}
	m.Source = "google2011 clusterdata-2011-2; " + strings.Join(parts, "; ")
	return m, st, nil
}

// Convert streams the workload jobs of src to emit, in the order ScanJobs reports them (not
// sorted by submit time). Each imported job has one stage named "tasks": Tasks = the job's task
// count (1 without task_events), Duration = Estimate = Runtime, Demand = (CPURequest,
// MemRequest) per task — the defaults from o when unknown or both zero, clamped to the largest
// machine of cluster. Class is "sc0".."sc3" from the scheduling class (empty when missing),
// Priority the trace priority (-1 without task_events), Features the trace's hashed strings;
// Name is left empty (the trace's job name is a hash, kept once in Features.JobName). The Job
// passed to emit is reused afterwards: emit may keep a copy of it (and its Stages, which are not
// reused), not the pointer.
func Convert(src Source, o Options, cluster traces.Cluster, emit func(*traces.Job) error) (Stats, error) {
	var st Stats
	o, err := o.normalize()
	if err != nil {
		return st, err
	}
	var largest traces.Vec
	for _, m := range cluster.Machines {
		for d := range largest {
			largest[d] = max(largest[d], m.Capacity[d])
		}
	}
	if cluster.Pooled {
		largest = cluster.Total()
	}
	defaultDemand := traces.VecOf(o.DefaultCPU, o.DefaultMem)
	var slab []traces.Stage
	var j traces.Job // reused: emit copies it
	err = scanJobs(src, func(rec *JobRecord) error {
		if x := st.Excluded.exclude(rec); x != nil {
			*x++
			return nil
		}
		demand := traces.VecOf(rec.CPURequest, rec.MemRequest)
		if math.IsNaN(rec.CPURequest) || math.IsNaN(rec.MemRequest) || demand.IsZero() {
			demand = defaultDemand
			st.DefaultDemand++
		}
		if !demand.Fits(largest) {
			for d := range demand {
				demand[d] = min(demand[d], largest[d])
			}
			st.ClampedDemand++
		}
		tasks := max(rec.Tasks, 1)
		if len(slab) == 0 {
			slab = make([]traces.Stage, 4096)
		}
		stage := slab[:1:1]
		slab = slab[1:]
		stage[0] = traces.Stage{Name: "tasks", Tasks: tasks, Demand: demand, Duration: rec.Runtime, Estimate: rec.Runtime}
		class := ""
		if rec.SchedClass >= 0 {
			class = schedClasses[rec.SchedClass]
		}
		j = traces.Job{
			ID: rec.ID, Submit: rec.Submit, Class: class, Priority: int(rec.Priority),
			Features: traces.Features{User: rec.User, JobName: rec.JobName, LogicalJobName: rec.LogicalJobName},
			Stages:   stage,
		}
		st.Imported++
		return emit(&j)
	}, &st.Scan)
	return st, err
}

var schedClasses = [...]string{"sc0", "sc1", "sc2", "sc3"}

// Workload converts src into an in-memory workload sorted by submit time (see Convert for the
// jobs and Meta for the cluster).
func Workload(src Source, o Options) (*traces.Workload, error) {
	w, _, err := WorkloadStats(src, o)
	return w, err
}

// WorkloadStats is Workload that also returns the conversion's Stats.
func WorkloadStats(src Source, o Options) (*traces.Workload, Stats, error) {
	m, mst, err := Meta(src, o)
	if err != nil {
		return nil, mst, err
	}
	w := &traces.Workload{Name: m.Name, Source: m.Source, Dims: m.Dims, Cluster: m.Cluster}
	st, err := Convert(src, o, m.Cluster, func(j *traces.Job) error {
		w.Jobs = append(w.Jobs, *j)
		return nil
	})
	st.Machines, st.SkippedMachines = mst.Machines, mst.SkippedMachines
	if err != nil {
		return nil, st, err
	}
	w.Jobs = sortJobs(w.Jobs)
	return w, st, nil
}

// sortJobs orders jobs as traces.Workload.SortJobs does — by (submit, id), stably — but sorts
// indices and moves each 170-byte job once, which is much faster for large workloads.
func sortJobs(jobs []traces.Job) []traces.Job {
	idx := make([]int32, len(jobs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := &jobs[a], &jobs[b]
		switch {
		case x.Submit != y.Submit:
			return cmp.Compare(x.Submit, y.Submit)
		case x.ID != y.ID:
			return cmp.Compare(x.ID, y.ID)
		}
		return cmp.Compare(a, b)
	})
	out := make([]traces.Job, len(jobs))
	for i, k := range idx {
		out[i] = jobs[k]
	}
	return out
}

// Import converts src into a canonical workload file at path (.parquet or .arrow), streaming:
// memory stays bounded whatever the input size (jobs are sorted by submit time through
// temporary run files next to path). The file appears only if the import succeeds.
func Import(src Source, o Options, path string) (Stats, error) {
	m, mst, err := Meta(src, o)
	if err != nil {
		return mst, err
	}
	w, err := canonical.NewWriter(path, m, canonical.WithSortBySubmit(0, ""))
	if err != nil {
		return mst, err
	}
	st, err := Convert(src, o, m.Cluster, w.AppendOwned)
	st.Machines, st.SkippedMachines = mst.Machines, mst.SkippedMachines
	if err != nil {
		w.Abort()
		return st, err
	}
	return st, w.Close()
}
