// Package pqfile opens a Parquet file for reading into Arrow — the file, its Parquet reader and
// its Arrow reader, each error naming the file — and gives a table's column as one array.
package pqfile

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ErrNoColumn is returned by Column for a name the table does not hold exactly once.
var ErrNoColumn = errors.New("no such column")

// File is an open Parquet file with its Arrow reader. Close releases both.
type File struct {
	// Path is the file's path, as given to Open; errors start with it.
	Path string
	// Parquet is the file's Parquet reader (row counts, key-value metadata).
	Parquet *file.Reader
	// Arrow reads the file's columns as Arrow arrays.
	Arrow *pqarrow.FileReader
	f     *os.File
}

// Open opens path with the Arrow read properties props.
func Open(path string, props pqarrow.ArrowReadProperties) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, props, memory.NewGoAllocator())
	if err != nil {
		pf.Close()
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{Path: path, Parquet: pf, Arrow: fr, f: f}, nil
}

// Close closes the Parquet reader and the file.
func (p *File) Close() error {
	err := p.Parquet.Close()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Schema is the file's Arrow schema, with the file's key-value metadata.
func (p *File) Schema() (*arrow.Schema, error) {
	sc, err := p.Arrow.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	return sc, nil
}

// Table reads the whole file. The caller releases the table.
func (p *File) Table() (arrow.Table, error) {
	tbl, err := p.Arrow.ReadTable(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	return tbl, nil
}

// ColumnChunks reads the whole column i. The caller releases it.
func (p *File) ColumnChunks(i int) (*arrow.Chunked, error) {
	cr, err := p.Arrow.GetColumn(context.Background(), i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	ch, err := cr.NextBatch(p.Parquet.NumRows())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path, err)
	}
	return ch, nil
}

// ReadTable opens path, reads it whole and closes it. The caller releases the table.
func ReadTable(path string) (arrow.Table, error) {
	p, err := Open(path, pqarrow.ArrowReadProperties{})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Table()
}

// Column returns the column called name of tbl as one array of tbl.NumRows() values (its chunks
// concatenated; an empty array of the column's type when it has none), or ErrNoColumn when tbl
// has no column, or several, of that name. The caller releases the array.
func Column(tbl arrow.Table, name string) (arrow.Array, error) {
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		return nil, fmt.Errorf("%w %q", ErrNoColumn, name)
	}
	col := tbl.Column(idx[0])
	if int64(col.Len()) != tbl.NumRows() {
		return nil, fmt.Errorf("column %q holds %d of %d rows", name, col.Len(), tbl.NumRows())
	}
	switch chunks := col.Data().Chunks(); len(chunks) {
	case 0:
		return array.MakeArrayOfNull(memory.NewGoAllocator(), col.DataType(), 0), nil
	case 1:
		chunks[0].Retain()
		return chunks[0], nil
	default:
		return array.Concatenate(chunks, memory.NewGoAllocator())
	}
}
