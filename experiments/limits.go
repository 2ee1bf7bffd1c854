package experiments

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/schedlab/schedlab/internal/sysmem"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// What a replay holds per task and per machine, from which the default limits are derived. A
// replay's live heap grows by 22 B per task (TestBytesPerTaskCoversAReplay: a stage of 10⁶ tasks
// under FIFO, 10⁵ running at a time; peak RSS grows by 17 B per task from 10⁶ to 10⁷ tasks);
// 64 B leaves room for policies that keep per-task state. A machine costs 365 B (peak RSS of
// tpch-fb on 10⁵ and 10⁶ machines, FIFO or DRF); 1 KiB leaves room for placers' indexes.
//
// The per-queue usage series (metrics.usage_window_s) holds 48 B per window and queue; it grows
// by appending (up to twice its size) and the result copies it: 144 B per window.
//
// A job costs memory of its own, whatever its tasks: its workload record, the engine's job and
// stage state and the policy's per-job state, and the per-job results. bytesPerJob is measured
// by TestBytesPerJobCoversAReplay (reading and replaying 200,000 one-task jobs under FIFO)
// with headroom; a derived limit charges bytesPerJob per job plus bytesPerTask per task against
// the same budget (traces.Limits.Memory), so 2 million one-task jobs, not just their 2 million
// tasks, must fit.
const (
	bytesPerJob     = 2048
	bytesPerTask    = 64
	bytesPerMachine = 1024
	bytesPerWindow  = 3 * 8 * traces.MaxDims
	// assumedMemory stands in for the available memory where none can be read (not Linux).
	assumedMemory = 8 << 30
)

// Limits are the limits.* configuration keys: the largest workload schedlab loads and replays.
// A zero MaxTasks or MaxMachines is derived from the memory this process may use (Effective);
// a zero MaxJobTasks or MaxStageTasks sets no limit of its own (MaxTasks still applies).
type Limits struct {
	MaxTasks      int64
	MaxJobTasks   int64
	MaxStageTasks int64
	MaxMachines   int64
}

// availableMemory is read once per process: sweeps resolve many configurations.
var availableMemory = sync.OnceValues(sysmem.Read)

// Effective returns the limits in force and, when some are derived from memory, a note saying
// from how much ("derived from 17.9 GiB of available memory, per MemAvailable"). Half of the
// available memory is the budget: the Go heap grows to about twice its live data before a
// collection.
func (l Limits) Effective() (traces.Limits, string) {
	t := traces.Limits{StageTasks: l.MaxStageTasks, JobTasks: l.MaxJobTasks, Tasks: l.MaxTasks, Machines: l.MaxMachines}
	if t.Tasks > 0 && t.Machines > 0 {
		return t, ""
	}
	avail, ok := availableMemory()
	note := fmt.Sprintf("derived from %.1f GiB of available memory, per %s", float64(avail.Bytes)/(1<<30), avail.Source)
	if !ok {
		avail.Bytes = assumedMemory
		note = fmt.Sprintf("derived from an assumed %d GiB of memory", assumedMemory>>30)
	}
	budget := int64(avail.Bytes / 2)
	if t.Tasks == 0 {
		t.Tasks = max(budget/bytesPerTask, 1)
		// Jobs cost memory of their own: a workload of one-task jobs is bounded by its jobs.
		t.Memory, t.JobBytes, t.TaskBytes = budget, bytesPerJob, bytesPerTask
	}
	if t.Machines == 0 {
		t.Machines = max(budget/bytesPerMachine, 1)
	}
	return t, note
}

// limitKeys name the configuration key of each traces limit.
var limitKeys = map[string]string{
	traces.LimitTasks:      "limits.max_tasks",
	traces.LimitJobTasks:   "limits.max_job_tasks",
	traces.LimitStageTasks: "limits.max_stage_tasks",
	traces.LimitMachines:   "limits.max_machines",
	traces.LimitMemory:     "limits.max_tasks",
}

// Check returns an error when w exceeds the limits, naming the job, stage or cluster, the limit
// and the key that sets it (wrapping traces.ErrLimit).
func (l Limits) Check(w *traces.Workload) error { return l.check(w, nil) }

// check checks w against the limits (each stage's task count mapped by tasks when not nil); the
// error names the key that sets the exceeded limit and, if derived, where its value came from.
func (l Limits) check(w *traces.Workload, tasks func(int32) int64) error {
	t, note := l.Effective()
	return l.explain(t.CheckScaled(w, tasks), note)
}

