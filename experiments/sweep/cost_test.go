package sweep

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loads sums costs per bin.
func loads(costs []float64, a []int, n int) []float64 {
	out := make([]float64, n)
	for i, b := range a {
		out[b] += costs[i]
	}
	return out
}

// optimalMakespan is the smallest possible largest bin, by trying every assignment.
func optimalMakespan(costs []float64, n int) float64 {
	best := math.Inf(1)
	a := make([]int, len(costs))
	var try func(i int)
	try = func(i int) {
		if i == len(costs) {
			best = min(best, slices.Max(loads(costs, a, n)))
			return
		}
		for b := range n {
			a[i] = b
			try(i + 1)
		}
	}
	try(0)
	return best
}

// TestBalanceAgainstBruteForce checks the longest-processing-time assignment against the optimum
// found by brute force on random small instances: it partitions the items and its largest bin is
// within Graham's bound, 4/3 − 1/(3n) of the optimum.
func TestBalanceAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for trial := range 300 {
		n := 2 + rng.IntN(3)
		costs := make([]float64, 1+rng.IntN(8))
		for i := range costs {
			costs[i] = math.Round(1 + 99*rng.Float64()*rng.Float64())
		}
		a := balance(costs, n)
		for i, b := range a {
			if b < 0 || b >= n {
				t.Fatalf("trial %d: item %d in bin %d of %d", trial, i, b, n)
			}
		}
		got, opt := slices.Max(loads(costs, a, n)), optimalMakespan(costs, n)
		if bound := (4.0/3 - 1/(3*float64(n))) * opt; got > bound+1e-9 {
			t.Errorf("trial %d: costs %v into %d: largest bin %v, optimum %v, bound %v", trial, costs, n, got, opt, bound)
		}
		if !slices.Equal(a, balance(costs, n)) {
			t.Fatalf("trial %d: assignment not deterministic", trial)
		}
	}
	// Ties go by index to the lowest bin; one bin takes everything.
	if got := balance([]float64{1, 1, 1, 1}, 2); !slices.Equal(got, []int{0, 1, 0, 1}) {
		t.Errorf("equal costs: %v", got)
	}
	if got := balance([]float64{3, 1, 2}, 1); !slices.Equal(got, []int{0, 0, 0}) {
		t.Errorf("one bin: %v", got)
	}
}

// TestBalanceBeatsModulo: cells whose costs follow the sweep's structure (a costly policy every
// fourth cell) defeat index-modulo shards and not cost-balanced ones.
func TestBalanceBeatsModulo(t *testing.T) {
	costs := make([]float64, 240)
	for i := range costs {
		costs[i] = 1
		if i%4 == 3 {
			costs[i] = 40 // a solver-backed policy
		}
	}
	mod := make([]int, len(costs))
	for i := range mod {
		mod[i] = i % 8
	}
	if got := MaxOverMean(loads(costs, mod, 8)); got < 1.5 {
		t.Fatalf("the modulo split is balanced (%.2f): the test shows nothing", got)
	}
	if got := MaxOverMean(loads(costs, balance(costs, 8), 8)); got > 1.02 {
		t.Errorf("cost-balanced shards: slowest / mean = %.3f", got)
	}
}

func TestEstimateFollowsTasksClassAndEntities(t *testing.T) {
	p := plan(t, "paper")
	base := p.Cost(&p.Cells[0]) // fifo
	if base <= 0 {
		t.Fatalf("cost %v", base)
	}
	for i := range p.Cells {
		c := &p.Cells[i]
		if c.Config.Policy.Name != "fifo" && p.Cost(c) != base {
			t.Errorf("cell %d (%s): cost %v, want %v (every heuristic class 1, same workload)", i, p.Describe(c), p.Cost(c), base)
		}
	}
	q := plan(t, "paper", "policy.name=drf", "policy.level=queue")
	if got := q.Cost(&q.Cells[0]); got >= base {
		t.Errorf("queue level (1 queue) cost %v, want below job level (12 jobs) %v", got, base)
	}
	PolicyCostClass["drf"] = 40
	defer func() { PolicyCostClass["drf"] = 1 }()
	r := plan(t, "paper", "policy.name=drf")
	if got := r.Cost(&r.Cells[0]); math.Abs(got-40*base) > 1e-9*base {
		t.Errorf("class 40 cost %v, want %v", got, 40*base)
	}
	if r.AssignmentDigest(3) == "" || r.AssignmentDigest(1) != "" {
		t.Errorf("assignment digests %q %q", r.AssignmentDigest(3), r.AssignmentDigest(1))
	}
}

