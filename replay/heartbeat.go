package replay

import "github.com/schedlab/schedlab/traces"

// Heartbeat-paced allocation (YarnConfig.Heartbeat). In YARN a NodeManager heartbeats to the
// ResourceManager every yarn.resourcemanager.nodemanagers.heartbeat-interval-ms (1000 ms in
// Hadoop 2.7's yarn-default.xml); the FairScheduler assigns containers to a node only while
// handling its heartbeat, one per heartbeat unless yarn.scheduler.fair.assignmultiple is true
// (then up to yarn.scheduler.fair.max.assign), and a container that finished is reported, and
// its resources freed, in its node's next heartbeat.
//
// The engine maps a policy's plan onto heartbeats as follows:
//   - Phases: machine m of M heartbeats at m·H/M + k·H (integer microseconds, k ≥ 0): the
//     nodes' phases are spread evenly over the period, as NodeManagers started at different
//     moments are, so the cluster sees a heartbeat every H/M. The choice is deterministic and
//     draws no random number.
//   - Launch: a start the plan makes on m at time t takes its resources at t (no later plan can
//     use them) and launches at m's first heartbeat at or after t that has a free slot: at most
//     ContainersPerHeartbeat launches per heartbeat of a node, in plan order, later ones moving
//     to later heartbeats. Between t and the launch the container holds its resources without
//     progress; the task's work begins at the launch.
//   - Completion: the work ends at launch + duration; the finish (resources freed, the stage
//     and job advanced, the policy told) happens at the node's first heartbeat at or after
//     that, launch + ⌈duration/H⌉·H.
//   - Pooled mode has one pool for the cluster's N listed machines (N = 1 for a cluster listed
//     as one capacity): the pool heartbeats every H/N (at least 1 µs), taking up to
//     ContainersPerHeartbeat launches each time, as N staggered nodes do together; a
//     completion is seen at the first heartbeat of the node the container launched on, i.e.
//     launch + ⌈duration/H⌉·H, as in machine mode.
type heartbeats struct {
	period traces.Time   // H
	every  traces.Time   // launch heartbeat period: H, or H/N for the pool
	cap    int           // launches per heartbeat per node; 0 = no cap
	phase  []traces.Time // first heartbeat of each machine
	slot   []traces.Time // latest heartbeat with launches queued, per machine; -1 = none
	used   []int         // launches queued at slot
}

func newHeartbeats(e *Engine, period traces.Time, perBeat int) *heartbeats {
	n := len(e.mach)
	h := &heartbeats{period: period, every: period, cap: perBeat, phase: make([]traces.Time, n), slot: make([]traces.Time, n), used: make([]int, n)}
	if e.rackOf == nil { // pooled
		nodes := max(1, len(e.w.Cluster.Machines))
		h.every = max(1, period/traces.Time(nodes))
	} else {
		for m := range h.phase {
			h.phase[m] = traces.Time(int64(m) * int64(period) / int64(n))
		}
	}
	for m := range h.slot {
		h.slot[m] = -1
	}
	return h
}

// next returns machine m's first launch heartbeat at or after t.
func (h *heartbeats) next(m int32, t traces.Time) traces.Time {
	p := h.phase[m]
	if t <= p {
		return p
	}
	return p + (t-p+h.every-1)/h.every*h.every
}

// launch returns when a container placed on m at t launches, and takes its slot.
func (h *heartbeats) launch(m int32, t traces.Time) traces.Time {
	hb := h.next(m, t)
	if h.cap == 0 {
		return hb
	}
	if h.slot[m] >= hb {
		if h.used[m] < h.cap {
			h.used[m]++
			return h.slot[m]
		}
		h.slot[m] += h.every
	} else {
		h.slot[m] = hb
	}
	h.used[m] = 1
	return h.slot[m]
}

// seen returns when the end of a container launched at launch (a heartbeat of its node) is
// reported: the node's first heartbeat at or after end.
func (h *heartbeats) seen(launch, end traces.Time) traces.Time {
	if end <= launch {
		return launch
	}
	return launch + (end-launch+h.period-1)/h.period*h.period
}
