package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder captures failures and skips without stopping the calling test.
type recorder struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.failed = true
	r.msg = f
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "golden", "x.golden")
	Golden(t, path, []byte("a\nb\n"), true)
	Golden(t, path, []byte("a\nb\n"), false)
	if _, err := os.Stat(path + ".got"); err == nil {
		t.Fatal(".got written on a match")
	}
	r := &recorder{TB: t}
	Golden(r, path, []byte("a\nc\n"), false)
	if !r.failed {
		t.Fatal("mismatch not reported")
	}
	b, err := os.ReadFile(path + ".got")
	if err != nil || string(b) != "a\nc\n" {
		t.Fatalf(".got = %q, %v", b, err)
	}
}

func TestFirstDiff(t *testing.T) {
	if d := firstDiff([]byte("a\nb\n"), []byte("a\n")); !strings.Contains(d, "line 2") {
		t.Error(d)
	}
	if d := firstDiff([]byte("x"), []byte("x")); !strings.Contains(d, "no line") {
		t.Error(d)
	}
}

func TestSharedDataSkips(t *testing.T) {
	t.Setenv(EnvSharedData, t.TempDir())
	ran := false
	t.Run("missing", func(t *testing.T) {
		SharedData(t, "does", "not", "exist")
		ran = true
	})
	if ran {
		t.Fatal("SharedData returned for a missing entry")
	}
}

func TestSharedDataFound(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvSharedData, dir)
	if p := SharedData(t, "a", "b"); p != filepath.Join(dir, "a", "b") {
		t.Errorf("SharedData = %s", p)
	}
}

func TestPeakRSS(t *testing.T) {
	var keep []byte
	got := PeakRSS(func() {
		keep = make([]byte, 64<<20)
		for i := 0; i < len(keep); i += 4096 {
			keep[i] = 1
		}
	})
	if runtime.GOOS == "linux" && got != 0 && got < 64<<20 {
		t.Errorf("peak RSS %d bytes while touching 64 MiB", got)
	}
	_ = keep
}
