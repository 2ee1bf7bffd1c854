package canonical

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/schedlab/schedlab/traces"
)

// A sorting Writer keeps each appended job as a record: a self-contained byte string in a compact
// row format. Records are cheap to build (a few hundred bytes appended to one arena, instead of a
// retained traces.Job whose pointers the garbage collector would scan), cheap to sort (only their
// keys move), are copied verbatim into run files and between merge passes, and are decoded
// straight into the output columns (encoder.addRecord) without materializing a traces.Job or
// allocating its strings. The month of Google jobs, which arrives in end time order, spills
// almost every job once, so these per-job costs are most of the sorting Writer's.
//
// Layout: submit and id as 8 little-endian bytes each (the merge reads its key without decoding),
// then the other fields in traces.Job order (a stage's task histories as three varints each):
// integers as varints, floats as 8 little-endian bytes,
// strings as a uvarint length and the bytes, optional parts (utility, placement) behind a 0/1
// byte, and slice lengths as uvarint n+1 (0: nil). A run file is a sequence of records, each
// preceded by its length as a uvarint.

// recKeyLen is the size of a record's fixed (submit, id) prefix.
const recKeyLen = 16

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendF64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

// appendOptLen writes a slice length, distinguishing nil (0) from empty (1).
func appendOptLen(b []byte, n int, isNil bool) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// appendRecord appends j's record to b.
func appendRecord(b []byte, j *traces.Job) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(j.Submit))
	b = binary.LittleEndian.AppendUint64(b, uint64(j.ID))
	b = appendStr(b, j.Name)
	b = appendStr(b, j.Queue)
	b = appendStr(b, j.Class)
	b = binary.AppendVarint(b, int64(j.Priority))
	b = appendF64(b, j.Weight)
	b = appendStr(b, j.Features.User)
	b = appendStr(b, j.Features.JobName)
	b = appendStr(b, j.Features.LogicalJobName)
	b = binary.AppendVarint(b, j.Deadline)
	if u := j.Utility; u != nil {
		b = append(b, 1)
		b = appendStr(b, string(u.Kind))
		b = appendF64(b, u.Priority)
		b = appendF64(b, u.Decay)
		b = appendF64(b, u.Slope)
		b = binary.AppendVarint(b, u.Target)
	} else {
		b = append(b, 0)
	}
	if p := j.Placement; p.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendStr(b, p.Kind)
		hard := byte(0)
		if p.Hard {
			hard = 1
		}
		b = append(b, hard)
		b = appendF64(b, p.Slowdown)
	}
	b = appendOptLen(b, len(j.Stages), j.Stages == nil)
	for i := range j.Stages {
		s := &j.Stages[i]
		b = appendStr(b, s.Name)
		b = binary.AppendVarint(b, int64(s.Tasks))
		for _, x := range s.Demand {
			b = binary.AppendVarint(b, x)
		}
		b = binary.AppendVarint(b, s.Duration)
		b = binary.AppendVarint(b, s.Estimate)
		b = appendOptLen(b, len(s.TaskDurations), s.TaskDurations == nil)
		for _, d := range s.TaskDurations {
			b = binary.AppendVarint(b, d)
		}
		b = appendOptLen(b, len(s.Parents), s.Parents == nil)
		for _, p := range s.Parents {
			b = binary.AppendVarint(b, int64(p))
		}
		b = appendOptLen(b, len(s.History), s.History == nil)
		for _, h := range s.History {
			b = binary.AppendVarint(b, int64(h.Attempts))
			b = binary.AppendVarint(b, int64(h.Evictions))
			b = binary.AppendVarint(b, int64(h.Outcome))
		}
	}
	return b
}

// recKey returns a record's sort key.
func recKey(rec []byte) (submit, id int64) {
	return int64(binary.LittleEndian.Uint64(rec)), int64(binary.LittleEndian.Uint64(rec[8:]))
}

var errShort = errors.New("record shorter than its fields")

