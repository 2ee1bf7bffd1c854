// Package safefs writes outputs so that a reader, a full disk or a kill -9 never leaves half of
// one: files and directories are filled under temporary names and renamed into place; a
// process's temporaries live in a work directory it holds a lock on, so the next process finds
// and removes what a killed one left; panics of library writers (Arrow's Parquet writer panics on
// some write errors) come back as errors; and everything is created with the permissions the
// umask allows (0644 files, 0755 directories under the usual umask 022), not the private 0600 and
// 0700 of os.CreateTemp and os.MkdirTemp.
package safefs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Recover runs f and returns a panic inside it as an error (naming the panic value), so that a
// library that panics on an I/O error such as a full disk fails like any other write.
func Recover(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("panic: %w", e)
			} else {
				err = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	return f()
}

// ErrWriter passes writes to W and keeps the first error, so that a library that panics on a
// write error without saying which (Arrow's Parquet writer: "failed to write magic number") can
// still be reported with the cause, such as a full disk.
type ErrWriter struct {
	W   io.Writer
	Err error
}

// Write writes b to W, keeping the first error.
func (e *ErrWriter) Write(b []byte) (int, error) {
	n, err := e.W.Write(b)
	if err != nil && e.Err == nil {
		e.Err = err
	}
	return n, err
}

// Recover is the package's Recover, with the first write error as the cause of a panic.
func (e *ErrWriter) Recover(f func() error) error {
	err := Recover(f)
	if err != nil && e.Err != nil && !errors.Is(err, e.Err) {
		return fmt.Errorf("%w (%v)", e.Err, err)
	}
	return err
}

// tempName returns dir/prefix + a random number + suffix, where pattern is prefix*suffix (or
// prefix alone), as os.CreateTemp names its files.
func tempName(dir, pattern string) string {
	prefix, suffix, ok := strings.Cut(pattern, "*")
	if !ok {
		prefix, suffix = pattern, ""
	}
	return filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
}

// CreateTemp is os.CreateTemp with the permissions os.Create gives (0666 less the umask) instead
// of 0600, so that a temporary file renamed into place is readable like any other output.
func CreateTemp(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for try := 0; ; try++ {
		name := tempName(dir, pattern)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// MkdirTemp is os.MkdirTemp with the permissions os.Mkdir(name, 0o777) gives (0777 less the
// umask) instead of 0700.
func MkdirTemp(dir, pattern string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for try := 0; ; try++ {
		name := tempName(dir, pattern)
		err := os.Mkdir(name, 0o777)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return "", err
		}
		return name, nil
	}
}

// writeBuffer is the size of WriteFile's write buffer.
const writeBuffer = 64 << 10

// Option changes how WriteFile writes.
type Option int

// NoSync skips the fsync before the rename: the file is still whole or absent after a crash of
// the process, but not necessarily after a crash of the machine. For files inside a directory
// that is itself published by a rename later.
const NoSync Option = 1

// WriteFile writes path by calling write on a temporary file beside it (".<name>.tmp-*", which
// the caller's cleanup of a directory may remove when no process can be writing it), synced
// unless NoSync is given, then renamed over path: readers and crashes see the old content or the
// new, never a part. Writes reach the file through a buffer, flushed when write returns. A panic
// in write is returned as an error; on any error the temporary is removed and path is untouched.
// The file gets 0666 less the umask.
func WriteFile(path string, write func(w io.Writer) error, opts ...Option) (err error) {
	sync := true
	for _, o := range opts {
		if o == NoSync {
			sync = false
		}
	}
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// Buffered: Parquet and YAML writers make many small writes (a cell's outputs took 68 write
	// calls), and each is a system call on an unbuffered file.
	ew := &ErrWriter{W: f}
	bw := bufio.NewWriterSize(ew, writeBuffer)
	if err = ew.Recover(func() error {
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return nil
}

// CopyFile creates (or truncates) the file target with the permissions the umask allows and
// copies src into it.
func CopyFile(target string, src io.Reader) error {
	out, err := os.Create(target)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// IsTemp reports whether name (a base name) is one of WriteFile's temporaries.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// SyncDir fsyncs a directory so that renames into it are durable; file systems that cannot sync
// directories are tolerated (the rename is atomic regardless).
func SyncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
