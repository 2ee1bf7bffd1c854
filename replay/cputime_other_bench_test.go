//go:build !unix

package replay_test

import "time"

// cpuTime is unavailable here: the CPU-time ratios read NaN.
func cpuTime() time.Duration { return 0 }
