package experiments

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestCheckOutDir: run --out replaces an empty directory or a previous run's output and refuses
// anything else before the replay, with a configuration error naming the directory and why
// (crafted directories under testdata/outdir).
func TestCheckOutDir(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		name, dir string
		refused   string // "" when allowed
	}{
		{"a new directory is allowed", filepath.Join(t.TempDir(), "new"), ""},
		{"an empty directory is allowed", empty, ""},
		{"a previous run's output is allowed", "testdata/outdir/previous-run", ""},
		{"a run's output with a user's notes is refused", "testdata/outdir/with-notes", "holds notes.txt"},
		{"a sweep's output is refused", "testdata/outdir/sweep-output", "holds cells"},
		{"a directory of other JSON is refused", "testdata/outdir/not-a-summary", "is not a run's summary"},
		{"a directory without summary.json is refused", "testdata/outdir/no-summary", "has no summary.json"},
		{"a file is refused", file, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOutDir(tc.dir)
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused != "" && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), tc.dir)):
				t.Errorf("error %v, want a configuration error naming %s and %q", err, tc.dir, tc.refused)
			}
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestPublishOutputs: the run directory appears whole, replaces a previous run's output as a
// whole (a policy's admissions.json of the previous run does not survive a fifo run), follows
// the umask (0644 files, 0755 directory under umask 022; before, 0600 regardless), and leaves no
// work directory beside it.
func TestPublishOutputs(t *testing.T) {
	o, err := Run(resolve(t, "engine.horizon_s=600"))
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for i := 0; i < 2; i++ {
		if i == 1 { // a previous run of an admission-controlled policy
			os.WriteFile(filepath.Join(out, "admissions.json"), []byte("{}"), 0o644)
		}
		if err := o.PublishOutputs(out); err != nil {
			t.Fatal(err)
		}
		if got, want := names(t, out), []string{ConfigFile, JobsFile, SummaryFile, UsageFile}; !slices.Equal(got, want) {
			t.Errorf("run %d: %s holds %v, want %v", i, out, got, want)
		}
		if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
			t.Errorf("run %d: beside the output: %v", i, got)
		}
	}
	st, _ := os.Stat(out)
	if st.Mode().Perm() != 0o755 {
		t.Errorf("directory mode %v, want 0755", st.Mode().Perm())
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, _ := d.Info(); info.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v, want 0644", p, info.Mode().Perm())
			}
		}
		return nil
	})
	// The working directory (--out .) and its parents are refused: replacing one would leave the
	// shell in a deleted directory.
	here := filepath.Join(t.TempDir(), "here")
	os.MkdirAll(filepath.Join(here, "sub"), 0o755)
	t.Chdir(filepath.Join(here, "sub"))
	for _, dir := range []string{".", "..", filepath.Join(here, "sub")} {
		if err := o.PublishOutputs(dir); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "working directory") {
			t.Errorf("--out %s: %v", dir, err)
		}
	}
	if err := o.PublishOutputs("run"); err != nil {
		t.Errorf("--out run below the working directory: %v", err)
	}
	// A directory that is not a run's is left alone.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	if err := o.PublishOutputs(out); !errors.Is(err, ErrConfig) {
		t.Errorf("publishing over a user's notes: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Errorf("the notes were touched")
	}
}
