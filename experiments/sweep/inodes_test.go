package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLockFileBecomesCost: a computed cell's lock file is not deleted but becomes its cost.json
// (the same inode), and the sweep leaves no lock file behind. On ext4 without a journal every
// inode allocation scans past the inodes of its block group deleted in the last minute, so a
// deletion per cell made every later cell's file creations slower.
func TestLockFileBecomesCost(t *testing.T) {
	p := plan(t, "quick")
	out := t.TempDir()
	cache := filepath.Join(out, CacheDir)
	locks := map[string]os.FileInfo{} // key → its lock file while the cell runs
	nondeterministicForTest = func(c *Cell) string {
		st, err := os.Stat(cellLockPath(cache, c.Key))
		if err != nil {
			t.Errorf("cell %d runs without its lock file: %v", c.Index, err)
		}
		locks[c.Key] = st
		return ""
	}
	defer func() { nondeterministicForTest = nil }()
	r := runSweep(t, p, Options{Out: out, Parallel: 1})
	if r.Ran != len(p.Cells) || len(locks) != len(p.Cells) {
		t.Fatalf("ran %d cells (the hook saw %d), want %d", r.Ran, len(locks), len(p.Cells))
	}
	for key, lock := range locks {
		cost, err := os.Stat(filepath.Join(CellDir(cache, key), CostFile))
		if err != nil {
			t.Fatal(err)
		}
		if lock != nil && !os.SameFile(lock, cost) {
			t.Errorf("cell %s: cost.json is a new file, not its lock file", key[:12])
		}
		if _, ok := readCost(CellDir(cache, key)); !ok {
			t.Errorf("cell %s: cost.json unreadable", key[:12])
		}
	}
	noDebris(t, out, cache)
}
