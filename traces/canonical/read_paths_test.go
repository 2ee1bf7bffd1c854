package canonical

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/traces"
)

// writeWith writes w through an encoder as one record, with the Arrow or Parquet library's own
// writer configured by the caller, and seals the checksum.
func writeWith(t *testing.T, path string, w *traces.Workload, write func(f *os.File, schema *arrow.Schema, rec arrow.Record) error) {
	t.Helper()
	md, err := MetaOf(w).metadata()
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema(Schema.Fields(), &md)
	enc := newEncoder(schema)
	for i := range w.Jobs {
		if err := enc.add(&w.Jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	rec := enc.record()
	defer rec.Release()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := write(f, schema, rec); err != nil {
		t.Fatal(err)
	}
	seal(t, f)
}

// writeOpts writes w with a Writer configured by opts.
func writeOpts(t *testing.T, path string, w *traces.Workload, opts ...Option) {
	t.Helper()
	wr, err := NewWriter(path, MetaOf(w), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		if err := wr.Append(&w.Jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
}

// readStreaming reads a file job by job with a Reader.
func readStreaming(t *testing.T, path string) *traces.Workload {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := r.Meta()
	w := &traces.Workload{Name: m.Name, Source: m.Source, Dims: m.Dims, Cluster: m.Cluster}
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Jobs = append(w.Jobs, *j)
	}
	return w
}

// TestReadPaths reads files that take each of the Reader's paths — Arrow IPC mapped or
// compressed (which the library decompresses into Go memory), Parquet in batches within or across
// row groups — with Read and job by job, and checks they hold the workload written.
func TestReadPaths(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(3, 4)), 300)
	dir := t.TempDir()
	cases := map[string]func(t *testing.T, path string){
		"writer.arrow": func(t *testing.T, p string) {
			writeOpts(t, p, w, WithBatchRows(37))
		},
		"writer.parquet": func(t *testing.T, p string) {
			writeOpts(t, p, w, WithBatchRows(37))
		},
		"lz4.arrow": func(t *testing.T, p string) {
			writeWith(t, p, w, func(f *os.File, schema *arrow.Schema, rec arrow.RecordBatch) error {
				iw, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithLZ4())
				if err != nil {
					return err
				}
				if err := iw.Write(rec); err != nil {
					return err
				}
				return iw.Close()
			})
		},
		"biggroup.parquet": func(t *testing.T, p string) {
			writeWith(t, p, w, func(f *os.File, schema *arrow.Schema, rec arrow.RecordBatch) error {
				props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1 << 20))
				// The writer's Close would close f, which seal still needs.
				pw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
				if err != nil {
					return err
				}
				if err := pw.Write(rec); err != nil {
					return err
				}
				return pw.Close()
			})
		},
	}
	for name, write := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			write(t, path)
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			checkSame(t, got, w)
			checkSame(t, readStreaming(t, path), w)
		})
	}
}

// TestParquetBatchesAcrossRowGroups reads a Parquet file whose batches end inside row groups and
// span two of them (with different string dictionaries).
func TestParquetBatchesAcrossRowGroups(t *testing.T) {
	group := readBatchRows/2 + 1000 // a batch ends inside the second row group
	w := googleLike(readBatchRows + 1000)
	path := filepath.Join(t.TempDir(), "big.parquet")
	writeOpts(t, path, w, WithBatchRows(group))
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, w)
}

// TestFindMarkers checks that the checksum occurrences found in the metadata regions of files the
// Writer wrote are those a scan of the whole file finds.
func TestFindMarkers(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(5, 6)), 100)
	for _, ext := range []string{".arrow", ".parquet"} {
		path := filepath.Join(t.TempDir(), "w"+ext)
		writeOpts(t, path, w, WithBatchRows(10))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		crc, want := scanChecksumBytes(data)
		got := findMarkers(data)
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: found %v in the metadata, %v in the file", ext, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: occurrence %d: %v, want %v", ext, i, got[i], want[i])
			}
		}
		if c := crcWith(data, got); c != crc {
			t.Errorf("%s: crc %08x, want %08x", ext, c, crc)
		}
	}
}

