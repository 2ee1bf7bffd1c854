package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `trace track` on the committed slice of the Google trace: imported with --placements, it
// tracks the trace exactly and draws the figure; without placements, and with a bad bin, it
// says what is wrong with the right exit status.
func TestTraceTrack(t *testing.T) {
	dir := t.TempDir()
	slice := filepath.Join("..", "..", "experiments", "tracecheck", "testdata", "slice")
	w := filepath.Join(dir, "w.arrow")
	plain := filepath.Join(dir, "plain.arrow")
	for _, args := range [][]string{
		{"trace", "import", "google2011", "--placements", "--src", filepath.Join(slice, "task_events"), "--src", filepath.Join(slice, "job_events"), "--out", w},
		{"trace", "import", "google2011", "--src", filepath.Join(slice, "task_events"), "--src", filepath.Join(slice, "job_events"), "--out", plain},
	} {
		if _, stderr, code := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if out, _, code := runCLI(t, "trace", "stats", w); code != 0 || !strings.Contains(out, "placements       142 tasks") {
		t.Errorf("trace stats: exit %d:\n%s", code, out)
	}
	if out, _, _ := runCLI(t, "trace", "stats", plain); strings.Contains(out, "placements") {
		t.Errorf("trace stats of a workload without placements:\n%s", out)
	}
	fig := filepath.Join(dir, "figures", "track.svg") // a directory --figure creates
	out, stderr, code := runCLI(t, "trace", "track", w, "--bin-s", "60", "--figure", fig)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"142 on time, 0 late", "tracking error, tasks:  cpu mean 0.00% max 0.00%", "wrote " + fig} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(fig); err != nil || st.Size() == 0 {
		t.Errorf("figure: %v", err)
	}
	if _, stderr, code := runCLI(t, "trace", "track", plain); code != 1 || !strings.Contains(stderr, "--placements") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("without placements: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "trace", "track", w, "--bin-s", "0"); code != 2 || !strings.Contains(stderr, "--bin-s") {
		t.Errorf("bin 0: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, "trace", "track", w, "--set", "engine.initial_overcommit=clip"); code != 2 || !strings.Contains(stderr, "engine.initial_overcommit") {
		t.Errorf("a bad engine key: exit %d, stderr %q", code, stderr)
	}
}
