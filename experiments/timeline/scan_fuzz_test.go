package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzScan: any bytes as tasks.parquet give rows or an error naming the file, never a panic.
func FuzzScan(f *testing.F) {
	valid, err := os.ReadFile(writeTasks(f, testMeta, sampleRows()))
	if err == nil {
		f.Add(valid)
		f.Add(valid[:len(valid)/2])
		f.Add(append([]byte("PAR1"), valid[len(valid)/2:]...))
	}
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), TasksFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		err := Scan(path, nil, func(*Row) error { n++; return nil })
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
