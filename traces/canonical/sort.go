package canonical

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// External merge sort for WithSortBySubmit. Appended jobs are serialized as records (runfile.go)
// into an in-memory arena; when the arena reaches its byte budget (defaultRunBytes, or the run's
// row limit) the run's keys are sorted and its records spilled, in order, to a temporary run file.
// Close merges the run files and the last, in-memory run.

// defaultRunBytes is the sorting Writer's in-memory budget for one run: record bytes plus 24
// bytes of key per job. It is a constant, not a fraction of the input, so the Writer's memory
// does not grow with the workload; 4 MiB (about 19,000 single-stage Google jobs) keeps the
// importer's peak heap at the same level whether it converts a few days or the whole month (both
// spill, so both use the whole budget), while the month still needs only ~22 runs, merged in
// one pass.
const defaultRunBytes = 4 << 20

// runKey orders one buffered record: by (submit, id), then by position in the arena, which is
// append order, so the sort is stable.
type runKey struct {
	submit, id int64
	off, n     uint32
}

func cmpKeys(a, b runKey) int {
	if a.submit != b.submit {
		return cmp.Compare(a.submit, b.submit)
	}
	if a.id != b.id {
		return cmp.Compare(a.id, b.id)
	}
	return cmp.Compare(a.off, b.off)
}

// bufRecord adds a serialized job to the in-memory run.
func (w *Writer) bufRecord(rows int, build func([]byte) []byte) error {
	if cap(w.arena)-len(w.arena) < 4096 { // grow by doubling, see push
		w.arena = slices.Grow(w.arena, max(len(w.arena), 64<<10))
	}
	off := len(w.arena)
	w.arena = build(w.arena)
	n := len(w.arena) - off
	if uint64(len(w.arena)) > 1<<32-1 {
		return fmt.Errorf("job %d: a record of %d bytes does not fit a sort run", int64(binary.LittleEndian.Uint64(w.arena[off+8:])), n)
	}
	submit, id := recKey(w.arena[off:])
	w.keys = push(w.keys, runKey{submit: submit, id: id, off: uint32(off), n: uint32(n)})
	w.bufRows += rows
	if w.bufRows >= w.cfg.runRows || len(w.arena)+24*len(w.keys) >= w.cfg.runBytes {
		return w.spill()
	}
	return nil
}

