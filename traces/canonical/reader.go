package canonical

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/schedlab/schedlab/traces"
)

// readBatchRows is the number of rows per batch when reading Parquet.
const readBatchRows = 64 << 10

// uniformBatchRows is the batch size aimed at when a file's row groups have the same size (see
// uniformRowGroups).
const uniformBatchRows = 8 << 10

// Reader streams the jobs of a canonical file one record batch at a time, so its memory is
// bounded by the batch size whatever the file size. A Reader is not safe for concurrent use.
type Reader struct {
	path   string
	format Format
	meta   Meta
	schema *arrow.Schema
	rows   int64 // stage rows in the file, -1 if unknown before reading

	nextRec func() (arrow.Record, error) // returns a record the caller must release
	closeFn func() error
	closed  bool

	// Record batches are read (decompressed, copied out of the file) on a goroutine of their
	// own, one batch ahead of decoding.
	started bool
	recs    chan recResult
	stop    chan struct{}

	dec   decoder
	queue []traces.Job
	qi    int
	err   error
}

// Open opens a canonical file for streaming. The format is detected from the file's magic bytes.
func Open(path string) (r *Reader, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("canonical: %w", err)
	}
	var magic [6]byte
	n, _ := io.ReadFull(f, magic[:])
	f.Close()
	head := magic[:n]
	if bytes.HasPrefix(head, []byte("PAR1")) || bytes.HasPrefix(head, []byte("ARROW1")) {
		if err := verifyChecksum(path); err != nil {
			return nil, fmt.Errorf("canonical: %s: %w", path, err)
		}
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		r, err = openParquet(path)
	case bytes.HasPrefix(head, []byte("ARROW1")):
		r, err = openArrow(path)
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
	return r, nil
}

// corrupt converts a panic inside the Arrow or Parquet libraries into an error.
func corrupt(path string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("canonical: %s: corrupt file: %v", path, p)
	}
}

