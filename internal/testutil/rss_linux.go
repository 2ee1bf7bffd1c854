package testutil

import (
	"bytes"
	"os"
	"strconv"
)

// PeakRSS runs f and returns the process's peak resident set size while f ran, in bytes: the
// kernel's high-water mark (VmHWM), reset before f by writing 5 to /proc/self/clear_refs. It
// returns 0 where the kernel does not allow the reset.
func PeakRSS(f func()) uint64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		f()
		return 0
	}
	f()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
