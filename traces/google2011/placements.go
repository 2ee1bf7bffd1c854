package google2011

import "github.com/schedlab/schedlab/traces"

// # The trace's own placements
//
// With Options.Placements a task-level import keeps, for each imported task, the machine and
// time of its last SCHEDULE (the run whose duration the workload keeps) as the workload's
// Placements, so the `trace` policy can replay the cell's own decisions. A task that started
// before the trace window has start 0. Machines map to the cluster as the initial holds' do
// (clusterIndex): by ID with machine_events, else the IDs seen in ID order onto the mix's
// machines; a placement whose machine is outside the cluster is left out and counted. A stage's
// tasks are then numbered in the order of their last SCHEDULE (ties by task index), not by task
// index alone: the engine starts a stage's lowest-numbered pending task, so the trace policy's
// k-th start of a stage is the task the trace started k-th, with its duration.

// rawPlacement is a placement on its way into the workload, by trace machine ID.
type rawPlacement struct {
	job         int64
	stage, task int32
	machine     int64
	start       traces.Time
}

// finishPlacements maps the collected placements onto the cluster's machines into the
// workload's metadata, in traces.ComparePlacements order.
func (c *conversion) finishPlacements(raw []rawPlacement, index func(int64) (int32, bool)) {
	ps := make([]traces.TaskPlacement, 0, len(raw))
	for _, r := range raw {
		m, ok := index(r.machine)
		if !ok {
			c.st.PlacementsOff++
			continue
		}
		ps = append(ps, traces.TaskPlacement{Job: r.job, Stage: r.stage, Task: r.task, Machine: m, Start: r.start})
	}
	traces.SortPlacements(ps)
	c.meta.Placements, c.st.Placements = ps, int64(len(ps))
}
