package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testbin"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = exit(&errb, run(&out, &errb, args))
	return out.String(), errb.String(), code
}

// runBuilt runs the command line as a separate process of make test's prebuilt schedlab
// ($SCHEDLAB_TEST_BIN, internal/testbin) when there is one, else in this process like runCLI. It
// is for end-to-end tests of whole reproductions and sweeps: built without the race detector,
// such a run takes seconds instead of a minute, and the same code runs under -race in its own
// packages' tests (experiments/reproduce, experiments/sweep, ...).
func runBuilt(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin, ok := testbin.Prebuilt()
	if !ok {
		return runCLI(t, args...)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v", bin, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/schedlab -update)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("output differs from %s (see %s.got):\n%s", path, path, got)
	}
}

func TestPoliciesListsEveryPolicy(t *testing.T) {
	out, errOut, code := runCLI(t, "policies")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "policies.txt", out)
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown policy lists the valid ones", []string{"run", "--policy", "lottery"}, `unknown policy "lottery" (valid: `},
		{"an unknown config key is named", []string{"run", "--set", "engine.cylce_s=1"}, `unknown config key "engine.cylce_s"`},
		{"a bad value names the key", []string{"run", "--set", "engine.horizon_s=soon"}, "engine.horizon_s: want a number ≥ 0"},
		{"an unknown flag is a usage error", []string{"run", "--polcy", "drf"}, "unknown flag: --polcy"},
		{"an unknown workload names the embedded ones", []string{"run", "--workload", "nosuch"}, "tpch-fb"},
		{"a missing config file is named", []string{"run", "--config", "nosuch.yaml"}, "nosuch.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line containing %q", code, errOut, tc.want)
			}
		})
	}
}

func TestConfigFileRejectsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("policy:\n  name: drf\n  nmae: x\n"), 0o644)
	_, errOut, code := runCLI(t, "run", "--config", path)
	if code != 2 || !strings.Contains(errOut, `unknown config key "policy.nmae" in `+path) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestRunWritesIdenticalOutputs is the foundation's acceptance check: `schedlab run --policy drf
// --out DIR` writes the three files, two runs are identical, and config.yaml reruns to the same
// result.
func TestRunWritesIdenticalOutputs(t *testing.T) {
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c")}
	for _, d := range dirs[:2] {
		out, errOut, code := runCLI(t, "run", "--policy", "drf", "--set", "engine.horizon_s=1500", "--out", d)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "completed") || !strings.Contains(out, "drf") {
			t.Fatalf("summary missing:\n%s", out)
		}
	}
	if _, errOut, code := runCLI(t, "run", "--config", filepath.Join(dirs[0], "config.yaml"), "--out", dirs[2], "-q"); code != 0 {
		t.Fatalf("rerun from config.yaml: exit %d: %s", code, errOut)
	}
	for _, f := range []string{"jobs.parquet", "config.yaml"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs[1:] {
			b, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between %s and %s", f, dirs[0], d)
			}
		}
	}
	s, err := os.ReadFile(filepath.Join(dirs[0], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"jobs"`, `"completed"`, `"avg_jct_s"`, `"p95_jct_s"`, `"makespan_s"`, `"slo_miss_rate"`, `"utilization"`, `"events"`, `"events_per_s"`, `"workload_hash"`, `"schedlab_version"`} {
		if !bytes.Contains(s, []byte(key)) {
			t.Errorf("summary.json lacks %s", key)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "schedlab ") {
		t.Fatalf("exit %d, %q", code, out)
	}
}

// TestREADMEConfigTable keeps README.md's configuration table equal to `schedlab config keys`
// (go test ./cmd/schedlab -update rewrites it).
func TestREADMEConfigTable(t *testing.T) {
	const begin, end = "<!-- keys:begin", "<!-- keys:end -->"
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %s … %s markers", begin, end)
	}
	i += strings.Index(s[i:], "\n") + 1
	want := KeysTable()
	if s[i:j] == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("README.md's configuration table is stale; run go test ./cmd/schedlab -update")
}
