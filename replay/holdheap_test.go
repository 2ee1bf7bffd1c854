package replay

import "github.com/schedlab/schedlab/traces"

// HoldHeap runs the hold model on the engine's typed event heap, the bare-heap baseline of
// BenchmarkReplay: it fills the heap with size finish events, then ops times pops the earliest
// and pushes one at its time plus the next of delays (cycled) — one push+pop per simulated
// event, as a replay whose every event schedules one more. It returns the last time popped, so
// the work cannot be optimized away.
func HoldHeap(size, ops int, delays []traces.Time) traces.Time {
	h := eventHeap{items: make([]event, 0, size+1)}
	for i := range size {
		h.push(event{t: delays[i%len(delays)], kind: KindFinish, task: int32(i)})
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