// checkMachines checks a cluster size set by configuration (workload.machines).
func (l Limits) checkMachines(n int) error {
	t, note := l.Effective()
	var le *traces.LimitError
	if err := t.CheckMachines(int64(n)); errors.As(err, &le) {
		return fmt.Errorf("%d exceeds the limit of %d machines (%s)", n, le.Max, l.source(le.Limit, note))
	}
	return nil
}

// explain appends to a *traces.LimitError the key that sets the limit and, when the limit was
// derived, from what.
func (l Limits) explain(err error, note string) error {
	var le *traces.LimitError
	if !errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%w (%s)", err, l.source(le.Limit, note))
}

func (l Limits) source(limit, note string) string {
	explicit := map[string]int64{
		traces.LimitTasks: l.MaxTasks, traces.LimitJobTasks: l.MaxJobTasks,
		traces.LimitStageTasks: l.MaxStageTasks, traces.LimitMachines: l.MaxMachines,
		traces.LimitMemory: l.MaxTasks,
	}[limit]
	if explicit == 0 && note != "" {
		return limitKeys[limit] + ", " + note
	}
	return limitKeys[limit]
}

// checkUsageWindows refuses a metrics.usage_window_s so small for w that the usage series could
// not fit in the memory budget: the run lasts at least until the last job could finish on an
// empty cluster (its submit plus critical path) and until the cluster could have done all the
// work (task time × demand over capacity), unless the horizon stops it first; every queue gets a
// window per usage_window_s of that. The series is written from the engine as the clock advances, so
// this is checked before the replay starts.
func checkUsageWindows(c Config, w *traces.Workload) error {
	window := traces.FromSeconds(c.Metrics.UsageWindowS)
	if window <= 0 || len(w.Jobs) == 0 {
		return nil
	}
	start, end := w.Jobs[0].Submit, w.Jobs[0].Submit
	queues := map[string]bool{}
	var volume [traces.MaxDims]float64 // ∑ task duration × demand
	for i := range w.Jobs {
		j := &w.Jobs[i]
		end = max(end, j.Submit+j.CriticalPath(false))
		queues[j.Queue] = true
		for si := range j.Stages {
			s := &j.Stages[si]
			work := float64(s.Duration) * float64(s.Tasks)
			if s.TaskDurations != nil {
				work = 0
				for _, d := range s.TaskDurations {
					work += float64(d)
				}
			}
			for d := range volume {
				volume[d] += work * float64(s.Demand[d])
			}
		}
	}
	// Nor can it end before the cluster could have done all the work.
	total := w.Cluster.Total()
	for d := range volume {
		if total[d] > 0 {
			end = max(end, start+traces.Time(min(volume[d]/float64(total[d]), math.MaxInt64/2)))
		}
	}
	if h := traces.FromSeconds(c.Engine.HorizonS); h > 0 {
		end = min(end, max(h, start))
	}
	windows := (end - start) / window
	avail, ok := availableMemory()
	if !ok {
		avail.Bytes = assumedMemory
	}
	if most := int64(avail.Bytes/2) / bytesPerWindow / int64(len(queues)); windows > most {
		return configErr("metrics.usage_window_s: %v s makes at least %d usage windows for each of %d queues over the run's %.0f s, more than the memory allows (%d); raise it, or 0 disables the series", c.Metrics.UsageWindowS, windows, len(queues), traces.Seconds(end-start), most)
	}
	return nil
}

// CanonicalOptions are the options every read of a canonical workload file uses: the limits in
// force, checked against the sizes the file states before they are allocated, and validation of
// each job as it is read. The note says where derived limits came from (Effective).
func (l Limits) CanonicalOptions() (canonical.Options, string) {
	t, note := l.Effective()
	return canonical.Options{Limits: t, Validate: true}, note
}

// ReadCanonical reads a canonical workload file with CanonicalOptions; a limit it exceeds is
// named with the key that sets it.
func (l Limits) ReadCanonical(path string) (*traces.Workload, error) {
	o, note := l.CanonicalOptions()
	w, err := canonical.ReadWith(path, o)
	return w, l.explain(err, note)
}

// Explain appends to an error wrapping a *traces.LimitError the key that sets the limit and,
// when the limit was derived, from what (other errors are returned as they are).
func (l Limits) Explain(err error) error {
	if err == nil {
		return nil
	}
	_, note := l.Effective()
	return l.explain(err, note)
}
