package timeline

import (
	"container/heap"
	"strconv"
)

// A track's lanes are its threads in the trace (its machine task slots, or its queue's): each
// attempt takes the lowest free lane when it starts and frees it when it ends, so the slices of
// one lane never overlap and every viewer draws them as they are.
type lanes struct {
	free  intHeap // freed lanes, lowest first
	count int     // lanes ever opened
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// attemptKey names a running attempt.
type attemptKey struct{ job, stage, task int32 }

// Begin notes that r's attempt starts: it takes the lowest free lane of its track. Attempt
// frees it; an attempt that was never begun gets its lane when it ends.
func (t *Trace) Begin(r *Row) {
	pid := t.track(r)
	t.running[attemptKey{r.Job, r.Stage, r.Task}] = t.take(pid)
}

func (t *Trace) take(pid int) int {
	l := t.lanes[pid]
	if l == nil {
		l = &lanes{}
		t.lanes[pid] = l
	}
	if l.free.Len() > 0 {
		return heap.Pop(&l.free).(int)
	}
	l.count++
	lane := l.count - 1
	b := append(t.buf[:0], `{"name":"thread_name","ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(lane+1), 10)
	b = append(b, `,"args":{"name":"slot `...)
	b = strconv.AppendInt(b, int64(lane+1), 10)
	b = append(b, `"}}`...)
	t.event(b)
	t.buf = b
	return lane
}

// release frees r's lane and returns it.
func (t *Trace) release(pid int, r *Row) int {
	k := attemptKey{r.Job, r.Stage, r.Task}
	lane, ok := t.running[k]
	if !ok {
		lane = t.take(pid)
	}
	delete(t.running, k)
	heap.Push(&t.lanes[pid].free, lane)
	return lane
}
