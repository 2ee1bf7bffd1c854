//go:build unix

package main

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputsFollowTheUmask runs every command that writes results — run --out, sweep,
// reproduce, trace import, predict — and checks every file and directory they leave has the
// permissions the umask allows: 0644 and 0755 under 022, 0600 and 0700 under 077. (Before, run,
// sweep and reproduce files were 0600 and sweep cells 0700 whatever the umask.)
func TestOutputsFollowTheUmask(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a sweep and a reproduction")
	}
	for _, tc := range []struct {
		umask     int
		file, dir fs.FileMode
	}{{0o022, 0o644, 0o755}, {0o077, 0o600, 0o700}} {
		old := syscall.Umask(tc.umask)
		root := t.TempDir()
		for _, args := range [][]string{
			append([]string{"run", "--out", filepath.Join(root, "run"), "--policy", "bpf", "-q"}, smallWorkload...),
			{"sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", filepath.Join(root, "sweep"), "--parallel", "2"},
			{"reproduce", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", filepath.Join(root, "reproduce"), "--parallel", "2"},
			{"trace", "import", "google2011", "--level", "job", "--src", googleFixture, "--out", filepath.Join(root, "g.parquet")},
			{"predict", "--trace", googleFixture, "--out", filepath.Join(root, "predict")},
		} {
			if out, errOut, code := runBuilt(t, args...); code != 0 {
				syscall.Umask(old)
				t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
			}
		}
		syscall.Umask(old)
		n := 0
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			want := tc.file
			if d.IsDir() {
				want = tc.dir
			}
			if info.Mode().Perm() != want {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("umask %03o: %s has mode %v, want %v", tc.umask, rel, info.Mode().Perm(), want)
			}
			n++
			return nil
		})
		if n < 20 {
			t.Errorf("umask %03o: only %d outputs checked", tc.umask, n)
		}
	}
}
