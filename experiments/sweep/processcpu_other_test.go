//go:build !unix

package sweep

import (
	"testing"
	"time"
)

// processCPU skips: the process's CPU time is read with getrusage, a Unix call.
func processCPU(b *testing.B) (user, sys time.Duration) {
	b.Skip("no getrusage on this system")
	return 0, 0
}
