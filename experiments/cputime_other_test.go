//go:build !unix

package experiments

import "time"

// cpuTime is unavailable here: x-off-cpu reads NaN.
func cpuTime() time.Duration { return 0 }
