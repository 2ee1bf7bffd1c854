package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Locks. A sweep holds an exclusive lock on its output directory (OutLockFile) for as long as it
// writes there, and on each cell it computes (CACHE/.lock-<key>) from the moment it decides to
// compute the cell until the cell's directory has its final name. Locks are flock(2) locks on
// lock files: the kernel releases them when their process dies, however it dies, so a lock never
// outlives its holder and a killed sweep blocks nobody. A holder removes its lock file before it
// releases the lock; whoever locks a file checks afterwards that the file still has that name, so
// no two processes can both believe they hold one lock.
//
// On Linux, flock on NFS (v4, or v3 with NLM) is carried out as a whole-file POSIX lock and holds
// between machines; on file systems without working locks (some Lustre and CephFS mounts) locking
// fails and the sweep says so rather than run unprotected.

// OutLockFile is the lock file of a sweep's output directory.
const OutLockFile = ".sweep.lock"

// Prefixes of the names a sweep creates inside a cache while a cell is being computed or copied:
// the cell's lock file and its temporary directory.
const (
	lockPrefix = ".lock-"
	tmpPrefix  = ".tmp-"
)

// ErrLocked is wrapped by the error of a sweep or gather whose output directory another process
// holds.
var ErrLocked = errors.New("sweep: output directory in use")

type lockFile struct {
	path string
	f    *os.File
}

// tryLock takes the exclusive lock of path, creating the file, without waiting: ok is false when
// another holder (another process, or another lockFile of this process) has it.
func tryLock(path string) (l *lockFile, ok bool, err error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, false, err
		}
		ok, err := flock(f)
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		if !ok {
			f.Close()
			return nil, false, nil
		}
		// The previous holder may have removed the file between our open and our lock: then the
		// lock is on an unlinked file, and the name must be locked afresh.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &lockFile{path: path, f: f}, true, nil
		}
		f.Close()
		if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
			return nil, false, err2
		}
	}
}

// unlock removes the lock file and releases the lock.
func (l *lockFile) unlock() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
}

// lockOut takes the output directory's lock and records the holder's pid in it, or fails at once
// naming the process that holds it.
func lockOut(out string) (*lockFile, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(out, OutLockFile)
	l, ok, err := tryLock(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		holder := "another process"
		if pid, ok := holderPID(path); ok {
			holder = fmt.Sprintf("process %d", pid)
		}
		return nil, fmt.Errorf("%w: %s is being written by %s (a sweep or gather); wait for it to finish or choose another --out", ErrLocked, out, holder)
	}
	l.f.Truncate(0)
	l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return l, nil
}

// holderPID reads the pid a lock holder records. The holder writes it just after taking the
// lock, so an empty file is given up to about 200 ms to fill before the holder goes unnamed.
func holderPID(path string) (int, bool) {
	for range 20 {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid, true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, false
}

// cellLockPath is where a cell's lock lives in a cache.
func cellLockPath(cache, key string) string { return filepath.Join(cache, lockPrefix+key) }

// claimCell waits for the lock of a cell: it returns the lock, or nil once the cell is in the
// cache (another process finished it while this one waited). It polls, so that a cancelled
// context ends the wait.
func claimCell(ctx context.Context, cache, key string) (*lockFile, error) {
	delay := 20 * time.Millisecond
	for {
		if cached(cache, key) {
			return nil, nil
		}
		l, ok, err := tryLock(cellLockPath(cache, key))
		if err != nil || ok {
			return l, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// cleanStale removes what killed processes left in a cache: temporary cell directories and lock
// files whose lock nobody holds. A temporary directory of a cell whose lock is held belongs to a
// live process and is left alone, so caches shared by concurrent sweeps are cleaned safely.
func cleanStale(cache string) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	temps := map[string][]string{} // cell key (or key prefix) → its temporaries
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			rest := strings.TrimPrefix(name, tmpPrefix)
			if i := strings.LastIndexByte(rest, '-'); i > 0 {
				rest = rest[:i]
			}
			temps[rest] = append(temps[rest], name)
		case strings.HasPrefix(name, lockPrefix):
			key := strings.TrimPrefix(name, lockPrefix)
			if _, ok := temps[key]; !ok {
				temps[key] = nil
			}
		}
	}
	for key, names := range temps {
		l, ok, err := tryLock(cellLockPath(cache, key))
		if err != nil || !ok {
			continue
		}
		for _, n := range names {
			os.RemoveAll(filepath.Join(cache, n))
		}
		l.unlock()
	}
}

// WithOutLock runs f holding the lock of the output directory out (created if needed), after
// removing the temporaries killed processes left there: for writers of an output directory
// other than Run and Gather, such as an emit of cluster jobs.
func WithOutLock(out string, f func() error) error {
	lk, err := lockOut(out)
	if err != nil {
		return err
	}
	defer lk.unlock()
	cleanOutTemps(out)
	return f()
}
