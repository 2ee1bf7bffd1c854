package safefs

import (
	"errors"
	"io/fs"
	"os"
)

// ReplaceDir moves the complete directory src to dst. When dst does not exist this is a rename.
// When it does, the two are exchanged atomically where the system can (Linux renameat2 with
// RENAME_EXCHANGE), so dst holds the old directory or the new one at every instant, and the old
// one ends up at src for the caller to remove. Elsewhere dst is first renamed to old, then src to
// dst: dst is absent for that moment, but never partial. old must be a free name on dst's file
// system (inside the caller's work directory, say); the old directory is at src or at old
// afterwards.
func ReplaceDir(src, dst, old string) error {
	err := os.Rename(src, dst)
	if err == nil || !exists(dst) {
		return err
	}
	if err := exchange(src, dst); err == nil {
		return nil
	} else if !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		os.Rename(old, dst) // put the old one back
		return err
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
