package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceList(t *testing.T) {
	out, errOut, code := runCLI(t, "reproduce", "--list")
	if code != 0 || !strings.Contains(out, "demo/policies") || !strings.Contains(out, "12 / 36") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestReproduceSpecFile reproduces a spec given as a path on disk (the sweep package's test
// spec, on its small workload) and checks the report files.
func TestReproduceSpecFile(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "reproduce", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "reproduce tiny (label quick): 8 cells") || !strings.Contains(out, "claims held: 0 of 0") {
		t.Errorf("output:\n%s", out)
	}
	for _, f := range []string{"report.md", "index.html", "tiny/cells.parquet", "tiny/figures/jct.svg", "tiny/figures/jct.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestReproduceUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name specs to reproduce"},
		{[]string{"reproduce", "--all", "demo"}, "--all takes no IDs"},
		{[]string{"reproduce", "nosuch"}, "no such spec"},
	} {
		_, errOut, code := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
