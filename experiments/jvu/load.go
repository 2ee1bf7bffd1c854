// Package jvu evaluates JamaisVu's runtime predictor, JVuPredict (policies/predict), online on
// the Google 2011 cluster trace and reproduces the predictor's results in the JamaisVu paper
// (Tumanov et al., CMU-PDL-16-104): Table 1 and Figures 3, 11, 12 and 13, plus the effect of
// secondary features and of the median filter (§6.2).
//
// The evaluation replays every job of the trace through a predictor on one timeline: the
// prediction is made at the job's submission from the jobs that completed strictly before it,
// and each completion is fed back when it happens (predict.Replay). The job population is every
// job whose final state is FINISH — 385,582 jobs in the month, the paper's count; its runtime is
// first SCHEDULE to last FINISH (see Load).
//
// Predict backs `schedlab predict` (per-job predictions to Parquet plus a summary); IDs and
// Reproduce back `schedlab reproduce jv-*`.
package jvu

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/google2011"
)

// Trace is a Google 2011 trace loaded for runtime prediction.
type Trace struct {
	// Source describes the input paths.
	Source string
	// Jobs holds every submitted job, in submission order (ties by job ID). Jobs whose final
	// state is not FINISH have End = Runtime = -1: they are predicted (and count as submissions
	// of their feature values) but never complete.
	Jobs []predict.Job
	// Finished is the population: jobs with a runtime.
	Finished int
	// StartedBeforeWindow counts finished jobs whose first SCHEDULE is before the trace window
	// (time 0); their runtime counts from the window's start.
	StartedBeforeWindow int
	// WithRequests counts finished jobs whose secondary features (task count, total cpu and
	// memory requests) are known from task_events.
	WithRequests int
	// TaskWindowEnd is the latest submission of a job with known requests (-1 without
	// task_events): the part of the trace the task_events cover.
	TaskWindowEnd traces.Time
}

// Load reads the job records of the Google 2011 trace at paths (a trace root directory with
// job_events/ and optionally task_events/, a table directory, or part files; see
// google2011.SourceOf) with google2011.ScanJobs.
//
// Runtime is JamaisVu's (§3.2): from the job's first SCHEDULE to its last FINISH, for every job
// whose final state is FINISH. The 79 jobs of the month that were already running when the
// window opened (first SCHEDULE at time 0) are kept, with their runtime counted from time 0,
// so that the population matches the paper's 385,582 jobs; google2011.JobRecord.Runtime
// leaves them out.
//
// Secondary features come from task_events when given: Tasks is the number of distinct tasks,
// CPU and Mem the job's total request (the per-task mean request times the task count).
//
// All job records are held in memory (about 150 bytes per job; the month's 672,074 jobs take
// about 100 MB with their strings), because predictions must be made in submission order while
// the trace reveals a job's record only when it ends.
func Load(paths ...string) (*Trace, error) {
	src, err := google2011.SourceOf(paths...)
	if err != nil {
		return nil, err
	}
	return LoadSource(src)
}

// LoadSource is Load for the tables of src (task_events are read only when src names them;
// without them the secondary features are unknown).
func LoadSource(src google2011.Source) (*Trace, error) {
	if len(src.JobEvents) == 0 {
		return nil, fmt.Errorf("jvu: %v: no job_events input", src)
	}
	t := &Trace{Source: strings.Join(append(slices.Clone(src.JobEvents), src.TaskEvents...), ","), TaskWindowEnd: -1}
	err := google2011.ScanJobs(src, func(r *google2011.JobRecord) error {
		if r.Submit < 0 {
			return nil // a job seen only after its submission (input cut mid-trace): nothing to predict at
		}
		j := predict.Job{
			ID: r.ID, Submit: r.Submit, End: -1, Runtime: -1,
			Features: traces.Features{User: r.User, JobName: r.JobName, LogicalJobName: r.LogicalJobName},
			CPU:      math.NaN(), Mem: math.NaN(),
		}
		if r.Tasks > 0 {
			j.Tasks = r.Tasks
			j.CPU = r.CPURequest * float64(r.Tasks)
			j.Mem = r.MemRequest * float64(r.Tasks)
			t.TaskWindowEnd = max(t.TaskWindowEnd, r.Submit)
		}
		if r.FinalState == google2011.Finish && r.FirstSchedule >= 0 && r.End >= r.FirstSchedule &&
			r.End != google2011.AfterWindow && r.FirstSchedule >= r.Submit {
			j.End, j.Runtime = r.End, r.End-r.FirstSchedule
			t.Finished++
			if r.FirstSchedule == google2011.BeforeWindow {
				t.StartedBeforeWindow++
			}
			if j.Tasks > 0 {
				t.WithRequests++
			}
		}
		t.Jobs = append(t.Jobs, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.Jobs) == 0 {
		return nil, errors.New("jvu: the trace has no submitted jobs")
	}
	slices.SortFunc(t.Jobs, func(a, b predict.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	return t, nil
}

// Window returns the jobs submitted at or before end, as a trace of its own (sharing Jobs).
func (t *Trace) Window(end traces.Time) *Trace {
	n, _ := slices.BinarySearchFunc(t.Jobs, end+1, func(j predict.Job, at traces.Time) int { return cmp.Compare(j.Submit, at) })
	w := &Trace{Source: fmt.Sprintf("%s (submissions ≤ %.0f s)", t.Source, traces.Seconds(end)), Jobs: t.Jobs[:n:n], TaskWindowEnd: t.TaskWindowEnd}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if j.Runtime >= 0 {
			w.Finished++
			if j.Runtime == j.End { // first SCHEDULE at time 0
				w.StartedBeforeWindow++
			}
			if j.Tasks > 0 {
				w.WithRequests++
			}
		}
	}
	return w
}
