package experiments

import (
	"fmt"
	"io/fs"
	"os"
)

// CheckRegular refuses a path that exists but is neither a regular file nor, when dirOK, a
// directory: reading a named pipe (FIFO) blocks until a writer comes, forever in a batch job,
// and a device or socket never ends. It checks with a stat, before anything opens the path; a
// missing path is left to the open that follows, which names it.
func CheckRegular(path string, dirOK bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return checkMode(path, fi.Mode(), dirOK)
}

// checkMode is CheckRegular's test of a file mode.
func checkMode(path string, m fs.FileMode, dirOK bool) error {
	switch {
	case m.IsRegular(), dirOK && m.IsDir():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s: a directory, not a file", path)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s: a named pipe (FIFO), not a regular file; reading it would wait for a writer", path)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("%s: a socket, not a regular file", path)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%s: a device, not a regular file", path)
	}
	return fmt.Errorf("%s: not a regular file (mode %v)", path, m)
}
