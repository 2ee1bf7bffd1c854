package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies/solver"
)

func TestSolverCheckCommand(t *testing.T) {
	if _, err := solver.LocateWasm(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	cmd := newSolverCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"check"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("solver check: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"HiGHS 1.15.1", "status=optimal objective=36", "status=optimal objective=38", "ok\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("solver check output lacks %q:\n%s", want, got)
		}
	}
}

func TestSolverInstallIdempotent(t *testing.T) {
	src, err := solver.LocateWasm()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/highs.wasm", b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := newSolverCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"install", "--dest", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "already installed") {
		t.Errorf("install into a directory holding the pinned wasm should do nothing; got:\n%s", out.String())
	}
}
