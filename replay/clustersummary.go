package replay

import "github.com/schedlab/schedlab/traces"

// ClusterSummary is summary.json's "cluster" section: what the initial load held and what the
// cluster's changes and replayed evictions cost (ClusterStats, times in seconds).
type ClusterSummary struct {
	Holds         int64              `json:"initial_holds"`
	HoldsRejected int64              `json:"initial_holds_rejected"`
	HoldsDropped  int64              `json:"initial_holds_dropped"`
	HeldAtStart   map[string]float64 `json:"initial_held_at_start"` // per dimension, as a fraction of the capacity at the end
	// Saturated holds (engine.initial_overcommit: saturate) and the demand they left out, per
	// dimension as a fraction of the capacity; absent under the default.
	HoldsSaturated int64              `json:"initial_holds_saturated,omitempty"`
	SaturatedLeft  map[string]float64 `json:"initial_saturated_left,omitempty"`
	Added          int64              `json:"machines_added"`
	Removed        int64              `json:"machines_removed"`
	Resized        int64              `json:"machines_resized"`
	Failures       int64              `json:"failures"`
	Kills          int64              `json:"kills"`
	TraceKills     int64              `json:"trace_kills"`
	FaultsMissed   int64              `json:"trace_faults_missed"`
	WorkLost       float64            `json:"work_lost_s"`
	// ByClass splits kills (restarts) and work lost by job class.
	ByClass map[string]ClassLossSummary `json:"by_class"`
}

// ClassLossSummary is one class's restarts and work lost (seconds).
type ClassLossSummary struct {
	Restarts int64   `json:"restarts"`
	WorkLost float64 `json:"work_lost_s"`
}

func summarizeCluster(r *Result) *ClusterSummary {
	c := r.Cluster
	if c == nil {
		return nil
	}
	s := &ClusterSummary{
		Holds: c.Holds, HoldsRejected: c.HoldsRejected, HoldsDropped: c.HoldsDropped, HeldAtStart: map[string]float64{},
		Added: c.Added, Removed: c.Removed, Resized: c.Resized, Failures: c.Failures, Kills: c.Kills, TraceKills: c.TraceKills, FaultsMissed: c.FaultsMissed,
		WorkLost: traces.Seconds(c.WorkLost), ByClass: map[string]ClassLossSummary{},
	}
	for d, name := range r.Dims {
		if r.Capacity[d] > 0 {
			s.HeldAtStart[name] = float64(c.HeldAtStart[d]) / float64(r.Capacity[d])
		}
	}
	if c.HoldsSaturated > 0 {
		s.HoldsSaturated, s.SaturatedLeft = c.HoldsSaturated, map[string]float64{}
		for d, name := range r.Dims {
			if r.Capacity[d] > 0 {
				s.SaturatedLeft[name] = float64(c.SaturatedLeft[d]) / float64(r.Capacity[d])
			}
		}
	}
	for class, l := range c.ByClass {
		s.ByClass[class] = ClassLossSummary{Restarts: l.Restarts, WorkLost: traces.Seconds(l.WorkLost)}
	}
	return s
}
