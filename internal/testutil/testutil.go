// Package testutil holds helpers shared by tests: locating the shared trace data and
// checking golden files. It is test-only by convention: import it from _test.go files only.
package testutil

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/datapath"
)

// EnvSharedData names the environment variable that points at the shared trace folder.
const EnvSharedData = datapath.Env

// SharedDataDir returns the shared trace folder as schedlab finds it (datapath.Dir):
// $SCHEDLAB_SHARED_DATA when set, else ../shared/data beside the repository root. It returns ""
// when neither is known.
func SharedDataDir() (string, error) {
	dir, _ := datapath.Dir()
	return dir, nil
}

// SharedData returns the path of sub (joined) inside the shared trace folder (see
// SharedDataDir), skipping the test with a message naming where it looked when the folder
// or the entry is absent.
func SharedData(t testing.TB, sub ...string) string {
	t.Helper()
	dir, err := SharedDataDir()
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(sub...)
	if dir == "" {
		t.Skipf("shared trace data %s not found: %s is unset and no go.mod above the working directory (set %s or place the data at ../shared/data next to the repository root)",
			rel, EnvSharedData, EnvSharedData)
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared trace data %s not found at %s (set %s or place the data at ../shared/data next to the repository root): %v",
			rel, p, EnvSharedData, err)
	}
	return p
}

// Golden compares got with the file at path. With update it (re)writes the file, creating
// its directory, instead. On a mismatch it writes got to path+".got" and reports the first
// differing line.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotPath := path + ".got"
	note := "see " + gotPath
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		note = fmt.Sprintf("writing %s: %v", gotPath, err)
	}
	t.Errorf("output differs from %s (%s; run go test -update after checking the change)\n%s", path, note, firstDiff(got, want))
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g := bytes.SplitAfter(got, []byte("\n"))
	w := bytes.SplitAfter(want, []byte("\n"))
	for i := 0; ; i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if i >= len(g) && i >= len(w) {
			return "(no line differs)"
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("first difference at line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
}