// recReader decodes a record's fields in order. The first problem is kept in err; after it, every
// read returns a zero value.
type recReader struct {
	b   []byte
	err error
}

func (r *recReader) fail() {
	if r.err == nil {
		r.err = errShort
	}
	r.b = nil
}

func (r *recReader) uv() uint64 {
	if b := r.b; len(b) > 0 && b[0] < 0x80 { // one-byte fast path (inlined): most lengths and flags
		r.b = b[1:]
		return uint64(b[0])
	}
	return r.uvSlow()
}

func (r *recReader) uvSlow() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *recReader) i64() int64 {
	ux := r.uv()
	return int64(ux>>1) ^ -int64(ux&1) // zig-zag, as binary.AppendVarint writes
}

func (r *recReader) fixed64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	x := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return x
}

func (r *recReader) f64() float64 { return math.Float64frombits(r.fixed64()) }

func (r *recReader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// str returns the next string's bytes, which alias the record.
func (r *recReader) str() []byte {
	n := r.uv()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

// optLen reads a slice length; ok is false for a nil slice.
func (r *recReader) optLen() (n int, ok bool) {
	x := r.uv()
	if x == 0 {
		return 0, false
	}
	if x-1 > uint64(len(r.b)) { // every element takes at least one byte
		r.fail()
		return 0, false
	}
	return int(x - 1), true
}

// runWriter writes records to a run file through a buffer it keeps from file to file.
type runWriter struct {
	f   *os.File
	bw  *bufio.Writer
	hdr [binary.MaxVarintLen64]byte
}

func newRunWriter(f *os.File) *runWriter {
	return &runWriter{f: f, bw: bufio.NewWriterSize(f, 1<<20)}
}

// reset makes w write a new run file f.
func (w *runWriter) reset(f *os.File) {
	w.f = f
	w.bw.Reset(f)
}

func (w *runWriter) write(rec []byte) error {
	if _, err := w.bw.Write(w.hdr[:binary.PutUvarint(w.hdr[:], uint64(len(rec)))]); err != nil {
		return err
	}
	_, err := w.bw.Write(rec)
	return err
}

func (w *runWriter) close() error {
	if err := w.bw.Flush(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// runReadBuf is the initial read buffer of a run reader (one per merged run).
const runReadBuf = 64 << 10

// runReader reads the records of a run file. It reads the file in large chunks and returns
// records as slices of its buffer, valid until the next call.
type runReader struct {
	name string
	f    *os.File
	buf  []byte
	r, w int // buf[r:w] is read but not yet returned
	eof  bool
}

func openRun(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &runReader{name: name, f: f, buf: make([]byte, runReadBuf)}, nil
}

func (r *runReader) close() error { return r.f.Close() }

// next returns the next record, or io.EOF at the end of the run.
func (r *runReader) next() ([]byte, error) {
	for {
		size, n := binary.Uvarint(r.buf[r.r:r.w])
		if n < 0 || size > 1<<31 {
			return nil, fmt.Errorf("sort run %s: bad record length", r.name)
		}
		if n > 0 && uint64(r.w-r.r-n) >= size {
			rec := r.buf[r.r+n : r.r+n+int(size)]
			r.r += n + int(size)
			if len(rec) < recKeyLen {
				return nil, fmt.Errorf("sort run %s: %w", r.name, errShort)
			}
			return rec, nil
		}
		if r.eof {
			if r.r == r.w {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("sort run %s: %w", r.name, io.ErrUnexpectedEOF)
		}
		// Move the partial record to the front, make room for all of it, and read more.
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
		if n > 0 && n+int(size) > len(r.buf) {
			r.buf = append(r.buf[:r.w], make([]byte, n+int(size)-r.w)...)
			r.buf = r.buf[:cap(r.buf)]
		}
		m, err := io.ReadFull(r.f, r.buf[r.w:])
		r.w += m
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			r.eof = true
		} else if err != nil {
			return nil, fmt.Errorf("sort run %s: %w", r.name, err)
		}
	}
}
