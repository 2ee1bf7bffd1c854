// Package sweeptest holds helpers for tests of sweep outputs.
package sweeptest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/sweep"
)

// SlowDown multiplies the completion times (metrics ending in _jct_s) in a sweep output's
// cells.parquet by f, as a policy change that slowed every job would, the configurations staying
// the same: a regression compare must catch.
func SlowDown(t testing.TB, dir string, f float64) {
	t.Helper()
	path := filepath.Join(dir, sweep.CellsFile)
	tb, err := sweep.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tb.Rows {
		for m, v := range r.Metrics {
			if strings.HasSuffix(m, "_jct_s") {
				r.Metrics[m] = v * f
			}
		}
	}
	if err := sweep.WriteFileAtomic(path, tb.Write); err != nil {
		t.Fatal(err)
	}
}
