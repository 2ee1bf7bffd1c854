//go:build !unix

package testutil

import "time"

// CPUTime is unavailable on this platform: it returns a constant, so per-CPU-second figures are
// meaningless there and benchmarks should be read by their wall-clock figures.
func CPUTime() time.Duration { return time.Nanosecond }
