// Package google2011 reads the Google cluster trace clusterdata-2011-2 (one Borg cell of ~12.5k
// machines over 29 days of May 2011): the job_events, task_events and machine_events tables, as
// directories of part-NNNNN-of-NNNNN.csv.gz files or as plain CSV.
//
// The files have no header; fields are comma separated and an empty field is a missing value.
// Times are microseconds of trace time; 0 means "before the trace window" (the window starts at
// 600 s) and 2^63-1 means "after it". Jobs and tasks go through SUBMIT, SCHEDULE and one of the
// terminal events EVICT, FAIL, FINISH, KILL or LOST; a SUBMIT after a terminal event is a
// resubmission of the same job or task (see "Event order" for what may follow what).
//
// ScanJobs streams per-job records (submit, first schedule, end, final state, runtime, features,
// and, when task_events are given, task count, requests and priority) with memory bounded by the
// number of jobs alive at once, not by the input size. ScanTasks does the same for per-task event
// histories. Workload and Import turn the trace into a schedlab workload, in memory or streamed
// into a canonical Parquet/Arrow file sorted by submit time through bounded run files.
//
// # Task-level import
//
// With task_events (Options.Level LevelTask, the default then) every job with at least one
// scheduled task becomes a workload job with its real tasks:
//
//   - A task's duration is its last run: from its last SCHEDULE to the terminal event that ended
//     that run (FINISH, or EVICT, FAIL, KILL, LOST — the run is what it occupied, whether or not
//     it completed). A run still going when task_events end is cut at the last task event of the
//     input (TaskStats.End) and its outcome is traces.TaskRunning: kept and flagged, not dropped,
//     since a long service occupies the cluster whether or not the trace saw it end. A run that
//     began before the trace window (SCHEDULE at time 0) counts from time 0. Tasks never
//     scheduled in the input are left out and counted; so are jobs none of whose tasks was.
//   - Its demand is the CPU and memory request its last run was scheduled with (the latest seen at
//     that SCHEDULE), as the trace gives them: normalized so the largest machine is 1.0. A task
//     without any request gets Options.DefaultCPU/DefaultMem in that dimension; one asking for
//     nothing gets the smallest demand (1e-6 CPU); requests beyond the largest machine are
//     clamped. All are counted in TaskStats.
//   - Its history (traces.TaskHistory) counts its SCHEDULE events (attempts) and EVICT events,
//     and says how the last run ended (traces.TaskOutcome), for later fault replay.
//   - Tasks of a job with different requests form separate stages (one per request, without
//     dependencies, ordered by their lowest task index; tasks by index within a stage), with
//     per-task durations where they differ and Duration = Estimate = their mean (so a policy
//     sees oracle estimates; shape or predict them for anything else).
//   - The job's submit time is its first SUBMIT in job_events (tasks arrive within seconds of
//     their job: TaskStats.LateTasks counts those that did not); its Priority is its tasks'
//     highest priority (0-11), its Queue the priority band (PriorityBand: free 0-1, middle 2-8,
//     production 9-11), its Class "sc0".."sc3" from the scheduling class.
//
// The scan stops reading job_events at the end of task_events: give both tables for the same
// parts (a window). Memory holds the tasks of the jobs alive at a time. A window that starts
// mid-trace begins with tasks already running: they become the workload's initial holds
// (initial.go, Options.StateFrom), and the EVICT, FAIL and KILL that ended runs before a task's
// last its faults (faults.go).
//
// # Job-level import
//
// With job_events alone (or Options.Level LevelJob) every finished job becomes one single-stage
// job whose tasks all take the job's runtime (first SCHEDULE to last FINISH), as JamaisVu models
// the trace; jobs that did not finish inside the window are left out and counted (Exclusions).
// Without task_events task counts and demands are unknown — each job is one task of the default
// demand — and the import says so (Stats.Fprint, the workload's Source).
//
// # Cluster
//
// The replay engine's cluster is a fixed set of machines. With machine_events (Options.Cluster
// ClusterMachineEvents, the default then) it is the machines up at the input's first event with
// their capacity then (ClusterOf); machines added, removed or resized later are counted, and with
// Options.ClusterEvents kept as the workload's cluster events (machevents.go).
// Otherwise it is the published machine mix of the cell (MixCluster: Reiss et al., SoCC 2012,
// Table 1, kept in machine_mix.csv), scaled to Options.Machines, by default to the number of
// machines the imported tasks ran on (12,509 for parts 0-9; PublishedMachines, 12,583, for a
// job-level import). Borg overcommits: the tasks running at the window's start request about
// 112% of the cell's CPU, which the replay, placing requests exactly, cannot fit, so a replay of
// the trace queues more than the cell did.
//
// # Event order
//
// Jobs and tasks follow the trace's life cycle: SUBMIT makes one pending, SCHEDULE running, a
// terminal event ends it, and only a SUBMIT (a resubmission) may follow an end. An event that
// breaks it is an error at that event's line: a FINISH of a job or task that is pending (only
// what runs finishes), a SUBMIT of one pending or running, a SCHEDULE of one running,
// UPDATE_RUNNING while pending or UPDATE_PENDING while running, anything but SUBMIT after an end,
// and a job resubmitted after its FINISH. An input that begins at the trace's beginning (its
// first event at time 0, as part 0 of each table begins) holds every history whole, so there a
// job's or task's first event must be its SUBMIT; an input that starts later may begin any
// history in the middle. All 500 parts of job_events and task_events parts 0-9 keep these rules
// (the one liberty they take, an EVICT of a pending task, 145 times in parts 0-9, is allowed), so
// a violation means a damaged or hand-edited file. Events the trace marks reconstructed
// (missing_info set: dated by the snapshot that revealed them) are exempt.
//
// # Input format
//
// Fields are separated by commas. The trace quotes nothing, but a field quoted as CSV quotes
// ("a,b", with "" for a quote) is read unquoted; a quote left open at the end of its line, or a
// quote inside an unquoted field, is an error.
//
// Bad input is reported as a *ParseError naming the file, line and field. Requests and machine
// capacities beyond traces.MaxAmount (far beyond any machine; they are fractions of the largest)
// are errors wrapping traces.ErrRange, and an input that yields no job is an error saying why.
package google2011
