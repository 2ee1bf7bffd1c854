package canonical

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/traces"
)

// readBatchRows is the number of rows per batch when reading Parquet.
const readBatchRows = 64 << 10

// Reader streams the jobs of a canonical file one record batch at a time, so its memory is
// bounded by the batch size whatever the file size. A Reader is not safe for concurrent use.
type Reader struct {
	path   string
	format Format
	meta   Meta
	schema *arrow.Schema
	rows   int64 // stage rows in the file, -1 if unknown before reading
	size   int64 // the file's size in bytes

	nextRec func() (arrow.RecordBatch, error) // returns a batch the caller must release
	closeFn func() error
	closed  bool

	// Record batches are read (decompressed, decoded from Parquet) on a goroutine of their own,
	// one batch ahead of decoding them into jobs.
	started bool
	recs    chan recResult
	stop    chan struct{}

	dec   decoder
	queue []traces.Job
	qi    int
	err   error
}

// Options say what a Reader checks as it reads.
type Options struct {
	// Limits are checked against the sizes the file states before anything is allocated by
	// them: the cluster's machines, each job's num_stages (each stage has at least one task),
	// each stage's tasks and the running total of tasks. A zero field is no limit.
	Limits traces.Limits
	// Validate checks each job as it is read, as traces.Workload.Validate does except for
	// whether demands fit the cluster (which configuration may still change): a job Next or
	// Read returns is one that its consumers can walk without checking its DAG.
	Validate bool
}

// Open opens a canonical file for streaming, with no limits and no validation (OpenWith).
func Open(path string) (*Reader, error) { return OpenWith(path, Options{}) }

// OpenWith opens a canonical file for streaming. The format is detected from the file's magic
// bytes.
//
// The file is mapped into memory once (where the platform can map files): the checksum is
// computed over the mapping, and both formats are then read from it, so its pages are faulted in
// once. The mapping is released by Close.
func OpenWith(path string, o Options) (r *Reader, err error) {
	data, ra, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("canonical: %w", err)
	}
	r, err = open(path, data, ra, o)
	if err != nil {
		unmap()
		return nil, err
	}
	closeFn := r.closeFn
	r.closeFn = func() error {
		err := closeFn()
		if uerr := unmap(); err == nil {
			err = uerr
		}
		return err
	}
	return r, nil
}

// open opens the file at path, mapped as data (nil where the platform does not map files) and
// readable through ra.
func open(path string, data []byte, ra ipc.ReadAtSeeker, o Options) (*Reader, error) {
	limits := o.Limits
	var magic [6]byte
	n, _ := ra.ReadAt(magic[:], 0)
	head := magic[:n]
	if bytes.HasPrefix(head, []byte("PAR1")) || bytes.HasPrefix(head, []byte("ARROW1")) {
		if err := verifyChecksum(data, ra); err != nil {
			return nil, fmt.Errorf("canonical: %s: %w", path, err)
		}
	}
	var r *Reader
	var err error
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		r, err = openParquet(path, ra, limits)
	case bytes.HasPrefix(head, []byte("ARROW1")):
		r, err = openArrow(path, data, ra, limits)
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return nil, fmt.Errorf("canonical: %s: an Arrow IPC stream, not the IPC file format (write it with `schedlab trace import ... --out FILE.arrow`)", path)
	case n == 0:
		return nil, fmt.Errorf("canonical: %s: empty file", path)
	default:
		return nil, fmt.Errorf("canonical: %s: not a Parquet or Arrow IPC file (starts with %q, want \"PAR1\" or \"ARROW1\")", path, head)
	}
	if err != nil {
		return nil, err
	}
	if r.size, err = ra.Seek(0, io.SeekEnd); err != nil {
		r.closeFn()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	r.dec.limits = limits
	if o.Validate {
		if r.dec.check, err = traces.NewChecker(r.meta.Dims, nil); err != nil {
			r.closeFn()
			return nil, fmt.Errorf("canonical: %s: %w", path, err)
		}
	}
	return r, nil
}

// corruptError is a panic inside the Arrow or Parquet libraries, turned into an error that
// already names the file.
type corruptError struct{ msg string }

func (e *corruptError) Error() string { return e.msg }

