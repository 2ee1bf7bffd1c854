package google2011

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// gz compresses b.
func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes data to dir/name (creating parents) and returns the path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// miniSource is the committed 300-job fixture.
func miniSource() Source {
	return Source{
		JobEvents:  []string{filepath.Join("testdata", "mini", "job_events")},
		TaskEvents: []string{filepath.Join("testdata", "mini", "task_events")},
	}
}

func clipLines(b []byte, n int) []byte {
	lines := bytes.SplitAfterN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return bytes.Join(lines, nil)
}

// goldenCompare compares got with testdata/golden/name (see testutil.Golden).
func goldenCompare(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got, *update)
}
