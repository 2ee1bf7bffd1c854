// Package fromgoogle turns the Google cluster trace 2011 (read by traces/google2011) into the
// samples the jamaisvu generator fits its job classes to. It is a separate package so that the
// generator itself does not depend on the trace reader.
package fromgoogle

import (
	"fmt"
	"math"

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
	if st.Samples == 0 {
		return nil, st, fmt.Errorf("fromgoogle: none of the %d jobs finished inside the trace window with task events (%d without runtime, %d without tasks)", st.Records, st.NoRuntime, st.NoTasks)
	}
	return out, st, nil
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
