//go:build linux

package sweep

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
)

// TestDiskFull runs a sweep and a gather onto tmpfs file systems too small for their outputs,
// filling up at different points: each ends in an error that says the disk is full — never a
// panic — leaves only complete cells and no temporaries or lock files, and once space is freed
// the same command finishes with the bytes of a sweep that never ran out of space.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts file systems")
	}
	p := plan(t, "quick")
	ref := t.TempDir()
	runSweep(t, p, Options{Out: ref, Parallel: 2})
	want := readFile(t, filepath.Join(ref, CellsFile))
	// The whole output takes about 190 KiB (4 KiB blocks): these fill up early, midway and late.
	for _, kib := range []int{4, 12, 40, 80, 120, 140} {
		t.Run(fmt.Sprintf("sweep/%dKiB", kib), func(t *testing.T) {
			mnt := testutil.MountTmpfs(t, kib<<10)
			out := filepath.Join(mnt, "out")
			_, err := Run(t.Context(), plan(t, "quick"), Options{Out: out, Parallel: 2})
			if err == nil {
				t.Fatalf("a sweep fit in %d KiB", kib)
			}
			if !strings.Contains(err.Error(), "no space left on device") {
				t.Errorf("error does not say the disk is full: %v", err)
			}
			cache := filepath.Join(out, CacheDir)
			checkCellsComplete(t, cache)
			noDebris(t, out, cache)
			testutil.ResizeTmpfs(t, mnt, 4<<20)
			r := runSweep(t, plan(t, "quick"), Options{Out: out, Parallel: 2})
			t.Logf("%d KiB: %v; after freeing space: ran %d, cached %d", kib, err, r.Ran, r.Cached)
			if !bytes.Equal(readFile(t, filepath.Join(out, CellsFile)), want) {
				t.Errorf("cells.parquet after the disk filled and space was freed differs")
			}
		})
	}
	for _, kib := range []int{8, 60, 136} {
		t.Run(fmt.Sprintf("gather/%dKiB", kib), func(t *testing.T) {
			mnt := testutil.MountTmpfs(t, kib<<10)
			out := filepath.Join(mnt, "out")
			_, err := Gather(out, []string{ref}, GatherOptions{})
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("gather into %d KiB: error = %v, want no space left", kib, err)
			}
			checkCellsComplete(t, filepath.Join(out, CacheDir))
			noDebris(t, out, filepath.Join(out, CacheDir))
			testutil.ResizeTmpfs(t, mnt, 4<<20)
			if _, err := Gather(out, []string{ref}, GatherOptions{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(readFile(t, filepath.Join(out, CellsFile)), want) {
				t.Errorf("gathered cells.parquet differs")
			}
		})
	}
}
