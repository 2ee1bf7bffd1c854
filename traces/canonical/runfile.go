package canonical

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"

	"github.com/schedlab/schedlab/traces"
)

// Sort runs are private temporary files in a compact row format: varints, and each distinct string
// written once per block of stringBlock records and referred to by number within the block (both
// sides forget the strings at block boundaries, so a reader holds a bounded table). They are far smaller and cheaper to
// write and read back than the columnar format, which matters because an importer whose input is
// not in submit order (such as google2011's, which completes jobs in end-time order) spills
// almost every job once.

// stringBlock is the number of records after which run writer and reader reset their string tables.
const stringBlock = 1024

type runWriter struct {
	f    *os.File
	bw   *bufio.Writer
	buf  []byte
	recs int
	// A direct-mapped cache of the strings written in the current block and their numbers:
	// a string found there is written as its number, anything else in full (and numbered).
	seed  maphash.Seed
	slots []strSlot
	next  uint64 // number of the next string written in full; 0 and 1 are reserved
	block int
}

type strSlot struct {
	s     string
	id    uint64
	block int
}

const runStrSlots = 1 << 12

func newRunWriter(f *os.File) *runWriter {
	return &runWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20), seed: maphash.MakeSeed(), slots: make([]strSlot, runStrSlots), next: 2}
}

// reset makes w write a new run file f. The string table's entries belong to earlier blocks, so
// the new file's first block starts empty.
func (w *runWriter) reset(f *os.File) {
	w.f = f
	w.bw.Reset(f)
	w.recs = 0
	w.next = 2
}

// str writes s as 1 (empty), a number ≥ 2 (seen in this block) or 0, length, bytes (numbered).
func (w *runWriter) str(s string) {
	if s == "" {
		w.buf = append(w.buf, 1)
		return
	}
	slot := &w.slots[maphash.String(w.seed, s)&(runStrSlots-1)]
	if slot.block == w.block && slot.s == s {
		w.buf = binary.AppendUvarint(w.buf, slot.id)
		return
	}
	*slot = strSlot{s: s, id: w.next, block: w.block}
	w.next++
	w.buf = append(w.buf, 0)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *runWriter) i64(x int64) { w.buf = binary.AppendVarint(w.buf, x) }
func (w *runWriter) f64(x float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(x))
}

// optLen writes a slice length, distinguishing nil (0) from empty (1).
func (w *runWriter) optLen(n int, isNil bool) {
	if isNil {
		w.buf = binary.AppendUvarint(w.buf, 0)
		return
	}
	w.buf = binary.AppendUvarint(w.buf, uint64(n)+1)
}

func (w *runWriter) write(j *traces.Job) error {
	if w.recs%stringBlock == 0 {
		w.block++ // forget the previous block's strings
		w.next = 2
	}
	w.recs++
	w.buf = w.buf[:0]
	w.i64(j.ID)
	w.str(j.Name)
	w.i64(j.Submit)
	w.str(j.Queue)
	w.str(j.Class)
	w.i64(int64(j.Priority))
	w.f64(j.Weight)
	w.str(j.Features.User)
	w.str(j.Features.JobName)
	w.str(j.Features.LogicalJobName)
	w.i64(j.Deadline)
	if u := j.Utility; u != nil {
		w.buf = append(w.buf, 1)
		w.str(string(u.Kind))
		w.f64(u.Priority)
		w.f64(u.Decay)
		w.f64(u.Slope)
		w.i64(u.Target)
	} else {
		w.buf = append(w.buf, 0)
	}
	if p := j.Placement; p.IsZero() {
		w.buf = append(w.buf, 0)
	} else {
		w.buf = append(w.buf, 1)
		w.str(p.Kind)
		if p.Hard {
			w.buf = append(w.buf, 1)
		} else {
			w.buf = append(w.buf, 0)
		}
		w.f64(p.Slowdown)
	}
	w.optLen(len(j.Stages), j.Stages == nil)
	for i := range j.Stages {
		s := &j.Stages[i]
		w.str(s.Name)
		w.i64(int64(s.Tasks))
		for _, x := range s.Demand {
			w.i64(x)
		}
		w.i64(s.Duration)
		w.i64(s.Estimate)
		w.optLen(len(s.TaskDurations), s.TaskDurations == nil)
		for _, d := range s.TaskDurations {
			w.i64(d)
		}
		w.optLen(len(s.Parents), s.Parents == nil)
		for _, p := range s.Parents {
			w.i64(int64(p))
		}
	}
	var n [binary.MaxVarintLen64]byte
	if _, err := w.bw.Write(n[:binary.PutUvarint(n[:], uint64(len(w.buf)))]); err != nil {
		return err
	}
	_, err := w.bw.Write(w.buf)
	return err
}

