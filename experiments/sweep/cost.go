package sweep

import (
	"cmp"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/experiments"
)

// Shards are balanced by cost. Every cell has a cost — an estimate from the plan, or a measured
// time from a previous run (LoadCosts) — and the n shards of a sweep are filled by the
// longest-processing-time rule: cells in order of decreasing cost (ties by index) each go to the
// shard with the least cost so far (ties to the lowest shard). The assignment depends only on the
// plan and its costs, so every shard computes the same one on its own, with no coordination.

// PolicyCostClass is the relative cost per task of replaying a workload under a policy: the
// estimate of a cell's cost is its workload's task count times its policy's class. Heuristic
// policies (one pass over the queue per scheduling point) are 1; BPF and N-BPF cost about a
// quarter more (measured on bpf/table4's paper sweep); solver-backed policies solve an LP or
// MILP per event or cycle, and their 40 is a prior, not a measurement: a previous run's measured
// times replace it (LoadCosts). A policy not listed here is 1.
var PolicyCostClass = map[string]float64{
	"fifo": 1, "fair": 1, "drf": 1, "sp": 1, "edf": 1, "srpt": 1,
	"bpf": 1.3, "nbpf": 1.3,
	"cora": 40, "jvsched": 40, "tetrisched": 40,
}

// estimateCost is the plan's cost estimate of a cell: its workload's tasks × its policy's class.
func estimateCost(cfg experiments.Config, tasks int64) float64 {
	class, ok := PolicyCostClass[cfg.Policy.Name]
	if !ok {
		class = 1
	}
	return float64(max(tasks, 1)) * class
}

// Cost returns a cell's cost: its measured time in seconds when LoadCosts found one, else the
// estimate (scaled to seconds when LoadCosts measured other cells).
func (p *Plan) Cost(c *Cell) float64 { return p.costs[c.Index] }

// CostSource says where the plan's costs come from.
func (p *Plan) CostSource() string { return p.costSource }

// Assignment returns the shard (0 ≤ shard < n) of every cell, by cell index.
func (p *Plan) Assignment(n int) []int {
	p.amu.Lock()
	defer p.amu.Unlock()
	if a, ok := p.assignments[n]; ok {
		return a
	}
	a := balance(p.costs, n)
	if p.assignments == nil {
		p.assignments = map[int][]int{}
	}
	p.assignments[n] = a
	return a
}

