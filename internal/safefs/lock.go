package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Lock is an exclusive flock(2) lock on a lock file. The kernel releases it when its process
// dies, however it dies, so a lock never outlives its holder. A holder that removes its lock file
// does so before releasing the lock, and TryLock checks after locking that the file it locked
// still has its name, so no two processes can both believe they hold one lock.
//
// On Linux, flock on NFS (v4, or v3 with NLM) is carried out as a whole-file POSIX lock and holds
// between machines; on file systems without working locks (some Lustre and CephFS mounts)
// locking fails with an error rather than succeed unprotected.
type Lock struct {
	path string
	f    *os.File
}

// TryLock takes the exclusive lock of path, creating the file, without waiting: ok is false
// when another holder (another process, or another Lock of this process) has it.
func TryLock(path string) (l *Lock, ok bool, err error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
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
			return &Lock{path: path, f: f}, true, nil
		}
		f.Close()
		if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
			return nil, false, err2
		}
	}
}

// File returns the open lock file (to record the holder's pid in it, say).
func (l *Lock) File() *os.File { return l.f }

// Unlock removes the lock file (unless Rename moved it) and releases the lock. A nil Lock is
// allowed.
func (l *Lock) Unlock() {
	if l == nil {
		return
	}
	if l.path != "" {
		os.Remove(l.path)
	}
	l.f.Close()
}

// Rename moves the held lock file to path on the same file system — to make it a file the holder
// would otherwise create, so that taking and giving up the lock creates one file fewer and
// deletes none. To other processes this is Unlock's removal: the lock's name is free at once,
// and one that opened the old name and locks it after the holder releases it finds the name
// gone (TryLock's identity check) and locks the name afresh. Unlock then only releases the lock
// and leaves the file at path.
func (l *Lock) Rename(path string) error {
	if err := os.Rename(l.path, path); err != nil {
		return err
	}
	l.path = ""
	return nil
}

// Release releases the lock and leaves the file (whose directory the holder has removed, say).
func (l *Lock) Release() {
	if l != nil {
		l.f.Close()
	}
}
