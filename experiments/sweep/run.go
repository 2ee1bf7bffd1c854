package sweep

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/safefs"
)

// Output names inside a sweep's output directory.
const (
	// ManifestFile records the plan (sweep.json).
	ManifestFile = "sweep.json"
	// CacheDir is the default cell cache under the output directory.
	CacheDir = "cells"
)

// Options configure Run.
type Options struct {
	// Out is the output directory (cells.parquet, sweep.json, and the cache by default).
	Out string
	// Cache is the cell cache directory; "" means Out/cells. Caches may be shared between
	// sweeps: a cell's directory name is its content address.
	Cache string
	// Parallel is the number of workers; ≤ 0 means GOMAXPROCS.
	Parallel int
	// Shard restricts the run to a deterministic part of the cells.
	Shard Shard
	// Progress receives a progress bar (Terminal) or periodic plain lines; nil for none.
	Progress io.Writer
	// Terminal selects the redrawn progress bar; otherwise a line every ProgressEvery.
	Terminal bool
	// ProgressEvery is the interval of plain progress lines (default 10 s).
	ProgressEvery time.Duration
}

// Result is a finished sweep.
type Result struct {
	Plan *Plan
	// Table holds the shard's (or whole sweep's) rows as written to cells.parquet.
	Table *Table
	// Ran and Cached count the cells computed by this run and those found in the cache.
	Ran, Cached int
	// Reasons counts the cells computed by this run by why they were not taken from the cache;
	// OtherBuild names a build whose cells of the same configurations the cache held (when
	// Reasons[ReasonOtherBuild] or Reasons[ReasonOldVersion] is not zero).
	Reasons    map[Reason]int
	OtherBuild string
	Elapsed    time.Duration
}

// cacheDir returns the cache directory of opts.
func (o Options) cacheDir() string {
	if o.Cache != "" {
		return o.Cache
	}
	return filepath.Join(o.Out, CacheDir)
}

// CellDir returns where a cell's outputs live in a cache.
func CellDir(cache, key string) string { return filepath.Join(cache, key) }

// Run computes the plan's cells of opts.Shard that are not in the cache, on opts.Parallel
// workers, then writes Out/sweep.json and Out/cells.parquet. On the first cell error it stops
// handing out cells and returns that error after the running cells finish; finished cells stay
// cached. Cancelling ctx stops likewise.
//
// One sweep at a time writes an output directory: Run locks it and fails at once (ErrLocked)
// if another sweep or gather holds it. Caches may be shared by any number of sweeps, on one
// machine or many (a shared file system with working locks): a cell is computed by one of them
// while the others wait for it or do other cells first, and a cell another sweep finished is
// never computed again. Run removes what killed sweeps left behind: temporaries in the output
// directory, and temporaries and lock files in the cache that no live process holds.
func Run(ctx context.Context, p *Plan, opts Options) (*Result, error) {
	begin := time.Now()
	if opts.Out == "" {
		return nil, fmt.Errorf("%w: sweep: no output directory", experiments.ErrConfig)
	}
	lk, err := lockOut(opts.Out)
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	cache := opts.cacheDir()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	cleanStale(cache)
	cleanOutTemps(opts.Out)
	m := newManifest(p, opts.Shard)
	if opts.Cache != "" {
		if m.Cache, err = filepath.Abs(opts.Cache); err != nil {
			return nil, err
		}
	}
	cells := p.ShardCells(opts.Shard)
	res := &Result{Plan: p, Reasons: map[Reason]int{}}
	var todo []*Cell
	var idx cacheIndex
	reasons := map[int]Reason{}
	byReason := map[Reason]int{}
	for _, c := range cells {
		if cached(cache, c.Key) {
			continue
		}
		todo = append(todo, c)
		if idx == nil {
			idx = indexCache(cache)
		}
		r, prev := reasonFor(c, cache, opts.Out, idx)
		reasons[c.Index] = r
		byReason[r]++
		m.Cells[c.Index].Reason, m.Cells[c.Index].Previous = r, prev
		if prev != "" && res.OtherBuild == "" {
			res.OtherBuild = describeBuild(CellDir(cache, prev))
		}
	}
	if err := writeManifest(opts.Out, m); err != nil {
		return nil, err
	}
	// Costliest first, so the last cells to finish are short ones.
	slices.SortStableFunc(todo, func(a, b *Cell) int { return cmp.Compare(p.Cost(b), p.Cost(a)) })
	res.Cached = len(cells) - len(todo)
	p.expect(todo)
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(todo), 1))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &runner{p: p, cache: cache, out: opts.Out, res: res, reasons: reasons, cancel: cancel, errCell: -1,
		prog: newProgress(opts, len(cells), res.Cached, whyLine(p, byReason, res.OtherBuild))}
	// First every cell no other process is computing; then, waiting for them, the others.
	deferred := r.pool(ctx, todo, workers, false)
	if len(deferred) > 0 && ctx.Err() == nil {
		slices.SortFunc(deferred, func(a, b *Cell) int { return a.Index - b.Index })
		r.pool(ctx, deferred, workers, true)
	}
	r.prog.finish()
	// One fsync for all the cells' renames (publishCell leaves it): an fsync per cell made every
	// cell wait for a journal commit and the workers wait for each other's.
	safefs.SyncDir(cache)
	safefs.SyncDir(filepath.Join(opts.Out, UncachedDir)) // nothing when no cell went there
	if r.firstErr != nil {
		return res, r.firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	t, err := buildTable(p.Spec.ID, p.Label, p.Columns, shardRows(p, opts.Shard), []string{cache, filepath.Join(opts.Out, UncachedDir)})
	if err != nil {
		return res, err
	}
	res.Table = t
	if err := writeTable(opts.Out, t); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(begin)
	return res, nil
}

