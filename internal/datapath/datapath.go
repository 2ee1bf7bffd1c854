// Package datapath finds the data a command or an experiment spec names, from any working
// directory: the shared data sets (the public traces under ../shared/data), found through one
// rule — the --data flag, else $SCHEDLAB_SHARED_DATA, else ../shared/data beside the repository
// root — and the small fixtures of the repository (scenario files that tests write, a slice of
// the Google trace), which are compiled into schedlab and read from there.
//
// Paths name data in three ways (Resolve):
//
//	data:tpc-dags/workload/queries_bb.txt      a file of the shared data folder
//	../shared/data/tpc-dags/workload/queries_bb.txt   the same, as written from the repository root
//	policies/bpf/testdata/fig9_jobs.txt        a repository file: the working directory's copy if
//	                                           there is one, else the embedded one, else the
//	                                           repository's
//
// Anything else is an ordinary path relative to the working directory.
//
// Files schedlab needs that are installed rather than compiled in (the solver's highs.wasm) are
// found by one lookup, Need: an environment variable, the working directory's repository, the
// repository the binary was built from, the user cache — so a binary built from a checkout finds
// what `make setup` installed there from any directory. Portable turns this machine's paths in
// a description back into data:… and repository paths.
package datapath

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Env names the environment variable holding the shared data folder (the one with
// tpc-dags/, google2011/, … in it).
const Env = "SCHEDLAB_SHARED_DATA"

// Prefix starts a path inside the shared data folder: "data:tpc-dags/workload/queries_bb.txt".
const Prefix = "data:"

// RepoPrefix is how paths into the shared data folder are written relative to the repository
// root (the folder's default place); Resolve treats it as Prefix.
const RepoPrefix = "../shared/data/"

// Module is the module path whose go.mod marks the repository root.
const Module = "github.com/schedlab/schedlab"

// ErrNotFound is wrapped by the error for a data set or file that is not where the rules look.
var ErrNotFound = errors.New("data not found")

var flagDir struct {
	sync.Mutex
	dir string
}

// SetDir sets the shared data folder given on the command line (--data); "" restores the
// default rule.
func SetDir(dir string) {
	flagDir.Lock()
	flagDir.dir = dir
	flagDir.Unlock()
}

// Dir returns the shared data folder and where that came from: the --data flag (SetDir), else
// $SCHEDLAB_SHARED_DATA, else ../shared/data beside the repository root (RepoRoot). dir is ""
// when none of them applies (no flag, no variable, not inside the repository and not built from
// one).
func Dir() (dir, from string) {
	flagDir.Lock()
	d := flagDir.dir
	flagDir.Unlock()
	if d != "" {
		return d, "--data"
	}
	if d := os.Getenv(Env); d != "" {
		return d, "$" + Env
	}
	if root, ok := RepoRoot(); ok {
		return filepath.Join(filepath.Dir(root), "shared", "data"), "beside the repository " + root
	}
	return "", ""
}

// Given reports whether the shared data folder was given (--data or $SCHEDLAB_SHARED_DATA)
// rather than found beside the repository.
func Given() bool {
	_, from := Dir()
	return from == "--data" || from == "$"+Env
}

// Rel returns the path inside the shared data folder that p names with Prefix or RepoPrefix.
func Rel(p string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, Prefix); ok {
		return strings.TrimPrefix(rest, "/"), true
	}
	if rest, ok := strings.CutPrefix(filepath.ToSlash(p), RepoPrefix); ok {
		return rest, true
	}
	return "", false
}

