//go:build unix

package safefs

import (
	"errors"
	"os"
	"syscall"
)

// locking says whether flock works here.
const locking = true

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
