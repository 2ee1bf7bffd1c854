package google2011

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// Default per-task requests for jobs without task_events: the medians of the first request of
// every task in task_events parts 0-9 (463,804 tasks).
const (
	DefaultCPURequest = 0.03125
	DefaultMemRequest = 0.02545
)

// Import levels (Options.Level).
const (
	// LevelTask imports every task: its own duration, request and history (needs task_events).
	LevelTask = "task"
	// LevelJob imports one single-stage job per finished job: the job's runtime for every task.
	LevelJob = "job"
)

// Cluster choices (Options.Cluster).
const (
	// ClusterAuto takes machine_events when they are given, else the published mix.
	ClusterAuto = "auto"
	// ClusterMachineEvents builds the cluster from machine_events (ClusterOf), at the input's
	// first event time.
	ClusterMachineEvents = "machine_events"
	// ClusterMix is the published machine mix (MixCluster).
	ClusterMix = "mix"
)

// MaxMachines bounds Options.Machines.
const MaxMachines = 1 << 22

// Options configure the conversion of the trace into a workload.
type Options struct {
	// Name is the workload's name; empty means "google2011".
	Name string
	// DefaultCPU and DefaultMem are the per-task demand where the trace gives no request (every
	// job of a job-level import without task_events; tasks without a request); zero means
	// DefaultCPURequest and DefaultMemRequest.
	DefaultCPU, DefaultMem float64
	// Level is LevelTask or LevelJob; empty means LevelTask when task_events are given, else
	// LevelJob.
	Level string
	// Cluster is ClusterAuto (empty), ClusterMachineEvents or ClusterMix.
	Cluster string
	// Machines scales the published mix to this many machines; 0 means the trace's own count:
	// the machines tasks were scheduled on in a task-level import, else PublishedMachines.
	Machines int
	// StateFrom names earlier task_events parts (files or directories) read only to find the
	// tasks running through the whole window (see "Running state at a window's start").
	StateFrom []string
	// NoInitial leaves out the running state at the window's start (no initial holds, no
	// warning): the import of earlier versions, kept for comparisons.
	NoInitial bool
	// ClusterEvents makes the machine_events after the cluster's time the workload's cluster
	// events (machevents.go); it needs the machine_events cluster.
	ClusterEvents bool
	// Placements keeps each imported task's last SCHEDULE (machine and time) as the workload's
	// trace placements, for the `trace` policy (placements.go).
	Placements bool
}

// ErrOptions is wrapped by the errors of Options that cannot work.
var ErrOptions = errors.New("google2011: bad options")

func optErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrOptions, fmt.Sprintf(format, args...))
}

func (o Options) normalize(src Source) (Options, error) {
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
			return o, optErr("default request %v outside [0, 1]", v)
		}
	}
	switch o.Level {
	case "":
		o.Level = LevelJob
		if len(src.TaskEvents) > 0 {
			o.Level = LevelTask
		}
	case LevelJob:
	case LevelTask:
		if len(src.TaskEvents) == 0 {
			return o, optErr("a task-level import needs task_events")
		}
	default:
		return o, optErr("unknown level %q (valid: %s, %s)", o.Level, LevelTask, LevelJob)
	}
	if o.Placements && o.Level != LevelTask {
		return o, optErr("--placements needs a task-level import (task_events)")
	}
	switch o.Cluster {
	case "", ClusterAuto:
		o.Cluster = ClusterMix
		if len(src.MachineEvents) > 0 {
			o.Cluster = ClusterMachineEvents
		}
	case ClusterMix:
	case ClusterMachineEvents:
		if len(src.MachineEvents) == 0 {
			return o, optErr("cluster %s needs machine_events", ClusterMachineEvents)
		}
	default:
		return o, optErr("unknown cluster %q (valid: %s, %s, %s)", o.Cluster, ClusterAuto, ClusterMachineEvents, ClusterMix)
	}
	if o.Machines < 0 || o.Machines > MaxMachines {
		return o, optErr("machines %d outside 0..%d", o.Machines, MaxMachines)
	}
	if o.ClusterEvents && o.Cluster != ClusterMachineEvents {
		return o, optErr("cluster events need the machine_events cluster; the cluster is %s", o.Cluster)
	}
	if o.Machines > 0 && o.Cluster != ClusterMix {
		return o, optErr("machines scales the published mix; the cluster is %s", o.Cluster)
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
	// Level is the import's level (LevelTask or LevelJob).
	Level string
	Scan  ScanStats
	// Imported counts the jobs in the workload.
	Imported int64
	// Excluded counts the job records a job-level import leaves out (task-level:
	// Tasks.NoRunJobs).
	Excluded Exclusions
	// DefaultDemand counts job-level jobs whose demand is the default (requests unknown or all
	// zero); ClampedDemand those whose request exceeded the largest machine in some dimension.
	DefaultDemand, ClampedDemand int64
	// Tasks describes a task-level import.
	Tasks TaskStats
	// Cluster says where the cluster came from; Machines is its size, MachineStats what
	// machine_events held that it leaves out.
	Cluster      string
	Machines     int
	MachineStats MachineStats
	// ClusterEvents counts the machine events after the cluster's time kept as the workload's
	// (Options.ClusterEvents).
	ClusterEvents int
	// Initial describes the running state at the window's start (task-level imports);
	// StartStateWarning says what of it is unknown, "" when nothing is.
	Initial           InitialStats
	StartStateWarning string
	// Faults counts the evictions, failures and kills of runs before a task's last (the
	// workload's Faults).
	Faults int64
	// Placements counts the imported tasks whose last SCHEDULE was kept as a trace placement
	// (Options.Placements); PlacementsOff those whose machine is not in the cluster (left out).
	Placements, PlacementsOff int64
}

