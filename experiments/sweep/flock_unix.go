//go:build unix

package sweep

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive flock(2) lock on f without blocking; false when another open file
// description holds it.
func flock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}
