//go:build !linux

package sweep

import "time"

// threadCPU is unknown here: cells' costs fall back to their wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
