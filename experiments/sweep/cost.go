package sweep

import (
	"cmp"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
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
//
// The estimate follows the policies' documented cost, O(tasks · log entities) per replay, where
// the entities are what the policy orders (queues at policy.level queue, jobs otherwise):
// tasks × class × (1 + log2(entities)/6). The engine's per-task share does not grow with the
// entities, hence the 1/6: on bpf/table4's paper sweep, the replay's CPU time per task grows
// 1.53-fold (TPC-DS) to 1.57-fold (BigBench) from 2 to 33 queues, and (1 + log2 q/6) 1.58-fold.
// The policy's class is PolicyCostClass.

// PolicyCostClass is the relative cost per task of replaying a workload under a policy.
// Heuristic policies (one ordered pass per scheduling point) are 1, and so are BPF and N-BPF:
// their CPU time per task on bpf/table4's paper sweep is within 2% of DRF's and SP's.
// Solver-backed policies solve an LP or MILP per event or cycle; their 40 is a prior, not a
// measurement, until a previous run's measured times replace it (LoadCosts). CORA's default
// exact solver is measured: 3.1× FIFO's replay CPU time on cora/table1's paper sweep (its lp
// solver is thousands of times slower, which LoadCosts learns). jvusched's 1000 is measured
// too: on JamaisVu's EXP1 (1,000 jobs, SC256, 5 s cycles) it costs 2.4 ms of CPU per task
// against sp's 2.5 µs. A policy not listed here is 1.
var PolicyCostClass = map[string]float64{
	"fifo": 1, "fair": 1, "drf": 1, "sp": 1, "edf": 1, "srpt": 1, "bpf": 1, "nbpf": 1,
	"cora": 3, "jvusched": 1000, "tetrisched": 40,
}

// estimateCost is the plan's cost estimate of a cell.
func estimateCost(cfg experiments.Config, lw *loadedWorkload) float64 {
	class, ok := PolicyCostClass[cfg.Policy.Name]
	if !ok {
		class = 1
	}
	entities := lw.jobs
	if cfg.Policy.Level == "queue" {
		entities = lw.queues
	}
	return float64(max(lw.tasks, 1)) * class * (1 + math.Log2(float64(max(entities, 1)))/6)
}

// CostFile is a cell's measured cost, written beside its outputs in the cache: the replay's
// CPU time (of the thread that ran it, where the system says; else its wall time), its wall
// time and the plan's estimate, so that later sweeps can balance their shards by it (LoadCosts,
// Balance). It is not part of the results and not deterministic.
const CostFile = "cost.json"

// cellCost is the content of cost.json.
type cellCost struct {
	CPUSeconds  float64 `json:"replay_cpu_s"`
	WallSeconds float64 `json:"replay_wall_s"`
	Estimate    float64 `json:"estimate"`
	Policy      string  `json:"policy"`
}

// readCost returns a finished cell's measured cost: cost.json's CPU time, or for a cell of an
// older version the replay's wall time from summary.json (estimate 0: unknown).
func readCost(dir string) (cellCost, bool) {
	var c cellCost
	if b, err := os.ReadFile(filepath.Join(dir, CostFile)); err == nil && json.Unmarshal(b, &c) == nil && c.CPUSeconds > 0 {
		return c, true
	}
	doc, err := readSummary(dir)
	if err != nil || doc.Engine.WallSeconds <= 0 {
		return cellCost{}, false
	}
	return cellCost{CPUSeconds: doc.Engine.WallSeconds, WallSeconds: doc.Engine.WallSeconds}, true
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

// LoadCosts replaces the plan's cost estimates with measured replay times from a previous
// sweep's output directory dir (its sweep.json and cache). A cell whose configuration was run
// there (another version or shard count of the sweep will do: cells are matched by their
// resolved configuration) costs its measured time; any other cell costs its estimate times the
// median ratio of measured time to estimate over the previous run's cells of its policy (of all
// policies if none), so a quick-label run calibrates the paper label. It returns how many cells
// were matched; a run with nothing to learn from is an error.
//
// Every shard of a sweep must load the same costs: point dir at a finished run, not at one
// being written.
func (p *Plan) LoadCosts(dir string) (int, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return 0, fmt.Errorf("%w: --costs: %w", experiments.ErrConfig, err)
	}
	times := map[string]float64{}
	ratios := map[string][]float64{} // policy ("" for all) → measured / estimate
	for _, mc := range m.Cells {
		cdir := findCell(mc.Key, m.caches(dir))
		if cdir == "" {
			continue
		}
		cost, ok := readCost(cdir)
		if !ok {
			continue
		}
		if cost.Estimate > 0 {
			r := cost.CPUSeconds / cost.Estimate
			ratios[cost.Policy] = append(ratios[cost.Policy], r)
			ratios[""] = append(ratios[""], r)
		}
		if doc, err := readSummary(cdir); err == nil {
			if d, err := configDigest(doc.Provenance.Config); err == nil {
				times[d] = cost.CPUSeconds
			}
		}
	}
	costs := slices.Clone(p.costs)
	n := 0
	for i := range p.Cells {
		c := &p.Cells[i]
		d, err := configDigest(c.Config.Map())
		if err != nil {
			return 0, err
		}
		if t, ok := times[d]; ok {
			costs[i] = t
			n++
			continue
		}
		r, ok := ratios[c.Config.Policy.Name]
		if !ok {
			r = ratios[""]
		}
		if len(r) == 0 {
			costs[i] = -1 // no calibration: see below
			continue
		}
		costs[i] *= median(r)
	}
	if len(ratios[""]) == 0 {
		if n == 0 {
			return 0, fmt.Errorf("%w: --costs %s: no measured cell there matches or calibrates %s (label %q)", experiments.ErrConfig, dir, p.Spec.ID, p.Label)
		}
		if n < len(p.Cells) {
			return 0, fmt.Errorf("%w: --costs %s: %d of the %s of %s (label %q) were run there, and its cells carry no %s to estimate the others by (a run of an older version)",
				experiments.ErrConfig, dir, n, cellCount(len(p.Cells)), p.Spec.ID, p.Label, CostFile)
		}
	}
	p.amu.Lock()
	p.costs, p.assignments = costs, nil
	p.costSource = fmt.Sprintf("measured in %s (%d of %s run there, the others scaled from their estimates)", dir, n, cellCount(len(p.Cells)))
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

// ShardLoad is one shard's part of a sweep: its cells, their cost and, for the cells whose
// measured cost a cache holds, the measured replay time (CPU seconds, see CostFile).
type ShardLoad struct {
	Shard    int
	Cells    int
	Cost     float64
	Measured float64 // seconds of replay of the measured cells
	// MeasuredCells counts the cells with a measured time.
	MeasuredCells int
}

// Balance describes how the cells are spread over n shards; caches, when given, are searched for
// the cells' measured replay times.
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
			if cost, ok := readCost(dir); ok {
				l.Measured += cost.CPUSeconds
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
