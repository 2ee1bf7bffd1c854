// Package solvertest holds the test helper every solver-backed package shares: skip when the
// HiGHS WebAssembly build is not installed, fail under CI where `make test` installs it.
package solvertest

import (
	"os"
	"testing"

	"github.com/schedlab/schedlab/policies/solver"
)

// Need skips the test when highs.wasm is not installed (with the install hint), or fails it
// under CI (CI=true), where `make test` installs it first.
func Need(tb testing.TB) {
	tb.Helper()
	if _, err := solver.LocateWasm(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%v", err)
		}
		tb.Skipf("%v", err)
	}
}