// TestLoadCosts balances a sweep by a previous run's measured costs: cells run there cost their
// measured CPU time; cells of another configuration are calibrated from the previous cells'
// ratio of measured time to estimate.
func TestLoadCosts(t *testing.T) {
	prev := t.TempDir()
	runSweep(t, plan(t, "paper"), Options{Out: prev, Parallel: 2})
	cache := filepath.Join(prev, CacheDir)

	p := plan(t, "quick") // its cells are among paper's
	before := p.AssignmentDigest(3)
	n, err := p.LoadCosts(prev)
	if err != nil || n != len(p.Cells) {
		t.Fatalf("LoadCosts = %d, %v; want all %d cells matched", n, err, len(p.Cells))
	}
	for i := range p.Cells {
		cost, ok := readCost(CellDir(cache, p.Cells[i].Key))
		if !ok || p.Cost(&p.Cells[i]) != cost.CPUSeconds || cost.CPUSeconds <= 0 || cost.WallSeconds <= 0 || cost.Estimate != p.estimates[i] {
			t.Errorf("cell %d: cost %v, measured %+v", i, p.Cost(&p.Cells[i]), cost)
		}
	}
	if !strings.Contains(p.CostSource(), "8 of 8 cells run there") {
		t.Errorf("cost source %q", p.CostSource())
	}
	if p.AssignmentDigest(3) == before && !slices.Equal(p.Assignment(3), balance(p.estimates, 3)) {
		t.Errorf("the assignment digest did not change with the assignment")
	}

	// Another configuration: nothing matches, everything is calibrated.
	q := plan(t, "paper", "engine.preempt_delay_s=7")
	if n, err := q.LoadCosts(prev); err != nil || n != 0 {
		t.Fatalf("LoadCosts = %d, %v", n, err)
	}
	var ratios []float64
	for i := range q.Cells {
		ratios = append(ratios, q.Cost(&q.Cells[i])/q.estimates[i])
	}
	if slices.Min(ratios) <= 0 || slices.Max(ratios) > 1e-3 {
		t.Errorf("calibrated cost per estimated unit %v..%v, want the measured seconds per unit", slices.Min(ratios), slices.Max(ratios))
	}

	// Errors: no sweep there; a sweep of older cells (no cost.json) that matches nothing.
	if _, err := plan(t, "quick").LoadCosts(t.TempDir()); err == nil {
		t.Error("a directory without sweep.json: no error")
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*", CostFile))
	for _, f := range files {
		os.Remove(f)
	}
	if _, err := plan(t, "paper", "engine.preempt_delay_s=7").LoadCosts(prev); err == nil || !strings.Contains(err.Error(), "no measured cell there matches or calibrates") {
		t.Errorf("an old run that matches nothing: error = %v", err)
	}
	// An old run's matching cells still count, by their wall time.
	if n, err := plan(t, "quick").LoadCosts(prev); err != nil || n != 8 {
		t.Errorf("an old run that matches: %d, %v", n, err)
	}
}

func TestCostFileIsJSON(t *testing.T) {
	dir := t.TempDir()
	runSweep(t, plan(t, "quick"), Options{Out: dir, Parallel: 1})
	files, _ := filepath.Glob(filepath.Join(dir, CacheDir, "*", CostFile))
	if len(files) != 8 {
		t.Fatalf("%d cost files", len(files))
	}
	var c map[string]any
	if err := json.Unmarshal(readFile(t, files[0]), &c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"replay_cpu_s", "replay_wall_s", "estimate", "policy"} {
		if _, ok := c[k]; !ok {
			t.Errorf("cost.json lacks %s: %v", k, c)
		}
	}
}
