package canonical

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the Parquet Reader's allocator: a memory.Allocator that keeps the buffers Arrow
// frees (when a record batch is released) and hands them out again, zeroed, for the next batch.
// Reading a row group allocates the same buffers as the previous one — a full batch of values per
// column, string and list builders, dictionary indices — so without recycling every batch costs fresh
// large allocations: zeroing new pages, and garbage that makes the collector rescan the decoded
// jobs. Free buffers go to process-wide sync.Pools (one per size class), so a Reader also reuses
// the buffers of the Readers before it, and the garbage collector drops buffers nobody reuses.
//
// Decoded strings must not alias recycled memory: strReader copies a batch's string data into
// ordinary Go memory first (see strReader.set). Only buffers the recycler handed out and that are
// still outstanding are recycled, so a stray or repeated Free cannot hand a buffer out twice.
type recycler struct {
	mu   sync.Mutex
	live map[*byte]uint8 // outstanding buffers (by first byte) -> size class
}

// freeBufs holds free buffers by size class (capacity 1<<class), as *[]byte.
var freeBufs [64]sync.Pool

func newRecycler() *recycler { return &recycler{live: make(map[*byte]uint8)} }

var _ memory.Allocator = (*recycler)(nil)

// Allocate returns a buffer of size bytes, all zero. (Its capacity may be larger: the bytes
// past size are zeroed when Reallocate exposes them.)
func (a *recycler) Allocate(size int) []byte {
	b := a.get(size)
	clear(b)
	return b
}

// get returns a buffer of size bytes with undefined contents.
func (a *recycler) get(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	class := uint8(bits.Len(uint(max(size, 64) - 1)))
	var b []byte
	if p, _ := freeBufs[class].Get().(*[]byte); p != nil {
		b = *p
	}
	if b == nil {
		// Go's allocator aligns blocks of 64 bytes or more to at least 64 bytes when their size
		// is a power of two (size classes and whole pages), as Arrow wants.
		b = make([]byte, 1<<class)
	}
	a.mu.Lock()
	a.live[&b[0]] = class
	a.mu.Unlock()
	return b[:size]
}

func (a *recycler) Reallocate(size int, b []byte) []byte {
	if size <= len(b) {
		return b[:size]
	}
	if cap(b) >= size {
		b2 := b[:size]
		clear(b2[len(b):])
		return b2
	}
	nb := a.get(size)
	copy(nb, b)
	clear(nb[len(b):])
	a.Free(b)
	return nb
}

func (a *recycler) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:cap(b)]
	a.mu.Lock()
	class, ok := a.live[&b[0]]
	if ok {
		delete(a.live, &b[0])
	}
	a.mu.Unlock()
	if ok && len(b) == 1<<class {
		freeBufs[class].Put(&b)
	}
}