// sortKeys orders the in-memory run's keys by (submit, id), stably (they are in append order).
// It is an LSD radix sort on the bytes of id and then of submit, skipping the bytes all keys
// share (a run's submit times and ids span far less than 64 bits): a few linear passes instead of
// the ~log2(n) comparisons per key of a comparison sort.
func (w *Writer) sortKeys() {
	keys := w.keys
	if len(keys) < 256 {
		slices.SortFunc(keys, cmpKeys)
		return
	}
	var counts [16][256]int
	for i := range keys {
		id, sub := uint64(keys[i].id)^1<<63, uint64(keys[i].submit)^1<<63
		for b := range 8 {
			counts[b][byte(id>>(8*b))]++
			counts[8+b][byte(sub>>(8*b))]++
		}
	}
	tmp := w.sortTmp[:0]
	if cap(tmp) < len(keys) {
		tmp = make([]runKey, len(keys))
	}
	tmp = tmp[:len(keys)]
	src, dst := keys, tmp
	for pass := range 16 {
		c := &counts[pass]
		shift := 8 * (pass % 8)
		first := src[0].id
		if pass >= 8 {
			first = src[0].submit
		}
		if c[byte((uint64(first)^1<<63)>>shift)] == len(src) {
			continue // every key has this byte
		}
		var pos [256]int
		sum := 0
		for d := range 256 {
			pos[d], sum = sum, sum+c[d]
		}
		if pass < 8 {
			for _, k := range src {
				d := byte((uint64(k.id) ^ 1<<63) >> shift)
				dst[pos[d]] = k
				pos[d]++
			}
		} else {
			for _, k := range src {
				d := byte((uint64(k.submit) ^ 1<<63) >> shift)
				dst[pos[d]] = k
				pos[d]++
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	w.sortTmp = tmp
}

// spill sorts the buffered records into a new run file.
func (w *Writer) spill() error {
	w.sortKeys()
	name, err := w.writeRun(func(emit func([]byte) error) error {
		for _, k := range w.keys {
			if err := emit(w.arena[k.off : k.off+k.n]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.arena, w.keys, w.bufRows = w.arena[:0], w.keys[:0], 0
	w.runs = append(w.runs, name)
	return nil
}

// writeRun writes the records produced by gen to a new temporary run file and returns its name.
func (w *Writer) writeRun(gen func(emit func([]byte) error) error) (string, error) {
	w.runSeq++
	f, err := os.OpenFile(filepath.Join(w.runDir.Path, fmt.Sprintf("run%d", w.runSeq)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", fmt.Errorf("sort run: %w", err)
	}
	name := f.Name()
	// One run writer (its 1 MiB buffer) serves every run file in turn.
	if w.rw == nil {
		w.rw = newRunWriter(f)
	} else {
		w.rw.reset(f)
	}
	rw := w.rw
	if err := gen(rw.write); err != nil {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("sort run %s: %w", name, err)
	}
	if err := rw.close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("sort run %s: %w", name, err)
	}
	return name, nil
}

// finishSorted writes all appended jobs to the output sink in (submit, id) order.
func (w *Writer) finishSorted() error {
	w.sortKeys()
	emit := func(rec []byte) error { return w.encodeRecord(rec) }
	if len(w.runs) == 0 {
		for _, k := range w.keys {
			if err := emit(w.arena[k.off : k.off+k.n]); err != nil {
				return err
			}
		}
		w.arena, w.keys, w.sortTmp = nil, nil, nil
		return flush(w.enc, w.sink)
	}
	defer func() {
		for _, r := range w.runs {
			os.Remove(r)
		}
		w.runs = nil
	}()
	// Merge in passes until the files and the in-memory run fit one merge.
	for len(w.runs) >= maxFanIn {
		group := w.runs[:maxFanIn]
		name, err := w.writeRun(func(emit func([]byte) error) error {
			return mergeRuns(group, nil, nil, emit)
		})
		if err != nil {
			return err
		}
		for _, r := range group {
			os.Remove(r)
		}
		w.runs = append([]string{name}, w.runs[maxFanIn:]...)
	}
	err := mergeRuns(w.runs, w.arena, w.keys, emit)
	w.arena, w.keys, w.sortTmp = nil, nil, nil
	if err != nil {
		return err
	}
	return flush(w.enc, w.sink)
}

// source yields the records of one sorted run, from a file or from memory.
type source struct {
	idx        int // position among the merged runs: earlier runs win ties, keeping the sort stable
	submit, id int64
	cur        []byte // the current record; nil at the end
	r          *runReader
	arena      []byte
	keys       []runKey
}

func (s *source) advance() error {
	if s.r == nil {
		if len(s.keys) == 0 {
			s.cur = nil
			return nil
		}
		k := s.keys[0]
		s.keys = s.keys[1:]
		s.cur, s.submit, s.id = s.arena[k.off:k.off+k.n], k.submit, k.id
		return nil
	}
	rec, err := s.r.next()
	if errors.Is(err, io.EOF) {
		s.cur = nil
		return nil
	}
	if err != nil {
		return err
	}
	s.cur = rec
	s.submit, s.id = recKey(rec)
	return nil
}

func (s *source) less(t *source) bool {
	if s.submit != t.submit {
		return s.submit < t.submit
	}
	if s.id != t.id {
		return s.id < t.id
	}
	return s.idx < t.idx
}

// siftDown restores the heap order of h (a binary min-heap by source.less) below position i.
// The merge calls it directly rather than through container/heap's interface methods.
func siftDown(h []*source, i int) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// mergeRuns emits the union of the sorted run files and the sorted in-memory run (arena, keys;
// it comes after all files in append order) in (submit, id) order. A record passed to emit is
// valid only during the call.
func mergeRuns(files []string, arena []byte, keys []runKey, emit func([]byte) error) error {
	var h []*source
	defer func() {
		for _, s := range h {
			if s.r != nil {
				s.r.close()
			}
		}
	}()
	add := func(s *source) error {
		if err := s.advance(); err != nil {
			if s.r != nil {
				s.r.close()
			}
			return err
		}
		if s.cur == nil {
			if s.r != nil {
				s.r.close()
			}
			return nil
		}
		h = append(h, s)
		return nil
	}
	for i, f := range files {
		r, err := openRun(f)
		if err != nil {
			return fmt.Errorf("sort run: %w", err)
		}
		if err := add(&source{idx: i, r: r}); err != nil {
			return err
		}
	}
	if err := add(&source{idx: len(files), arena: arena, keys: keys}); err != nil {
		return err
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for len(h) > 0 {
		s := h[0]
		if err := emit(s.cur); err != nil {
			return err
		}
		if err := s.advance(); err != nil {
			return err
		}
		if s.cur == nil {
			if s.r != nil {
				s.r.close()
			}
			last := len(h) - 1
			h[0] = h[last]
			h[last] = nil
			h = h[:last]
		}
		siftDown(h, 0)
	}
	return nil
}