func openArrow(path string) (r *Reader, err error) {
	_, data, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("canonical: %w", err)
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	defer corrupt(path, &err)
	fr, err := ipc.NewFileReader(data, ipc.WithAllocator(alloc))
	if err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	md := fr.Schema().Metadata()
	meta, version, err := parseMeta(func(k string) (string, bool) {
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
	i := 0
	r = &Reader{path: path, format: Arrow, meta: meta, schema: fr.Schema(), rows: -1,
		nextRec: func() (arrow.Record, error) {
			if i >= fr.NumRecords() {
				return nil, io.EOF
			}
			rec, err := fr.RecordAt(i) // owned by the caller, who releases it
			i++
			return rec, err
		},
		closeFn: func() error {
			err := fr.Close()
			if uerr := unmap(); err == nil {
				err = uerr
			}
			return err
		},
	}
	if err := r.dec.init(fr.Schema(), version); err != nil {
		fr.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	return r, nil
}

func openParquet(path string) (r *Reader, err error) {
	defer corrupt(path, &err)
	// Column chunks are streamed from the mapped file through a small buffer, rather than each
	// copied whole into a fresh buffer (and again into the buffered reader) before decoding.
	mem := newRecycler()
	rp := parquet.NewReaderProperties(alloc)
	rp.BufferedStreamEnabled = true
	pf, err := file.OpenParquetFile(path, true, file.WithReadProps(rp))
	if err != nil {
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	fail := func(err error) (*Reader, error) {
		pf.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	kv := pf.MetaData().KeyValueMetadata()
	meta, version, err := parseMeta(func(k string) (string, bool) {
		v := kv.FindValue(k)
		if v == nil {
			return "", false
		}
		return *v, true
	})
	if err != nil {
		return fail(err)
	}
	// props reads the string columns as dictionaries but for plainStrings; shown reads them all
	// as dictionaries, which is the schema Schema reports (the file's, whatever the reader does).
	props := pqarrow.ArrowReadProperties{BatchSize: readBatchRows}
	var shown pqarrow.ArrowReadProperties
	for _, f := range Schema.Fields() {
		if f.Type.ID() == arrow.STRING {
			if i := pf.MetaData().Schema.ColumnIndexByName(f.Name); i >= 0 {
				props.SetReadDict(i, !plainStrings[f.Name])
				shown.SetReadDict(i, true)
			}
		}
	}
	fr, err := pqarrow.NewFileReader(pf, props, mem)
	if err != nil {
		return fail(err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return fail(err)
	}
	fileSchema, err := pqarrow.FromParquet(pf.MetaData().Schema, &shown, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return fail(err)
	}
	r = &Reader{path: path, format: Parquet, meta: meta, schema: fileSchema, rows: pf.NumRows(), closeFn: pf.Close}
	if err := r.dec.init(schema, version); err != nil {
		return fail(err)
	}
	for k := range r.dec.strs {
		r.dec.strs[k].copied = true // the recycler reuses the batch's buffers
	}
	// No batch may cross row groups: it would have to concatenate dictionary chunks with
	// different dictionaries, which the Arrow library does not do. So a file is read one row
	// group at a time, or, when its row groups have the same size, all at once in batches that
	// divide that size.
	var (
		rr pqarrow.RecordReader
		rg int
	)
	r.nextRec = func() (arrow.Record, error) {
		for {
			if rr != nil && rr.Next() {
				rec := rr.Record()
				rec.Retain() // the caller releases it; rr releases its own reference on Next
				return rec, nil
			}
			if rr != nil {
				err := rr.Err()
				rr.Release()
				rr = nil
				if err != nil && !errors.Is(err, io.EOF) {
					return nil, err
				}
			}
			if rg >= pf.NumRowGroups() {
				return nil, io.EOF
			}
			groups := []int{rg}
			// Batches of the row group's size (up to readBatchRows): the library reserves a
			// full batch of values per column, so a larger batch would only be zeroed in vain.
			fr.Props.BatchSize = max(min(pf.MetaData().RowGroup(rg).NumRows(), readBatchRows), 1)
			if rg == 0 {
				if n, ok := uniformRowGroups(pf); ok {
					// Every row group but the last has n rows: one reader over all of them
					// saves setting up the column readers again for each row group.
					groups, fr.Props.BatchSize = nil, n
					// Smaller batches that still divide the row groups: their buffers stay in
					// cache between being filled and decoded, and fewer are alive at a time.
					for fr.Props.BatchSize > uniformBatchRows && fr.Props.BatchSize%2 == 0 {
						fr.Props.BatchSize /= 2
					}
				}
			}
			var err error
			rr, err = fr.GetRecordReader(context.Background(), nil, groups)
			rg++
			if groups == nil {
				rg = pf.NumRowGroups()
			}
			if err != nil {
				return nil, err
			}
		}
	}
	r.closeFn = func() error {
		if rr != nil {
			rr.Release()
		}
		return pf.Close()
	}
	return r, nil
}

// plainStrings are the string columns read as plain utf8 rather than as dictionaries: they have
// many distinct values, and rebuilding each batch's dictionary from the file's (hashing every
// value, then remapping every index) costs more than copying their bytes.
var plainStrings = map[string]bool{ColJobName: true, ColLogicalJobName: true}

// uniformRowGroups reports whether a file has several row groups of n rows each (n at most
// readBatchRows) but for the last, which may have fewer: then batches of n rows never cross row
// groups.
func uniformRowGroups(pf *file.Reader) (n int64, ok bool) {
	g := pf.NumRowGroups()
	if g < 2 {
		return 0, false
	}
	n = pf.MetaData().RowGroup(0).NumRows()
	if n < 1 || n > readBatchRows {
		return 0, false
	}
	for i := 1; i < g; i++ {
		m := pf.MetaData().RowGroup(i).NumRows()
		if m != n && (i < g-1 || m < 1 || m > n) {
			return 0, false
		}
	}
	return n, true
}

type recResult struct {
	rec arrow.Record
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

// NumRows returns the number of stage rows in the file when the format records it up front
// (Parquet), or -1 (Arrow IPC: count them by reading).
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
			return dst, fmt.Errorf("canonical: %s: row %d: job id %d has %d of %d stage rows at end of file", r.path, r.dec.row, r.dec.cur.ID, r.dec.filled, len(r.dec.cur.Stages))
		}
		return dst, io.EOF
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

// Read loads a whole canonical workload (Parquet or Arrow IPC, detected by content).
func Read(path string) (*traces.Workload, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := r.Meta()
	w := &traces.Workload{Name: m.Name, Source: m.Source, Dims: m.Dims, Cluster: m.Cluster}
	if r.rows > 0 {
		// Parquet states its row count: decode straight into one slice.
		w.Jobs = make([]traces.Job, 0, r.rows)
		for {
			w.Jobs, err = r.fill(w.Jobs)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
		}
	} else {
		// Arrow IPC does not: decode batch by batch and concatenate once.
		var chunks [][]traces.Job
		n := 0
		for {
			var c []traces.Job
			c, err = r.fill(nil)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			chunks = append(chunks, c)
			n += len(c)
		}
		if n > 0 {
			w.Jobs = make([]traces.Job, 0, n)
			for i, c := range chunks {
				w.Jobs = append(w.Jobs, c...)
				chunks[i] = nil
			}
		}
	}
	if len(w.Jobs) == 0 {
		w.Jobs = nil
	}
	return w, r.Close()
}

// alloc is the Arrow IPC Reader's allocator. It must be the Go allocator: decoded strings alias
// its buffers (see strReader.value), which is only safe for garbage-collected memory. (The
// Parquet Reader recycles its buffers instead, and copies string data out of them: see recycler.)
var alloc = memory.NewGoAllocator()
