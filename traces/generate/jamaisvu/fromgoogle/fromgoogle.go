// Package fromgoogle turns the Google cluster trace 2011 (read by traces/google2011) into the
// samples the jamaisvu generator fits its job classes to. It is a separate package so that the
// generator itself does not depend on the trace reader.
package fromgoogle

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate/jamaisvu"
	"github.com/schedlab/schedlab/traces/google2011"
)

// Stats counts the job records scanned and why some gave no sample.
type Stats struct {
	Records   int64 // job records scanned
	NoRuntime int64 // no JamaisVu runtime: did not FINISH, or SCHEDULE/FINISH outside the window
	NoTasks   int64 // no task events for the job
	Samples   int64 // samples returned
	// First and Last bound the fitted sample on the trace's clock: the earliest submission and
	// the latest finish of a job that gave a sample (the window the classes describe).
	First, Last traces.Time
	// TaskFiles is the number of task_events files read: samples exist only for jobs whose tasks
	// they hold (the shared data has parts 0-9 of 500, the trace's first ≈ 14 h).
	TaskFiles int
}

// Samples scans src's jobs (google2011.ScanJobs) and returns one sample per job with a runtime —
// first SCHEDULE to last FINISH inside the trace window, JamaisVu's definition — and at least one
// task in task_events: the runtime, the number of distinct tasks, and the features (user, job
// name, logical job name). Samples are in the order the scanner reports jobs, which depends only
// on the input. Jobs larger than 256 nodes are kept; the generator drops them (Options.MaxTasks).
func Samples(src google2011.Source) ([]jamaisvu.Sample, Stats, error) {
	var (
		out []jamaisvu.Sample
		st  Stats
	)
	err := google2011.ScanJobs(src, func(r *google2011.JobRecord) error {
		st.Records++
		switch {
		case r.Runtime <= 0:
			st.NoRuntime++
		case r.Tasks <= 0:
			st.NoTasks++
		default:
			if len(out) == 0 || r.Submit < st.First {
				st.First = r.Submit
			}
			st.Last = max(st.Last, r.End)
			out = append(out, jamaisvu.Sample{
				Runtime:  r.Runtime,
				Tasks:    r.Tasks,
				Features: traces.Features{User: r.User, JobName: r.JobName, LogicalJobName: r.LogicalJobName},
			})
		}
		return nil
	})
	if err != nil {
		return nil, st, fmt.Errorf("fromgoogle: %w", err)
	}
	st.Samples = int64(len(out))
	st.TaskFiles = countFiles(src.TaskEvents)
	if st.Samples == 0 {
		if len(src.TaskEvents) == 0 {
			return nil, st, fmt.Errorf("fromgoogle: none of the %d jobs has task events: no task_events were given (pass the trace directory holding job_events/ and task_events/, e.g. ../shared/data/google2011)", st.Records)
		}
		return nil, st, fmt.Errorf("fromgoogle: none of the %d jobs finished inside the trace window with task events (%d without runtime, %d without tasks)", st.Records, st.NoRuntime, st.NoTasks)
	}
	return out, st, nil
}

// Note describes the fitted sample for a workload's provenance: how many jobs, from which
// window of the trace, and how many task_events files bounded it.
func (s Stats) Note() string {
	return fmt.Sprintf("%d finished jobs with task events, submitted from %.2f h to finished by %.2f h of the trace (%d task_events files)",
		s.Samples, traces.Seconds(s.First)/3600, traces.Seconds(s.Last)/3600, s.TaskFiles)
}

// Discover finds the trace tables at path as google2011.Discover does; when path is (or is in)
// a job_events directory with no task_events, it adds the task_events directory beside it, as
// the generator needs both (the task counts come from task_events).
func Discover(path string) (google2011.Source, error) {
	src, err := google2011.Discover(path)
	if err != nil || len(src.TaskEvents) > 0 || len(src.JobEvents) == 0 {
		return src, err
	}
	sib := filepath.Join(filepath.Dir(filepath.Clean(src.JobEvents[0])), google2011.TaskEventsTable)
	if st, err := os.Stat(sib); err == nil && st.IsDir() {
		src.TaskEvents = []string{sib}
		return src, nil
	}
	return src, fmt.Errorf("fromgoogle: %s: job_events without task_events beside it (%s); pass the trace directory holding both job_events/ and task_events/, e.g. ../shared/data/google2011", path, sib)
}

// String summarizes the counts.
func (s Stats) String() string {
	pct := func(n int64) float64 {
		if s.Records == 0 {
			return 0
		}
		return math.Round(1000*float64(n)/float64(s.Records)) / 10
	}
	return fmt.Sprintf("%d job records: %d samples (%.1f%%), %d without runtime, %d without tasks", s.Records, s.Samples, pct(s.Samples), s.NoRuntime, s.NoTasks)
}

// countFiles counts the table files of the entries: a file counts one, a directory its .csv
// and .csv.gz files (as google2011 reads them).
func countFiles(entries []string) int {
	n := 0
	for _, e := range entries {
		des, err := os.ReadDir(e)
		if err != nil {
			n++
			continue
		}
		for _, d := range des {
			if !d.IsDir() && (strings.HasSuffix(d.Name(), ".csv") || strings.HasSuffix(d.Name(), ".csv.gz")) {
				n++
			}
		}
	}
	return n
}
