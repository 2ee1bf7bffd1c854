package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareGatesARegression is the CI gate of a policy change: a sweep compared with an
// unchanged rerun passes (exit 0); compared with a rerun whose scheduling period was coarsened
// (an injected regression) it fails with exit 1 under --fail-on-regression.
func TestCompareGatesARegression(t *testing.T) {
	dir := t.TempDir()
	sweepTo := func(name string, sets ...string) string {
		out := filepath.Join(dir, name)
		args := []string{"sweep", "demo/policies", "--label", "quick", "--set", "policy.name=srpt", "--out", out}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if o, e, code := runCLI(t, args...); code != 0 {
			t.Fatalf("sweep %s: exit %d\n%s%s", name, code, o, e)
		}
		return out
	}
	base, rerun, slow := sweepTo("base"), sweepTo("rerun"), sweepTo("slow", "engine.cycle_s=60")

	out, errOut, code := runCLI(t, "compare", base, rerun, "--fail-on-regression")
	if code != 0 || !strings.Contains(out, "no regressions.") || strings.Contains(out, "REGRESSION") {
		t.Errorf("unchanged rerun: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "compare", base, slow, "--fail-on-regression", "--metric", "avg_jct_s", "--metric", "p95_jct_s")
	if code != 1 || !strings.Contains(out, "REGRESSION") || !strings.Contains(errOut, "regression") {
		t.Errorf("injected regression: exit %d\n%s%s", code, out, errOut)
	}
	// Without --fail-on-regression the comparison only reports.
	out, _, code = runCLI(t, "compare", base, slow, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| group") || !strings.Contains(out, "**REGRESSION**") {
		t.Errorf("markdown report: exit %d\n%s", code, out)
	}
}

func TestCompareUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", dir}, "accepts 2 arg"},
		{[]string{"compare", dir, dir, "--format", "xml"}, "want text or markdown"},
		{[]string{"compare", dir, dir}, "no cells.parquet or summary.json"},
		{[]string{"compare", filepath.Join(dir, "missing"), dir}, "no such file"},
	} {
		_, errOut, code := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
