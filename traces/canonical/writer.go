package canonical

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/schedlab/schedlab/traces"
)

// DefaultBatchRows is the number of stage rows per record batch (and per Parquet row group).
const DefaultBatchRows = 32 << 10

// DefaultRunRows is the number of stage rows a sorting Writer holds in memory before it sorts them
// and spills them to a temporary run file.
const DefaultRunRows = 16 << 10

// maxFanIn bounds the number of runs merged at once; more runs are merged in several passes.
const maxFanIn = 64

type config struct {
	batchRows int
	runRows   int
	sort      bool
	tempDir   string
}

// Option configures a Writer.
type Option func(*config)

// WithBatchRows sets the number of stage rows per record batch / row group (default
// DefaultBatchRows). A job's rows are never split across batches by the Writer.
func WithBatchRows(n int) Option { return func(c *config) { c.batchRows = n } }

// WithSortBySubmit makes the Writer accept jobs in any order and write them ordered by (submit
// time, job id), stably, as traces.Workload.SortJobs would. Memory stays bounded: every runRows
// stage rows (≤ 0: DefaultRunRows) are sorted and spilled to a temporary file in tempDir
// (empty: the destination's directory), and Close merges the runs.
func WithSortBySubmit(runRows int, tempDir string) Option {
	return func(c *config) {
		c.sort, c.runRows, c.tempDir = true, runRows, tempDir
	}
}

// Writer streams jobs into a canonical file. Without WithSortBySubmit, jobs are written in the
// order they are appended. Close must be called to produce the file; Abort discards it. A Writer
// is not safe for concurrent use.
type Writer struct {
	path   string
	format Format
	cfg    config
	schema *arrow.Schema
	tmp    *os.File
	sink   sink
	enc    *encoder

	jobs, rows int64
	done       bool

	// sorting state
	buf     []traces.Job
	spare   []traces.Job // sortBuf's second buffer
	idx     []int32      // sortBuf's index
	bufRows int
	runs    []string
	runSeq  int
	rw      *runWriter // reused across run files
}

// NewWriter creates a Writer for path; the format follows the extension (see FormatOf). The file
// appears under path only when Close succeeds.
func NewWriter(path string, meta Meta, opts ...Option) (*Writer, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	cfg := config{batchRows: DefaultBatchRows}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.batchRows <= 0 {
		cfg.batchRows = DefaultBatchRows
	}
	if cfg.runRows <= 0 {
		cfg.runRows = DefaultRunRows
	}
	if cfg.tempDir == "" {
		cfg.tempDir = filepath.Dir(path)
	}
	md, err := meta.metadata()
	if err != nil {
		return nil, err
	}
	schema := arrow.NewSchema(Schema.Fields(), &md)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("canonical: create %s: %w", path, err)
	}
	s, err := newSink(format, tmp, schema)
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	return &Writer{path: path, format: format, cfg: cfg, schema: schema, tmp: tmp, sink: s, enc: newEncoder(schema)}, nil
}

// Append adds a job. Without sorting, the job is encoded immediately and not retained; with
// WithSortBySubmit it is deep-copied.
func (w *Writer) Append(j *traces.Job) error { return w.add(j, false) }

// AppendOwned is Append for a job the caller hands over: the Writer may keep j and the slices it
// points to (no copy), so the caller must not modify them afterwards.
func (w *Writer) AppendOwned(j *traces.Job) error { return w.add(j, true) }

