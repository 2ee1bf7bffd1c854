package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/timeline"
)

// TestRecordTimelineExplain walks the README's see-inside-a-run steps: run --record tasks,trace,
// then timeline for a window and explain for a job; and refuses each misuse with one line and
// exit 2.
func TestRecordTimelineExplain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	_, errOut, code := runCLI(t, "run", "-q", "--policy", "drf", "--set", "engine.horizon_s=300", "--record", "tasks,trace", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, f := range []string{timeline.TasksFile, timeline.TraceFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, "timeline", dir, "--from", "100", "--to", "200")
	if code != 0 || !strings.Contains(out, "timeline.json") {
		t.Fatalf("timeline: exit %d: %s %s", code, out, errOut)
	}
	for _, f := range []string{"timeline.json", timeline.TraceFile} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := timeline.Validate(fh); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		fh.Close()
	}
	if _, errOut, code := runCLI(t, "explain", dir, "--job", "999999"); code != 2 || !strings.Contains(errOut, "no such job 999999") {
		t.Errorf("explain of an unknown job: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, timeline.TasksFile), []byte("PAR1 not really"), 0o644)
	if _, errOut, code := runCLI(t, "timeline", bad); code != 1 || !strings.Contains(errOut, filepath.Join(bad, timeline.TasksFile)) {
		t.Errorf("timeline of a broken tasks.parquet: exit %d, %q; want 1 naming the file", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(bad, "timeline.json")); err == nil {
		t.Error("a failed timeline left its output behind")
	}
	out, errOut, code = runCLI(t, "explain", dir, "--job", "3", "--limit", "3")
	if code != 0 || !strings.Contains(out, "job 3 (index 3") || !strings.Contains(out, "started because: lowest dominant share") {
		t.Fatalf("explain: exit %d:\n%s%s", code, out, errOut)
	}
	// A rerun into the same directory replaces it: timeline.json is a file a run may hold.
	if _, errOut, code := runCLI(t, "run", "-q", "--set", "engine.horizon_s=60", "--out", dir); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown recording", []string{"run", "--record", "tasks,everything"}, "--record everything: unknown recording (valid: tasks, trace)"},
		{"no tasks.parquet", []string{"timeline", dir}, "record the run with schedlab run --record tasks"},
		{"explain without --job", []string{"explain", dir}, "explain needs --job ID"},
		{"bad window", []string{"timeline", dir, "--from", "5", "--to", "2"}, "want 0 ≤ from ≤ to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line containing %q", code, errOut, tc.want)
			}
		})
	}
}
