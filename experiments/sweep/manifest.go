package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/buildid"
)

// Manifest is the content of sweep.json: everything needed to gather shard outputs into the
// whole sweep's cells.parquet without the spec.
type Manifest struct {
	Version string `json:"schedlab_version"`
	// Build is the build that wrote the manifest and addresses the cells (their keys).
	Build    buildid.ID `json:"build"`
	Spec     string     `json:"spec"`
	SpecFile string     `json:"spec_file"`
	Label    string     `json:"label"`
	Sets     []string   `json:"sets"`
	Shard    string     `json:"shard"`
	// Shards is the shard count and Assignment identifies how the cells were assigned to the
	// shards (Plan.AssignmentDigest); both are empty for a whole sweep.
	Shards     int    `json:"shards,omitempty"`
	Assignment string `json:"assignment,omitempty"`
	// Cache is the shared cell cache the sweep used (absolute), when not DIR/cells.
	Cache    string         `json:"cache,omitempty"`
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
	// Reason says why the sweep that wrote the manifest computed the cell (absent: it was
	// cached, or the cell is in another shard); Previous is the cache key of the cell of the same
	// configuration another build computed, which this build did not reuse.
	Reason   Reason `json:"reason,omitempty"`
	Previous string `json:"previous_key,omitempty"`
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
	m := &Manifest{Version: experiments.Version, Build: p.Build, Spec: p.Spec.ID, SpecFile: p.Spec.File, Label: p.Label,
		Sets: p.Sets, Shard: s.String(), PlanHash: p.Hash(), Columns: p.Columns}
	if s.Count > 1 {
		m.Shards, m.Assignment = s.Count, p.AssignmentDigest(s.Count)
	}
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

// FindCell returns the directory holding a cell of the sweep whose output directory is out — in
// the shared cache the manifest names, out/cells or out/uncached — or "" if none holds it.
func (m *Manifest) FindCell(out, key string) string {
	return findCell(key, append(m.caches(out), filepath.Join(out, UncachedDir)))
}

// ReadCellSummary reads the summary.json of a cell directory.
func ReadCellSummary(dir string) (*experiments.SummaryDoc, error) { return readSummary(dir) }
