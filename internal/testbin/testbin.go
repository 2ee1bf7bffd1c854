// Package testbin gives tests one schedlab binary to run as a separate process.
//
// Every go build with its own flags compiles the whole dependency graph again (arrow, gonum,
// wazero: minutes on a 2-core machine with a cold cache). So every test that needs a schedlab
// process, or builds a variant of one (go build -overlay), uses the configuration of `make
// build` — CGO_ENABLED=0, no -trimpath, no tags — and `make test` builds bin/schedlab first and
// names it in $SCHEDLAB_TEST_BIN, so those tests pay no compile at all. A test run without it
// (go test ./cmd/schedlab) builds the binary once per test process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// EnvBin names a schedlab binary built from this tree with BuildEnv's configuration; `make
// test` sets it to the bin/schedlab it has just built.
const EnvBin = "SCHEDLAB_TEST_BIN"

var (
	once     sync.Once
	built    string
	buildErr error
	tmpDir   string
)

// Prebuilt returns $SCHEDLAB_TEST_BIN when it names an executable file.
func Prebuilt() (string, bool) {
	p := os.Getenv(EnvBin)
	if p == "" {
		return "", false
	}
	st, err := os.Stat(p)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	return abs, true
}

// Schedlab returns a static schedlab binary built from this tree: $SCHEDLAB_TEST_BIN, or one
// built once per test process. It skips under -short and where no go command is found.
func Schedlab(t testing.TB) string {
	t.Helper()
	if p, ok := Prebuilt(); ok {
		return p
	}
	if testing.Short() {
		t.Skip("builds the schedlab binary (set " + EnvBin + " to a built one)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build schedlab with")
	}
	once.Do(func() {
		if tmpDir, buildErr = os.MkdirTemp("", "schedlab-testbin-"); buildErr != nil {
			return
		}
		built = filepath.Join(tmpDir, "schedlab")
		cmd := exec.Command(gobin, "build", "-o", built, "./cmd/schedlab")
		cmd.Dir = Root()
		cmd.Env = BuildEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/schedlab: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// BuildEnv is the environment of a go build that shares `make build`'s compiled packages:
// CGO_ENABLED=0 (also what makes the binary static, for the container image).
func BuildEnv() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// Root is the repository's root directory (where go.mod is), from this file's location.
func Root() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		return filepath.Join(filepath.Dir(file), "..", "..")
	}
	return "."
}

// Cleanup removes a binary Schedlab built; a TestMain calls it after m.Run.
func Cleanup() {
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
}
