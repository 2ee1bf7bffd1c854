package safefs

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The stale-work-directory test re-executes the test binary as the process that holds one: with
// childEnv set, TestMain creates a work directory in that directory, prints its path and waits
// to be killed.
const childEnv = "SAFEFS_TEST_WORKDIR_IN"

func TestMain(m *testing.M) {
	if parent := os.Getenv(childEnv); parent != "" {
		w, err := NewWorkDir(parent, "out.parquet")
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.WriteFile(filepath.Join(w.Path, "run1"), make([]byte, 1<<20), 0o666)
		os.Stdout.WriteString(w.Path + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestPermissionsFollowTheUmask: temporaries become outputs, so they get what os.Create and
// os.Mkdir would give (0644/0755 under umask 022), not os.CreateTemp's 0600 and 0700.
func TestPermissionsFollowTheUmask(t *testing.T) {
	for _, tc := range []struct {
		umask         int
		file, dirMode fs.FileMode
	}{{0o022, 0o644, 0o755}, {0o002, 0o664, 0o775}, {0o077, 0o600, 0o700}} {
		old := syscall.Umask(tc.umask)
		dir := t.TempDir()
		f, err := CreateTemp(dir, "x-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		d, err := MkdirTemp(dir, "d-*")
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.json")
		if err := WriteFile(out, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
			t.Fatal(err)
		}
		syscall.Umask(old)
		if got := mode(t, f.Name()); got != tc.file {
			t.Errorf("umask %03o: CreateTemp made %v, want %v", tc.umask, got, tc.file)
		}
		if got := mode(t, out); got != tc.file {
			t.Errorf("umask %03o: WriteFile made %v, want %v", tc.umask, got, tc.file)
		}
		if got := mode(t, d); got != tc.dirMode {
			t.Errorf("umask %03o: MkdirTemp made %v, want %v", tc.umask, got, tc.dirMode)
		}
	}
}

// failWriter fails every write as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestPanicsBecomeErrorsWithTheirCause: a writer that panics (as Arrow's Parquet writer does on a
// failed write, "failed to write magic number") fails WriteFile with an error that names the
// write error behind the panic; the old file stays and no temporary is left.
func TestPanicsBecomeErrorsWithTheirCause(t *testing.T) {
	ew := &ErrWriter{W: failWriter{}}
	err := ew.Recover(func() error {
		if _, err := ew.Write([]byte("PAR1")); err != nil {
			panic("failed to write magic number")
		}
		return nil
	})
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "failed to write magic number") {
		t.Errorf("error %v: want the disk-full cause and the panic", err)
	}
	if err := Recover(func() error { panic(errors.New("boom")) }); err == nil || err.Error() != "panic: boom" {
		t.Errorf("Recover of an error panic = %v", err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "jobs.parquet")
	os.WriteFile(path, []byte("old"), 0o644)
	err = WriteFile(path, func(w io.Writer) error {
		w.Write([]byte("new, but not all of it"))
		panic("failed to write magic number")
	})
	if err == nil || !strings.Contains(err.Error(), "failed to write magic number") {
		t.Fatalf("WriteFile with a panicking writer: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries left, want the old file only", len(entries))
	}
}

// TestLockProtocol: a lock has one holder at a time, and a lock file removed by its holder cannot
// be held by two (one that opened the file before the removal locks the unlinked file; TryLock
// sees the name gone and locks it afresh).
func TestLockProtocol(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock-x")
	a, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	if _, ok, _ := TryLock(path); ok {
		t.Fatal("a held lock was taken twice")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a.Unlock()
	if ok, err := flock(f); err != nil || !ok {
		t.Fatal("flock on the unlinked file", err)
	}
	c, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatal("the name could not be locked afresh", err)
	}
	f.Close()
	c.Unlock()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Unlock left the lock file: %v", err)
	}
}

// TestLockRename: a held lock file renamed away frees the lock's name at once — one that opened
// the old name locks the moved file only after its holder lets go, and then TryLock sees the name
// gone and locks it afresh — and Unlock leaves the moved file, with what the holder wrote, in
// place.
func TestLockRename(t *testing.T) {
	dir := t.TempDir()
	path, moved := filepath.Join(dir, ".lock-x"), filepath.Join(dir, "cost.json")
	a, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a.File().WriteAt([]byte("{}\n"), 0)
	if err := a.Rename(moved); err != nil {
		t.Fatal(err)
	}
	if ok, _ := flock(f); ok {
		t.Fatal("the moved lock file was locked while held")
	}
	c, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatal("the old name could not be locked afresh while the moved file was held", err)
	}
	c.Unlock()
	a.Unlock()
	if b, err := os.ReadFile(moved); err != nil || string(b) != "{}\n" {
		t.Errorf("the moved file after Unlock: %q, %v", b, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a lock file is left at the old name: %v", err)
	}
}

// TestStaleWorkDirectories: a work directory is removed by CleanStale once its process is killed
// (kill -9: no deferred cleanup ran), never while the process lives, and a process's own work
// directories are safe from its own CleanStale.
func TestStaleWorkDirectories(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+parent)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.TrimSpace(line)
	mine, err := NewWorkDir(parent, "out.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if removed := CleanStale(parent); len(removed) != 0 {
		t.Fatalf("CleanStale removed live work directories %v", removed)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(theirs, "run1")); err != nil {
		t.Fatalf("the killed process's work directory is not there to clean: %v", err)
	}
	// The next writer into the directory removes what the killed one left.
	next, err := NewWorkDir(parent, "out.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(theirs); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed process's work directory %s survived: %v", theirs, err)
	}
	if _, err := os.Stat(mine.Path); err != nil {
		t.Errorf("this process's own work directory was removed: %v", err)
	}
	next.Remove()
	mine.Remove()
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("Remove left %d entries", len(entries))
	}
}

// TestReplaceDir: a directory is moved onto a missing, an empty and a full destination; the old
// content ends up at src (exchanged) or old, never mixed with the new.
func TestReplaceDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dst   []string // files in the existing destination; nil: no destination
		empty bool
	}{{"onto nothing", nil, false}, {"onto an empty directory", nil, true}, {"onto a previous output", []string{"a.json", "admissions.json"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst, old := filepath.Join(dir, "src"), filepath.Join(dir, "dst"), filepath.Join(dir, "old")
			os.Mkdir(src, 0o755)
			os.WriteFile(filepath.Join(src, "a.json"), []byte("new"), 0o644)
			if tc.empty || tc.dst != nil {
				os.Mkdir(dst, 0o755)
			}
			for _, f := range tc.dst {
				os.WriteFile(filepath.Join(dst, f), []byte("old"), 0o644)
			}
			if err := ReplaceDir(src, dst, old); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dst)
			if len(entries) != 1 || entries[0].Name() != "a.json" {
				t.Fatalf("destination holds %v, want the new a.json alone", entries)
			}
			if b, _ := os.ReadFile(filepath.Join(dst, "a.json")); string(b) != "new" {
				t.Errorf("a.json = %q", b)
			}
		})
	}
}
