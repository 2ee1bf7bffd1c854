package baseline

// key orders the entities of a policy: lexicographically by a, then s, then b, then id. Each
// policy fills the fields it needs (see the package doc); unused fields stay zero. The id field
// is the final, always distinct tie-break (a JobID or a queue index), so the order is total and
// never depends on insertion order.
type key struct {
	a  int64   // class rank, deadline, or remaining estimate
	s  float64 // share (running tasks or dominant share over weight)
	b  int64   // submit time
	id int64   // JobID or queue index
}

func (x *key) less(y *key) bool {
	if x.a != y.a {
		return x.a < y.a
	}
	if x.s != y.s {
		return x.s < y.s
	}
	if x.b != y.b {
		return x.b < y.b
	}
	return x.id < y.id
}

type heapEntry struct {
	k  key
	id int32
}

// indexHeap is a binary min-heap of entities (dense int32 ids) by key, with an index from id to
// heap position so an entity can be re-keyed or removed in O(log n). pos points at a slice indexed
// by id holding position+1 (0 = absent); several heaps may share one pos slice when every id is
// in at most one of them. Callers grow *pos to cover every id they use.
type indexHeap struct {
	items []heapEntry
	pos   *[]int32
}

func (h *indexHeap) len() int { return len(h.items) }

// peek returns the smallest entity.
func (h *indexHeap) peek() (int32, bool) {
	if len(h.items) == 0 {
		return 0, false
	}
	return h.items[0].id, true
}

// has reports whether id is in the heap.
func (h *indexHeap) has(id int32) bool {
	p := (*h.pos)[id] - 1
	return p >= 0 && int(p) < len(h.items) && h.items[p].id == id
}

// set inserts id with key k, or re-keys it if present.
func (h *indexHeap) set(id int32, k key) {
	if h.has(id) {
		i := int((*h.pos)[id] - 1)
		old := h.items[i].k
		if old == k {
			return
		}
		h.items[i].k = k
		if k.less(&old) {
			h.up(i)
		} else {
			h.down(i)
		}
		return
	}
	h.items = append(h.items, heapEntry{k: k, id: id})
	i := len(h.items) - 1
	(*h.pos)[id] = int32(i + 1)
	h.up(i)
}

// remove deletes id if present.
func (h *indexHeap) remove(id int32) {
	if !h.has(id) {
		return
	}
	pos := *h.pos
	i := int(pos[id] - 1)
	pos[id] = 0
	last := len(h.items) - 1
	if i != last {
		h.items[i] = h.items[last]
		pos[h.items[i].id] = int32(i + 1)
	}
	h.items = h.items[:last]
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h *indexHeap) up(i int) {
	pos := *h.pos
	e := h.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.k.less(&h.items[p].k) {
			break
		}
		h.items[i] = h.items[p]
		pos[h.items[i].id] = int32(i + 1)
		i = p
	}
	h.items[i] = e
	pos[e.id] = int32(i + 1)
}

func (h *indexHeap) down(i int) {
	pos := *h.pos
	n := len(h.items)
	e := h.items[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.items[r].k.less(&h.items[l].k) {
			m = r
		}
		if !h.items[m].k.less(&e.k) {
			break
		}
		h.items[i] = h.items[m]
		pos[h.items[i].id] = int32(i + 1)
		i = m
	}
	h.items[i] = e
	pos[e.id] = int32(i + 1)
}
