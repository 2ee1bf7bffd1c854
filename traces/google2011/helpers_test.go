package google2011

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// sharedData returns the shared trace folder (env SCHEDLAB_SHARED_DATA, else ../shared/data
// next to the repository root) or skips the test when it is absent.
func sharedData(t testing.TB, sub string) string {
	t.Helper()
	dir := os.Getenv("SCHEDLAB_SHARED_DATA")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(filepath.Dir(d), "shared", "data")
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	p := filepath.Join(dir, sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared trace data %s not available (set SCHEDLAB_SHARED_DATA): %v", p, err)
	}
	return p
}

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

// goldenCompare compares got with testdata/golden/name, rewriting it under -update.
func goldenCompare(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		writeFile(t, filepath.Dir(p), filepath.Base(p), got)
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the change)\n got:\n%s", name, clipLines(got, 20))
	}
}

func clipLines(b []byte, n int) []byte {
	lines := bytes.SplitAfterN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return bytes.Join(lines, nil)
}
