package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// workInfix is in the name of every work directory: ".<name>.work-<random>".
const workInfix = ".work-"

// workLock is the lock file inside a work directory.
const workLock = ".lock"

// WorkDir is a directory for one process's temporary files, created beside the outputs they
// become so that renaming them into place stays on one file system. Its process holds a lock on
// it (a lock file inside) for as long as it uses it; a work directory whose lock is free belongs
// to a process that died without removing it, and CleanStale removes it. Staleness is never
// judged by age: a live process's work directory is never removed, however old.
type WorkDir struct {
	// Path is the directory.
	Path string
	lock *Lock
}

// NewWorkDir removes the stale work directories in parent (CleanStale), then creates and locks
// a work directory there for outputs named name: parent/.<name>.work-<random>.
func NewWorkDir(parent, name string) (*WorkDir, error) {
	CleanStale(parent)
	for try := 0; ; try++ {
		dir, err := MkdirTemp(parent, "."+name+workInfix+"*")
		if err != nil {
			return nil, err
		}
		l, ok, err := TryLock(filepath.Join(dir, workLock))
		if err == nil && ok {
			l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return &WorkDir{Path: dir, lock: l}, nil
		}
		// Another process's CleanStale took the new directory for a dead one's (it can look so
		// until the lock is taken) and is removing it: start again under a new name.
		if l != nil {
			l.Unlock()
		}
		if try == 10 {
			if err == nil {
				err = errors.New("work directory removed while it was being created")
			}
			return nil, err
		}
	}
}

// Remove deletes the work directory and everything left in it, then releases its lock. It is
// safe to call more than once and on a nil WorkDir.
func (w *WorkDir) Remove() error {
	if w == nil || w.lock == nil {
		return nil
	}
	err := os.RemoveAll(w.Path)
	w.lock.Release()
	w.lock = nil
	return err
}

// IsWorkDir reports whether name (a base name) is a work directory's.
func IsWorkDir(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, workInfix)
}

// CleanStale removes the work directories in parent whose lock no process holds — what killed
// processes left — and returns their paths. Work directories of live processes are left alone.
// Where locks do not work (no flock(2)), it removes nothing.
func CleanStale(parent string) []string {
	if !locking {
		return nil
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !IsWorkDir(e.Name()) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		l, ok, err := TryLock(filepath.Join(dir, workLock))
		if err != nil || !ok {
			continue // held, or removed meanwhile
		}
		if err := os.RemoveAll(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
			removed = append(removed, dir)
		}
		l.Release()
	}
	return removed
}