// Fprint writes a human-readable summary.
func (s *Stats) Fprint(w io.Writer) {
	fmt.Fprintf(w, "input: %d job_events lines in %d files, %d task_events lines in %d files, %.1f MB gzip\n",
		s.Scan.JobEvents, s.Scan.JobEventFiles, s.Scan.TaskEvents, s.Scan.TaskEventFiles, float64(s.Scan.GzipBytes)/1e6)
	if s.Scan.JobEventsAfterTasks {
		fmt.Fprintf(w, "job_events past the last task event (t=%d) were not used\n", s.Tasks.End)
	}
	if s.Level == LevelTask {
		t := &s.Tasks
		fmt.Fprintf(w, "jobs: %d records, %d imported, %d without a scheduled task; %d with several requests (one stage each), %d with mixed priorities\n",
			s.Scan.Records, s.Imported, t.NoRunJobs, t.MultiStageJobs, t.MixedPriorityJobs)
		fmt.Fprintf(w, "tasks: %d seen, %d imported, %d never scheduled (left out); last run %s\n", t.Seen, t.Imported, t.NeverScheduled, fmtOutcomes(t.Outcomes))
		fmt.Fprintf(w, "task runs: %d attempts, %d evictions; %d started before the window (counted from t=0), %d still running at t=%d (cut there)\n",
			t.Attempts, t.Evictions, t.StartedBefore, t.Outcomes[traces.TaskRunning], t.End)
		fmt.Fprintf(w, "requests: %d tasks without one (default), %d of zero (1e-6 cpu), %d clamped; %d tasks late (> %s after their job's submit)\n",
			t.DefaultRequest, t.ZeroRequest, t.ClampedRequest, t.LateTasks, time.Duration(LateTask)*time.Microsecond)
		if s.Placements > 0 || s.PlacementsOff > 0 {
			fmt.Fprintf(w, "placements: %d tasks keep the trace's machine and start time (%d on machines outside the cluster, left out)\n", s.Placements, s.PlacementsOff)
		}
		if s.Faults > 0 {
			fmt.Fprintf(w, "faults: %d runs before a task's last ended by EVICT, FAIL or KILL (replayed with engine.trace_evictions: replay)\n", s.Faults)
		}
		s.fprintInitial(w)
	} else {
		fmt.Fprintf(w, "jobs: %d records, %d imported, %d excluded (unfinished %d, still open %d, no submit %d, before window %d, never scheduled %d, after window %d, zero runtime %d)\n",
			s.Scan.Records, s.Imported, s.Excluded.Total(), s.Excluded.Unfinished, s.Excluded.StillOpen, s.Excluded.NoSubmit,
			s.Excluded.BeforeWindow, s.Excluded.NeverScheduled, s.Excluded.AfterWindow, s.Excluded.ZeroRuntime)
		if s.Scan.TaskEventFiles == 0 {
			fmt.Fprintln(w, "job-level import without task_events: task counts and per-task demands are unknown; every job is one task of the default demand (give task_events for a task-level import)")
		}
	}
	fmt.Fprintf(w, "resubmissions %d, late job events %d, late task events %d, jobs only in task_events %d", s.Scan.Resubmissions, s.Scan.LateJobEvents, s.Scan.LateTaskEvents, s.Scan.OrphanJobs)
	if s.Level == LevelJob {
		fmt.Fprintf(w, ", default demand %d, clamped demand %d", s.DefaultDemand, s.ClampedDemand)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "cluster: %d machines, %s", s.Machines, s.Cluster)
	if m := s.MachineStats; m != (MachineStats{}) {
		fmt.Fprintf(w, " (left out: %d without capacity, %d added later, %d removed)", m.Skipped, m.Later, m.Gone)
	}
	fmt.Fprintln(w)
}

