//go:build !linux

package testutil

import "testing"

// MountTmpfs skips the test: size-limited tmpfs mounts are a Linux feature.
func MountTmpfs(t testing.TB, size int) string {
	t.Helper()
	t.Skip("disk-full tests mount a size-limited tmpfs, which needs Linux")
	return ""
}

// ResizeTmpfs is not reached off Linux (MountTmpfs skips).
func ResizeTmpfs(t testing.TB, dir string, size int) { t.Helper() }
