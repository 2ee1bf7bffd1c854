package sysmem

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// fixture writes files under a temporary root.
func fixture(t *testing.T, files map[string]string) rootFS {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return rootFS(root)
}

const meminfo = "MemTotal:       24684084 kB\nMemFree:  100 kB\nMemAvailable:   18796120 kB\n"

func TestReadTakesTheSmallestSource(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		want   uint64
		source string
	}{
		{"MemAvailable alone", map[string]string{"proc/meminfo": meminfo}, 18796120 * 1024, "MemAvailable"},
		{"a cgroup v1 limit below MemAvailable", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "5:devices:/\n4:memory:/jobs/a\n0::/\n",
			"sys/fs/cgroup/memory/jobs/a/memory.limit_in_bytes": "4294967296\n",
			"sys/fs/cgroup/memory/jobs/a/memory.usage_in_bytes": "1073741824\n",
		}, 3 << 30, "cgroup"},
		{"an unlimited cgroup v1 is ignored", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": "11110752256\n",
		}, 18796120 * 1024, "MemAvailable"},
		{"a cgroup v2 limit, read at the mount's root when the cgroup's directory is not visible", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/kubepods/pod1/c1\n",
			"sys/fs/cgroup/memory.max":     "2147483648\n",
			"sys/fs/cgroup/memory.current": "536870912\n",
		}, 1536 << 20, "cgroup"},
		{"cgroup v2 max means no limit", map[string]string{
			"proc/meminfo":                 meminfo,
			"proc/self/cgroup":             "0::/\n",
			"sys/fs/cgroup/memory.max":     "max\n",
			"sys/fs/cgroup/memory.current": "536870912\n",
		}, 18796120 * 1024, "MemAvailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := read(fixture(t, tc.files))
			if !ok || got.Bytes != tc.want || got.Source != tc.source {
				t.Fatalf("got %+v, %v; want %d bytes from %s", got, ok, tc.want, tc.source)
			}
		})
	}
}

func TestReadKnowsNothingWithoutSources(t *testing.T) {
	if got, ok := read(fixture(t, nil)); ok {
		t.Fatalf("got %+v from an empty root", got)
	}
}

func TestGoMemoryLimitCounts(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	debug.SetMemoryLimit(1 << 40)
	got, ok := read(fixture(t, map[string]string{"proc/meminfo": "MemAvailable: 1 kB\n"}))
	if !ok || got.Source != "MemAvailable" {
		t.Fatalf("got %+v: a larger Go limit must not win", got)
	}
	debug.SetMemoryLimit(64 << 20)
	got, ok = read(fixture(t, map[string]string{"proc/meminfo": meminfo}))
	if !ok || got.Source != "GOMEMLIMIT" || got.Bytes > 64<<20 {
		t.Fatalf("got %+v; want at most 64 MiB from GOMEMLIMIT", got)
	}
}