// runner runs a sweep's cells on a pool of workers.
type runner struct {
	p       *Plan
	cache   string
	out     string
	reasons map[int]Reason // why each cell to run is not cached
	res     *Result
	prog    *progress
	cancel  context.CancelFunc

	mu       sync.Mutex
	firstErr error
	errCell  int
}

// pool runs cells on workers and returns those it left to other processes computing them (only
// when wait is false: with wait, a worker waits for such a cell and computes it if the other
// process did not finish it).
func (r *runner) pool(ctx context.Context, cells []*Cell, workers int, wait bool) []*Cell {
	next := make(chan *Cell)
	var (
		wg       sync.WaitGroup
		deferred []*Cell
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				ran, busy, err := doCell(ctx, r.p, c, r.cache, r.out, wait)
				r.mu.Lock()
				switch {
				case busy:
					deferred = append(deferred, c)
				case err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled):
					// Stopped while waiting for another process: not this cell's failure.
				case err != nil:
					// Report the lowest failing cell among those that failed, for stable messages.
					if r.firstErr == nil || c.Index < r.errCell {
						r.firstErr, r.errCell = fmt.Errorf("cell %d (%s): %w", c.Index, r.p.Describe(c), err), c.Index
					}
					r.cancel()
				case ran:
					r.res.Ran++
					r.res.Reasons[r.reasons[c.Index]]++
				default:
					r.res.Cached++ // finished by another process meanwhile
				}
				r.mu.Unlock()
				if !busy {
					r.prog.done(err == nil)
				}
			}
		}()
	}
