// Package jobwork measures what an active job still has to do, as the utility-driven policies
// (cora, rrh) see it: its remaining estimated work per resource dimension and its utility.
package jobwork

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Job is an active job's remaining work and utility.
type Job struct {
	// Work is the remaining work per resource dimension in resource units × seconds: one
	// container (1.0 cpu in the CORA workload) for one second is 1.
	Work    [traces.MaxDims]float64
	Utility *traces.Utility // nil: the job has none
	Submit  traces.Time
}

// Remaining measures job j from the View: every task not finished contributes its stage's
// demand × time left — the whole estimate for a task waiting (in a runnable or a locked stage),
// the estimate less the time it has run for a running task (at least 0). This is CORA's R_i
// "scaled by task duration" (§III-A): tasks count by how long they hold their container, not one
// each. It costs O(tasks of the job).
func Remaining(v policies.View, j policies.JobID) Job {
	info := v.Job(j)
	jw := Job{Utility: info.Utility, Submit: info.Submit}
	now := v.Now()
	left := make([]float64, len(info.Stages))
	for _, rt := range v.RunningTasks(j) {
		if int(rt.Stage) < len(left) {
			left[rt.Stage] += traces.Seconds(max(info.Stages[rt.Stage].Estimate-(now-rt.Start), 0))
		}
	}
	for s := range info.Stages {
		st := &info.Stages[s]
		ss := v.StageState(j, int32(s))
		waiting := int64(st.Tasks) - int64(ss.Finished) - int64(ss.Running)
		left[s] += float64(max(waiting, 0)) * traces.Seconds(st.Estimate)
		if left[s] == 0 {
			continue
		}
		for d := range st.Demand {
			if st.Demand[d] > 0 {
				jw.Work[d] += left[s] * st.Demand.Float(d)
			}
		}
	}
	return jw
}

// Seconds returns the time the job needs with the whole cluster: the largest, over dimensions
// with capacity, of its work over the capacity.
func (j *Job) Seconds(capacity traces.Vec) float64 {
	s := 0.0
	for d, c := range capacity {
		if c > 0 && j.Work[d] > 0 {
			s = max(s, j.Work[d]/capacity.Float(d))
		}
	}
	return s
}
