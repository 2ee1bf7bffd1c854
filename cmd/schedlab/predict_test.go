package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quickTrace is the committed Google 2011 fixture slice.
var quickTrace = filepath.Join("..", "..", "experiments", "jvu", "testdata", "google2011")

// TestPredictQuickFixture replays the fixture through JVuPredict with every option, checks the
// summary against its golden file, and checks that two runs write identical files.
func TestPredictQuickFixture(t *testing.T) {
	base := t.TempDir()
	var first string
	for i, d := range []string{filepath.Join(base, "a"), filepath.Join(base, "b")} {
		out, errOut, code := runCLI(t, "predict", "--trace", quickTrace, "--secondary", "--median-filter", "--out", d)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.HasPrefix(errOut, "replayed ") {
			t.Errorf("stderr %q lacks the timing line", errOut)
		}
		out = strings.ReplaceAll(out, d, "DIR")
		if i == 0 {
			first = out
			golden(t, "predict_quick.txt", out)
		} else if out != first {
			t.Errorf("second run printed\n%s\nfirst\n%s", out, first)
		}
	}
	for _, f := range []string{"predictions.parquet", "summary.json"} {
		a, err := os.ReadFile(filepath.Join(base, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(base, "b", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

func TestPredictOracleIsExact(t *testing.T) {
	out, errOut, code := runCLI(t, "predict", "--trace", quickTrace, "--predictor", "oracle")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "100.00% / 100.00%") || !strings.Contains(out, "0.00% (under 0.00%, over 0.00%)") {
		t.Fatalf("the oracle is not exact:\n%s", out)
	}
}

func TestPredictUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the trace is required", []string{"predict"}, "--trace is required"},
		{"an unknown predictor lists the valid ones", []string{"predict", "--trace", quickTrace, "--predictor", "psychic"}, "jvupredict, noisy, oracle"},
		{"an unknown feature lists the valid ones", []string{"predict", "--trace", quickTrace, "--features", "job,host"}, "job, ljob, user"},
		{"an unknown estimator lists the valid ones", []string{"predict", "--trace", quickTrace, "--estimators", "mode"}, "average, median, rolling, recent"},
		{"a negative noise sigma is rejected", []string{"predict", "--trace", quickTrace, "--predictor", "noisy", "--noise-sigma", "-1"}, "sigma"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q", code, errOut, tc.want)
			}
		})
	}
	if _, errOut, code := runCLI(t, "predict", "--trace", filepath.Join(t.TempDir(), "nosuch")); code != 1 || !strings.Contains(errOut, "nosuch") {
		t.Fatalf("a missing trace: exit %d, stderr %q; want exit 1 naming the path", code, errOut)
	}
}
