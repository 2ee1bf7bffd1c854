package external_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testbin"
)

// schedlabBinary is the schedlab binary the environment's runs use: make test's bin/schedlab
// ($SCHEDLAB_TEST_BIN), or one built once per test binary.
func schedlabBinary(t *testing.T) string {
	t.Helper()
	return testbin.Schedlab(t)
}

// TestGymEnvironmentStepsFourRuns runs the Python unittest that steps four SchedlabEnv
// environments, each its own schedlab process, side by side.
func TestGymEnvironmentStepsFourRuns(t *testing.T) {
	py := python(t)
	bin := schedlabBinary(t)
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_env")
	cmd.Dir = script(t, "")
	cmd.Env = append(os.Environ(), "SCHEDLAB_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python unittest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestCLIFailedRunLeavesNothing: through the CLI, a scheduler that crashes ends the run with
// exit status 1 and one stderr line, and leaves no output directory and no work directory.
func TestCLIFailedRunLeavesNothing(t *testing.T) {
	bin := schedlabBinary(t)
	parent := t.TempDir()
	cmd := exec.Command(bin, "run", "--policy", "external", "--set", "policy.params.command="+childArgv("crash"), "--out", filepath.Join(parent, "out"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("err = %v, want exit status 1; stderr: %s", err, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, `"panic: index out of range [3] with length 3"`) {
		t.Fatalf("stderr is not one line quoting the scheduler: %q", msg)
	}
	left, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("the failed run left %v", left)
	}
}
