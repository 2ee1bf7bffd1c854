package datapath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedFind: a needed file is found in the same order from any working directory — the
// environment variable, the working directory's repository, the repository the binary was built
// from, the user cache — and a file that is nowhere fails with the places it looked.
func TestNeedFind(t *testing.T) {
	build, ok := BuildRepo()
	if !ok {
		t.Fatal("the test binary records no build repository")
	}
	// Another checkout of schedlab, the working directory's repository.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module "+Module+"\n"), 0o644)
	os.MkdirAll(filepath.Join(other, "sub", "dir"), 0o755)
	os.WriteFile(filepath.Join(other, "only-here.txt"), []byte("x"), 0o644)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	os.MkdirAll(filepath.Join(cache, "schedlab", "c"), 0o755)
	os.WriteFile(filepath.Join(cache, "schedlab", "c", "cached.bin"), []byte("c"), 0o644)
	envFile := filepath.Join(t.TempDir(), "given.bin")
	os.WriteFile(envFile, []byte("g"), 0o644)
	outside := t.TempDir()

	const env = "SCHEDLAB_TEST_NEED"
	for _, tc := range []struct {
		name, wd, env string
		need          Need
		want, from    string // want "error: …" is a substring of the error
	}{
		{name: "the variable wins", wd: outside, env: envFile, need: Need{Env: env, Repo: "internal/datapath/need.go"}, want: envFile, from: "$" + env},
		{name: "a missing file named by the variable is an error", wd: outside, env: envFile + ".no", need: Need{Env: env, Repo: "internal/datapath/need.go"}, want: "error: " + env + "=" + envFile + ".no"},
		{name: "the working directory's repository", wd: filepath.Join(other, "sub", "dir"), need: Need{Repo: "only-here.txt"}, want: filepath.Join(other, "only-here.txt"), from: "working directory's repository"},
		{name: "the build repository from inside another checkout", wd: filepath.Join(other, "sub"), need: Need{Repo: "internal/datapath/need.go"}, want: filepath.Join(build, "internal", "datapath", "need.go"), from: "repository schedlab was built from"},
		{name: "the build repository from outside any", wd: outside, need: Need{Repo: "internal/datapath/need.go", Cache: "c/cached.bin"}, want: filepath.Join(build, "internal", "datapath", "need.go"), from: "repository schedlab was built from"},
		{name: "the user cache last", wd: outside, need: Need{Repo: "no/such.bin", Cache: "c/cached.bin"}, want: filepath.Join(cache, "schedlab", "c", "cached.bin"), from: "user cache"},
		{name: "nowhere names every place", wd: filepath.Join(other, "sub"), need: Need{Repo: "no/such.bin", Cache: "c/none.bin"},
			want: "error: data not found (looked in " + filepath.Join(other, "no", "such.bin") + ", " + filepath.Join(build, "no", "such.bin") + ", " + filepath.Join(cache, "schedlab", "c", "none.bin") + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.wd)
			t.Setenv(env, tc.env)
			got, err := tc.need.Find()
			if msg, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), msg) {
					t.Fatalf("Find() = %+v, %v; want an error with %q", got, err, msg)
				}
				return
			}
			if err != nil || got.Path != tc.want || got.From != tc.from {
				t.Fatalf("Find() = %+v, %v; want %s from %s", got, err, tc.want, tc.from)
			}
		})
	}
}

// TestNeedInstallPlace: an installer puts a needed file in the repository the binary was built
// from (found from every directory), never in the working directory's other checkout.
func TestNeedInstallPlace(t *testing.T) {
	build, _ := BuildRepo()
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module "+Module+"\n"), 0o644)
	t.Chdir(other)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	n := Need{Repo: "third_party/x/x.bin", Cache: "x/x.bin"}
	p, err := n.InstallPlace()
	if want := filepath.Join(build, "third_party", "x", "x.bin"); err != nil || p.Path != want {
		t.Fatalf("InstallPlace() = %+v, %v; want %s", p, err, want)
	}
	if !n.FoundAnywhere(p.Path) || n.FoundAnywhere(filepath.Join(other, "third_party", "x", "x.bin")) {
		t.Error("FoundAnywhere: want the build repository's place, not the working directory's")
	}
	cached, _ := UserCache()
	if !n.FoundAnywhere(filepath.Join(cached, "x", "x.bin")) {
		t.Error("FoundAnywhere: want the user cache's place")
	}
}

// TestPortable: this machine's absolute paths in a description become data:…, repository paths
// and fixtures' repository paths; other text stays.
func TestPortable(t *testing.T) {
	data := t.TempDir()
	t.Setenv(Env, data)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	build, _ := BuildRepo()
	fixture, err := Resolve("policies/fake/testdata/scenario.txt")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(data, "tpc-dags", "q.txt"):                           "data:tpc-dags/q.txt",
		"job_events: 2 files (" + data + "/g/a.gz .. " + data + "/g/b.gz)": "job_events: 2 files (data:g/a.gz .. data:g/b.gz)",
		filepath.Join(build, "traces", "builtin", "tpch_fb.txt"):           "traces/builtin/tpch_fb.txt",
		fixture:            "policies/fake/testdata/scenario.txt",
		"/elsewhere/x.txt": "/elsewhere/x.txt",
		"tpch-fb":          "tpch-fb",
	} {
		if got := Portable(in); got != want {
			t.Errorf("Portable(%q) = %q, want %q", in, got, want)
		}
	}
}
