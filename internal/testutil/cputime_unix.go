//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the user plus system CPU time this process has used. Benchmarks report
// per-CPU-second figures from it: steadier than wall-clock ones on a shared machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
