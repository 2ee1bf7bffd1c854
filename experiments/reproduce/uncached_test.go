package reproduce

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

// TestTablesOfUncachedCells: a nondeterministic cell (a jvusched run that hit the solver's time
// limit, say) is written under the sweep's uncached/ directory, not its cache; figures and
// claims that read its per-cell tables must find it there.
func TestTablesOfUncachedCells(t *testing.T) {
	dir := t.TempDir()
	key := "0123456789abcdef"
	cell := sweep.CellDir(filepath.Join(dir, sweep.UncachedDir), key)
	if err := os.MkdirAll(cell, 0o755); err != nil {
		t.Fatal(err)
	}
	// A published cell has its summary (sweep.FindCell takes it as the mark of a complete cell).
	if err := os.WriteFile(filepath.Join(cell, experiments.SummaryFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "wall_ms", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, 2.5}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	f, err := os.Create(filepath.Join(cell, "cycles.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := &data{cache: filepath.Join(dir, sweep.CacheDir), uncached: filepath.Join(dir, sweep.UncachedDir)}
	got, err := d.tableColumn(key, "cycles", "wall_ms")
	if err != nil || !slices.Equal(got, []float64{1.5, 2.5}) {
		t.Fatalf("tableColumn = %v, %v; want [1.5 2.5] from uncached/", got, err)
	}
}
