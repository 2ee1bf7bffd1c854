package replay

import "github.com/schedlab/schedlab/traces"

// HoldHeap runs the hold model on a standard typed binary heap of events (binaryHeap: the
// engine's heap and event before they became 4-ary with a packed order; the yardstick stays what
// it was), the bare-heap baseline of
// BenchmarkReplay: it fills the heap with size finish events, then ops times pops the earliest
// and pushes one at its time plus the next of delays (cycled) — one push+pop per simulated
// event, as a replay whose every event schedules one more. It returns the last time popped, so
// the work cannot be optimized away.
func HoldHeap(size, ops int, delays []traces.Time) traces.Time {
	h := binaryHeap{items: make([]binEvent, 0, size+1)}
	for i := range size {
		h.push(binEvent{t: delays[i%len(delays)], kind: KindFinish, task: int32(i)})
	}
	var last traces.Time
	for i := range ops {
		e := h.pop()
		last = e.t
		e.t += delays[(size+i)%len(delays)]
		h.push(e)
	}
	return last
}

// binEvent is the engine's event as it was when the yardstick was set: ordered by time, kind
// and sequence compared one after the other.
type binEvent struct {
	t       traces.Time
	seq     uint64
	kind    Kind
	holding bool
	job     int32
	stage   int32
	task    int32
	machine int32
	attempt uint32
}

func (a *binEvent) less(b *binEvent) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// binaryHeap is the standard typed binary min-heap of events by (time, kind, sequence), swapping
// parent and child at each level: BenchmarkReplay's yardstick, and the reference the engine's
// 4-ary eventHeap is checked against (heap_test.go).
type binaryHeap struct {
	items []binEvent
	seq   uint64
}

func (h *binaryHeap) Len() int { return len(h.items) }

func (h *binaryHeap) push(e binEvent) {
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

func (h *binaryHeap) pop() binEvent {
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
