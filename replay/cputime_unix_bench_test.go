//go:build unix

package replay_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + system CPU time so far: on a loaded machine the benchmarks'
// ratios in CPU time (x-heap-cpu) do not depend on how much of the wall time others took.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
