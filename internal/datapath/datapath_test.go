package datapath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func init() {
	RegisterFixtures("policies/fake", fstest.MapFS{"testdata/scenario.txt": {Data: []byte("embedded")}, "testdata/dir/part-0.csv": {Data: []byte("p")}})
}

// TestResolve: every way a spec or a command names data, resolved from a directory outside the
// repository, with the data folder given by the flag or the environment.
func TestResolve(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "tpc-dags", "workload"), 0o755)
	os.WriteFile(filepath.Join(data, "tpc-dags", "workload", "queries_bb.txt"), []byte("q"), 0o644)
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "tpc-dags", "workload"), 0o755)
	os.WriteFile(filepath.Join(other, "tpc-dags", "workload", "queries_bb.txt"), []byte("q"), 0o644)
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "mine.txt"), []byte("m"), 0o644)
	t.Chdir(cwd)
	t.Setenv(Env, data)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	bb := filepath.Join("tpc-dags", "workload", "queries_bb.txt")
	for _, tc := range []struct {
		name, in, flag string
		want           string // a path, or "error: …" (a substring of the error)
		content        string // the resolved file's content, when want is ""
	}{
		{name: "data: names a file of the folder in the environment", in: "data:tpc-dags/workload/queries_bb.txt", want: filepath.Join(data, bb)},
		{name: "../shared/data/ is the same as data:", in: "../shared/data/tpc-dags/workload/queries_bb.txt", want: filepath.Join(data, bb)},
		{name: "--data wins over the environment", in: "data:tpc-dags/workload/queries_bb.txt", flag: other, want: filepath.Join(other, bb)},
		{name: "a missing data set says where it looked and how to fix it", in: "data:tpc-dags/workload/nosuch.txt", want: "error: no tpc-dags/workload/nosuch.txt in the shared data folder " + data + " (from $SCHEDLAB_SHARED_DATA); set SCHEDLAB_SHARED_DATA=DIR or pass --data DIR, where DIR holds tpc-dags/"},
		{name: "a file of the working directory is itself", in: "mine.txt", want: "mine.txt"},
		{name: "an absolute path is itself", in: "/no/such/file", want: "/no/such/file"},
		{name: "an embedded fixture file is written out", in: "policies/fake/testdata/scenario.txt", content: "embedded"},
		{name: "an embedded fixture directory is written out whole", in: "policies/fake/testdata/dir", content: "dir"},
		{name: "a repository file outside the fixtures comes from the repository", in: "internal/datapath/datapath.go", content: "// Package datapath"},
		{name: "an unknown relative path is left for its reader to report", in: "nosuch/file.txt", want: "nosuch/file.txt"},
		{name: "no path is no path", in: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetDir(tc.flag)
			defer SetDir("")
			got, err := Resolve(tc.in)
			if msg, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("Resolve(%q) = %q, %v; want one line with %q", tc.in, got, err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.content == "dir":
				if b, err := os.ReadFile(filepath.Join(got, "part-0.csv")); err != nil || string(b) != "p" {
					t.Errorf("Resolve(%q) = %s without its files: %v", tc.in, got, err)
				}
			case tc.content != "":
				b, err := os.ReadFile(got)
				if err != nil || !strings.HasPrefix(string(b), tc.content) {
					t.Errorf("Resolve(%q) = %s holding %.20q, %v; want %q", tc.in, got, b, err, tc.content)
				}
			case got != tc.want:
				t.Errorf("Resolve(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	// A written-out fixture shows as its repository path in reports.
	p, _ := Resolve("policies/fake/testdata/scenario.txt")
	if d := Display(p); d != "policies/fake/testdata/scenario.txt" {
		t.Errorf("Display(%s) = %s", p, d)
	}
}

// TestMissingDataSetIsOneLine: with no flag and no variable (the default folder beside the
// repository applies), a data set nobody has fails with one line that says how to fix it.
func TestMissingDataSetIsOneLine(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(Env, "")
	_, err := Resolve("data:no-such-set/file.txt")
	if !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "set "+Env+"=DIR or pass --data DIR, where DIR holds no-such-set/") {
		t.Errorf("error %v", err)
	}
}

// TestFixturesWrittenOnceAndWhole: the written-out copy is named by its content, so a second
// resolution (another process) reuses it, and no work directory is left in the cache.
func TestFixturesWrittenOnceAndWhole(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	fsys := fstest.MapFS{"testdata/a.txt": {Data: []byte("a")}}
	d, err := writeOut(fsys, "pkg", "testdata/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	d2, err := writeOut(fsys, "pkg", "testdata/a.txt")
	if err != nil || d2 != d {
		t.Fatalf("second write-out: %s, %v; want %s", d2, err, d)
	}
	entries, _ := os.ReadDir(CacheDir())
	if len(entries) != 1 || strings.HasPrefix(entries[0].Name(), ".") {
		t.Errorf("cache holds %v, want one content directory", entries)
	}
}
