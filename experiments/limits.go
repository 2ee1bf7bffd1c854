package experiments

import (
	"errors"
	"fmt"
	"sync"

	"github.com/schedlab/schedlab/internal/sysmem"
	"github.com/schedlab/schedlab/traces"
)

// What a replay holds per task and per machine, from which the default limits are derived. The
// engine's per-task state measured 17 B per task (a 10⁷-task stage under FIFO: peak RSS 222 MB
// against 69 MB for 10⁶ tasks); 64 B leaves room for the event heap and policies' per-task
// state. A machine costs the engine and the placers a few hundred bytes.
const (
	bytesPerTask    = 64
	bytesPerMachine = 1024
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
	}[limit]
	if explicit == 0 && note != "" {
		return limitKeys[limit] + ", " + note
	}
	return limitKeys[limit]
}
