package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/experiments"
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
	Elapsed     time.Duration
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
// cached. Cancelling ctx stops likewise. One sweep at a time may write an output directory
// (Run removes the temporaries a killed sweep left there); sweeps writing different output
// directories may share a cache.
func Run(ctx context.Context, p *Plan, opts Options) (*Result, error) {
	begin := time.Now()
	if opts.Out == "" {
		return nil, fmt.Errorf("%w: sweep: no output directory", experiments.ErrConfig)
	}
	cache := opts.cacheDir()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	cleanTemps(cache)
	cleanOutTemps(opts.Out)
	if err := writeManifest(opts.Out, newManifest(p, opts.Shard)); err != nil {
		return nil, err
	}
	cells := p.ShardCells(opts.Shard)
	var todo []*Cell
	for _, c := range cells {
		if !cached(cache, c.Key) {
			todo = append(todo, c)
		}
	}
	res := &Result{Plan: p, Cached: len(cells) - len(todo)}
	p.expect(todo)
	prog := newProgress(opts, len(cells), res.Cached)
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(todo), 1))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan *Cell)
	var (
		mu       sync.Mutex
		firstErr error
		errCell  = -1
	)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				err := runCell(p, c, cache)
				mu.Lock()
				if err != nil {
					// Report the lowest failing cell among those that failed, for stable messages.
					if firstErr == nil || c.Index < errCell {
						firstErr, errCell = fmt.Errorf("cell %d (%s): %w", c.Index, p.Describe(c), err), c.Index
					}
					cancel()
				} else {
					res.Ran++
				}
				mu.Unlock()
				prog.done(err == nil)
			}
		}()
	}
