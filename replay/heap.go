package replay

import "github.com/schedlab/schedlab/traces"

// Kind orders events that share a timestamp: resources are freed before arrivals are admitted,
// and ticks come last so a scheduling cycle sees everything that happened at its instant.
type Kind uint8

// Event kinds, in processing order at equal times.
const (
	KindFinish  Kind = iota // a task finished
	KindRelease             // a preempted task's resources become free after the preemption delay
	KindArrival             // a job was submitted
	KindTick                // periodic scheduling cycle
	// Kinds below are emitted into the event log but never sit in the heap.
	KindStart    // a task started
	KindPreempt  // a task was preempted
	KindUnlock   // a stage's parents all finished
	KindComplete // a job finished
	KindHorizon  // the run stopped at its horizon
	// Kinds of the YARN mechanics (yarn.go); the first three sit in the heap.
	KindAMReady   // a job's AM finished start-up and setup: the job arrives at the policy
	KindAMDone    // a job's AM finished its teardown: the job completes
	KindAMRelease // a completed job's AM container is freed (at its node's next heartbeat)
	KindSubmit    // a job was submitted and waits for its AM container
	KindAMStart   // a job's AM container was placed
	KindReserve   // a node was reserved for a container that does not fit
	KindUnreserve // a node's reservation was fulfilled or dropped
	KindInput     // a slow-started stage's input became complete: its waiting tasks run
	KindStop      // the stop rule fired: no further submissions (Config.StopAfterQueue)
	// KindCluster sits in the heap (cluster.go): the cluster's timeline at an instant, or a
	// failure-model failure or repair; it comes after ticks at equal times, which is harmless
	// since the scheduling point follows every event of its instant.
	KindCluster
	// Log-only kinds of the changing cluster (cluster.go).
	KindMachineAdd
	KindMachineRemove
	KindMachineResize
	KindKill // a running task killed by its machine's removal or shrink, or a trace eviction
)

var kindNames = [...]string{"finish", "release", "arrival", "tick", "start", "preempt", "unlock", "complete", "horizon",
	"amready", "amdone", "amrelease", "submit", "amstart", "reserve", "unreserve", "input", "stop",
	"cluster", "machine_add", "machine_remove", "machine_resize", "kill"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// event is a heap entry. attempt invalidates the finish event of a task that was preempted.
type event struct {
	t       traces.Time
	seq     uint64
	kind    Kind
	holding bool // a release event ending a finished task's release hold (holding.go), not a preemption delay
	job     int32
	stage   int32
	task    int32
	machine int32
	attempt uint32
}

func (a *event) less(b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// eventHeap is a binary min-heap of events by (time, kind, sequence) without interface boxing.
type eventHeap struct {
	items []event
	seq   uint64
}

func (h *eventHeap) Len() int { return len(h.items) }

func (h *eventHeap) push(e event) {
	h.seq++
	e.seq = h.seq
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.items[i].less(&h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *eventHeap) top() *event { return &h.items[0] }

func (h *eventHeap) pop() event {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			m = r
		}
		if !h.items[m].less(&h.items[i]) {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}
