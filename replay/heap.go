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
// ord is the event's rank among events of its time: its kind above a sequence number that push
// assigns, so that (t, ord) orders events by (time, kind, insertion) in two comparisons.
type event struct {
	t       traces.Time
	ord     uint64
	kind    Kind
	holding bool // a release event ending a finished task's release hold (holding.go), not a preemption delay
	job     int32
	stage   int32
	task    int32
	machine int32
	attempt uint32
}

// ordSeqBits is the width of the sequence number in event.ord; the kind sits above it.
const ordSeqBits = 56

// less reports whether a comes before b. (A branch-free 128-bit comparison of (t, ord) measured
// slower on the hold model: most comparisons are decided by t alone.)
func (a *event) less(b *event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.ord < b.ord
}

// eventHeap is a 4-ary min-heap of events by (time, kind, sequence) without interface boxing.
// Four children per node halve the levels a pop descends compared with a binary heap (the
// children of one node share a cache line or two), and both sifts move a hole instead of
// swapping: at thousands of tasks in flight the heap outgrows the L1 cache and its pops were
// the engine's largest single cost. Since (time, kind, sequence) is a total order, the events
// come out in the same order as from any other heap.
type eventHeap struct {
	items []event
	seq   uint64
}

// heapArity is the number of children of an eventHeap node.
const heapArity = 4

func (h *eventHeap) Len() int { return len(h.items) }

func (h *eventHeap) push(e event) {
	h.seq++
	e.ord = uint64(e.kind)<<ordSeqBits | h.seq&(1<<ordSeqBits-1)
	h.items = append(h.items, e)
	items := h.items
	i := len(items) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if !e.less(&items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
}

func (h *eventHeap) top() *event { return &h.items[0] }

func (h *eventHeap) pop() event {
	items := h.items
	top := items[0]
	n := len(items) - 1
	last := items[n]
	h.items = items[:n]
	items = items[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := c // the least of i's children
		for k := c + 1; k < min(c+heapArity, n); k++ {
			if items[k].less(&items[m]) {
				m = k
			}
		}
		if !items[m].less(&last) {
			break
		}
		items[i] = items[m]
		i = m
	}
	items[i] = last
	return top
}
