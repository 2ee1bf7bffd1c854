package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
)

// noDebris fails if a directory holds temporaries or lock files.
func noDebris(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		for _, pattern := range []string{".*.tmp-*", ".tmp-*", ".lock-*", OutLockFile} {
			if left, _ := filepath.Glob(filepath.Join(d, pattern)); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		}
	}
}

// TestOutputDirectoryIsLocked: while a process holds an output directory, a sweep or a gather
// into it fails at once, naming the holder; afterwards both work and leave no lock file.
func TestOutputDirectoryIsLocked(t *testing.T) {
	p := plan(t, "quick")
	dir := t.TempDir()
	lk, err := lockOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s is being written by process %d", dir, os.Getpid())
	_, err = Run(t.Context(), p, Options{Out: dir, Parallel: 2})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), want) {
		t.Errorf("sweep into a locked directory: error = %v, want ErrLocked naming %q", err, want)
	}
	if _, err := Gather(dir, []string{t.TempDir()}, GatherOptions{}); !errors.Is(err, ErrLocked) {
		t.Errorf("gather into a locked directory: error = %v", err)
	}
	if err := WithOutLock(dir, func() error { return nil }); !errors.Is(err, ErrLocked) {
		t.Errorf("emit into a locked directory: error = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		t.Errorf("the refused sweep wrote sweep.json")
	}
	lk.Unlock()
	runSweep(t, p, Options{Out: dir, Parallel: 2})
	noDebris(t, dir, filepath.Join(dir, CacheDir))
}

// TestConcurrentSweepsIntoOneOut is issue 16's case: two sweep processes with different labels
// into one output directory. The second fails fast with the lock message, so sweep.json and
// cells.parquet always describe the same sweep.
func TestConcurrentSweepsIntoOneOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sweep processes")
	}
	dir := t.TempDir()
	// Deterministically: the directory is held while a process tries it.
	lk, err := lockOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := childCmd(t, dir, "paper").CombinedOutput()
	lk.Unlock()
	if err == nil || !strings.Contains(string(out), fmt.Sprintf("is being written by process %d", os.Getpid())) {
		t.Fatalf("a sweep into a held directory: %v\n%s", err, out)
	}
	// Racing: two processes released together, three times.
	for round := range 3 {
		dir := t.TempDir()
		start := filepath.Join(t.TempDir(), "start")
		var cmds []*exec.Cmd
		for _, label := range []string{"quick", "paper"} {
			cmds = append(cmds, childCmd(t, dir, label, "SWEEP_START="+start))
		}
		outs := startTogether(t, start, cmds)
		ok := 0
		for i, cmd := range cmds {
			if err := cmd.Wait(); err == nil {
				ok++
			} else if !strings.Contains(outs[i].String(), "is being written by process") {
				t.Errorf("round %d: sweep %d failed otherwise: %v\n%s", round, i, err, outs[i])
			}
		}
		if ok == 0 {
			t.Errorf("round %d: both sweeps failed", round)
		}
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := ReadTable(filepath.Join(dir, CellsFile))
		if err != nil {
			t.Fatal(err)
		}
		if m.Label != tb.Label || len(m.Cells) != len(tb.Rows) {
			t.Errorf("round %d: sweep.json says label %s (%d cells), cells.parquet label %s (%d rows)", round, m.Label, len(m.Cells), tb.Label, len(tb.Rows))
		}
		noDebris(t, dir)
	}
}

// startTogether starts child sweeps that wait for the file start (SWEEP_START), then creates
// it, so that they begin at once; it returns their combined outputs.
func startTogether(t *testing.T, start string, cmds []*exec.Cmd) []*bytes.Buffer {
	t.Helper()
	var outs []*bytes.Buffer
	for _, cmd := range cmds {
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, &b)
	}
	if err := os.WriteFile(start, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return outs
}

var ranRE = regexp.MustCompile(`ran=(\d+) cached=(\d+)`)

// TestSharedCacheAcrossProcesses starts three sweep processes of one plan together, each into
// its own output directory and all on one cache: every cell is computed exactly once, by one
// of them, and all three write the bytes of an unshared sweep. A later sweep on the cache
// computes nothing.
func TestSharedCacheAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sweep processes")
	}
	const label = "paper"
	n := len(plan(t, label).Cells)
	ref := t.TempDir()
	runSweep(t, plan(t, label), Options{Out: ref, Parallel: 2})
	want := readFile(t, filepath.Join(ref, CellsFile))

	base := t.TempDir()
	cache := filepath.Join(base, "cache")
	start := filepath.Join(base, "start")
	var cmds []*exec.Cmd
	for i := range 3 {
		cmds = append(cmds, childCmd(t, filepath.Join(base, fmt.Sprintf("out-%d", i)), label, "SWEEP_CACHE="+cache, "SWEEP_START="+start, "SWEEP_PARALLEL=1"))
	}
	outs := startTogether(t, start, cmds)
	ran := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("sweep %d: %v\n%s", i, err, outs[i])
		}
		m := ranRE.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("sweep %d said %q", i, outs[i])
		}
		r, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		if r+c != n {
			t.Errorf("sweep %d: ran %d + cached %d ≠ %d cells", i, r, c, n)
		}
		ran += r
		t.Logf("sweep %d: %s", i, m[0])
		if got := readFile(t, filepath.Join(base, fmt.Sprintf("out-%d", i), CellsFile)); !bytes.Equal(got, want) {
			t.Errorf("sweep %d: cells.parquet differs from an unshared sweep's", i)
		}
	}
	if ran != n {
		t.Errorf("the three sweeps computed %d cells in all, want each of the %d exactly once", ran, n)
	}
	noDebris(t, cache)
	r := runSweep(t, plan(t, label), Options{Out: filepath.Join(base, "later"), Cache: cache, Parallel: 2})
	if r.Ran != 0 || r.Cached != n {
		t.Errorf("a later sweep on the shared cache ran %d, cached %d", r.Ran, r.Cached)
	}
}

