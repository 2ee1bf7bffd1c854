package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/internal/safefs"
)

// Locks. A sweep holds an exclusive lock on its output directory (OutLockFile) for as long as it
// writes there, and on each cell it computes (CACHE/.lock-<key>) from the moment it decides to
// compute the cell until the cell's directory has its final name. Locks are flock(2) locks on
// lock files (safefs.Lock): the kernel releases them when their process dies, however it dies,
// so a lock never outlives its holder and a killed sweep blocks nobody. On file systems without
// working locks (some Lustre and CephFS mounts) locking fails and the sweep says so rather than
// run unprotected.

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

// tryLock takes the exclusive lock of path without waiting (safefs.TryLock).
func tryLock(path string) (*safefs.Lock, bool, error) { return safefs.TryLock(path) }

// lockOut takes the output directory's lock and records the holder's pid in it, or fails at once
// naming the process that holds it.
func lockOut(out string) (*safefs.Lock, error) {
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
	l.File().Truncate(0)
	l.File().WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
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
func claimCell(ctx context.Context, cache, key string) (*safefs.Lock, error) {
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
		l.Unlock()
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
	defer lk.Unlock()
	cleanOutTemps(out)
	return f()
}
