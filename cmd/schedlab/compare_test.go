package main

import (
	"github.com/schedlab/schedlab/experiments/sweep/sweeptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareGatesARegression is the CI gate of a policy change: a sweep compared with an
// unchanged rerun passes (exit 0); compared with a rerun whose jobs all finished later (an
// injected regression, the configuration unchanged) it fails with exit 1 under
// --fail-on-regression.
func TestCompareGatesARegression(t *testing.T) {
	dir := t.TempDir()
	sweepTo := func(name string, sets ...string) string {
		out := filepath.Join(dir, name)
		args := []string{"sweep", "demo/policies", "--label", "quick", "--set", "policy.name=srpt", "--out", out}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if o, e, code := runBuilt(t, args...); code != 0 {
			t.Fatalf("sweep %s: exit %d\n%s%s", name, code, o, e)
		}
		return out
	}
	base, rerun, slow := sweepTo("base"), sweepTo("rerun"), sweepTo("slow")
	sweeptest.SlowDown(t, slow, 1.5)

	out, errOut, code := runBuilt(t, "compare", base, rerun, "--fail-on-regression")
	if code != 0 || !strings.Contains(out, "no regressions.") || strings.Contains(out, "REGRESSION") {
		t.Errorf("unchanged rerun: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runBuilt(t, "compare", base, slow, "--fail-on-regression", "--metric", "avg_jct_s", "--metric", "p95_jct_s")
	if code != 1 || !strings.Contains(out, "REGRESSION") || !strings.Contains(errOut, "regression") {
		t.Errorf("injected regression: exit %d\n%s%s", code, out, errOut)
	}
	// Without --fail-on-regression the comparison only reports.
	out, _, code = runBuilt(t, "compare", base, slow, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| group") || !strings.Contains(out, "**REGRESSION**") {
		t.Errorf("markdown report: exit %d\n%s", code, out)
	}
}

// TestCompareRefusesMismatchedSweeps: a quick sweep against a paper one is refused (exit 2, one
// line naming the difference); --allow-mismatch compares the configurations both have and lists
// the others.
func TestCompareRefusesMismatchedSweeps(t *testing.T) {
	dir := t.TempDir()
	quick, paper := filepath.Join(dir, "quick"), filepath.Join(dir, "paper")
	for _, s := range [][2]string{{"quick", quick}, {"paper", paper}} {
		if o, e, code := runCLI(t, "sweep", tinySpec, "--label", s[0], "--set", tinyWorkload, "--out", s[1]); code != 0 {
			t.Fatalf("sweep %s: exit %d\n%s%s", s[0], code, o, e)
		}
	}
	out, errOut, code := runCLI(t, "compare", quick, paper, "--fail-on-regression")
	if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, `labels differ: "quick" in base, "paper" in new`) {
		t.Errorf("quick vs paper: exit %d, stderr %q\n%s", code, errOut, out)
	}
	out, errOut, code = runCLI(t, "compare", quick, paper, "--fail-on-regression", "--allow-mismatch")
	if code != 0 || !strings.Contains(out, "only in new: policy.name=drf workload.machines=3 engine.cycle_s=0") ||
		!strings.Contains(out, "policy.name=fifo workload.machines=6 engine.cycle_s=2.5") || !strings.Contains(out, "no regressions.") {
		t.Errorf("--allow-mismatch: exit %d\n%s%s", code, out, errOut)
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
