package google2011

// idTable maps job IDs to their scanner state. It replaces a Go map on the scanner's hottest path
// (one lookup per event line): open addressing with linear probing over parallel key and value
// arrays, a multiplicative hash, and deletion by backward shift, so there are no tombstones and a
// lookup touches one or two cache lines. Nil values are not stored.
type idTable struct {
	keys  []int64
	vals  []*jobState
	n     int
	shift uint // 64 - log2(len(keys))
}

const idTableMinBits = 10

func (t *idTable) init(bits uint) {
	t.keys = make([]int64, 1<<bits)
	t.vals = make([]*jobState, 1<<bits)
	t.shift = 64 - bits
	t.n = 0
}

func (t *idTable) slot(id int64) int {
	return int((uint64(id) * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns id's state, or nil.
func (t *idTable) get(id int64) *jobState {
	if t.n == 0 {
		return nil
	}
	mask := len(t.keys) - 1
	for i := t.slot(id); ; i = (i + 1) & mask {
		if t.vals[i] == nil {
			return nil
		}
		if t.keys[i] == id {
			return t.vals[i]
		}
	}
}

// put sets id's state to st (not nil).
func (t *idTable) put(id int64, st *jobState) {
	if t.keys == nil {
		t.init(idTableMinBits)
	}
	if (t.n+1)*4 > len(t.keys)*3 { // keep the load factor under 3/4
		t.grow()
	}
	mask := len(t.keys) - 1
	for i := t.slot(id); ; i = (i + 1) & mask {
		if t.vals[i] == nil {
			t.keys[i], t.vals[i] = id, st
			t.n++
			return
		}
		if t.keys[i] == id {
			t.vals[i] = st
			return
		}
	}
}

func (t *idTable) grow() {
	keys, vals := t.keys, t.vals
	t.init(64 - t.shift + 1)
	for i, v := range vals {
		if v != nil {
			t.put(keys[i], v)
		}
	}
}

// del removes id. The entries after it in its probe run move back to fill the hole, so every
// key stays reachable from its home slot without passing an empty slot.
func (t *idTable) del(id int64) {
	if t.n == 0 {
		return
	}
	mask := len(t.keys) - 1
	i := t.slot(id)
	for ; ; i = (i + 1) & mask {
		if t.vals[i] == nil {
			return
		}
		if t.keys[i] == id {
			break
		}
	}
	t.n--
	for j := (i + 1) & mask; t.vals[j] != nil; j = (j + 1) & mask {
		// The entry at j may fill the hole at i if its home slot is not in (i, j] (cyclically).
		h := t.slot(t.keys[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i], t.vals[i] = 0, nil
}

// len returns the number of entries.
func (t *idTable) len() int { return t.n }

// each calls fn for every entry, in slot order.
func (t *idTable) each(fn func(*jobState)) {
	for _, v := range t.vals {
		if v != nil {
			fn(v)
		}
	}
}
