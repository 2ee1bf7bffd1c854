package experiments

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// horizonProbe measures a fixed-horizon run (engine.horizon_s) at its horizon H, the metrics of
// a fixed-length experiment (JamaisVu's "multi-hour simulations"): it follows the engine's
// event log for every task run, so it knows the work done by H, including the progress of tasks
// still running at H and the work preemption threw away. Jobs with a deadline are SLO jobs, the
// others best effort (replay.Summarize's split).
type horizonProbe struct {
	w         *traces.Workload
	h         traces.Time
	keepsWork bool
	running   map[taskRef]traces.Time // start of each task's current run
	kept      map[taskRef]traces.Time // progress a resumed task keeps from earlier runs
	done      []traces.Time           // per job: machine time of its finished task runs
	lost      []traces.Time           // per job: machine time its preempted runs threw away
}

func newHorizonProbe(w *traces.Workload, h traces.Time, keepsWork bool) *horizonProbe {
	return &horizonProbe{w: w, h: h, keepsWork: keepsWork, running: map[taskRef]traces.Time{},
		kept: map[taskRef]traces.Time{}, done: make([]traces.Time, len(w.Jobs)), lost: make([]traces.Time, len(w.Jobs))}
}

// log is chained into the engine's replay.Config.Log.
func (p *horizonProbe) log(e replay.LogEntry) {
	ref := taskRef{e.Job, e.Stage, e.Task}
	switch e.Kind {
	case replay.KindStart:
		p.running[ref] = e.T
	case replay.KindFinish:
		if t0, ok := p.running[ref]; ok {
			p.done[e.Job] += e.T - t0 + p.kept[ref]
			delete(p.running, ref)
			delete(p.kept, ref)
		}
	case replay.KindPreempt:
		if t0, ok := p.running[ref]; ok {
			if p.keepsWork {
				p.kept[ref] += e.T - t0
			} else {
				p.lost[e.Job] += e.T - t0
			}
			delete(p.running, ref)
		}
	}
}

// report returns the horizon.* metrics of the run in res (stopped at H, or earlier when every
// job finished): node-hours are machine time (a JamaisVu task takes a whole node).
//
//   - horizon.slo_jobs, horizon.slo_miss_rate: the SLO jobs whose deadline falls by H, and the
//     share of them that missed it (horizon.slo_after_h: SLO jobs left out, deadline after H);
//   - horizon.be_goodput_node_hours: the work of best-effort jobs completed by H (Table 2);
//     horizon.be_useful_node_hours: best-effort work done by H and not thrown away, including
//     running tasks' progress; horizon.be_unfinished_node_hours: best-effort work submitted by
//     H and not done; horizon.be_completed, horizon.be_mean_latency_s over the completed;
//   - horizon.lost_node_hours, horizon.be_lost_node_hours: machine time preemption threw away
//     (restarted tasks' runs; 0 when preempted tasks resume);
//   - horizon.offered_load, horizon.offered_load_clipped: the realised load of the jobs
//     submitted by H over [0, H], in full and with each runtime clipped at H;
//     horizon.utilization: allocated share of the first dimension over [0, H].
func (p *horizonProbe) report(res *replay.Result) policies.Report {
	hr := func(t traces.Time) float64 { return traces.Seconds(t) / 3600 }
	var slo, miss, after, beN float64
	var good, useful, unfinished, lostAll, lostBE traces.Time
	var lat float64
	// Progress of unfinished tasks: running ones up to the end (H), and what resumed ones keep.
	partial := map[int]traces.Time{}
	for ref, t0 := range p.running {
		partial[int(ref.job)] += min(p.h, res.End) - t0
	}
	for ref, k := range p.kept {
		partial[int(ref.job)] += k
	}
	for i := range res.Jobs {
		r := &res.Jobs[i]
		lostAll += p.lost[i]
		if r.Deadline != 0 {
			if r.Deadline > p.h {
				after++
				continue
			}
			slo++
			if !r.DeadlineMet() {
				miss++
			}
			continue
		}
		if r.Submit > p.h {
			continue
		}
		lostBE += p.lost[i]
		progress := p.done[i] + partial[i]
		if r.Completed {
			beN++
			good += r.Work
			lat += traces.Seconds(r.JCT())
			progress = r.Work
		}
		useful += min(progress, r.Work)
		unfinished += max(r.Work-progress, 0)
	}
	m := map[string]float64{
		"horizon.h_s":                      traces.Seconds(p.h),
		"horizon.slo_jobs":                 slo,
		"horizon.slo_after_h":              after,
		"horizon.slo_miss_rate":            0,
		"horizon.be_completed":             beN,
		"horizon.be_goodput_node_hours":    hr(good),
		"horizon.be_useful_node_hours":     hr(useful),
		"horizon.be_unfinished_node_hours": hr(unfinished),
		"horizon.be_mean_latency_s":        0,
		"horizon.lost_node_hours":          hr(lostAll),
		"horizon.be_lost_node_hours":       hr(lostBE),
	}
	if slo > 0 {
		m["horizon.slo_miss_rate"] = miss / slo
	}
	if beN > 0 {
		m["horizon.be_mean_latency_s"] = lat / beN
	}
	m["horizon.offered_load"], m["horizon.offered_load_clipped"] = offeredLoadAt(p.w, p.h)
	if len(res.Capacity) > 0 && res.Capacity[0] > 0 {
		m["horizon.utilization"] = res.AllocIntegral[0] / (float64(res.Capacity[0]) * float64(p.h))
	}
	return policies.Report{Metrics: m}
}

// offeredLoadAt is the load the jobs submitted by h offer the cluster over [0, h]: their work
// over machines × h, in full and with each stage's duration clipped at h − submit.
func offeredLoadAt(w *traces.Workload, h traces.Time) (full, clipped float64) {
	if h <= 0 || len(w.Cluster.Machines) == 0 {
		return 0, 0
	}
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if j.Submit > h {
			continue
		}
		for _, s := range j.Stages {
			full += float64(s.Tasks) * traces.Seconds(s.Duration)
			clipped += float64(s.Tasks) * traces.Seconds(min(s.Duration, h-j.Submit))
		}
	}
	d := float64(len(w.Cluster.Machines)) * traces.Seconds(h)
	return full / d, clipped / d
}
