package canonical

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

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
	// strBytes bounds the bytes of each string column the decoder copies (by strCols index),
	// where known up front; Read sizes the decoder's arenas with it.
	strBytes [len(strCols)]int64

	nextRec func() (arrow.Record, error) // returns a record the caller must release
	closeFn func() error
	closed  bool

	// Record batches are read (decompressed, copied out of the file) on a goroutine of their
	// own, one batch ahead of decoding.
	started bool
	recs    chan recResult
	stop    chan struct{}

	pq *parquetDirect // the Parquet file's direct reader, if it has one

	// pending, if set, is the first batch, read before the goroutine started (see Read).
	pending *recResult

	dec   decoder
	queue []traces.Job
	qi    int
	err   error
}

// Open opens a canonical file for streaming. The format is detected from the file's magic bytes.
//
// The file is mapped into memory once (where the platform can map files): the checksum is
// computed over the mapping, and both formats are then read from it, so its pages are faulted in
// once. The mapping is released by Close.
func Open(path string) (r *Reader, err error) {
	data, ra, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("canonical: %w", err)
	}
	r, err = open(path, data, ra)
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
func open(path string, data []byte, ra ipc.ReadAtSeeker) (*Reader, error) {
	var magic [6]byte
	n, _ := ra.ReadAt(magic[:], 0)
	head := magic[:n]
	if bytes.HasPrefix(head, []byte("PAR1")) || bytes.HasPrefix(head, []byte("ARROW1")) {
		if err := verifyChecksum(data, ra); err != nil {
			return nil, fmt.Errorf("canonical: %s: %w", path, err)
		}
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return openParquet(path, data, ra)
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return openArrow(path, data, ra)
	case bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return nil, fmt.Errorf("canonical: %s: an Arrow IPC stream, not the IPC file format (write it with `schedlab trace import ... --out FILE.arrow`)", path)
	case n == 0:
		return nil, fmt.Errorf("canonical: %s: empty file", path)
	default:
		return nil, fmt.Errorf("canonical: %s: not a Parquet or Arrow IPC file (starts with %q, want \"PAR1\" or \"ARROW1\")", path, head)
	}
}

// corruptError is a panic inside the Arrow or Parquet libraries, turned into an error that
// already names the file.
type corruptError struct{ msg string }

func (e *corruptError) Error() string { return e.msg }

// corrupt converts a panic inside the Arrow or Parquet libraries into an error.
func corrupt(path string, err *error) {
	if p := recover(); p != nil {
		*err = &corruptError{fmt.Sprintf("canonical: %s: corrupt file: %v", path, p)}
	}
}

func openArrow(path string, data []byte, ra ipc.ReadAtSeeker) (r *Reader, err error) {
	defer corrupt(path, &err)
	fr, err := ipc.NewFileReader(ra, ipc.WithAllocator(alloc))
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
	r = &Reader{path: path, format: Arrow, meta: meta, schema: fr.Schema(), rows: -1, closeFn: fr.Close}
	if err := r.dec.init(fr.Schema(), version); err != nil {
		fr.Close()
		return nil, fmt.Errorf("canonical: %s: %w", path, err)
	}
	if batches, rows, ok := mappedBatches(data, fr.Schema()); ok && len(batches) == fr.NumRecords() {
		// Record batches are read in place from the mapping (see mappedBatches); the decoder
		// copies their strings, which must outlive the mapping.
		r.rows = rows
		for k := range r.dec.strs {
			r.dec.strs[k].copied = true
		}
		first := firstBuffers(fr.Schema().Fields())
		for k, name := range strCols {
			if i := r.dec.idx[name]; i >= 0 {
				for _, b := range batches {
					if j := first[i] + 2; j < len(b.bufs) {
						r.strBytes[k] += int64(len(b.bufs[j]))
					}
				}
			}
		}
		schema, i := fr.Schema(), 0
		r.nextRec = func() (arrow.Record, error) {
			if i >= len(batches) {
				return nil, io.EOF
			}
			i++
			return batches[i-1].record(schema)
		}
		return r, nil
	}
	// Anything else (no mapping; compressed, dictionary-encoded or big-endian data; layouts the
	// Writer does not produce) goes through the Arrow library, which copies each batch.
	i := 0
	r.nextRec = func() (arrow.Record, error) {
		if i >= fr.NumRecords() {
			return nil, io.EOF
		}
		rec, err := fr.RecordAt(i) // owned by the caller, who releases it
		i++
		return rec, err
	}
	return r, nil
}

