//go:build !unix

package google2011

import "time"

// cpuTime is unavailable here; benchmarks then report wall-clock figures only.
func cpuTime() time.Duration { return time.Nanosecond }
