package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testbin"
)

// TestSweepCatchesAChangedPolicy is the regression a cache must not hide: schedlab is rebuilt
// with SRPT's ordering inverted (go build -overlay replaces one line of policies/baseline), and
// the changed binary's sweeps — into a copy of the base output, and with --cache pointing at the
// base's cells — recompute every cell, say why, and compare --fail-on-regression fails on both.
func TestSweepCatchesAChangedPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds schedlab")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a changed schedlab")
	}
	root, _ := filepath.Abs("../..")
	src := filepath.Join(root, "policies", "baseline", "core.go")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const line = "\t\tk.a = r.remain\n"
	if strings.Count(string(b), line) != 1 {
		t.Fatalf("%s: SRPT's key line %q not found once; update the test", src, line)
	}
	dir := t.TempDir()
	patched := filepath.Join(dir, "core.go")
	os.WriteFile(patched, []byte(strings.Replace(string(b), line, "\t\tk.a = -r.remain // inverted by TestSweepCatchesAChangedPolicy\n", 1)), 0o644)
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{src: patched}})
	os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644)
	changed := filepath.Join(dir, "bin", "schedlab")
	build := exec.Command(gobin, "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", changed, "./cmd/schedlab")
	build.Dir = root
	build.Env = testbin.BuildEnv() // make build's configuration: only the changed packages compile
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the changed schedlab: %v\n%s", err, out)
	}

	spec, _ := filepath.Abs(tinySpec)
	workload, _ := filepath.Abs("../../experiments/sweep/testdata/tiny-tpch.txt")
	sweepArgs := []string{"sweep", spec, "--label", "quick", "--set", "policy.name=srpt", "--set", "workload.name=" + workload, "--parallel", "2"}
	base := filepath.Join(dir, "base")
	if o, e, code := runCLI(t, append(sweepArgs, "--out", base)...); code != 0 { // this build
		t.Fatalf("base sweep: exit %d\n%s%s", code, o, e)
	}
	intoBase := filepath.Join(dir, "into-base")
	if err := exec.Command("cp", "-a", base, intoBase).Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, out, cache string }{
		{"into the base output", intoBase, ""},
		{"--cache at the base cells", filepath.Join(dir, "new"), filepath.Join(base, "cells")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(sweepArgs, "--out", tc.out)
			if tc.cache != "" {
				args = append(args, "--cache", tc.cache)
			}
			cmd := exec.Command(changed, args...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("changed build's sweep: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "4 cells (4 run: 4 built by a different binary, 0 cached)") || !strings.Contains(string(out), "recomputing 4 cells built by a different binary") {
				t.Errorf("the changed build's sweep does not say it recomputed another binary's cells:\n%s", out)
			}
			o, e, code := runCLI(t, "compare", base, tc.out, "--fail-on-regression", "--metric", "avg_jct_s")
			if code != 1 || !strings.Contains(o, "REGRESSION") {
				t.Errorf("compare --fail-on-regression: exit %d, want 1\n%s%s", code, o, e)
			}
		})
	}
}