// TestMappedCorrupt reads damaged copies of an Arrow IPC file through the library's memory-mapped
// reader, without the checksum that would reject them: every damage to the record batches must
// end in an error naming the file once, or in a read, never a crash. The two copies of the schema
// (the first message and the footer) are left alone: the IPC library sizes a field's children
// from the flatbuffer without a bound, so a damaged schema can exhaust memory, which no recover
// catches — hence the checksum.
func TestMappedCorrupt(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(9, 10)), 40)
	path := filepath.Join(t.TempDir(), "w.arrow")
	writeOpts(t, path, w, WithBatchRows(16))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Layout: "ARROW1\0\0", the schema message (0xFFFFFFFF, int32 length, flatbuffer), batches,
	// the footer flatbuffer, its int32 length and "ARROW1".
	schemaEnd := 16 + int(binary.LittleEndian.Uint32(good[12:16]))
	footerStart := len(good) - 10 - int(binary.LittleEndian.Uint32(good[len(good)-10:]))
	if schemaEnd >= footerStart {
		t.Fatalf("schema ends at %d, footer starts at %d", schemaEnd, footerStart)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	opened, errs := 0, 0
	for k := 0; k < 300; k++ {
		data := bytes.Clone(good)
		for range 1 + rng.IntN(4) {
			data[schemaEnd+rng.IntN(footerStart-schemaEnd)] = byte(rng.Uint32())
		}
		func() {
			r, err := openArrow(path, data, bytes.NewReader(data), traces.Limits{})
			if err != nil {
				return
			}
			defer r.Close()
			opened++
			for {
				if _, err := r.Next(); err != nil {
					if err != io.EOF {
						errs++
						if n := strings.Count(err.Error(), path); n != 1 {
							t.Errorf("damage %d: error names the file %d times: %v", k, n, err)
						}
					}
					return
				}
			}
		}()
	}
	if opened == 0 || errs == 0 {
		t.Errorf("%d damaged files opened, %d gave errors while reading: the test does not reach the batches", opened, errs)
	}
	t.Logf("of 300 damaged files, %d opened and %d of those gave errors while reading", opened, errs)
}

// TestParquetCorrupt reads damaged copies of a Parquet file through pqarrow, without the checksum that would reject them: every damage to the column data (the footer is
// left alone: the Parquet library is known to crash on corrupt metadata, hence the checksum) must
// end in an error naming the file once, or in a read, never a crash.
func TestParquetCorrupt(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(11, 12)), 60)
	path := filepath.Join(t.TempDir(), "w.parquet")
	writeOpts(t, path, w, WithBatchRows(16))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	footer := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	dataEnd := len(good) - 8 - footer
	if dataEnd <= 4 {
		t.Fatalf("footer of %d bytes in a %d-byte file", footer, len(good))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	errs := 0
	for k := 0; k < 120; k++ {
		data := bytes.Clone(good)
		for range 1 + rng.IntN(4) {
			data[4+rng.IntN(dataEnd-4)] = byte(rng.Uint32())
		}
		func() {
			r, err := openParquet(path, bytes.NewReader(data), traces.Limits{})
			if err != nil {
				errs++
				return
			}
			defer r.Close()
			for {
				if _, err := r.Next(); err != nil {
					if err != io.EOF {
						errs++
						if n := strings.Count(err.Error(), path); n != 1 {
							t.Errorf("damage %d: error names the file %d times: %v", k, n, err)
						}
					}
					return
				}
			}
		}()
	}
	if errs == 0 {
		t.Error("no damage was detected: the test does not reach the readers")
	}
	t.Logf("%d of 120 damaged files gave errors", errs)
}
