package replay

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// Group summarizes the job completion times of a set of jobs (all, one class or one queue).
type Group struct {
	Jobs      int     `json:"jobs"`
	Completed int     `json:"completed"`
	AvgJCT    float64 `json:"avg_jct_s"`
	P50JCT    float64 `json:"p50_jct_s"`
	P95JCT    float64 `json:"p95_jct_s"`
	P99JCT    float64 `json:"p99_jct_s"`
	// AvgRun is the mean time from a completed job's first task start to its finish: the
	// completion time BoPF's simulator reports (its clock starts at a job's first allocation, so
	// queueing before it is not counted).
	AvgRun float64 `json:"avg_run_s"`
}

// Summary is a run's headline metrics. Times are in seconds. Jobs with a deadline are SLO jobs;
// jobs without one are best-effort (JamaisVu's split).
type Summary struct {
	Group
	Makespan    float64            `json:"makespan_s"`  // last completion - first submit
	Utilization map[string]float64 `json:"utilization"` // time-averaged allocated fraction per dimension
	// SLOJobs counts jobs with a deadline; SLOMissRate is the share of them that missed it or
	// did not finish.
	SLOJobs     int     `json:"slo_jobs"`
	SLOMissRate float64 `json:"slo_miss_rate"`
	// BEGoodput is the task-hours of true work in completed best-effort jobs; BEMeanLatency their
	// mean completion time.
	BEGoodput     float64 `json:"be_goodput_task_hours"`
	BEMeanLatency float64 `json:"be_mean_latency_s"`
	// Utility over jobs with a utility function (CORA): minimum and sum; NaN-free (0 if none).
	UtilityJobs int     `json:"utility_jobs"`
	MinUtility  float64 `json:"min_utility"`
	SumUtility  float64 `json:"sum_utility"`
	// UtilityByClass summarizes utilities and target completion times per class, over jobs with
	// a utility function (classes without any are left out).
	UtilityByClass map[string]UtilityGroup `json:"utility_by_class"`
	// TimedUtility is the same over the jobs whose utility depends on their completion time:
	// CORA's Table I counts CT-critical and CT-sensitive jobs only, since a flat utility is the
	// same under every scheduler.
	TimedUtility UtilityGroup `json:"timed_utility"`
	// ByClass and ByQueue split the completion-time statistics.
	ByClass map[string]Group `json:"by_class"`
	ByQueue map[string]Group `json:"by_queue"`
	// QueueDominantShare is each queue's average dominant share over the run (BPF's long-term
	// fairness measure).
	QueueDominantShare map[string]float64 `json:"queue_dominant_share"`
	Preemptions        int64              `json:"preemptions"`
	Unfinished         int                `json:"unfinished"`
	// Cluster is the initial load and the cluster's changes (clustersummary.go); absent when the
	// workload has neither and no failure model is set.
	Cluster *ClusterSummary `json:"cluster,omitempty"`
}

// UtilityGroup summarizes the utilities and target completion times of a set of jobs with a
// utility function. Δ is completion − target in seconds, over completed jobs with a target; a
// missed target is a completion after it or no completion. Empty groups have zeros.
type UtilityGroup struct {
	Jobs          int     `json:"jobs"`
	MinUtility    float64 `json:"min_utility"`
	SumUtility    float64 `json:"sum_utility"`
	Targets       int     `json:"targets"`
	MissedTargets int     `json:"missed_targets"`
	P25Delta      float64 `json:"p25_delta_s"`
	P50Delta      float64 `json:"p50_delta_s"`
	P75Delta      float64 `json:"p75_delta_s"`
	MaxDelta      float64 `json:"max_delta_s"`
}

