package canonical

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/internal/safefs"
	"github.com/schedlab/schedlab/traces"
)

// DefaultBatchRows is the number of stage rows per record batch (and per Parquet row group).
const DefaultBatchRows = 32 << 10

// DefaultRunRows is a row limit on a sorting Writer's in-memory run, for WithSortBySubmit callers
// that want one. Runs are otherwise bounded by a fixed byte budget (4 MiB of compact records,
// about 19,000 single-stage jobs), which WithSortBySubmit(runRows ≤ 0, ...) uses alone.
const DefaultRunRows = 16 << 10

// maxFanIn bounds the number of runs merged at once; more runs are merged in several passes.
const maxFanIn = 64

type config struct {
	batchRows int
	runRows   int
	runBytes  int
	sort      bool
	tempDir   string
}

// Option configures a Writer.
type Option func(*config)

// WithBatchRows sets the number of stage rows per record batch / row group (default
// DefaultBatchRows). A job's rows are never split across batches by the Writer.
func WithBatchRows(n int) Option { return func(c *config) { c.batchRows = n } }

// WithSortBySubmit makes the Writer accept jobs in any order and write them ordered by (submit
// time, job id), stably, as traces.Workload.SortJobs would. Memory stays bounded: jobs are kept
// in a compact serialized form, and whenever they reach a fixed byte budget or runRows stage rows
// (≤ 0: no row limit) they are sorted and spilled to a temporary file in a work directory in
// tempDir (empty: the destination's directory; see NewWriter); Close merges the runs.
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
	work   *safefs.WorkDir // beside path: tmp, and the run files unless cfg.tempDir is elsewhere
	runDir *safefs.WorkDir // where run files go (work, or one in cfg.tempDir)
	tmp    *os.File
	crc    *crcFile // tmp, checksummed as it is written
	sink   sink
	lazy   *lazySink // sink, until it starts writing
	enc    *encoder

	jobs, rows int64
	done       bool

	// sorting state (sort.go): the in-memory run's records and their keys
	arena   []byte
	keys    []runKey
	sortTmp []runKey // sortKeys' second buffer
	bufRows int
	runs    []string
	runSeq  int
	rw      *runWriter // reused across run files
}