feed:
	for _, c := range cells {
		select {
		case next <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return deferred
}

// doCell computes a cell unless it is in the cache or gets there meanwhile, holding the cell's
// lock while it does; ran reports whether this process computed it. Without wait, a cell whose
// lock another process holds is left alone (busy); with wait, doCell waits for that process.
func doCell(ctx context.Context, p *Plan, c *Cell, cache, out string, wait bool) (ran, busy bool, err error) {
	var l *safefs.Lock
	if wait {
		if l, err = claimCell(ctx, cache, c.Key); err != nil || l == nil {
			p.release(c.Config.Workload)
			return false, false, err
		}
	} else {
		var ok bool
		if !cached(cache, c.Key) {
			l, ok, err = tryLock(cellLockPath(cache, c.Key))
			if err != nil {
				return false, false, err
			}
			if !ok {
				return false, true, nil
			}
		}
	}
	defer l.Unlock()
	if l == nil || cached(cache, c.Key) { // finished by another process before we looked or locked
		p.release(c.Config.Workload)
		return false, false, nil
	}
	return true, false, runCell(p, c, cache, out, l)
}

func shardRows(p *Plan, s Shard) []manifestCell {
	var out []manifestCell
	for _, c := range p.ShardCells(s) {
		out = append(out, manifestCellOf(p, c))
	}
	return out
}

// cached reports whether a cell's outputs are complete in the cache. Only a finished cell's
// directory has its final name, so existence is completeness.
func cached(cache, key string) bool {
	st, err := os.Stat(filepath.Join(CellDir(cache, key), experiments.SummaryFile))
	return err == nil && st.Mode().IsRegular()
}

// cleanOutTemps removes the temporary files (of cells.parquet, sweep.json, an emitted job) that
// a killed sweep, gather or emit left in an output directory. The caller holds the directory's
// lock, so no live process is writing them.
func cleanOutTemps(out string) {
	tmps, _ := filepath.Glob(filepath.Join(out, ".*.tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
}

// runCell replays one cell and moves its outputs into the cache atomically, then adds its
// measured cost (CostFile) — or, when the result is not deterministic, moves outputs and cost
// into out/UncachedDir, where this sweep's table finds them and no later sweep takes them for a
// cached cell. The caller holds the cell's lock, l. A panic in the replay or in a writer (an
// encoder's on a full disk, say) becomes the cell's error.
//
// The lock file becomes the published cell's CostFile (Lock.Rename) rather than being deleted:
// on ext4 without a journal (this project's VMs) every inode allocation scans past the inodes
// of its block group deleted in the last minute (fs/ext4/ialloc.c, recently_deleted), so a lock
// file deleted per cell made each later cell's file creations slower, the more so the longer
// the sweep ran; and a cell creates one file fewer.
func runCell(p *Plan, c *Cell, cache, out string, l *safefs.Lock) error {
	w, hash, err := p.acquire(c.Config.Workload)
	if err != nil {
		return err
	}
	var o *experiments.Outcome
	cost := cellCost{Estimate: p.estimates[c.Index], Policy: c.Config.Policy.Name}
	err = safely(func() (err error) {
		// The replay runs on this goroutine: its thread's CPU time is the cell's cost, which,
		// unlike its wall time, other load on the machine hardly changes.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu0, cpuOK := threadCPU()
		begin := time.Now()
		o, err = experiments.RunHashed(c.Config, w, hash)
		cost.WallSeconds = time.Since(begin).Seconds()
		cost.CPUSeconds = cost.WallSeconds
		if cpu1, ok := threadCPU(); ok && cpuOK {
			cost.CPUSeconds = (cpu1 - cpu0).Seconds()
		}
		return err
	})
	p.release(c.Config.Workload)
	if err != nil {
		return err
	}
	defer o.Close() // a recorded cell's temporary files
	if o.Nondeterministic == "" && nondeterministicForTest != nil {
		o.Nondeterministic = nondeterministicForTest(c)
	}
	dest := cache
	if o.Nondeterministic != "" {
		// The output directory is locked by this sweep: replace an earlier result in place.
		dest = filepath.Join(out, UncachedDir)
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		if err := os.RemoveAll(CellDir(dest, c.Key)); err != nil {
			return err
		}
	}
	b, err := json.Marshal(cost)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if dest != cache { // out/UncachedDir, maybe on another file system than the lock
		return publishCell(dest, c.Key, func(dir string) error {
			if err := o.WriteOutputs(dir); err != nil {
				return err
			}
			// Inside the cell's temporary directory, whose rename publishes it: no fsync needed.
			return os.WriteFile(filepath.Join(dir, CostFile), b, 0o644)
		})
	}
	if err := publishCell(cache, c.Key, o.WriteOutputs); err != nil {
		return err
	}
	// The lock's name stays taken until the cell is published, so no other process starts
	// computing it meanwhile; the cost arrives an instant after the results (readCost takes the
	// replay's wall time from summary.json for a cell without one), and a crash in between loses
	// only the measurement.
	return writeLockAs(l, b, filepath.Join(CellDir(cache, c.Key), CostFile))
}

// writeLockAs makes the held lock file l the file path holding data (see runCell).
func writeLockAs(l *safefs.Lock, data []byte, path string) error {
	f := l.File()
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	return l.Rename(path)
}

// nondeterministicForTest, when set by a test, marks cells' results nondeterministic as a
// policy that hit a wall-clock limit would (experiments.Nondeterminist).
var nondeterministicForTest func(*Cell) string

// publishCell fills a temporary directory in the cache and renames it to the cell's key, so a
// cell directory is either complete or absent. The caller holds the cell's lock, so no other
// process publishes the cell meanwhile. It does not fsync the cache directory: the caller does,
// once for all the cells it published (a crash before then loses finished cells, which a later
// sweep computes again).
func publishCell(cache, key string, fill func(dir string) error) error {
	tmp, err := safefs.MkdirTemp(cache, tmpPrefix+key+"-*")
	if err != nil {
		return err
	}
	if err := safely(func() error { return fill(tmp) }); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, CellDir(cache, key)); err != nil {
		os.RemoveAll(tmp)
		if cached(cache, key) { // published by a process that ignored the lock (an old version)
			return nil
		}
		return err
	}
	return nil
}

// safely runs f and turns a panic in it into an error: library writers (Arrow's Parquet writer
// among them) may panic on I/O errors such as a full disk, and a sweep reports those as errors.
func safely(f func() error) error { return safefs.Recover(f) }

// buildTable reads the rows' metrics from the first cache holding each cell, on up to
// GOMAXPROCS goroutines (reading and decoding the summaries was 0.23 ms per cell, all of it
// after the workers' last cell); the rows and an error do not depend on their number.
func buildTable(spec, label string, cols []Column, cells []manifestCell, caches []string) (*Table, error) {
	t := &Table{Spec: spec, Label: label, Axes: cols}
	rows := make([]Row, len(cells))
	found := make([]bool, len(cells))
	errs := make([]error, len(cells))
	readers := min(runtime.GOMAXPROCS(0), len(cells)/64+1)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; i < len(cells); i += readers {
				rows[i], found[i], errs[i] = tableRow(cols, cells[i], caches)
			}
		}()
	}
	wg.Wait()
	var missing []string
	t.Rows = make([]Row, 0, len(cells))
	for i, mc := range cells {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if !found[i] {
			missing = append(missing, fmt.Sprintf("%d", mc.Index))
			continue
		}
		t.Rows = append(t.Rows, rows[i])
	}
	if len(missing) > 0 {
		if len(missing) > 20 {
			missing = append(missing[:20], "…")
		}
		has := " has no results (cell "
		if len(missing) > 1 {
			has = " have no results (cells "
		}
		return nil, fmt.Errorf("sweep: %s%s%s)", cellCount(len(missing)), has, strings.Join(missing, ", "))
	}
	slices.SortFunc(t.Rows, func(a, b Row) int { return a.Cell - b.Cell })
	t.Metrics = metricNames(t.Rows)
	return t, nil
}

