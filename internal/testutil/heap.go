package testutil

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// LiveHeap returns the live heap found by the latest garbage collection
// (/gc/heap/live:bytes).
func LiveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// PeakHeap runs f while sampling the heap every few milliseconds. It returns the largest live
// heap seen (LiveHeap: the objects the latest collection found reachable, so garbage awaiting
// collection is excluded; a collection is forced after f so the figure covers f's end) and the
// largest runtime.MemStats.HeapInuse (which includes that garbage and so depends on GC timing).
// Benchmarks use it to show that memory stays flat as inputs grow.
func PeakHeap(f func()) (live, inuse uint64) {
	runtime.GC()
	var (
		mu   sync.Mutex
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		l := LiveHeap()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		live = max(live, l)
		inuse = max(inuse, ms.HeapInuse)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	f()
	runtime.GC()
	sample()
	close(done)
	wg.Wait()
	return live, inuse
}