func fmtOutcomes(n [traces.NumTaskOutcomes]int64) string {
	var b strings.Builder
	for o, k := range n {
		if o > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", traces.TaskOutcome(o), k)
	}
	return b.String()
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

// conversion is one import of a trace: its options, files and cluster.
type conversion struct {
	src                           Source
	o                             Options
	jobFiles, taskFiles, machFile []string
	meta                          canonical.Meta
	st                            Stats
	// scaleMix: the cluster is the mix scaled to the machines the tasks ran on, known after the
	// scan (meta holds the unscaled mix until then).
	scaleMix bool
	// opener opens the input files (nil: os.Open); tests and fuzzing supply content.
	opener func(string) (io.ReadCloser, error)
}

func newConversion(src Source, o Options) (*conversion, error) {
	o, err := o.normalize(src)
	if err != nil {
		return nil, err
	}
	c := &conversion{src: src, o: o, st: Stats{Level: o.Level}}
	if c.jobFiles, err = expand(src.JobEvents); err != nil {
		return nil, err
	}
	if c.taskFiles, err = expand(src.TaskEvents); err != nil {
		return nil, err
	}
	if c.machFile, err = expand(src.MachineEvents); err != nil {
		return nil, err
	}
	c.meta = canonical.Meta{Name: o.Name, Dims: []string{"cpu", "mem"}}
	switch {
	case o.Cluster == ClusterMachineEvents:
		at, err := c.firstTime()
		if err != nil {
			return nil, err
		}
		if c.meta.Cluster, c.st.MachineStats, err = ClusterOf(src, at); err != nil {
			return nil, err
		}
		c.st.Cluster = fmt.Sprintf("machine_events at t=%d (the input's first event)", at)
		if o.ClusterEvents {
			if c.meta.ClusterEvents, err = clusterEvents(c.machFile, at, &c.meta.Cluster, c.opener); err != nil {
				return nil, err
			}
			c.st.ClusterEvents = len(c.meta.ClusterEvents)
			c.st.Cluster += fmt.Sprintf(", then %d machine events (%d machines in all)", c.st.ClusterEvents, len(c.meta.Cluster.Machines))
		}
	case o.Machines > 0 || o.Level == LevelJob:
		n := o.Machines
		if n == 0 {
			n = PublishedMachines
		}
		c.meta.Cluster = MixCluster(n)
		c.st.Cluster = fmt.Sprintf("published mix (%s) for %d machines", MixSource, n)
	default:
		c.meta.Cluster = MixCluster(PublishedMachines)
		c.scaleMix = true
	}
	c.st.Machines = len(c.meta.Cluster.Machines)
	var parts []string
	for _, t := range []struct {
		name  string
		files []string
	}{{JobEventsTable, c.jobFiles}, {TaskEventsTable, c.taskFiles}, {MachineEventsTable, c.machFile}} {
		if d := describe(t.name, t.files); d != "" {
			parts = append(parts, d)
		}
	}
	c.meta.Source = "google2011 clusterdata-2011-2 " + o.Level + "-level; " + strings.Join(parts, "; ")
	if o.Level == LevelJob && len(c.taskFiles) == 0 {
		c.meta.Source += "; no task_events: task counts and demands unknown"
	}
	return c, nil
}

// firstTime returns the time of the input's first event: the first line of task_events, or of
// job_events without them.
func (c *conversion) firstTime() (traces.Time, error) {
	files, table, names := c.taskFiles, TaskEventsTable, taskEventNames[:]
	if len(files) == 0 {
		files, table, names = c.jobFiles, JobEventsTable, jobEventNames[:]
	}
	if len(files) == 0 {
		return 0, nil
	}
	r := newLineReader(table, names, files[:1])
	defer r.close()
	f, err := r.next()
	if err != nil {
		return 0, err
	}
	return r.time(f, 0)
}

// largest returns the largest capacity of the cluster in each dimension (the pooled total for a
// pooled cluster).
func largest(cluster traces.Cluster) traces.Vec {
	if cluster.Pooled {
		return cluster.Total()
	}
	var l traces.Vec
	for _, m := range cluster.Machines {
		for d := range l {
			l[d] = max(l[d], m.Capacity[d])
		}
	}
	return l
}

// run streams the workload's jobs to emit (see Convert). An input that yields no job is an error
// saying why.
func (c *conversion) run(emit func(*traces.Job) error) error {
	var err error
	if c.o.Level == LevelTask {
		err = c.runTasks(emit)
	} else {
		err = c.runJobs(emit)
	}
	if err == nil && c.st.Imported == 0 {
		err = c.noJobs()
	}
	return err
}

// noJobs explains an import that yields no job, naming the input's first job_events file.
func (c *conversion) noJobs() error {
	st := &c.st
	var why string
	switch {
	case st.Scan.Records == 0:
		why = fmt.Sprintf("the input's %d job events hold no job (jobs seen only in task_events: %d)", st.Scan.JobEvents, st.Scan.OrphanJobs)
	case c.o.Level == LevelTask:
		why = fmt.Sprintf("none of its %d jobs has a task scheduled in the input (%d tasks seen, never scheduled)", st.Scan.Records, st.Tasks.Seen)
	default:
		x := st.Excluded
		why = fmt.Sprintf("none of its %d jobs finished inside the trace window (unfinished %d, still open %d, no submit %d, before window %d, never scheduled %d, after window %d, zero runtime %d)",
			st.Scan.Records, x.Unfinished, x.StillOpen, x.NoSubmit, x.BeforeWindow, x.NeverScheduled, x.AfterWindow, x.ZeroRuntime)
	}
	return &ParseError{File: c.jobFiles[0], Msg: "no job to import: " + why}
}

func (c *conversion) runTasks(emit func(*traces.Job) error) error {
	s := &jobScanner{stats: &c.st.Scan, taskLevel: true, machines: make(map[int64]struct{}), initial: &initialState{},
		faults: make(map[int64][]rawFault)}
	var faults []traces.TaskFault
	var placed []rawPlacement
	if c.o.NoInitial {
		s.initial = nil
	}
	sfFromStart := false
	if len(c.o.StateFrom) > 0 && s.initial != nil {
		files, err := expand(c.o.StateFrom)
		if err != nil {
			return fmt.Errorf("state-from: %w", err)
		}
		if sfFromStart, err = s.initial.readStateFrom(files, c.opener); err != nil {
			return err
		}
	}
	tj := &taskJobs{scan: s, st: &c.st.Tasks, largest: largest(c.meta.Cluster), faults: &faults, emit: func(j *traces.Job) error {
		c.st.Imported++
		return emit(j)
	}}
	if c.o.Placements {
		tj.placements = &placed
	}
	d := traces.VecOf(c.o.DefaultCPU, c.o.DefaultMem)
	tj.deflt = [2]int64{d[0], d[1]}
	s.emit = tj.add
	err := s.scan(c.jobFiles, c.taskFiles, c.opener)
	c.st.Tasks.Machines, c.st.Tasks.End = len(s.machines), s.lastTask
	if err == nil && s.initial != nil && s.tasks != nil && !s.tasks.fromStart() {
		for _, id := range s.initial.machineIDs() {
			if id >= 0 {
				s.machines[id] = struct{}{}
			}
		}
	}
	if err == nil && c.scaleMix {
		n := len(s.machines)
		if n == 0 {
			n = PublishedMachines
		}
		c.meta.Cluster = MixCluster(n)
		c.st.Machines = n
		c.st.Cluster = fmt.Sprintf("published mix (%s) scaled to the %d machines tasks ran on", MixSource, n)
	}
	sortFaults(faults)
	c.meta.Faults, c.st.Faults = faults, int64(len(faults))
	if err == nil && s.initial != nil && s.tasks != nil && !s.tasks.fromStart() {
		err = c.finishInitial(s, len(c.o.StateFrom) > 0, sfFromStart)
	}
	if err == nil && c.o.Placements {
		c.finishPlacements(placed, clusterIndex(c.meta.Cluster, c.o.Cluster == ClusterMachineEvents, s.machines))
	}
	return err
}

func (c *conversion) runJobs(emit func(*traces.Job) error) error {
	st := &c.st
	top := largest(c.meta.Cluster)
	defaultDemand := traces.VecOf(c.o.DefaultCPU, c.o.DefaultMem)
	var slab []traces.Stage
	var j traces.Job // reused: emit copies it
	s := &jobScanner{stats: &st.Scan}
	s.emit = func(js *jobState) error {
		rec := &js.rec
		if x := st.Excluded.exclude(rec); x != nil {
			*x++
			return nil
		}
		// In range: means of requests that each passed traces.CheckedAmount where they were read.
		demand := traces.VecOf(rec.CPURequest, rec.MemRequest)
		if math.IsNaN(rec.CPURequest) || math.IsNaN(rec.MemRequest) || demand.IsZero() {
			demand = defaultDemand
			st.DefaultDemand++
		}
		if !demand.Fits(top) {
			for d := range demand {
				demand[d] = min(demand[d], top[d])
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
			ID: rec.ID, Submit: rec.Submit, Class: class, Priority: int(rec.Priority), Queue: PriorityBand(int(rec.Priority)),
			Features: traces.Features{User: rec.User, JobName: rec.JobName, LogicalJobName: rec.LogicalJobName},
			Stages:   stage,
		}
		st.Imported++
		return emit(&j)
	}
	return s.scan(c.jobFiles, c.taskFiles, c.opener)
}

// Convert streams the workload jobs of src to emit, in the order the scan completes them (not
// sorted by submit time), and returns the workload's metadata and the conversion's Stats. The
// metadata's cluster may depend on the scan (the published mix scaled to the machines tasks ran
// on), so it is returned at the end. The Job passed to emit is reused afterwards: emit may keep a
// copy of it (and its Stages, which are not reused), not the pointer.
//
// A task-level import (LevelTask) makes one job per job with a scheduled task, one stage per
// distinct request among its tasks (see the package documentation for durations, requests,
// priorities and histories). A job-level import (LevelJob) makes one single-stage job per
// finished job: Tasks = the job's task count (1 without task_events), Duration = Estimate =
// Runtime, Demand = (CPURequest, MemRequest) per task — the defaults from o when unknown or both
// zero. Either way demands are clamped to the cluster's largest machine, Class is "sc0".."sc3"
// from the scheduling class (empty when missing), Priority the trace priority (-1 when unknown),
// Queue its PriorityBand, Features the trace's hashed strings, and Name is left empty (the
// trace's job name is a hash, kept once in Features.JobName).
func Convert(src Source, o Options, emit func(*traces.Job) error) (canonical.Meta, Stats, error) {
	c, err := newConversion(src, o)
	if err != nil {
		return canonical.Meta{}, Stats{}, err
	}
	err = c.run(emit)
	return c.meta, c.st, err
}

var schedClasses = [...]string{"sc0", "sc1", "sc2", "sc3"}

// Workload converts src into an in-memory workload sorted by submit time (see Convert).
func Workload(src Source, o Options) (*traces.Workload, error) {
	w, _, err := WorkloadStats(src, o)
	return w, err
}

// WorkloadStats is Workload that also returns the conversion's Stats.
func WorkloadStats(src Source, o Options) (*traces.Workload, Stats, error) {
	var jobs []traces.Job
	m, st, err := Convert(src, o, func(j *traces.Job) error {
		jobs = append(jobs, *j)
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	return &traces.Workload{Name: m.Name, Source: m.Source, Dims: m.Dims, Cluster: m.Cluster, Jobs: sortJobs(jobs),
		Initial: m.Initial, ClusterEvents: m.ClusterEvents, Faults: m.Faults, Placements: m.Placements}, st, nil
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
	c, err := newConversion(src, o)
	if err != nil {
		return Stats{}, err
	}
	w, err := canonical.NewWriter(path, c.meta, canonical.WithSortBySubmit(0, ""))
	if err != nil {
		return c.st, err
	}
	if err := c.run(w.AppendOwned); err != nil {
		w.Abort()
		return c.st, err
	}
	if err := w.SetMeta(c.meta); err != nil {
		w.Abort()
		return c.st, err
	}
	return c.st, w.Close()
}
