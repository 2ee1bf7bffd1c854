package testutil

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadParquet reads a whole Parquet file as an Arrow table and returns it with the file's
// created_by string; it fails the test on any error. The caller releases the table.
func ReadParquet(t testing.TB, path string) (tbl arrow.Table, createdBy string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tbl, err = fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tbl, pf.MetaData().GetCreatedBy()
}