// FindCell returns the directory of cell key's complete outputs in the first of caches holding
// them (a sweep's cache, then its UncachedDir, say); ok is false when none does.
func FindCell(caches []string, key string) (dir string, ok bool) {
	for _, c := range caches {
		if c != "" && cached(c, key) {
			return CellDir(c, key), true
		}
	}
	return "", false
}

// tableRow reads one cell's row from the first cache holding it; found is false when none does.
func tableRow(cols []Column, mc manifestCell, caches []string) (r Row, found bool, err error) {
	dir, ok := FindCell(caches, mc.Key)
	if !ok {
		return Row{}, false, nil
	}
	doc, err := readSummary(dir)
	if err != nil {
		return Row{}, true, err
	}
	m, err := Metrics(doc)
	if err != nil {
		return Row{}, true, err
	}
	r = Row{Cell: mc.Index, Key: mc.Key, Seed: mc.Seed, Metrics: m}
	for i, c := range cols {
		if mc.Values[i] == nil { // null: key unset
			r.Axes = append(r.Axes, nil)
			continue
		}
		v, err := parseTyped(*mc.Values[i], c.Type)
		if err != nil {
			return Row{}, true, fmt.Errorf("cell %d: column %s: %w", mc.Index, c.Key, err)
		}
		r.Axes = append(r.Axes, v)
	}
	return r, true, nil
}

func writeTable(dir string, t *Table) error {
	return WriteFileAtomic(filepath.Join(dir, CellsFile), func(w io.Writer) error { return t.Write(w) })
}

// WriteFileAtomic writes path through a temporary file in its directory, synced, and a rename,
// so readers see the old content or the new, never a part (safefs.WriteFile); it creates the
// directory first.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefs.WriteFile(path, write)
}