func (w *Writer) add(j *traces.Job, owned bool) error {
	if w.done {
		return fmt.Errorf("canonical: %s: append after close", w.path)
	}
	w.jobs++
	w.rows += int64(max(len(j.Stages), 1))
	if w.cfg.sort {
		if owned {
			w.buf = append(w.buf, *j)
		} else {
			w.buf = append(w.buf, cloneJob(j))
		}
		w.bufRows += max(len(j.Stages), 1)
		if w.bufRows >= w.cfg.runRows {
			if err := w.spill(); err != nil {
				w.Abort()
				return err
			}
		}
		return nil
	}
	if err := w.encode(w.enc, w.sink, w.cfg.batchRows, j); err != nil {
		w.Abort()
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	return nil
}

// Jobs returns the number of jobs appended so far.
func (w *Writer) Jobs() int64 { return w.jobs }

// Rows returns the number of stage rows appended so far.
func (w *Writer) Rows() int64 { return w.rows }

// encode adds j to enc, flushing a full batch to s first.
func (w *Writer) encode(enc *encoder, s sink, batchRows int, j *traces.Job) error {
	if enc.rows > 0 && enc.full(batchRows) {
		if err := flush(enc, s); err != nil {
			return err
		}
	}
	return enc.add(j)
}

func flush(enc *encoder, s sink) error {
	if enc.rows == 0 {
		return nil
	}
	rec := enc.record()
	err := s.write(rec)
	rec.Release()
	enc.reset()
	return err
}

// Close writes the remaining rows and the footer, and renames the file into place (atomic with
// respect to readers and to crashes of this process; the file is not fsynced).
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	var err error
	if w.cfg.sort {
		err = w.finishSorted()
	} else {
		err = flush(w.enc, w.sink)
	}
	if err != nil {
		w.Abort()
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	w.done = true
	name := w.tmp.Name()
	if err := w.sink.close(); err != nil {
		w.tmp.Close()
		os.Remove(name)
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	copies := 1 // Parquet keeps the metadata once, in its footer
	if w.format == Arrow {
		copies = 2 // the IPC file format writes the schema at the start and in the footer
	}
	if err := sealChecksum(w.tmp, copies); err != nil {
		w.tmp.Close()
		os.Remove(name)
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	if err := w.tmp.Chmod(0o644); err != nil {
		w.tmp.Close()
		os.Remove(name)
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	if err := w.tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	if err := os.Rename(name, w.path); err != nil {
		os.Remove(name)
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	return nil
}

// Abort discards everything written so far, including temporary files. It is safe to call after
// Close (then it does nothing) and more than once.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.buf, w.spare = nil, nil
	for _, r := range w.runs {
		os.Remove(r)
	}
	w.runs = nil
	w.tmp.Close()
	return os.Remove(w.tmp.Name())
}

// Write stores w at path as Parquet (.parquet) or Arrow IPC (.arrow), atomically.
func Write(path string, w *traces.Workload) error {
	cw, err := NewWriter(path, MetaOf(w))
	if err != nil {
		return err
	}
	for i := range w.Jobs {
		if err := cw.Append(&w.Jobs[i]); err != nil {
			return err
		}
	}
	return cw.Close()
}

// cloneJob deep-copies the parts of j a caller might reuse.
func cloneJob(j *traces.Job) traces.Job {
	c := *j
	if j.Utility != nil {
		u := *j.Utility
		c.Utility = &u
	}
	if j.Stages != nil {
		c.Stages = make([]traces.Stage, len(j.Stages))
		copy(c.Stages, j.Stages)
		for i := range c.Stages {
			s := &c.Stages[i]
			if s.TaskDurations != nil {
				s.TaskDurations = append(make([]traces.Time, 0, len(s.TaskDurations)), s.TaskDurations...)
			}
			if s.Parents != nil {
				s.Parents = append(make([]int32, 0, len(s.Parents)), s.Parents...)
			}
		}
	}
	return c
}

// sink consumes record batches.
type sink interface {
	write(arrow.Record) error
	close() error
}

func newSink(f Format, out *os.File, schema *arrow.Schema) (sink, error) {
	bw := &posWriter{w: bufio.NewWriterSize(out, 1<<20)}
	switch f {
	case Arrow:
		fw, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, err
		}
		return &ipcSink{fw: fw, bw: bw}, nil
	case Parquet:
		// Dictionary-encode strings and the usually low-cardinality numbers; ids, times and
		// durations are nearly unique, so hashing them for a dictionary would be wasted work.
		opts := []parquet.WriterProperty{
			parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithDictionaryDefault(true),
			parquet.WithDictionaryPageSizeLimit(8 << 20),
			parquet.WithMaxRowGroupLength(1 << 30),
			parquet.WithCreatedBy("schedlab canonical v" + SchemaVersion),
			parquet.WithStats(false), // min/max statistics cost time and nothing reads them
		}
		for _, c := range []string{ColJobID, ColSubmit, ColDuration, ColEstimate, ColDeadline, ColUtilityTarget} {
			opts = append(opts, parquet.WithDictionaryFor(c, false))
		}
		props := parquet.NewWriterProperties(opts...)
		fw, err := pqarrow.NewFileWriter(schema, bw, props, pqarrow.DefaultWriterProps())
		if err != nil {
			return nil, err
		}
		return &parquetSink{fw: fw, bw: bw}, nil
	}
	return nil, fmt.Errorf("unknown format %d", f)
}

// posWriter buffers writes and answers the position queries of the IPC writer.
type posWriter struct {
	w   *bufio.Writer
	pos int64
}

// Write buffers b.
func (p *posWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.pos += int64(n)
	return n, err
}

// Seek answers Seek(0, io.SeekCurrent), the only call the IPC writer makes.
func (p *posWriter) Seek(offset int64, whence int) (int64, error) {
	if offset == 0 && whence == io.SeekCurrent {
		return p.pos, nil
	}
	return 0, errors.New("canonical: output is not seekable")
}

type ipcSink struct {
	fw *ipc.FileWriter
	bw *posWriter
}

func (s *ipcSink) write(r arrow.Record) error { return s.fw.Write(r) }
func (s *ipcSink) close() error {
	if err := s.fw.Close(); err != nil {
		return err
	}
	return s.bw.w.Flush()
}

type parquetSink struct {
	fw *pqarrow.FileWriter
	bw *posWriter
}

func (s *parquetSink) write(r arrow.Record) error { return s.fw.Write(r) }
func (s *parquetSink) close() error {
	if err := s.fw.Close(); err != nil {
		return err
	}
	return s.bw.w.Flush()
}
