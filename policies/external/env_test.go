package external_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGymEnvironmentStepsFourRuns builds schedlab and runs the Python unittest that steps four
// SchedlabEnv environments, each its own schedlab process, side by side.
func TestGymEnvironmentStepsFourRuns(t *testing.T) {
	py := python(t)
	if testing.Short() {
		t.Skip("builds the schedlab binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build schedlab with")
	}
	bin := filepath.Join(t.TempDir(), "schedlab")
	build := exec.Command(goTool, "build", "-o", bin, "github.com/schedlab/schedlab/cmd/schedlab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_env")
	cmd.Dir = script(t, "")
	cmd.Env = append(os.Environ(), "SCHEDLAB_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python unittest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
