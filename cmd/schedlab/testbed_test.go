package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestbedCalibrate runs the calibration command on the committed ccra slice.
func TestTestbedCalibrate(t *testing.T) {
	// README's command as written, from a directory outside the repository.
	t.Chdir(t.TempDir())
	out, errOut, code := runCLI(t, "testbed", "calibrate", "experiments/calibrate/testdata/ccra")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"engine.am_startup_s: 7.72", "engine.am_teardown_s: 6.19", "engine.task_startup_s: 4.27", "held 1.212×", "0.745 (over 4419 s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestTestbedCalibrateRefusesValidation: a b1i3 directory is a usage error, read or not.
func TestTestbedCalibrateRefusesValidation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b1i3_DRF_BB")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "testbed", "calibrate", dir)
	if code != 2 || !strings.Contains(errOut, "validation set") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