func openParquet(path string, data []byte, ra ipc.ReadAtSeeker) (r *Reader, err error) {
	defer corrupt(path, &err)
	// Column chunks are streamed from the mapped file through a small buffer, rather than each
	// copied whole into a fresh buffer (and again into the buffered reader) before decoding.
	mem := newRecycler()
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
	if d, ok := newParquetDirect(pf, mem); ok {
		if err := r.dec.init(d.schema, version); err != nil {
			return fail(err)
		}
		// The decoder's strings view the batches' string bytes, which are not recycled: see
		// parquetDirect.strings.
		r.nextRec, r.pq = d.next, d
		return r, nil
	}
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
	next, recs, stop, path, pending := r.nextRec, r.recs, r.stop, r.path, r.pending
	r.pending = nil
	go func() {
		defer close(recs)
		for {
			var res recResult
			if pending != nil {
				res, pending = *pending, nil
			} else {
				func() {
					defer corrupt(path, &res.err)
					res.rec, res.err = next()
				}()
			}
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
// states it; Arrow IPC files read in place have their batch lengths counted when opened), or -1.
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

// Close releases the file.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.queue = nil
	if r.pending != nil && r.pending.rec != nil {
		r.pending.rec.Release()
		r.pending = nil
	}
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
		// The row count is known up front (Parquet states it; mapped Arrow IPC batches are
		// counted before decoding): the result is allocated once, jobs (at most one per row) and
		// stages (exactly one per row but for jobs without stages) each as one slab, instead of
		// growing batch by batch. Besides saving copies, that keeps the collector from tracing
		// the growing result over and over: the heap reaches its final size at once, so about one
		// collection runs during the load instead of one per doubling.
		//
		// The first batch is read here, before the reading goroutine starts, so that the string
		// arenas can be sized (from the file, or from the first batch's bytes per row) and all
		// the big allocations made at once, before decoding: the arenas (no pointers), then the
		// slabs. Their size starts a collection that has little to mark (empty slabs; what is
		// allocated while it marks is born marked) and that leaves a heap goal above the whole
		// result, so that decoding mostly runs without the collector and its write barriers,
		// which would otherwise trace the result again while it is filled in. (The order was
		// chosen by measurement: the pacer's decisions depend on it.)
		if r.pq != nil {
			r.pq.whole = true
		}
		res := r.readFirst()
		r.pending = &res
		if res.err == nil && res.rec != nil {
			r.sizeArenas(res.rec)
			r.allocateArenas()
			w.Jobs = make([]traces.Job, 0, r.rows)
			r.dec.slab = make([]traces.Stage, r.rows)
		}
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
		// The row count is unknown (Arrow IPC read through the library): decode batch by batch
		// and concatenate once.
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

// allocateArenas allocates the string arenas sized by sizeArenas or by the direct Parquet
// reader's first row group.
func (r *Reader) allocateArenas() {
	for k := range r.dec.strs {
		r.dec.strs[k].arena.allocate()
	}
	if r.pq != nil {
		for _, a := range r.pq.arenas {
			a.allocate()
		}
	}
}

// readFirst reads the first batch on the calling goroutine.
func (r *Reader) readFirst() (res recResult) {
	defer corrupt(r.path, &res.err)
	res.rec, res.err = r.nextRec()
	return res
}

// sizeArenas gives the decoder's copied string columns one arena each for the whole file: of the
// size the file states (r.strBytes), or else of the bytes per row of the first batch rec times
// the file's rows, plus an eighth. A column that outgrows its arena (a first batch with shorter
// strings than the rest) is copied batch by batch from then on.
func (r *Reader) sizeArenas(rec arrow.Record) {
	for k := range r.dec.strs {
		s := &r.dec.strs[k]
		if !s.copied || r.dec.idx[strCols[k]] < 0 {
			continue
		}
		n := r.strBytes[k]
		if n == 0 && rec.NumRows() > 0 {
			if a, ok := rec.Column(r.dec.idx[strCols[k]]).(*array.String); ok && len(a.ValueBytes()) > 0 {
				n = int64(float64(len(a.ValueBytes())) / float64(rec.NumRows()) * float64(r.rows))
				n += n/8 + 4096
			}
		}
		s.arena.want = int(n)
	}
}

// alloc is the allocator of the Arrow IPC library reader and of the Parquet library's pages. It
// must be the Go allocator: decoded strings alias the IPC reader's buffers (see strReader), and
// the Parquet library frees a page's buffer while it still decodes the page, which is only safe
// for garbage-collected memory. (Batch buffers of the Parquet Reader are recycled instead, and
// their strings copied: see recycler.)
var alloc = memory.NewGoAllocator()

// noClose hides the Close method of a file handed to the Parquet library, whose Close would close
// it: the file belongs to Open, which closes it (or unmaps it) after the library is done.
type noClose struct{ ipc.ReadAtSeeker }

// Reading Arrow IPC files in place.
//
// The Arrow library reads an IPC record batch by copying its body out of the file into a fresh
// buffer, then copying each of its buffers out of that body into fresh buffers again. A mapped
// file needs neither copy: mappedBatches parses the file's footer and record batch messages (small
// flatbuffers) itself, and a batch's arrays are built over slices of the mapping. It handles the
// layouts the Writer produces — little-endian, uncompressed, no dictionaries, columns of int32,
// int64, float64, bool, utf8 and lists of int32/int64 — and reports !ok for anything else, which
// is then left to the library. Knowing every batch's length before decoding also gives the row
// count up front, so Read allocates its result once.

// ipcBatch is one record batch of a mapped IPC file.
type ipcBatch struct {
	rows  int64
	nodes []ipcNode
	bufs  [][]byte // slices of the mapping
}

type ipcNode struct{ length, nulls int64 }

// errIPC is panicked (and recovered by mappedBatches) on a malformed flatbuffer.
var errIPC = errors.New("malformed IPC metadata")

// flatbuf reads a flatbuffer, panicking with errIPC on any out-of-bounds access.
type flatbuf []byte

func (f flatbuf) check(p, n int) {
	if p < 0 || n > len(f) || p > len(f)-n {
		panic(errIPC)
	}
}

func (f flatbuf) u8(p int) int  { f.check(p, 1); return int(f[p]) }
func (f flatbuf) u16(p int) int { f.check(p, 2); return int(binary.LittleEndian.Uint16(f[p:])) }
func (f flatbuf) u32(p int) int { f.check(p, 4); return int(binary.LittleEndian.Uint32(f[p:])) }
func (f flatbuf) i64(p int) int64 {
	f.check(p, 8)
	return int64(binary.LittleEndian.Uint64(f[p:]))
}

// field returns the position of field id of the table at t, or -1 when the field is absent.
func (f flatbuf) field(t, id int) int {
	vt := t - int(int32(uint32(f.u32(t))))
	size := f.u16(vt)
	if 4+2*id+2 > size {
		return -1
	}
	off := f.u16(vt + 4 + 2*id)
	if off == 0 {
		return -1
	}
	return t + off
}

// ref follows the offset stored at p (to a table or vector).
func (f flatbuf) ref(p int) int { return p + f.u32(p) }

// vector returns the position of the first element and the length of vector field id of table
// t (0, 0 when absent), checking that its n elements of size bytes lie inside the buffer.
func (f flatbuf) vector(t, id, size int) (int, int) {
	p := f.field(t, id)
	if p < 0 {
		return 0, 0
	}
	v := f.ref(p)
	n := f.u32(v)
	if n > (len(f)-v-4)/size {
		panic(errIPC)
	}
	return v + 4, n
}

// mappedBatches parses the record batches of the IPC file mapped as data, whose schema (read by
// the Arrow library) is schema. It returns !ok if data is nil, malformed, or holds anything but
// the plain layouts decoded in place (see above).
func mappedBatches(data []byte, schema *arrow.Schema) (batches []ipcBatch, rows int64, ok bool) {
	if data == nil || !littleEndian || !plainLayout(schema.Fields()) {
		return nil, 0, false
	}
	defer func() {
		if p := recover(); p != nil {
			batches, rows, ok = nil, 0, false
		}
	}()
	const tail = 10 // int32 footer size, "ARROW1"
	if len(data) < 8+tail || string(data[len(data)-6:]) != "ARROW1" {
		return nil, 0, false
	}
	size := int(binary.LittleEndian.Uint32(data[len(data)-tail:]))
	if size > len(data)-8-tail {
		return nil, 0, false
	}
	footer := flatbuf(data[len(data)-tail-size : len(data)-tail])
	root := footer.ref(0)
	// Footer: version, schema, dictionaries, recordBatches. Schema: endianness (0: little), ...
	p := footer.field(root, 1)
	if p < 0 {
		return nil, 0, false
	}
	if e := footer.field(footer.ref(p), 0); e >= 0 && footer.u16(e) != 0 {
		return nil, 0, false
	}
	if _, n := footer.vector(root, 2, 24); n != 0 {
		return nil, 0, false
	}
	blocks, n := footer.vector(root, 3, 24)
	batches = make([]ipcBatch, n)
	file := flatbuf(data)
	for k := range batches {
		// Block: offset int64, metaDataLength int32, padding, bodyLength int64.
		blk := blocks + 24*k
		off, metaLen, bodyLen := footer.i64(blk), int64(int32(uint32(footer.u32(blk+8)))), footer.i64(blk+16)
		if off < 0 || metaLen < 8 || bodyLen < 0 || off%8 != 0 || metaLen%8 != 0 ||
			off > int64(len(data)) || metaLen > int64(len(data))-off || bodyLen > int64(len(data))-off-metaLen {
			return nil, 0, false
		}
		if file.u32(int(off)) != 0xFFFFFFFF { // the continuation marker of current IPC versions
			return nil, 0, false
		}
		msg := flatbuf(data[off+8 : off+metaLen])
		body := data[off+metaLen : off+metaLen+bodyLen]
		// Message: version, header_type, header, bodyLength. RecordBatch header is type 3.
		m := msg.ref(0)
		ht := msg.field(m, 1)
		hp := msg.field(m, 2)
		if ht < 0 || msg.u8(ht) != 3 || hp < 0 {
			return nil, 0, false
		}
		rb := msg.ref(hp)
		// RecordBatch: length, nodes, buffers, compression, variadicBufferCounts.
		if msg.field(rb, 3) >= 0 {
			return nil, 0, false // compressed
		}
		b := &batches[k]
		if p := msg.field(rb, 0); p >= 0 {
			b.rows = msg.i64(p)
		}
		if b.rows < 0 {
			return nil, 0, false
		}
		nodes, nn := msg.vector(rb, 1, 16)
		b.nodes = make([]ipcNode, nn)
		for i := range b.nodes {
			b.nodes[i] = ipcNode{msg.i64(nodes + 16*i), msg.i64(nodes + 16*i + 8)}
		}
		bufs, nb := msg.vector(rb, 2, 16)
		b.bufs = make([][]byte, nb)
		for i := range b.bufs {
			bo, bl := msg.i64(bufs+16*i), msg.i64(bufs+16*i+8)
			if bo < 0 || bl < 0 || bo%8 != 0 || bo > bodyLen || bl > bodyLen-bo {
				return nil, 0, false
			}
			b.bufs[i] = body[bo : bo+bl : bo+bl]
		}
		rows += b.rows
	}
	return batches, rows, true
}

// firstBuffers returns the index of each field's first buffer (its validity bitmap) in a record
// batch of plain layout.
func firstBuffers(fields []arrow.Field) []int {
	first := make([]int, len(fields))
	n := 0
	for i, f := range fields {
		first[i] = n
		for t := f.Type; ; t = t.(*arrow.ListType).Elem() {
			n += 2
			if t.ID() == arrow.STRING {
				n++
			}
			if t.ID() != arrow.LIST {
				break
			}
		}
	}
	return first
}

// plainLayout reports whether every field has a type mappedBatches decodes in place.
func plainLayout(fields []arrow.Field) bool {
	for _, f := range fields {
		switch f.Type.ID() {
		case arrow.INT64, arrow.INT32, arrow.FLOAT64, arrow.BOOL, arrow.STRING:
		case arrow.LIST:
			if !plainLayout([]arrow.Field{f.Type.(*arrow.ListType).ElemField()}) || f.Type.(*arrow.ListType).Elem().ID() == arrow.LIST {
				return false
			}
		default:
			return false
		}
	}
	return true
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// record builds the batch's columns over its buffers, without copying them.
func (b *ipcBatch) record(schema *arrow.Schema) (arrow.Record, error) {
	nodes, bufs := b.nodes, b.bufs
	var load func(t arrow.DataType) (arrow.ArrayData, error)
	load = func(t arrow.DataType) (arrow.ArrayData, error) {
		nbuf := 2
		if t.ID() == arrow.STRING {
			nbuf = 3
		}
		if len(nodes) < 1 || len(bufs) < nbuf {
			return nil, fmt.Errorf("record batch: too few field nodes or buffers")
		}
		node := nodes[0]
		nodes = nodes[1:]
		if node.length < 0 || node.length > 1<<40 || node.nulls < 0 || node.nulls > node.length {
			return nil, fmt.Errorf("record batch: field node length %d, %d nulls", node.length, node.nulls)
		}
		bs := make([]*memory.Buffer, nbuf)
		for i := range bs {
			if len(bufs[i]) > 0 || i > 0 {
				bs[i] = memory.NewBufferBytes(bufs[i])
			}
		}
		if node.nulls > 0 && bs[0] == nil {
			return nil, fmt.Errorf("record batch: %d nulls without a validity bitmap", node.nulls)
		}
		if bs[0] != nil && int64(len(bufs[0])) < (node.length+7)/8 {
			return nil, fmt.Errorf("record batch: short validity bitmap")
		}
		bufs = bufs[nbuf:]
		var children []arrow.ArrayData
		n := node.length
		// The values (or offsets) must cover the field's length: array accessors slice them
		// unchecked by offsets, and Go's bounds checks are the last line of defence.
		var need int64
		switch t.ID() {
		case arrow.INT64, arrow.FLOAT64:
			need = 8 * n
		case arrow.INT32:
			need = 4 * n
		case arrow.BOOL:
			need = (n + 7) / 8
		case arrow.STRING, arrow.LIST:
			if n > 0 {
				need = 4 * (n + 1)
			}
		}
		if int64(bs[1].Len()) < need {
			return nil, fmt.Errorf("record batch: %s buffer of %d bytes for %d values", t, bs[1].Len(), n)
		}
		if t.ID() == arrow.LIST {
			c, err := load(t.(*arrow.ListType).Elem())
			if err != nil {
				return nil, err
			}
			defer c.Release()
			children = []arrow.ArrayData{c}
		}
		return array.NewData(t, int(n), bs, children, int(node.nulls), 0), nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, f := range schema.Fields() {
		d, err := load(f.Type)
		if err != nil {
			release()
			return nil, err
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	rec := array.NewRecord(schema, cols, b.rows)
	release()
	return rec, nil
}

// Reading Parquet column chunks directly.
//
// pqarrow reads a Parquet file into Arrow arrays through builders: it reserves and zeroes a full
// batch of values per column, appends strings one by one, and rebuilds each batch's dictionaries.
// The canonical layout needs none of that: every column is one leaf of a known physical type, so
// parquetDirect decodes each row group's column chunks straight into buffers of their final
// size with the typed column chunk readers, and wraps them as Arrow arrays for the decoder. One
// record batch is one row group (the Writer's batch size), so memory stays bounded by the file's
// row groups; files with larger row groups, or columns not of the expected physical types and
// levels, are read through pqarrow instead.

// parquetColumn is a canonical column of a Parquet file: its Arrow field and its leaf.
type parquetColumn struct {
	field arrow.Field
	leaf  int
}

type parquetDirect struct {
	pf     *file.Reader
	mem    noZero
	schema *arrow.Schema
	cols   []parquetColumn
	rg     int

	// whole is set when the whole file is read (by Read): string bytes then go to one arena
	// per column for the file, else to one allocation per column and row group.
	whole  bool
	arenas map[string]*strArena // by column name

	// Scratch space, reused from row group to row group (only the reading goroutine uses it).
	bas        []parquet.ByteArray
	defs, reps []int16
	bools      []bool
}

// noZero allocates from a recycler without zeroing: for buffers that are overwritten whole.
type noZero struct{ *recycler }

func (a noZero) Allocate(size int) []byte { return a.get(size) }

// newParquetDirect reports whether pf can be read directly, and returns a reader for it.
func newParquetDirect(pf *file.Reader, mem *recycler) (*parquetDirect, bool) {
	for i := 0; i < pf.NumRowGroups(); i++ {
		if n := pf.MetaData().RowGroup(i).NumRows(); n < 0 || n > readBatchRows {
			return nil, false
		}
	}
	sc := pf.MetaData().Schema
	leaves := make(map[string]int)
	for i := 0; i < sc.NumColumns(); i++ {
		if path := sc.Column(i).ColumnPath(); len(path) > 0 {
			if _, dup := leaves[path[0]]; dup {
				leaves[path[0]] = -1 // a nested column with several leaves: not ours
			} else {
				leaves[path[0]] = i
			}
		}
	}
	d := &parquetDirect{pf: pf, mem: noZero{mem}, arenas: make(map[string]*strArena)}
	var fields []arrow.Field
	for _, f := range Schema.Fields() {
		leaf, ok := leaves[f.Name]
		if !ok {
			continue // a version 1 file's missing columns (the decoder checks the rest)
		}
		if leaf < 0 {
			return nil, false
		}
		col := sc.Column(leaf)
		var want parquet.Type
		def, rep := int16(0), int16(0)
		switch f.Type.ID() {
		case arrow.INT64:
			want = parquet.Types.Int64
		case arrow.INT32:
			want = parquet.Types.Int32
		case arrow.FLOAT64:
			want = parquet.Types.Double
		case arrow.BOOL:
			want = parquet.Types.Boolean
		case arrow.STRING:
			want = parquet.Types.ByteArray
			if f.Nullable {
				def = 1
			}
		case arrow.LIST:
			want, def, rep = parquet.Types.Int64, 2, 1
			if f.Type.(*arrow.ListType).Elem().ID() == arrow.INT32 {
				want = parquet.Types.Int32
			}
		default:
			return nil, false
		}
		if f.Type.ID() == arrow.LIST && col.MaxDefinitionLevel() == 3 {
			def = 3 // pqarrow writes the elements as optional, though none is null
		}
		if col.PhysicalType() != want || col.MaxDefinitionLevel() != def || col.MaxRepetitionLevel() != rep {
			return nil, false
		}
		fields = append(fields, f)
		d.cols = append(d.cols, parquetColumn{field: f, leaf: leaf})
	}
	d.schema = arrow.NewSchema(fields, nil)
	return d, true
}

// next reads the next row group as a record batch.
func (d *parquetDirect) next() (arrow.Record, error) {
	if d.rg >= d.pf.NumRowGroups() {
		return nil, io.EOF
	}
	rg := d.pf.RowGroup(d.rg)
	d.rg++
	n := rg.NumRows()
	cols := make([]arrow.Array, len(d.cols))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range d.cols {
		cr, err := rg.Column(c.leaf)
		if err != nil {
			return nil, err
		}
		md, err := rg.MetaData().ColumnChunk(c.leaf)
		if err != nil {
			return nil, err
		}
		data, err := d.column(cr, c.field, int(n), md.NumValues())
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.field.Name, err)
		}
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	return array.NewRecord(d.schema, cols, n), nil
}

// buffer returns a buffer of size bytes with undefined contents, released to the recycler.
func (d *parquetDirect) buffer(size int) *memory.Buffer {
	b := memory.NewResizableBuffer(d.mem)
	b.Resize(size)
	return b
}

// readFull calls read (a typed ReadBatch from offset off) until want levels are read.
func readFull(want int, read func(off int) (int64, int, error)) (vals int, err error) {
	for got := 0; got < want; {
		n, v, err := read(got)
		if err != nil {
			return vals, err
		}
		if n <= 0 {
			return vals, fmt.Errorf("%d of %d values in the column chunk", got, want)
		}
		got += int(n)
		vals += v
	}
	return vals, nil
}

func growTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// column reads the n rows (levels of them: a list's elements have levels of their own) of
// a column chunk.
func (d *parquetDirect) column(cr file.ColumnChunkReader, f arrow.Field, n int, levels int64) (arrow.ArrayData, error) {
	var err error
	bad := func() (arrow.ArrayData, error) {
		return nil, fmt.Errorf("column chunk reader %T for %s", cr, f.Type)
	}
	switch f.Type.ID() {
	case arrow.INT64:
		r, ok := cr.(*file.Int64ColumnChunkReader)
		if !ok {
			return bad()
		}
		b := d.buffer(8 * n)
		vals := arrow.Int64Traits.CastFromBytes(b.Bytes())
		_, err = readFull(n, func(off int) (int64, int, error) { return r.ReadBatch(int64(n-off), vals[off:], nil, nil) })
		return d.primitive(f.Type, n, b, err)
	case arrow.INT32:
		r, ok := cr.(*file.Int32ColumnChunkReader)
		if !ok {
			return bad()
		}
		b := d.buffer(4 * n)
		vals := arrow.Int32Traits.CastFromBytes(b.Bytes())
		_, err = readFull(n, func(off int) (int64, int, error) { return r.ReadBatch(int64(n-off), vals[off:], nil, nil) })
		return d.primitive(f.Type, n, b, err)
	case arrow.FLOAT64:
		r, ok := cr.(*file.Float64ColumnChunkReader)
		if !ok {
			return bad()
		}
		b := d.buffer(8 * n)
		vals := arrow.Float64Traits.CastFromBytes(b.Bytes())
		_, err = readFull(n, func(off int) (int64, int, error) { return r.ReadBatch(int64(n-off), vals[off:], nil, nil) })
		return d.primitive(f.Type, n, b, err)
	case arrow.BOOL:
		r, ok := cr.(*file.BooleanColumnChunkReader)
		if !ok {
			return bad()
		}
		d.bools = growTo(d.bools, n)
		if _, err := readFull(n, func(off int) (int64, int, error) { return r.ReadBatch(int64(n-off), d.bools[off:], nil, nil) }); err != nil {
			return nil, err
		}
		b := d.buffer((n + 7) / 8)
		packBits(b.Bytes(), d.bools)
		return d.primitive(f.Type, n, b, nil)
	case arrow.STRING:
		r, ok := cr.(*file.ByteArrayColumnChunkReader)
		if !ok {
			return bad()
		}
		return d.strings(r, f, n)
	case arrow.LIST:
		return d.list(cr, f, n, levels)
	}
	return bad()
}

func (d *parquetDirect) primitive(t arrow.DataType, n int, b *memory.Buffer, err error) (arrow.ArrayData, error) {
	defer b.Release()
	if err != nil {
		return nil, err
	}
	return array.NewData(t, n, []*memory.Buffer{nil, b}, nil, 0, 0), nil
}

// packBits sets bitmap's bits (LSB first, as Arrow's) from bs.
func packBits(bitmap []byte, bs []bool) {
	clear(bitmap)
	for i, v := range bs {
		if v {
			bitmap[i>>3] |= 1 << (i & 7)
		}
	}
}

// strings reads a utf8 column chunk (required, or optional with nulls). Its bytes are copied
// once, from the pages into an arena (see strArena) that is never recycled, so the decoder's
// strings view it rather than copy it again. For Read, the arena is sized for the whole file from
// the first row group's bytes per row (plus an eighth), so that a column takes one allocation.
func (d *parquetDirect) strings(r *file.ByteArrayColumnChunkReader, f arrow.Field, n int) (arrow.ArrayData, error) {
	d.bas = growTo(d.bas, n)
	var defs []int16
	if f.Nullable {
		d.defs = growTo(d.defs, n)
		defs = d.defs
	}
	nv, err := readFull(n, func(off int) (int64, int, error) {
		var dl []int16
		if defs != nil {
			dl = defs[off:]
		}
		// Values are packed (no slots for nulls): they go after the values read so far.
		return r.ReadBatch(int64(n-off), d.bas[nvOffset(defs, off):], dl, nil)
	})
	if err != nil {
		return nil, err
	}
	total := 0
	for _, v := range d.bas[:nv] {
		total += len(v)
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%d bytes of strings in a row group", total)
	}
	ar := d.arenas[f.Name]
	if ar == nil {
		ar = new(strArena)
		d.arenas[f.Name] = ar
		if d.whole && n > 0 {
			// This row group's bytes go to a block of their own; the rest of the file's, to
			// one block allocated by Read (see allocateArenas).
			est := float64(total) / float64(n) * float64(d.pf.NumRows()-int64(n))
			ar.want = int(min(est+est/8+4096, 1<<40))
		}
	}
	ar.reserve(total)
	start := len(ar.buf)
	buf := ar.buf[start : start+total] // bytes appended to the arena, never written again
	offB := d.buffer(4 * (n + 1))
	defer offB.Release()
	offs := arrow.Int32Traits.CastFromBytes(offB.Bytes())
	offs[0] = 0
	pos, j := 0, 0
	var valid *memory.Buffer
	nulls := 0
	if defs != nil {
		valid = d.buffer((n + 7) / 8)
		defer valid.Release()
		clear(valid.Bytes())
	}
	for i := 0; i < n; i++ {
		if defs == nil || defs[i] == 1 {
			if j >= nv {
				return nil, fmt.Errorf("%d values for %d rows", nv, n)
			}
			pos += copy(buf[pos:], d.bas[j])
			j++
			if valid != nil {
				valid.Bytes()[i>>3] |= 1 << (i & 7)
			}
		} else {
			nulls++
		}
		offs[i+1] = int32(pos)
	}
	ar.buf = ar.buf[:start+total]
	dataB := memory.NewBufferBytes(buf)
	return array.NewData(f.Type, n, []*memory.Buffer{valid, offB, dataB}, nil, nulls, 0), nil
}

// nvOffset returns the number of values (non-null levels) among defs[:off] (off when there are
// no definition levels).
func nvOffset(defs []int16, off int) int {
	if defs == nil {
		return off
	}
	k := 0
	for _, l := range defs[:off] {
		if l > 0 {
			k++
		}
	}
	return k
}

// list reads a nullable list<int32|int64> column chunk of n rows in levels levels: definition
// level 0 is a null list, 1 an empty one, max (2, or 3 when elements are optional: 2 is then a
// null element, which the canonical layout does not have) an element; repetition level 0 starts
// a row.
func (d *parquetDirect) list(cr file.ColumnChunkReader, f arrow.Field, n int, levels int64) (arrow.ArrayData, error) {
	max := cr.Descriptor().MaxDefinitionLevel()
	if levels < int64(n) || levels > 1<<31 {
		return nil, fmt.Errorf("%d levels for %d rows", levels, n)
	}
	L := int(levels)
	d.defs, d.reps = growTo(d.defs, L), growTo(d.reps, L)
	elem := f.Type.(*arrow.ListType).Elem()
	var (
		vals *memory.Buffer
		nv   int
		err  error
	)
	switch r := cr.(type) {
	case *file.Int64ColumnChunkReader:
		if elem.ID() != arrow.INT64 {
			return nil, fmt.Errorf("column chunk reader %T for %s", cr, f.Type)
		}
		vals = d.buffer(8 * L)
		v := arrow.Int64Traits.CastFromBytes(vals.Bytes())
		nv, err = readFull(L, func(off int) (int64, int, error) {
			return r.ReadBatch(int64(L-off), v[nvOffset2(d.defs, off, max):], d.defs[off:], d.reps[off:])
		})
	case *file.Int32ColumnChunkReader:
		if elem.ID() != arrow.INT32 {
			return nil, fmt.Errorf("column chunk reader %T for %s", cr, f.Type)
		}
		vals = d.buffer(4 * L)
		v := arrow.Int32Traits.CastFromBytes(vals.Bytes())
		nv, err = readFull(L, func(off int) (int64, int, error) {
			return r.ReadBatch(int64(L-off), v[nvOffset2(d.defs, off, max):], d.defs[off:], d.reps[off:])
		})
	default:
		return nil, fmt.Errorf("column chunk reader %T for %s", cr, f.Type)
	}
	defer vals.Release()
	if err != nil {
		return nil, err
	}
	offB, valid := d.buffer(4*(n+1)), d.buffer((n+7)/8)
	defer offB.Release()
	defer valid.Release()
	offs, bits := arrow.Int32Traits.CastFromBytes(offB.Bytes()), valid.Bytes()
	clear(bits)
	row, count, nulls := -1, 0, 0
	for l := 0; l < L; l++ {
		def := d.defs[l]
		if d.reps[l] == 0 {
			row++
			if row >= n {
				return nil, fmt.Errorf("more than %d rows in %d levels", n, L)
			}
			offs[row] = int32(count)
			if def == 0 {
				nulls++
			} else {
				bits[row>>3] |= 1 << (row & 7)
			}
		} else if row < 0 || def != max {
			return nil, fmt.Errorf("level %d: repetition %d, definition %d", l, d.reps[l], def)
		}
		if def == max {
			count++
		} else if def > 1 {
			return nil, fmt.Errorf("level %d: a null list element", l)
		}
	}
	if row != n-1 || count != nv {
		return nil, fmt.Errorf("%d rows, %d values in %d levels, want %d rows, %d values", row+1, count, L, n, nv)
	}
	offs[n] = int32(count)
	child := array.NewData(elem, count, []*memory.Buffer{nil, vals}, nil, 0, 0)
	defer child.Release()
	return array.NewData(f.Type, n, []*memory.Buffer{valid, offB}, []arrow.ArrayData{child}, nulls, 0), nil
}

// nvOffset2 is nvOffset for list levels: the elements (definition level max) among defs[:off].
func nvOffset2(defs []int16, off int, max int16) int {
	k := 0
	for _, l := range defs[:off] {
		if l == max {
			k++
		}
	}
	return k
}