// corrupt converts a panic inside the Arrow or Parquet libraries into an error. The checksum
// keeps damaged files from reaching the libraries; this is the second line of defence, for a
// file damaged in a way that keeps its checksum (written so, or tampered with).
func corrupt(path string, err *error) {
	if p := recover(); p != nil {
		*err = &corruptError{fmt.Sprintf("canonical: %s: corrupt file: %v", path, p)}
	}
}

// alloc is the allocator of the Arrow and Parquet library readers. It must be the Go allocator:
// decoded strings alias the batches' buffers (see strReader), and the Parquet library frees a
// page's buffer while it still decodes the page, which is only safe for garbage-collected memory.
var alloc = memory.NewGoAllocator()

// noClose hides the Close method of a file handed to the Parquet library, whose Close would close
// it: the file belongs to Open, which closes it (or unmaps it) after the library is done.
type noClose struct{ ipc.ReadAtSeeker }

// openArrow opens an Arrow IPC file. A mapped file is read by the library's memory-mapped
// reader: record batches' buffers are slices of the mapping, so nothing is copied until the
// decoder copies the strings it keeps (the mapping ends at Close). Without a mapping, the
// library reads each batch into Go memory.
func openArrow(path string, data []byte, ra ipc.ReadAtSeeker, limits traces.Limits) (r *Reader, err error) {
	defer corrupt(path, &err)
	// The library would swap the bytes of a big-endian file's buffers in place: in a mapping
	// that is read-only, a fault no recover catches. Canonical files are little-endian, so
	// another byte order is refused instead.
	size, err := ra.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	if err := checkArrowFooter(ra, size); err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	var fr *ipc.FileReader
	if data != nil {
		fr, err = ipc.NewMappedFileReader(data, ipc.WithAllocator(alloc), ipc.WithEnsureNativeEndian(false))
	} else {
		fr, err = ipc.NewFileReader(ra, ipc.WithAllocator(alloc), ipc.WithEnsureNativeEndian(false))
	}
	if err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	if !fr.Schema().IsNativeEndian() {
		fr.Close()
		return nil, fmt.Errorf("canonical: %s: schema: byte order %v, want %v (canonical files are written in this machine's byte order)", path, fr.Schema().Endianness(), endian.NativeEndian)
	}
	md := fr.Schema().Metadata()
	meta, version, err := parseMeta(limits, func(k string) (string, bool) {
		i := md.FindKey(k)
		if i < 0 {
			return "", false
		}
		return md.Values()[i], true
	})
	if err != nil {
		fr.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	r = &Reader{path: path, format: Arrow, meta: meta, schema: fr.Schema(), rows: -1, closeFn: fr.Close}
	if err := r.dec.init(fr.Schema(), version); err != nil {
		fr.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	if data != nil {
		for k := range r.dec.strs {
			r.dec.strs[k].copied = true
		}
	}
	i := 0
	r.nextRec = func() (arrow.RecordBatch, error) {
		if i >= fr.NumRecords() {
			return nil, io.EOF
		}
		rec, err := fr.RecordBatchAt(i) // owned by the caller, who releases it
		i++
		return rec, err
	}
	return r, nil
}

// openParquet opens a Parquet file, read through pqarrow in batches of up to readBatchRows rows.
func openParquet(path string, ra ipc.ReadAtSeeker, limits traces.Limits) (r *Reader, err error) {
	defer corrupt(path, &err)
	// Column chunks are streamed from the file (mapped, where it is) through a small buffer,
	// rather than each copied whole into a fresh buffer before decoding.
	rp := parquet.NewReaderProperties(alloc)
	rp.BufferedStreamEnabled = true
	pf, err := file.NewParquetReader(noClose{ra}, file.WithReadProps(rp))
	if err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	fail := func(err error) (*Reader, error) {
		pf.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	kv := pf.MetaData().KeyValueMetadata()
	meta, version, err := parseMeta(limits, func(k string) (string, bool) {
		v := kv.FindValue(k)
		if v == nil {
			return "", false
		}
		return *v, true
	})
	if err != nil {
		return fail(err)
	}
	// String columns are read as the dictionaries the Writer stored them as: pqarrow then
	// copies each distinct value once per row group instead of every value (a Read of the month
	// takes about 12% less CPU). Batches may span row groups: pqarrow unifies their dictionaries.
	props := pqarrow.ArrowReadProperties{BatchSize: readBatchRows}
	for _, f := range Schema.Fields() {
		if f.Type.ID() == arrow.STRING {
			if i := pf.MetaData().Schema.ColumnIndexByName(f.Name); i >= 0 {
				props.SetReadDict(i, true)
			}
		}
	}
	fr, err := pqarrow.NewFileReader(pf, props, alloc)
	if err != nil {
		return fail(err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return fail(err)
	}
	r = &Reader{path: path, format: Parquet, meta: meta, schema: schema, rows: pf.NumRows(), closeFn: pf.Close}
	if err := r.dec.init(schema, version); err != nil {
		return fail(err)
	}
	var rr pqarrow.RecordReader
	r.nextRec = func() (arrow.RecordBatch, error) {
		if rr == nil {
			var err error
			if rr, err = fr.GetRecordReader(context.Background(), nil, nil); err != nil {
				return nil, err
			}
		}
		if rr.Next() {
			rec := rr.RecordBatch()
			rec.Retain() // the caller releases it; rr releases its own reference on Next
			return rec, nil
		}
		if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, io.EOF
	}
	r.closeFn = func() error {
		if rr != nil {
			rr.Release()
		}
		return pf.Close()
	}
	return r, nil
}

type recResult struct {
	rec arrow.RecordBatch
	err error
}

// prefetch runs nextRec on a goroutine until the end of the file, an error, or Close.
func (r *Reader) prefetch() {
	r.started = true
	r.recs = make(chan recResult, 1)
	r.stop = make(chan struct{})
	next, recs, stop, path := r.nextRec, r.recs, r.stop, r.path
	go func() {
		defer close(recs)
		for {
			var res recResult
			func() {
				defer corrupt(path, &res.err)
				res.rec, res.err = next()
			}()
			select {
			case recs <- res:
			case <-stop:
				if res.rec != nil {
					res.rec.Release()
				}
				return
			}
			if res.err != nil {
				return
			}
		}
	}()
}

// Path returns the file name the Reader was opened with.
func (r *Reader) Path() string { return r.path }

// Format returns the file's format.
func (r *Reader) Format() Format { return r.format }

// Meta returns the workload-level fields.
func (r *Reader) Meta() Meta { return r.meta }

// Schema returns the file's Arrow schema, including its metadata.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// NumRows returns the number of stage rows in the file when it is known up front (Parquet
// states it), or -1.
func (r *Reader) NumRows() int64 { return r.rows }

// RowsRead returns the number of stage rows decoded so far.
func (r *Reader) RowsRead() int64 { return r.dec.row }

// Next returns the next job, or io.EOF after the last one. The job is not reused by the Reader:
// callers may keep it.
func (r *Reader) Next() (*traces.Job, error) {
	for r.qi >= len(r.queue) {
		if r.err != nil {
			return nil, r.err
		}
		r.queue, r.qi = nil, 0
		r.queue, r.err = r.fill(nil)
	}
	j := &r.queue[r.qi]
	r.qi++
	return j, nil
}

// fill decodes the next record batch, appending its complete jobs to dst. At the end of the file
// it returns io.EOF, or an error if the last job is incomplete.
func (r *Reader) fill(dst []traces.Job) (out []traces.Job, err error) {
	if r.closed {
		return dst, fmt.Errorf("canonical: %s: read after close", r.path)
	}
	defer corrupt(r.path, &err)
	if !r.started {
		r.prefetch()
	}
	res, ok := <-r.recs
	if !ok {
		res.err = io.EOF // after an earlier error or EOF
	}
	rec, err := res.rec, res.err
	if rec != nil {
		defer rec.Release()
	}
	if errors.Is(err, io.EOF) {
		if r.dec.open {
			return dst, fmt.Errorf("canonical: %s: row %d: job id %d has %d of %d stage rows at end of file", r.path, r.dec.row, r.dec.cur.ID, r.dec.filled, r.dec.want)
		}
		if r.dec.check != nil {
			if err := r.dec.check.Done(); err != nil {
				return dst, fmt.Errorf("canonical: %s: %w", r.path, err)
			}
		}
		return dst, io.EOF
	}
	var ce *corruptError
	if errors.As(err, &ce) {
		return dst, err // already says which file
	}
	if err != nil {
		return dst, fmt.Errorf("canonical: %s: %w", r.path, err)
	}
	out, err = r.dec.decode(rec, dst)
	if err != nil {
		return out, fmt.Errorf("canonical: %s: %w", r.path, err)
	}
	return out, nil
}

// readAhead reads every record batch before decoding starts, so that the row count is known.
func (r *Reader) readAhead() (err error) {
	var recs []arrow.RecordBatch
	release := func() {
		for _, rec := range recs {
			rec.Release()
		}
		recs = nil
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	defer corrupt(r.path, &err) // first: a panic becomes err, then the batches are released
	rows := int64(0)
	for {
		rec, err := r.nextRec()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("canonical: %s: %w", r.path, err)
		}
		recs = append(recs, rec)
		rows += rec.NumRows()
	}
	r.rows = rows
	i := 0
	r.nextRec = func() (arrow.RecordBatch, error) {
		if i >= len(recs) {
			return nil, io.EOF
		}
		i++
		rec := recs[i-1]
		recs[i-1] = nil // owned by the caller now
		return rec, nil
	}
	closeFn := r.closeFn
	r.closeFn = func() error {
		for _, rec := range recs[i:] {
			rec.Release()
		}
		return closeFn()
	}
	return nil
}

// Close releases the file.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.queue = nil
	if r.started {
		close(r.stop)
		for res := range r.recs { // wait for the goroutine to finish with the file
			if res.rec != nil {
				res.rec.Release()
			}
		}
	}
	return r.closeFn()
}

// Read loads a whole canonical workload (Parquet or Arrow IPC, detected by content), with no
// limits and no validation (ReadWith).
func Read(path string) (*traces.Workload, error) { return ReadWith(path, Options{}) }

// ReadWith loads a whole canonical workload (Parquet or Arrow IPC, detected by content), checking
// what o asks for as it reads.
func ReadWith(path string, o Options) (*traces.Workload, error) {
	r, err := OpenWith(path, o)
	if err != nil {
		return nil, err
	}
	return readAll(r)
}

// readAll reads all of r's jobs and closes it.
func readAll(r *Reader) (*traces.Workload, error) {
	path := r.path
	defer r.Close()
	m := r.Meta()
	w := &traces.Workload{Name: m.Name, Source: m.Source, Dims: m.Dims, Cluster: m.Cluster, Initial: m.Initial, ClusterEvents: m.ClusterEvents, Faults: m.Faults, Placements: m.Placements}
	if r.rows < 0 {
		// Arrow IPC does not state its row count up front, but a mapped file's batches are
		// views of the mapping (without a mapping, copies that Read would hold anyway): read
		// them all first and count their rows.
		if err := r.readAhead(); err != nil {
			return nil, err
		}
	}
	if l := r.dec.limits.Tasks; l > 0 && r.rows > l {
		// Each row is a stage of at least one task.
		return nil, fmt.Errorf("canonical: %s: %d stage rows: %w", path, r.rows, &traces.LimitError{Limit: traces.LimitTasks, Job: -1, Stage: -1, Value: r.rows, Max: l})
	}
	if r.rows > 0 {
		// A Parquet file states its row count, which a few bytes can claim to be billions
		// (its pages run-length encode their values): the slabs below are sized by it only
		// up to what the file's size could plausibly hold, and grow past that as rows arrive.
		prealloc := min(r.rows, r.size)
		// The result is allocated once, jobs (at most one per row) and stages (exactly one per
		// row but for jobs without stages) each as one slab, instead of growing batch by batch
		// and being copied (with the write barriers of copying pointers while the collector
		// runs) as it grows.
		w.Jobs = make([]traces.Job, 0, prealloc)
		r.dec.slab = make([]traces.Stage, prealloc)
	}
	for {
		var err error
		w.Jobs, err = r.fill(w.Jobs)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(w.Jobs) == 0 {
		w.Jobs = nil
	}
	return w, r.Close()
}
