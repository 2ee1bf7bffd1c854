package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/testbin"
)

// TestMain lets the test binary stand in for schedlab: run through a link named "schedlab" (as
// the Slurm test's jobs run it), it is the command line itself, not the tests.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "schedlab" {
		os.Exit(exit(os.Stderr, run(os.Stdout, os.Stderr, os.Args[1:])))
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
