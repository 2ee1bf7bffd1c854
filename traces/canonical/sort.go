package canonical

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// External merge sort for WithSortBySubmit: runs of at most runRows stage rows are sorted in memory
// and spilled to temporary run files (runfile.go), then merged.

func cmpJobs(a, b *traces.Job) int {
	switch {
	case a.Submit < b.Submit:
		return -1
	case a.Submit > b.Submit:
		return 1
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// sortBuf orders the buffered jobs by (submit, id), keeping append order among equal keys. It
// sorts an index (moving 4-byte indices, not 170-byte jobs) and then permutes the jobs once.
func (w *Writer) sortBuf() {
	idx := w.idx[:0]
	for i := range w.buf {
		idx = append(idx, int32(i))
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmpJobs(&w.buf[a], &w.buf[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	sorted := w.spare[:0]
	if cap(sorted) < len(w.buf) {
		sorted = make([]traces.Job, 0, cap(w.buf))
	}
	for _, k := range idx {
		sorted = append(sorted, w.buf[k])
	}
	clear(w.buf)
	w.buf, w.spare = sorted, w.buf[:0]
	w.idx = idx[:0]
}

// spill sorts the buffered jobs into a new run file.
func (w *Writer) spill() error {
	w.sortBuf()
	name, err := w.writeRun(func(emit func(*traces.Job) error) error {
		for i := range w.buf {
			if err := emit(&w.buf[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	clear(w.buf)
	w.buf, w.bufRows = w.buf[:0], 0
	w.runs = append(w.runs, name)
	return nil
}

// writeRun writes the jobs produced by gen to a new temporary run file and returns its name.
func (w *Writer) writeRun(gen func(emit func(*traces.Job) error) error) (string, error) {
	w.runSeq++
	f, err := os.CreateTemp(w.cfg.tempDir, fmt.Sprintf(".%s.run%d-*", filepath.Base(w.path), w.runSeq))
	if err != nil {
		return "", fmt.Errorf("canonical: sort run: %w", err)
	}
	name := f.Name()
	// One run writer (its 1 MiB buffer and string table) serves every run file in turn.
	if w.rw == nil {
		w.rw = newRunWriter(f)
	} else {
		w.rw.reset(f)
	}
	rw := w.rw
	if err := gen(rw.write); err != nil {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("canonical: sort run %s: %w", name, err)
	}
	if err := rw.close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("canonical: sort run %s: %w", name, err)
	}
	return name, nil
}

// finishSorted writes all appended jobs to the output sink in (submit, id) order.
func (w *Writer) finishSorted() error {
	w.sortBuf()
	if len(w.runs) == 0 {
		for i := range w.buf {
			if err := w.encode(w.enc, w.sink, w.cfg.batchRows, &w.buf[i]); err != nil {
				return err
			}
		}
		w.buf, w.spare = nil, nil
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
		name, err := w.writeRun(func(emit func(*traces.Job) error) error {
			return mergeRuns(group, nil, emit)
		})
		if err != nil {
			return err
		}
		for _, r := range group {
			os.Remove(r)
		}
		w.runs = append([]string{name}, w.runs[maxFanIn:]...)
	}
	err := mergeRuns(w.runs, w.buf, func(j *traces.Job) error {
		return w.encode(w.enc, w.sink, w.cfg.batchRows, j)
	})
	w.buf, w.spare = nil, nil
	if err != nil {
		return err
	}
	return flush(w.enc, w.sink)
}

// source yields the jobs of one sorted run.
type source struct {
	idx  int // position among the merged runs: earlier runs win ties, keeping the sort stable
	cur  *traces.Job
	r    *runReader
	mem  []traces.Job
	memI int
}

func (s *source) advance() error {
	if s.r == nil {
		if s.memI < len(s.mem) {
			s.cur = &s.mem[s.memI]
			s.memI++
		} else {
			s.cur = nil
		}
		return nil
	}
	j, err := s.r.next()
	if errors.Is(err, io.EOF) {
		s.cur = nil
		return nil
	}
	s.cur = j
	return err
}

type sourceHeap []*source

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h sourceHeap) Len() int { return len(h) }
func (h sourceHeap) Less(i, j int) bool {
	if c := cmpJobs(h[i].cur, h[j].cur); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}
func (h sourceHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sourceHeap) Push(x any)   { *h = append(*h, x.(*source)) }
func (h *sourceHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns emits the union of the sorted run files and the sorted in-memory run mem (which
// comes after all files in append order) in (submit, id) order.
func mergeRuns(files []string, mem []traces.Job, emit func(*traces.Job) error) error {
	var h sourceHeap
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
			return fmt.Errorf("canonical: sort run: %w", err)
		}
		if err := add(&source{idx: i, r: r}); err != nil {
			return err
		}
	}
	if err := add(&source{idx: len(files), mem: mem}); err != nil {
		return err
	}
	heap.Init(&h)
	for len(h) > 0 {
		s := h[0]
		if err := emit(s.cur); err != nil {
			return err
		}
		if err := s.advance(); err != nil {
			return err
		}
		if s.cur == nil {
			heap.Pop(&h)
			if s.r != nil {
				s.r.close()
			}
			continue
		}
		heap.Fix(&h, 0)
	}
	return nil
}