// AssignmentDigest identifies the assignment of the cells to n shards, so that gathering can
// check that every shard used the same one ("" for the whole sweep).
func (p *Plan) AssignmentDigest(n int) string {
	if n <= 1 {
		return ""
	}
	h := sha256.New()
	for i, s := range p.Assignment(n) {
		fmt.Fprintf(h, "%d:%d\n", i, s)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// balance assigns items with the given costs to n bins by the longest-processing-time rule.
func balance(costs []float64, n int) []int {
	out := make([]int, len(costs))
	if n <= 1 {
		return out
	}
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	bins := make(binHeap, n)
	for i := range bins {
		bins[i] = bin{index: i}
	}
	for _, i := range order {
		out[i] = bins[0].index
		bins[0].load += costs[i]
		heap.Fix(&bins, 0)
	}
	return out
}

type bin struct {
	load  float64
	index int
}

type binHeap []bin

func (h binHeap) Len() int { return len(h) }
func (h binHeap) Less(i, j int) bool {
	if h[i].load != h[j].load {
		return h[i].load < h[j].load
	}
	return h[i].index < h[j].index
}
func (h binHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *binHeap) Push(x any)   { *h = append(*h, x.(bin)) }
func (h *binHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// configDigest identifies a cell's resolved configuration independently of schedlab's version
// and of the workload's bytes, so cells of a previous run (another version, another cache) can
// be matched with this plan's: the SHA-256 of the configuration's canonical JSON.
func configDigest(m map[string]any) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	// Through a generic value and back: numbers and empty lists come out as they do when the
	// configuration is read from a summary.json.
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	if b, err = json.Marshal(v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// LoadCosts replaces the plan's cost estimates with the cells' measured replay times from a
// previous sweep's output directory dir (its sweep.json and cache; another label, version or
// shard count of the sweep will do: cells are matched by their resolved configuration). A cell
// without a measurement keeps its estimate, scaled to seconds by the median ratio of measured
// time to estimate over the measured cells of its policy (or of all policies). It returns how
// many cells were measured; none is an error.
//
// Every shard of a sweep must load the same costs: point dir at a finished run, not at one
// being written.
func (p *Plan) LoadCosts(dir string) (int, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return 0, fmt.Errorf("--costs: %w", err)
	}
	times := map[string]float64{}
	for _, mc := range m.Cells {
		cdir := findCell(mc.Key, m.caches(dir))
		if cdir == "" {
			continue
		}
		doc, err := readSummary(cdir)
		if err != nil || doc.Engine.WallSeconds <= 0 {
			continue
		}
		d, err := configDigest(doc.Provenance.Config)
		if err != nil {
			continue
		}
		times[d] = doc.Engine.WallSeconds
	}
	measured := make([]bool, len(p.Cells))
	costs := slices.Clone(p.costs)
	ratios := map[string][]float64{} // policy → measured / estimate
	n := 0
	for i := range p.Cells {
		c := &p.Cells[i]
		d, err := configDigest(c.Config.Map())
		if err != nil {
			return 0, err
		}
		if t, ok := times[d]; ok {
			ratios[c.Config.Policy.Name] = append(ratios[c.Config.Policy.Name], t/costs[i])
			ratios[""] = append(ratios[""], t/costs[i])
			costs[i], measured[i] = t, true
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: --costs %s: none of the %d cells of %s (label %q) was measured there", experiments.ErrConfig, dir, len(p.Cells), p.Spec.ID, p.Label)
	}
	for i := range p.Cells {
		if measured[i] {
			continue
		}
		r, ok := ratios[p.Cells[i].Config.Policy.Name]
		if !ok {
			r = ratios[""]
		}
		costs[i] *= median(r)
	}
	p.amu.Lock()
	p.costs, p.assignments = costs, nil
	p.costSource = fmt.Sprintf("%d of %d cells measured in %s", n, len(p.Cells), dir)
	p.amu.Unlock()
	return n, nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ShardLoad is one shard's part of a sweep: its cells, their estimated cost and, for the cells
// whose replay time a cache holds, the measured time.
type ShardLoad struct {
	Shard    int
	Cells    int
	Cost     float64
	Measured float64 // seconds of replay of the measured cells
	// MeasuredCells counts the cells with a measured time.
	MeasuredCells int
}

// Balance describes how the cells are spread over n shards; caches, when given, are searched for
// the cells' measured replay times (engine.wall_s of their summary.json).
func (p *Plan) Balance(n int, caches []string) []ShardLoad {
	loads := make([]ShardLoad, max(n, 1))
	for i := range loads {
		loads[i].Shard = i
	}
	a := p.Assignment(n)
	for i := range p.Cells {
		l := &loads[a[i]]
		l.Cells++
		l.Cost += p.costs[i]
		if dir := findCell(p.Cells[i].Key, caches); dir != "" {
			if doc, err := readSummary(dir); err == nil {
				l.Measured += doc.Engine.WallSeconds
				l.MeasuredCells++
			}
		}
	}
	return loads
}

// MaxOverMean returns the largest value over the mean of values (1 for equal values, 0 when all
// are 0).
func MaxOverMean(values []float64) float64 {
	var sum, most float64
	for _, v := range values {
		sum += v
		most = max(most, v)
	}
	if sum == 0 {
		return 0
	}
	return most / (sum / float64(len(values)))
}

// findCell returns the directory of the first cache holding a finished cell, or "".
func findCell(key string, caches []string) string {
	for _, c := range caches {
		if cached(c, key) {
			return CellDir(c, key)
		}
	}
	return ""
}

// caches returns where the cells of the sweep whose output directory is dir are: the shared
// cache it recorded, if any, and its own cells/ directory.
func (m *Manifest) caches(dir string) []string {
	var out []string
	if m.Cache != "" {
		out = append(out, m.Cache)
	}
	return append(out, filepath.Join(dir, CacheDir))
}

// formatCount writes n with thousands separators.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