func (w *runWriter) close() error {
	if err := w.bw.Flush(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// runReader decodes a run file written by runWriter: each record is a uvarint length and that
// many bytes, decoded from a slice.
type runReader struct {
	name string
	f    *os.File
	br   *bufio.Reader
	rec  []byte // the current record's remaining bytes
	buf  []byte
	strs []string
	recs int
	err  error
	// job and stages are reused from record to record: a job returned by next is valid until
	// the next call (the merge emits it before advancing its source).
	job    traces.Job
	stages []traces.Stage
}

func openRun(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &runReader{name: name, f: f, br: bufio.NewReaderSize(f, 32<<10), strs: []string{"", ""}}, nil
}

func (r *runReader) close() error { return r.f.Close() }

var errShort = errors.New("record shorter than its fields")

func (r *runReader) uv() uint64 {
	x, n := binary.Uvarint(r.rec)
	if n <= 0 {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	r.rec = r.rec[n:]
	return x
}

func (r *runReader) i64() int64 {
	x, n := binary.Varint(r.rec)
	if n <= 0 {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	r.rec = r.rec[n:]
	return x
}

func (r *runReader) f64() float64 {
	if len(r.rec) < 8 {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(r.rec))
	r.rec = r.rec[8:]
	return x
}

func (r *runReader) byte() byte {
	if len(r.rec) < 1 {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	b := r.rec[0]
	r.rec = r.rec[1:]
	return b
}

func (r *runReader) str() string {
	id := r.uv()
	if r.err != nil {
		return ""
	}
	if id == 1 {
		return ""
	}
	if id != 0 {
		if id >= uint64(len(r.strs)) {
			r.err = fmt.Errorf("string %d of %d", id, len(r.strs))
			return ""
		}
		return r.strs[id]
	}
	n := r.uv()
	if r.err == nil && n > uint64(len(r.rec)) {
		r.err = errShort
	}
	if r.err != nil {
		return ""
	}
	s := string(r.rec[:n])
	r.rec = r.rec[n:]
	r.strs = append(r.strs, s)
	return s
}

// optLen reads a slice length; ok is false for a nil slice.
func (r *runReader) optLen() (n int, ok bool) {
	x := r.uv()
	if r.err != nil || x == 0 {
		return 0, false
	}
	if x-1 > uint64(len(r.rec)) { // every element takes at least one byte
		r.err = errShort
		return 0, false
	}
	return int(x - 1), true
}

// next decodes the next job, or returns io.EOF at the end of the run.
func (r *runReader) next() (*traces.Job, error) {
	size, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return nil, io.EOF
	}
	if err == nil && size > 1<<31 {
		err = fmt.Errorf("record of %d bytes", size)
	}
	if err == nil {
		if uint64(cap(r.buf)) < size {
			r.buf = make([]byte, size)
		}
		r.buf = r.buf[:size]
		_, err = io.ReadFull(r.br, r.buf)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("canonical: sort run %s: %w", r.name, err)
	}
	r.rec = r.buf
	if r.recs%stringBlock == 0 {
		clear(r.strs[2:])
		r.strs = r.strs[:2]
	}
	r.recs++
	r.job = traces.Job{}
	j := &r.job
	j.ID = r.i64()
	j.Name = r.str()
	j.Submit = r.i64()
	j.Queue = r.str()
	j.Class = r.str()
	j.Priority = int(r.i64())
	j.Weight = r.f64()
	j.Features.User = r.str()
	j.Features.JobName = r.str()
	j.Features.LogicalJobName = r.str()
	j.Deadline = r.i64()
	if r.byte() == 1 {
		j.Utility = &traces.Utility{Kind: traces.UtilityKind(r.str()), Priority: r.f64(), Decay: r.f64(), Slope: r.f64(), Target: r.i64()}
	}
	if r.byte() == 1 {
		j.Placement = traces.Placement{Kind: r.str(), Hard: r.byte() == 1, Slowdown: r.f64()}
	}
	if n, ok := r.optLen(); ok {
		if cap(r.stages) < n {
			r.stages = make([]traces.Stage, n)
		}
		j.Stages = r.stages[:n:n]
		for i := range j.Stages {
			s := &j.Stages[i]
			*s = traces.Stage{}
			s.Name = r.str()
			s.Tasks = int32(r.i64())
			for d := range s.Demand {
				s.Demand[d] = r.i64()
			}
			s.Duration = r.i64()
			s.Estimate = r.i64()
			if n, ok := r.optLen(); ok {
				s.TaskDurations = make([]traces.Time, n)
				for k := range s.TaskDurations {
					s.TaskDurations[k] = r.i64()
				}
			}
			if n, ok := r.optLen(); ok {
				s.Parents = make([]int32, n)
				for k := range s.Parents {
					s.Parents[k] = int32(r.i64())
				}
			}
		}
	}
	if r.err == nil && len(r.rec) != 0 {
		r.err = fmt.Errorf("%d bytes left over after a record", len(r.rec))
	}
	if r.err != nil {
		return nil, fmt.Errorf("canonical: sort run %s: %w", r.name, r.err)
	}
	return j, nil
}
