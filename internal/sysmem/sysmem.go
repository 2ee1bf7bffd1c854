// Package sysmem tells how much memory this process may still use: the smallest of Go's memory
// limit (GOMEMLIMIT), the cgroup's limit less its usage (cgroup v2 or v1) and the kernel's
// MemAvailable. schedlab derives its default workload size limits from it.
package sysmem

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
)

// Available is an amount of memory in bytes and where the figure came from.
type Available struct {
	Bytes  uint64
	Source string // "GOMEMLIMIT", "cgroup" or "MemAvailable"
}

// Read returns the memory this process may still allocate, and false when nothing is known
// (no Go memory limit, and not Linux).
func Read() (Available, bool) {
	return read(rootFS("/"))
}

// rootFS reads files below a root directory: "/" in production, a fixture in tests.
type rootFS string

func (r rootFS) ReadFile(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(r), name))
}

func read(fs rootFS) (Available, bool) {
	best, ok := Available{}, false
	consider := func(b uint64, src string) {
		if !ok || b < best.Bytes {
			best, ok = Available{b, src}, true
		}
	}
	if lim := debug.SetMemoryLimit(-1); lim != math.MaxInt64 && lim > 0 {
		consider(sub(uint64(lim), goMemory()), "GOMEMLIMIT")
	}
	if b, found := cgroupFree(fs); found {
		consider(b, "cgroup")
	}
	if b, found := memAvailable(fs); found {
		consider(b, "MemAvailable")
	}
	return best, ok
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// goMemory is the memory the Go runtime holds from the system.
func goMemory() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable(fs rootFS) (uint64, bool) {
	b, err := fs.ReadFile("proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		return kb * 1024, err == nil
	}
	return 0, false
}

// cgroupFree returns the cgroup memory limit less the cgroup's usage, for the process's cgroup
// in /proc/self/cgroup (v2: memory.max and memory.current; v1: memory.limit_in_bytes and
// memory.usage_in_bytes of the memory controller). When the cgroup's own directory is not
// visible (a container sees its cgroup as the mount's root), the mount's root is read.
func cgroupFree(fs rootFS) (uint64, bool) {
	b, err := fs.ReadFile("proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, limit, usage string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, limit, usage = "sys/fs/cgroup", "memory.max", "memory.current"
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			dir, limit, usage = "sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for _, d := range []string{filepath.Join(dir, parts[2]), dir} {
			lim, ok1 := readUint(fs, filepath.Join(d, limit))
			use, ok2 := readUint(fs, filepath.Join(d, usage))
			if ok1 && ok2 {
				// v1 writes "no limit" as a huge page-aligned number.
				if lim >= 1<<62 {
					return 0, false
				}
				return sub(lim, use), true
			}
		}
	}
	return 0, false
}

func readUint(fs rootFS, name string) (uint64, bool) {
	b, err := fs.ReadFile(name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil // v2's "max" (no limit) does not parse
}
