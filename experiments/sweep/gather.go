package sweep

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/safefs"
)

// GatherOptions configure Gather.
type GatherOptions struct {
	// Cache is the shared cell cache the shards used (--cache): the gathered sweep's cells are
	// read there and stay there, instead of being copied into out/cells.
	Cache string
}

// Gather merges the outputs of a sweep's shards (each an output directory of a Run with a
// Shard) into out: it checks that they belong to the same plan and were assigned the same way,
// copies every cell's outputs into out's cache (unless the shards shared o.Cache), and writes
// out/cells.parquet and out/sweep.json for the whole sweep. It fails if any cell is in no
// shard, naming the shards it was not given.
func Gather(out string, dirs []string, o GatherOptions) (*Table, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: --gather: no shard directories", experiments.ErrConfig)
	}
	lk, err := lockOut(out)
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	cleanOutTemps(out)
	shared := ""
	if o.Cache != "" {
		if shared, err = filepath.Abs(o.Cache); err != nil {
			return nil, err
		}
	}
	var (
		first    *Manifest
		caches   []string
		uncached []string
		have     []string
	)
	if shared != "" {
		caches = append(caches, shared)
	}
	for _, d := range dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return nil, fmt.Errorf("gather: %w", err)
		}
		if first == nil {
			first = m
		} else if m.Build != first.Build {
			return nil, fmt.Errorf("gather: %s was computed by another build (%s) than %s (%s); run every shard with the same schedlab binary",
				d, m.Build, dirs[0], first.Build)
		} else if m.PlanHash != first.PlanHash {
			return nil, fmt.Errorf("gather: %s is a different sweep (spec %s label %q sets %q) from %s (spec %s label %q sets %q)",
				d, m.Spec, m.Label, m.Sets, dirs[0], first.Spec, first.Label, first.Sets)
		} else if m.Shards != first.Shards || m.Assignment != first.Assignment {
			return nil, fmt.Errorf("gather: %s (shard %s, assignment %s) and %s (shard %s, assignment %s) split the sweep differently; run every shard with the same --shard count and the same --costs",
				d, m.Shard, orNone(m.Assignment), dirs[0], first.Shard, orNone(first.Assignment))
		}
		caches = append(caches, m.caches(d)...)
		uncached = append(uncached, filepath.Join(d, UncachedDir))
		have = append(have, m.Shard)
	}
	outCache := filepath.Join(out, CacheDir)
	if shared != "" {
		outCache = shared
	} else if err := copyCells(first.Cells, caches, outCache); err != nil {
		return nil, err
	}
	// Nondeterministic cells stay out of the cache in the gathered output too.
	outUncached := filepath.Join(out, UncachedDir)
	var left []manifestCell
	for _, mc := range first.Cells {
		if !cached(outCache, mc.Key) && findCell(mc.Key, uncached) != "" {
			left = append(left, mc)
		}
	}
	if len(left) > 0 {
		if err := copyCells(left, uncached, outUncached); err != nil {
			return nil, err
		}
	}
	t, err := buildTable(first.Spec, first.Label, first.Columns, first.Cells, []string{outCache, outUncached})
	if err != nil {
		if first.Shards > 1 {
			err = fmt.Errorf("%w; given shards %s of %d", err, strings.Join(have, ", "), first.Shards)
		}
		return nil, fmt.Errorf("gather: %w", err)
	}
	whole := *first
	whole.Shard, whole.Shards, whole.Assignment, whole.Cache = Shard{}.String(), 0, "", shared
	whole.Cells = slices.Clone(whole.Cells)
	for i := range whole.Cells { // why a shard computed a cell is that shard's story
		whole.Cells[i].Reason, whole.Cells[i].Previous = "", ""
	}
	if err := writeManifest(out, &whole); err != nil {
		return nil, err
	}
	return t, writeTable(out, t)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// copyCells copies every cell found in caches into cache, each through a temporary directory
// and a rename under the cell's lock.
func copyCells(cells []manifestCell, caches []string, cache string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	cleanStale(cache)
	for _, mc := range cells {
		if cached(cache, mc.Key) {
			continue
		}
		src := findCell(mc.Key, slices.DeleteFunc(slices.Clone(caches), func(c string) bool { return c == cache }))
		if src == "" {
			continue // buildTable names the missing cells
		}
		l, err := claimCell(context.Background(), cache, mc.Key)
		if err != nil {
			return err
		}
		if l == nil {
			continue
		}
		err = publishCell(cache, mc.Key, func(tmp string) error { return copyDir(src, tmp) })
		l.Unlock()
		if err != nil {
			return err
		}
	}
	safefs.SyncDir(cache)
	return nil
}

// copyDir copies the regular files of src into the existing directory dst.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		return safefs.CopyFile(target, in)
	})
}
