package sweep

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling OS thread has used (the caller locks its goroutine
// to the thread), or false where the system does not say. CLOCK_THREAD_CPUTIME_ID counts in
// nanoseconds; getrusage's per-thread figures are sampled at the scheduler tick.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