feed:
	for _, c := range todo {
		select {
		case next <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	prog.finish()
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	t, err := buildTable(p.Spec.ID, p.Label, p.Columns, shardRows(p, opts.Shard), []string{cache})
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

// cleanTemps removes half-written cell directories left by a killed sweep.
func cleanTemps(cache string) {
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
}

// cleanOutTemps removes temporary files of cells.parquet and sweep.json left by a killed sweep.
func cleanOutTemps(out string) {
	for _, name := range []string{CellsFile, ManifestFile} {
		tmps, _ := filepath.Glob(filepath.Join(out, "."+name+".tmp-*"))
		for _, t := range tmps {
			os.Remove(t)
		}
	}
}

// runCell replays one cell and moves its outputs into the cache atomically.
func runCell(p *Plan, c *Cell, cache string) error {
	w, hash, err := p.acquire(c.Config.Workload)
	if err != nil {
		return err
	}
	o, err := experiments.RunHashed(c.Config, w, hash)
	p.release(c.Config.Workload)
	if err != nil {
		return err
	}
	return storeCell(cache, c.Key, o)
}

// storeCell writes an outcome into a temporary directory in the cache and renames it to the
// cell's key, so a cell directory is either complete or absent.
func storeCell(cache, key string, o *experiments.Outcome) error {
	tmp, err := os.MkdirTemp(cache, ".tmp-"+key[:16]+"-")
	if err != nil {
		return err
	}
	if err := o.WriteOutputs(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	final := CellDir(cache, key)
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		if cached(cache, key) { // another sweep sharing the cache finished it first
			return nil
		}
		return err
	}
	return syncDir(cache)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Sync() // some file systems cannot sync directories; the rename is atomic regardless
	return nil
}

// buildTable reads the rows' metrics from the first cache holding each cell.
func buildTable(spec, label string, cols []Column, cells []manifestCell, caches []string) (*Table, error) {
	t := &Table{Spec: spec, Label: label, Axes: cols, Rows: make([]Row, 0, len(cells))}
	var missing []string
	for _, mc := range cells {
		var dir string
		for _, c := range caches {
			if cached(c, mc.Key) {
				dir = CellDir(c, mc.Key)
				break
			}
		}
		if dir == "" {
			missing = append(missing, fmt.Sprintf("%d", mc.Index))
			continue
		}
		doc, err := readSummary(dir)
		if err != nil {
			return nil, err
		}
		m, err := Metrics(doc)
		if err != nil {
			return nil, err
		}
		r := Row{Cell: mc.Index, Key: mc.Key, Seed: mc.Seed, Metrics: m}
		for i, c := range cols {
			if mc.Values[i] == nil { // null: key unset
				r.Axes = append(r.Axes, nil)
				continue
			}
			v, err := parseTyped(*mc.Values[i], c.Type)
			if err != nil {
				return nil, fmt.Errorf("cell %d: column %s: %w", mc.Index, c.Key, err)
			}
			r.Axes = append(r.Axes, v)
		}
		t.Rows = append(t.Rows, r)
	}
	if len(missing) > 0 {
		if len(missing) > 20 {
			missing = append(missing[:20], "…")
		}
		return nil, fmt.Errorf("sweep: %d cells have no results (cells %s)", len(missing), strings.Join(missing, ", "))
	}
	slices.SortFunc(t.Rows, func(a, b Row) int { return a.Cell - b.Cell })
	t.Metrics = metricNames(t.Rows)
	return t, nil
}

func writeTable(dir string, t *Table) error {
	return WriteFileAtomic(filepath.Join(dir, CellsFile), func(w io.Writer) error { return t.Write(w) })
}

// WriteFileAtomic writes path through a temporary file in its directory, synced, and a rename,
// so readers see the old content or the new, never a part.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// Manifest is the content of sweep.json: everything needed to gather shard outputs into the
// whole sweep's cells.parquet without the spec.
type Manifest struct {
	Version  string         `json:"schedlab_version"`
	Spec     string         `json:"spec"`
	SpecFile string         `json:"spec_file"`
	Label    string         `json:"label"`
	Sets     []string       `json:"sets"`
	Shard    string         `json:"shard"`
	PlanHash string         `json:"plan_hash"`
	Columns  []Column       `json:"columns"`
	Cells    []manifestCell `json:"cells"`
}

// manifestCell is one cell of the plan, its axis values formatted (JSON null for a null value).
type manifestCell struct {
	Index  int       `json:"cell"`
	Key    string    `json:"key"`
	Values []*string `json:"values"`
	Seed   int64     `json:"seed"`
}

func manifestCellOf(p *Plan, c *Cell) manifestCell {
	mc := manifestCell{Index: c.Index, Key: c.Key, Seed: c.Seed}
	for _, v := range c.Values {
		if v == nil {
			mc.Values = append(mc.Values, nil)
			continue
		}
		f := experiments.FormatValue(v)
		mc.Values = append(mc.Values, &f)
	}
	return mc
}

func newManifest(p *Plan, s Shard) *Manifest {
	m := &Manifest{Version: experiments.Version, Spec: p.Spec.ID, SpecFile: p.Spec.File, Label: p.Label,
		Sets: p.Sets, Shard: s.String(), PlanHash: p.Hash(), Columns: p.Columns}
	if m.Sets == nil {
		m.Sets = []string{}
	}
	for i := range p.Cells {
		m.Cells = append(m.Cells, manifestCellOf(p, &p.Cells[i]))
	}
	return m
}

func writeManifest(dir string, m *Manifest) error {
	return WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// ReadManifest reads DIR/sweep.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}

// Gather merges the outputs of a sweep's shards (each an output directory of a Run with a
// Shard) into out: it checks that they belong to the same plan, copies every cell's outputs
// into out's cache, and writes out/cells.parquet and out/sweep.json for the whole sweep. It
// fails if any cell is in no shard.
func Gather(out string, dirs []string) (*Table, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: --gather: no shard directories", experiments.ErrConfig)
	}
	var first *Manifest
	var caches []string
	for _, d := range dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return nil, fmt.Errorf("gather: %w", err)
		}
		if first == nil {
			first = m
		} else if m.PlanHash != first.PlanHash {
			return nil, fmt.Errorf("gather: %s is a different sweep (spec %s label %q sets %q) from %s (spec %s label %q sets %q)",
				d, m.Spec, m.Label, m.Sets, dirs[0], first.Spec, first.Label, first.Sets)
		}
		caches = append(caches, filepath.Join(d, CacheDir))
	}
	outCache := filepath.Join(out, CacheDir)
	if err := os.MkdirAll(outCache, 0o755); err != nil {
		return nil, err
	}
	cleanTemps(outCache)
	for _, mc := range first.Cells {
		if cached(outCache, mc.Key) {
			continue
		}
		for _, c := range caches {
			if cached(c, mc.Key) {
				if err := copyCell(CellDir(c, mc.Key), outCache, mc.Key); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	t, err := buildTable(first.Spec, first.Label, first.Columns, first.Cells, []string{outCache})
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	whole := *first
	whole.Shard = Shard{}.String()
	if err := writeManifest(out, &whole); err != nil {
		return nil, err
	}
	return t, writeTable(out, t)
}

// copyCell copies a cell directory into a cache through a temporary directory and a rename.
func copyCell(src, cache, key string) error {
	tmp, err := os.MkdirTemp(cache, ".tmp-"+key[:16]+"-")
	if err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		return WriteFileAtomic(filepath.Join(tmp, rel), func(w io.Writer) error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
	})
	if err == nil {
		err = os.Rename(tmp, CellDir(cache, key))
		if err != nil && cached(cache, key) {
			err = nil
		}
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}