func utilityGroup(jobs []JobRecord, keep func(*JobRecord) bool) UtilityGroup {
	var g UtilityGroup
	var delta []float64
	for i := range jobs {
		j := &jobs[i]
		if math.IsNaN(j.Utility) || !keep(j) {
			continue
		}
		if g.Jobs == 0 || j.Utility < g.MinUtility {
			g.MinUtility = j.Utility
		}
		g.Jobs++
		g.SumUtility += j.Utility
		if j.Target != 0 {
			g.Targets++
			d, ok := j.Delta()
			if !ok || d > 0 {
				g.MissedTargets++
			}
			if ok {
				delta = append(delta, traces.Seconds(d))
			}
		}
	}
	slices.Sort(delta)
	g.P25Delta, g.P50Delta, g.P75Delta = quantile(delta, 0.25), quantile(delta, 0.5), quantile(delta, 0.75)
	if len(delta) > 0 {
		g.MaxDelta = delta[len(delta)-1]
	}
	return g
}

// Summarize computes the summary of a result.
func Summarize(r *Result) Summary {
	s := Summary{
		Utilization:        map[string]float64{},
		ByClass:            map[string]Group{},
		UtilityByClass:     map[string]UtilityGroup{},
		ByQueue:            map[string]Group{},
		QueueDominantShare: map[string]float64{},
	}
	s.Group = group(r.Jobs, func(*JobRecord) bool { return true })
	s.Cluster = summarizeCluster(r)
	s.Unfinished = s.Jobs - s.Completed
	var lastFinish traces.Time = r.Start
	var beLat []float64
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.Completed {
			lastFinish = max(lastFinish, j.Finish)
		}
		s.Preemptions += int64(j.Preemptions)
		if j.Deadline != 0 {
			s.SLOJobs++
			if !j.DeadlineMet() {
				s.SLOMissRate++
			}
		} else if j.Completed {
			s.BEGoodput += traces.Seconds(j.Work) / 3600
			beLat = append(beLat, traces.Seconds(j.JCT()))
		}
		if !math.IsNaN(j.Utility) {
			if s.UtilityJobs == 0 || j.Utility < s.MinUtility {
				s.MinUtility = j.Utility
			}
			s.UtilityJobs++
			s.SumUtility += j.Utility
		}
	}
	if s.SLOJobs > 0 {
		s.SLOMissRate /= float64(s.SLOJobs)
	}
	s.BEMeanLatency = mean(beLat)
	s.Makespan = traces.Seconds(lastFinish - r.Start)
	span := float64(r.End - r.Start)
	for d, name := range r.Dims {
		if span > 0 && r.Capacity[d] > 0 {
			s.Utilization[name] = r.AllocIntegral[d] / (float64(r.Capacity[d]) * span)
		} else {
			s.Utilization[name] = 0
		}
	}
	classes := map[string]bool{}
	for i := range r.Jobs {
		classes[r.Jobs[i].Class] = true
	}
	for c := range classes {
		s.ByClass[c] = group(r.Jobs, func(j *JobRecord) bool { return j.Class == c })
		if ug := utilityGroup(r.Jobs, func(j *JobRecord) bool { return j.Class == c }); ug.Jobs > 0 {
			s.UtilityByClass[c] = ug
		}
	}
	s.TimedUtility = utilityGroup(r.Jobs, func(j *JobRecord) bool { return j.TimedUtility })
	for q, name := range r.Queues {
		s.ByQueue[name] = group(r.Jobs, func(j *JobRecord) bool { return j.Queue == name })
		if span > 0 {
			s.QueueDominantShare[name] = r.QueueShareIntegral[q] / span
		} else {
			s.QueueDominantShare[name] = 0
		}
	}
	return s
}

func group(jobs []JobRecord, keep func(*JobRecord) bool) Group {
	var g Group
	var jct []float64
	var run float64
	for i := range jobs {
		j := &jobs[i]
		if !keep(j) {
			continue
		}
		g.Jobs++
		if j.Completed {
			g.Completed++
			jct = append(jct, traces.Seconds(j.JCT()))
			run += traces.Seconds(j.Finish - max(j.FirstStart, j.Submit))
		}
	}
	if g.Completed > 0 {
		g.AvgRun = run / float64(g.Completed)
	}
	slices.Sort(jct)
	g.AvgJCT = mean(jct)
	g.P50JCT = quantile(jct, 0.50)
	g.P95JCT = quantile(jct, 0.95)
	g.P99JCT = quantile(jct, 0.99)
	return g
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile of sorted xs by linear interpolation between closest ranks (0 for an empty set).
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, n-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}