// TestShardsShareACache runs three shards on one cache and gathers them, with and without
// telling the gather about the cache: both give the unsharded sweep's bytes.
func TestShardsShareACache(t *testing.T) {
	p := plan(t, "quick")
	whole := t.TempDir()
	runSweep(t, p, Options{Out: whole, Parallel: 2})
	base := t.TempDir()
	cache := filepath.Join(base, "cache")
	var dirs []string
	for i := range 3 {
		d := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		runSweep(t, p, Options{Out: d, Cache: cache, Parallel: 1, Shard: Shard{Index: i, Count: 3}})
		if _, err := os.Stat(filepath.Join(d, CacheDir)); err == nil {
			t.Errorf("shard %d made its own cache despite the shared one", i)
		}
		m, err := ReadManifest(d)
		if err != nil || m.Cache != cache || m.Shards != 3 || m.Assignment != p.AssignmentDigest(3) {
			t.Errorf("shard %d manifest: cache %q shards %d assignment %q, %v", i, m.Cache, m.Shards, m.Assignment, err)
		}
		dirs = append(dirs, d)
	}
	want := readFile(t, filepath.Join(whole, CellsFile))
	for _, o := range []GatherOptions{{Cache: cache}, {}} {
		out := filepath.Join(base, fmt.Sprintf("gathered-%t", o.Cache != ""))
		if _, err := Gather(out, dirs, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, readFile(t, filepath.Join(out, CellsFile))) {
			t.Errorf("gather %+v: cells.parquet differs from the unsharded sweep's", o)
		}
		_, err := os.Stat(filepath.Join(out, CacheDir))
		if copied := err == nil; copied == (o.Cache != "") {
			t.Errorf("gather %+v: copied cells = %v", o, copied)
		}
		noDebris(t, out)
	}
	// Shards split another way (another shard count) are refused.
	other := filepath.Join(base, "other")
	runSweep(t, p, Options{Out: other, Cache: cache, Parallel: 1, Shard: Shard{Index: 1, Count: 2}})
	if _, err := Gather(filepath.Join(base, "mixed"), []string{dirs[0], other}, GatherOptions{}); err == nil || !strings.Contains(err.Error(), "split the sweep differently") {
		t.Errorf("gathering shards of different splits: %v", err)
	}
}

// TestStaleTemporariesAreCleaned: a cache holds what killed sweeps leave (temporary cell
// directories, lock files) next to a live process's temporary; a sweep removes the dead ones and
// leaves the live one alone.
func TestStaleTemporariesAreCleaned(t *testing.T) {
	cache := t.TempDir()
	live := strings.Repeat("a", 64)
	dead := strings.Repeat("b", 64)
	mk := func(name string) string {
		path := filepath.Join(cache, name)
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(path, experiments.SummaryFile), []byte("{trunc"), 0o644)
		return path
	}
	liveTmp := mk(tmpPrefix + live + "-123")
	deadTmp := mk(tmpPrefix + dead + "-456")
	oldTmp := mk(tmpPrefix + dead[:16] + "-789") // an older version's name
	staleLock := filepath.Join(cache, lockPrefix+strings.Repeat("c", 64))
	os.WriteFile(staleLock, nil, 0o644)
	l, ok, err := tryLock(cellLockPath(cache, live))
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	cleanStale(cache)
	for _, gone := range []string{deadTmp, oldTmp, staleLock, cellLockPath(cache, dead)} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s not removed: %v", filepath.Base(gone), err)
		}
	}
	if _, err := os.Stat(liveTmp); err != nil {
		t.Errorf("a live process's temporary was removed: %v", err)
	}
	l.Unlock()
	cleanStale(cache)
	noDebris(t, cache)
}

// TestCellLockIsExclusive: a cell's lock is held by one holder at a time (safefs.TryLock, whose
// tests check the rest of the lock protocol), and claimCell returns at once when the cell is
// finished.
func TestCellLockIsExclusive(t *testing.T) {
	cache := t.TempDir()
	key := strings.Repeat("d", 64)
	a, ok, err := tryLock(cellLockPath(cache, key))
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	if _, ok, _ := tryLock(cellLockPath(cache, key)); ok {
		t.Fatal("a held lock was taken twice")
	}
	a.Unlock()
	os.MkdirAll(CellDir(cache, key), 0o755)
	os.WriteFile(filepath.Join(CellDir(cache, key), experiments.SummaryFile), []byte("{}"), 0o644)
	if l, err := claimCell(t.Context(), cache, key); l != nil || err != nil {
		t.Errorf("claimCell of a finished cell = %v, %v", l, err)
	}
}