// NewWriter creates a Writer for path; the format follows the extension (see FormatOf). The file
// appears under path only when Close succeeds. Until then it and the sort's run files live in a
// work directory of this process beside path (".<name>.work-*", safefs.WorkDir) that Close and
// Abort remove; one a killed process left is removed by the next NewWriter into the same
// directory (or with the same temporary directory), however large it grew.
func NewWriter(path string, meta Meta, opts ...Option) (*Writer, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	cfg := config{batchRows: DefaultBatchRows, runBytes: defaultRunBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.batchRows <= 0 {
		cfg.batchRows = DefaultBatchRows
	}
	if cfg.runRows <= 0 {
		cfg.runRows = math.MaxInt
	}
	if cfg.tempDir == "" {
		cfg.tempDir = filepath.Dir(path)
	}
	md, err := meta.metadata()
	if err != nil {
		return nil, err
	}
	schema := sinkSchema(format, &md)
	w := &Writer{path: path, format: format, cfg: cfg, schema: schema, enc: newEncoder(schema)}
	if err := w.create(); err != nil {
		w.removeWork()
		return nil, fmt.Errorf("canonical: create %s: %w", path, err)
	}
	return w, nil
}

// create makes the Writer's work directories and temporary file and starts the sink.
func (w *Writer) create() error {
	var err error
	dir, base := filepath.Split(w.path)
	if dir == "" {
		dir = "."
	}
	if w.work, err = safefs.NewWorkDir(dir, base); err != nil {
		return err
	}
	w.runDir = w.work
	if w.cfg.sort && filepath.Clean(w.cfg.tempDir) != filepath.Clean(dir) {
		if w.runDir, err = safefs.NewWorkDir(w.cfg.tempDir, base); err != nil {
			return err
		}
	}
	if w.tmp, err = os.OpenFile(filepath.Join(w.work.Path, base), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666); err != nil {
		return err
	}
	w.crc = newCRCFile(w.tmp)
	s := &lazySink{format: w.format, out: w.crc, schema: w.schema}
	w.sink, w.lazy = s, s
	return nil
}

// removeWork closes the temporary file and removes the work directories with what is in them.
func (w *Writer) removeWork() error {
	if w.tmp != nil {
		w.tmp.Close()
	}
	w.runs = nil
	err := w.work.Remove()
	if w.runDir != w.work {
		w.runDir.Remove()
	}
	return err
}

// SetMeta replaces the workload metadata given to NewWriter, for a writer that learns it while
// its jobs go by (the cluster of an import may depend on the trace). It is allowed until the
// first record batch is written: for a Writer made WithSortBySubmit, at any time before Close.
func (w *Writer) SetMeta(meta Meta) error {
	if w.done {
		return fmt.Errorf("canonical: %s: SetMeta after close", w.path)
	}
	if w.lazy.s != nil {
		return fmt.Errorf("canonical: %s: SetMeta after rows were written", w.path)
	}
	md, err := meta.metadata()
	if err != nil {
		return err
	}
	w.schema = sinkSchema(w.format, &md)
	w.lazy.schema, w.enc.schema = w.schema, w.schema
	return nil
}

// lazySink creates the format's sink when the first batch is written (or at close), so that
// SetMeta can change the schema's metadata until then.
type lazySink struct {
	format Format
	out    io.Writer
	schema *arrow.Schema
	s      sink
}

func (l *lazySink) start() error {
	if l.s != nil {
		return nil
	}
	s, err := newSink(l.format, l.out, l.schema)
	if err != nil {
		return err
	}
	l.s = s
	return nil
}

func (l *lazySink) write(r arrow.Record) error {
	if err := l.start(); err != nil {
		return err
	}
	return l.s.write(r)
}

func (l *lazySink) close() error {
	if err := l.start(); err != nil {
		return err
	}
	return l.s.close()
}

// Append adds a job. The job is not retained: it is encoded immediately, or with
// WithSortBySubmit serialized into the Writer's run buffer.
func (w *Writer) Append(j *traces.Job) error { return w.add(j, false) }

// AppendOwned is Append for a job the caller hands over: the Writer may keep j and the slices it
// points to (no copy), so the caller must not modify them afterwards. (The current Writer never
// keeps them, but callers must not rely on that.)
func (w *Writer) AppendOwned(j *traces.Job) error { return w.add(j, true) }

func (w *Writer) add(j *traces.Job, owned bool) error {
	if w.done {
		return fmt.Errorf("canonical: %s: append after close", w.path)
	}
	w.jobs++
	rows := max(len(j.Stages), 1)
	w.rows += int64(rows)
	if w.cfg.sort {
		if len(j.Stages) > math.MaxInt32 {
			w.Abort()
			return fmt.Errorf("canonical: %s: job %d: %d stages do not fit an int32", w.path, j.ID, len(j.Stages))
		}
		if err := w.crc.err.Recover(func() error { return w.bufRecord(rows, func(b []byte) []byte { return appendRecord(b, j) }) }); err != nil {
			w.Abort()
			return fmt.Errorf("canonical: %s: %w", w.path, err)
		}
		return nil
	}
	if err := w.crc.err.Recover(func() error { return w.encode(w.enc, w.sink, w.cfg.batchRows, j) }); err != nil {
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

// encodeRecord adds the job serialized in rec to the Writer's output.
func (w *Writer) encodeRecord(rec []byte) error {
	if w.enc.rows > 0 && w.enc.full(w.cfg.batchRows) {
		if err := flush(w.enc, w.sink); err != nil {
			return err
		}
	}
	return w.enc.addRecord(rec)
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
// respect to readers and to crashes of this process; the file is not fsynced). A panic of the
// Arrow or Parquet writer (some write errors panic there) is returned as an error.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	err := w.crc.err.Recover(func() error {
		if w.cfg.sort {
			return w.finishSorted()
		}
		return flush(w.enc, w.sink)
	})
	if err == nil {
		err = w.crc.err.Recover(w.sink.close)
	}
	w.done = true
	if err != nil {
		w.removeWork()
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	copies := 1 // Parquet keeps the metadata once, in its footer
	if w.format == Arrow {
		copies = 2 // the IPC file format writes the schema at the start and in the footer
	}
	if err := w.crc.seal(w.tmp, copies); err != nil {
		w.removeWork()
		return fmt.Errorf("canonical: %s: %w", w.path, err)
	}
	err = w.tmp.Close()
	if err == nil {
		err = os.Rename(w.tmp.Name(), w.path)
	}
	w.tmp = nil
	w.removeWork()
	if err != nil {
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
	w.arena, w.keys, w.sortTmp = nil, nil, nil
	return w.removeWork()
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

// noDictionary are the columns Parquet files store without a dictionary: ids, times and
// durations are nearly unique, so a dictionary would be wasted work.
var noDictionary = map[string]bool{ColJobID: true, ColSubmit: true, ColDuration: true, ColEstimate: true, ColDeadline: true, ColUtilityTarget: true}

// sinkSchema is the schema of the record batches written in format f: Schema with metadata md,
// and for Parquet with the dictionary-encoded columns (the strings and the numbers but for
// noDictionary; not the bool and list columns) as int32-indexed dictionary arrays that the
// encoder builds (see strCol and numDict). pqarrow stores a dictionary array just as it stores
// a dense column it dictionary-encodes itself, so the file's Parquet schema and encodings are
// those of the plain columns.
func sinkSchema(f Format, md *arrow.Metadata) *arrow.Schema {
	fields := Schema.Fields()
	if f == Parquet {
		for i, fd := range fields {
			switch fd.Type.ID() {
			case arrow.STRING, arrow.INT32, arrow.INT64, arrow.FLOAT64:
				if !noDictionary[fd.Name] {
					fields[i].Type = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: fd.Type}
				}
			}
		}
	}
	return arrow.NewSchema(fields, md)
}

// sink consumes record batches.
type sink interface {
	write(arrow.Record) error
	close() error
}

func newSink(f Format, out io.Writer, schema *arrow.Schema) (sink, error) {
	bw := &posWriter{w: bufio.NewWriterSize(out, 1<<20)}
	switch f {
	case Arrow:
		fw, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, err
		}
		return &ipcSink{fw: fw, bw: bw}, nil
	case Parquet:
		// Dictionary-encode strings and the usually low-cardinality numbers (the encoder builds
		// their dictionaries, see sinkSchema), but not noDictionary.
		opts := []parquet.WriterProperty{
			parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithDictionaryDefault(true),
			parquet.WithDictionaryPageSizeLimit(8 << 20),
			parquet.WithMaxRowGroupLength(1 << 30),
			parquet.WithCreatedBy("schedlab canonical v" + SchemaVersion),
			parquet.WithStats(false), // min/max statistics cost time and nothing reads them
		}
		for c := range noDictionary {
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

// crcFile writes a file and computes its checksum (see checksum.go) from the bytes as they go
// by, so that Close need not read the file back (131 MB for the Google month as Arrow IPC). It
// feeds the data to the same scanner that sealChecksum runs over the file; the scanner holds back
// the last few bytes of each piece, which might begin a marker, so crcFile keeps them in tail
// and feeds them again in front of the next piece.
type crcFile struct {
	f    *os.File
	err  safefs.ErrWriter // writes to f, keeping the first error: the cause of an Arrow writer's panic
	scan checksumScan
	tail []byte // capacity 2*keep, so tail and the head of the next piece fit in place
}

func newCRCFile(f *os.File) *crcFile {
	return &crcFile{f: f, err: safefs.ErrWriter{W: f}, tail: make([]byte, 0, 2*(len(checksumMarker)+checksumDigits))}
}

// Write writes b to the file and feeds it to the checksum.
func (c *crcFile) Write(b []byte) (int, error) {
	n, err := c.err.Write(b)
	c.feed(b[:n])
	return n, err
}

func (c *crcFile) feed(b []byte) {
	const keep = len(checksumMarker) + checksumDigits
	if len(c.tail) > 0 {
		k := min(len(b), keep)
		buf := append(c.tail, b[:k]...)
		end := c.scan.feed(buf, false)
		if k == len(b) { // all of b is in buf
			c.tail = c.tail[:copy(c.tail[:cap(c.tail)], buf[end:])]
			return
		}
		// buf held keep bytes of b, so the scanner consumed at least the old tail.
		b = b[end-(len(buf)-k):]
		c.tail = c.tail[:0]
	}
	end := c.scan.feed(b, false)
	c.tail = append(c.tail, b[end:]...)
}

// seal feeds the last bytes and writes the checksum into the file f, which must hold exactly
// want placeholders (the ones the Writer put in its metadata), as sealChecksum does.
func (c *crcFile) seal(f *os.File, want int) error {
	c.scan.feed(c.tail, true)
	c.tail = nil
	if len(c.scan.found) != want {
		return fmt.Errorf("checksum: %d occurrences of the reserved string %q, want %d (does a name contain it?)", len(c.scan.found), checksumMarker, want)
	}
	digits := []byte(hex8(c.scan.crc))
	for _, o := range c.scan.found {
		if o.value != placeholder {
			return fmt.Errorf("checksum: unexpected value %q at byte %d", o.value, o.off)
		}
		if _, err := f.WriteAt(digits, o.off); err != nil {
			return err
		}
	}
	return nil
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
