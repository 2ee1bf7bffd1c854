//go:build !unix

package sweep

import "os"

// flock is a no-op where flock(2) does not exist: concurrent sweeps into one output directory or
// cache are not detected there.
func flock(*os.File) (bool, error) { return true, nil }
