package pqfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeFile writes ids (in row groups of groupRows) and their names to a Parquet file.
func writeFile(t *testing.T, ids []int64, groupRows int64) string {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", int(id)))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(sc, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(groupRows)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestColumnIsOneArray: a column comes back whole, in row order, however many row groups (chunks)
// the file has, and typed even when the file has no rows.
func TestColumnIsOneArray(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []int64
		group int64
	}{
		{"no rows", nil, 4},
		{"one row group", []int64{3, 1, 2}, 4},
		{"three row groups", []int64{5, 4, 3, 2, 1, 0, 7, 8, 9}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl, err := ReadTable(writeFile(t, tc.ids, tc.group))
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			a, err := Column(tbl, "id")
			if err != nil {
				t.Fatal(err)
			}
			defer a.Release()
			ids, ok := a.(*array.Int64)
			if !ok {
				t.Fatalf("column id is %T, want *array.Int64", a)
			}
			if ids.Len() != len(tc.ids) {
				t.Fatalf("%d values, want %d", ids.Len(), len(tc.ids))
			}
			for i, want := range tc.ids {
				if ids.Value(i) != want {
					t.Errorf("row %d: %d, want %d", i, ids.Value(i), want)
				}
			}
			if _, err := Column(tbl, "idd"); !errors.Is(err, ErrNoColumn) {
				t.Errorf("missing column: %v, want ErrNoColumn", err)
			}
		})
	}
}

// TestOpenNamesTheFile: a missing file and one that is not Parquet are errors naming the path;
// a column read by index has every row.
func TestOpenNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.parquet")
	if _, err := Open(missing, pqarrow.ArrowReadProperties{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v, want an error naming %s", err, missing)
	}
	junk := filepath.Join(dir, "junk.parquet")
	if err := os.WriteFile(junk, []byte("not a parquet file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTable(junk); err == nil || !strings.HasPrefix(err.Error(), junk+": ") {
		t.Errorf("junk file: %v, want an error starting with %s", err, junk)
	}
	p, err := Open(writeFile(t, []int64{1, 2, 3, 4, 5}, 2), pqarrow.ArrowReadProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sc, err := p.Schema()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := p.ColumnChunks(sc.FieldIndices("name")[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Release()
	if ch.Len() != 5 {
		t.Errorf("column name: %d rows, want 5", ch.Len())
	}
}
