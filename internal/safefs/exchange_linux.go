package safefs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two paths atomically (renameat2 RENAME_EXCHANGE); errors.ErrUnsupported where
// the kernel or the file system cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.ErrUnsupported
	}
	return err
}