// Resolve returns the file or directory that p names (see the package comment): a path into the
// shared data folder (Prefix, RepoPrefix) is joined to Dir, and an error wrapping ErrNotFound
// says in one line where it looked and how to point schedlab at the data; a relative path that
// does not exist from the working directory is looked up among the embedded fixtures
// (RegisterFixtures, written out to the user's cache directory once) and then in the
// repository. Other paths come back as given, for their reader to report.
func Resolve(p string) (string, error) {
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	if rel, ok := Rel(p); ok {
		dir, from := Dir()
		if dir == "" {
			return "", fmt.Errorf("%w: %s: no shared data folder (not inside the schedlab repository); set %s=DIR or pass --data DIR, where DIR holds %s", ErrNotFound, p, Env, firstElem(rel))
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(full); err != nil {
			return "", fmt.Errorf("%w: %s: no %s in the shared data folder %s (from %s); set %s=DIR or pass --data DIR, where DIR holds %s", ErrNotFound, p, rel, dir, from, Env, firstElem(rel))
		}
		return full, nil
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if full, ok, err := RepoFile(p); ok || err != nil {
		return full, err
	}
	return p, nil
}

// RepoFile returns where the repository path p ("policies/bpf/testdata/fig9_jobs.txt") is on
// this machine without looking in the working directory: an embedded fixture written out to the
// cache, else the file in the repository (RepoRoot). ok is false when it is neither.
func RepoFile(p string) (full string, ok bool, err error) {
	if p == "" || filepath.IsAbs(p) {
		return "", false, nil
	}
	if full, ok, err := Fixture(p); ok || err != nil {
		return full, ok, err
	}
	if root, ok := RepoRoot(); ok {
		if full := filepath.Join(root, p); exists(full) {
			return full, true, nil
		}
	}
	return "", false, nil
}

func firstElem(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	return first + "/"
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// RepoRoot returns the schedlab repository's root: the working directory's repository (WorkRepo),
// else the repository this binary was built from (BuildRepo).
func RepoRoot() (string, bool) {
	if root, ok := WorkRepo(); ok {
		return root, true
	}
	return BuildRepo()
}

// WorkRepo returns the working directory or its nearest parent whose go.mod declares Module.
func WorkRepo() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; {
		if isModule(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// BuildRepo returns the repository this binary was built from when it is still there: go build,
// go install, go run and go test record the source path of this file (-trimpath builds do not).
func BuildRepo() (string, bool) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/datapath/datapath.go
		if isModule(filepath.Join(root, "go.mod")) {
			return root, true
		}
	}
	return "", false
}

func isModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == Module
		}
	}
	return false
}

// Display shows p as the report should: a fixture written out to the cache as its repository
// path, a path inside the repository or next to it (the shared data) relative to the repository
// root, so reports do not depend on where things are checked out; anything else as given.
func Display(p string) string {
	if rp, ok := fixtureOf(p); ok {
		return rp
	}
	root, ok := RepoRoot()
	abs, err := filepath.Abs(p)
	if !ok || err != nil {
		return p
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, filepath.Join("..", "..")) {
		return p
	}
	return filepath.ToSlash(rel)
}

// cleanRel cleans a slash-separated repository path; ok is false for one that leaves the
// repository.
func cleanRel(p string) (string, bool) {
	c := path.Clean(filepath.ToSlash(p))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
		return "", false
	}
	return c, true
}

// Portable rewrites the absolute paths in text (a path, or a description naming several) that
// depend on this machine's layout: one into the shared data folder becomes data:…, a fixture
// written out to the cache its repository path, and one inside the repository relative to the
// repository root. Other text is left as it is.
func Portable(text string) string {
	if dir, _ := Dir(); dir != "" {
		if d, err := filepath.Abs(dir); err == nil {
			text = strings.ReplaceAll(text, d+string(filepath.Separator), Prefix)
		}
	}
	fixtureDir := regexp.MustCompile(regexp.QuoteMeta(CacheDir()+string(filepath.Separator)) + `[0-9a-f]{16}` + regexp.QuoteMeta(string(filepath.Separator)))
	text = fixtureDir.ReplaceAllString(text, "")
	for _, repo := range []func() (string, bool){WorkRepo, BuildRepo} {
		if root, ok := repo(); ok {
			text = strings.ReplaceAll(text, root+string(filepath.Separator), "")
		}
	}
	return text
}
