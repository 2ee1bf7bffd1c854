// Package sweep runs an experiment spec's sweep: the Cartesian product of its axes (with zipped
// groups) times its seeds, one replay per cell, on a pool of workers.
//
// Every cell is deterministic from its resolved configuration and seed, and its results are kept
// in a content-addressed cache: a cell's key hashes its resolved configuration, the workload's
// content hash, schedlab's version and the identity of the build that runs it (internal/buildid:
// VCS revision, dirty flag, the executable's SHA-256), so a changed binary never reuses another
// build's cells — and says so (Reason). Its outputs (summary.json, jobs.parquet, config.yaml)
// go to CACHE/<key>/ by an atomic directory rename. A cell whose directory exists is done, so an
// unchanged cell is never rerun and a killed sweep resumes where it stopped. When every cell of
// the plan (or of its shard) is done, the results are gathered into DIR/cells.parquet — one row
// per cell in plan order, with the axis columns, the seed and every metric — and DIR/sweep.json
// records the plan. Shards (Shard) split a sweep across machines; Gather merges their outputs.
package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/schedlab/schedlab/policies/external"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/buildid"
	"github.com/schedlab/schedlab/traces"
)

// Column types of axis columns in cells.parquet.
const (
	TypeString  = "string"
	TypeInt64   = "int64"
	TypeFloat64 = "float64"
	TypeBool    = "bool"
)

// Column is an axis column of the sweep: a configuration key and the type of its values (a
// null value, key unset, is null in a column of any type).
type Column struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

// Cell is one point of the sweep: one value per axis and a seed.
type Cell struct {
	// Index is the cell's position in the plan's deterministic order (axes in spec order, the
	// last axis fastest, then seeds).
	Index int
	// Values holds the axis values, in Plan.Columns order, typed as the columns say; nil where
	// the spec's value is null (the key is left unset).
	Values []any
	Seed   int64
	// Config is the cell's resolved configuration.
	Config experiments.Config
	// Key is the cell's cache key: 64 hex digits, the first 40 of its ConfigKey and 24 of the
	// build's digest, so the cells of one configuration computed by different builds share a
	// prefix.
	Key string
	// ConfigKey is the build-independent content address: the SHA-256 of the resolved
	// configuration, the workload's content hash and schedlab's version (the whole cache key of
	// schedlab before builds were identified).
	ConfigKey string
}

// Plan is a sweep's cells in deterministic order.
type Plan struct {
	// Spec is the spec with the label and --set overrides applied.
	Spec    *experiments.Spec
	Label   string
	Sets    []string
	Columns []Column
	Cells   []Cell
	// Build is the build whose cells the plan addresses (buildid.Current when planned).
	Build buildid.ID
	// workloads holds each distinct workload's content hash and, while cells still need it,
	// the loaded workload, shared read-only by the cells.
	workloads map[experiments.WorkloadConfig]*loadedWorkload
	wmu       sync.Mutex
	// costs holds every cell's cost, by index (see cost.go); assignments the cells' shards for
	// each shard count asked for.
	costs       []float64
	estimates   []float64 // the plan's own estimates, recorded with measured costs
	costSource  string
	assignments map[int][]int
	amu         sync.Mutex
}

// DefaultMaxCells is the largest sweep a plan accepts unless PlanOptions.MaxCells says
// otherwise: beyond it, planning alone would take minutes and gigabytes.
const DefaultMaxCells = 100_000

// PlanOptions configure NewPlanWith.
type PlanOptions struct {
	// MaxCells refuses a sweep of more cells, before anything is allocated for them
	// (0: DefaultMaxCells).
	MaxCells int
}

// keepWorkloads bounds the workloads a plan keeps loaded from planning to running; beyond it
// (many seeds of a seeded workload, say) a workload is loaded again when its first cell runs.
var keepWorkloads = 8

type loadedWorkload struct {
	mu   sync.Mutex
	w    *traces.Workload
	hash string
	// tasks, jobs and queues count the workload's, for cost estimates.
	tasks, jobs, queues int
	pending             int // cells of the current run that still need w
}

// NewPlan applies a label ("" for none) and --set overrides to a spec and enumerates its cells.
// A --set of a non-axis key overrides the base configuration; a --set of an axis key keeps only
// that value of the axis.
func NewPlan(spec *experiments.Spec, label string, sets []string) (*Plan, error) {
	return NewPlanWith(spec, label, sets, PlanOptions{})
}

// NewPlanWith is NewPlan with options.
func NewPlanWith(spec *experiments.Spec, label string, sets []string, o PlanOptions) (*Plan, error) {
	s, err := spec.WithLabel(label)
	if err != nil {
		return nil, err
	}
	if err := applySets(s, sets); err != nil {
		return nil, err
	}
	limit := o.MaxCells
	if limit <= 0 {
		limit = DefaultMaxCells
	}
	total, err := countCells(s, limit)
	if err != nil {
		return nil, err
	}
	buildid.Prefetch() // hash the executable while the cells are resolved and workloads loaded
	p := &Plan{Spec: s, Label: label, Sets: slices.Clone(sets), workloads: map[experiments.WorkloadConfig]*loadedWorkload{}}
	var axes []experiments.Axis
	for _, g := range s.Axes {
		axes = append(axes, g.Axes...)
	}
	for _, a := range axes {
		p.Columns = append(p.Columns, Column{Key: a.Key, Type: columnType(a.Values)})
	}
	seeds := s.Seeds.Values() // countCells bounded their number
	baseKeys := make([]string, 0, len(s.Base))
	for k := range s.Base {
		baseKeys = append(baseKeys, k)
	}
	slices.Sort(baseKeys)

	// Odometer over the axis groups, last group fastest.
	steps := make([]int, len(s.Axes))
	p.Cells = make([]Cell, 0, total)
	p.costs = make([]float64, 0, total)
	for {
		var raw []any
		for gi, g := range s.Axes {
			for _, a := range g.Axes {
				raw = append(raw, a.Values[steps[gi]])
			}
		}
		var first experiments.Config // the configuration resolved for the first seed
		for si, seed := range seeds {
			c := Cell{Index: len(p.Cells), Seed: seed}
			for i := range axes {
				c.Values = append(c.Values, typed(raw[i], p.Columns[i].Type))
			}
			if si == 0 || resolveEverySeed {
				cfg, err := resolvePoint(s, baseKeys, axes, raw, seed)
				if err != nil {
					return nil, fmt.Errorf("%s: cell %s: %w", s.File, describe(p.Columns, c.Values, seed), err)
				}
				first = cfg
			}
			cfg := withSeed(first, seed)
			c.Config = cfg
			lw, err := p.workload(cfg.Workload)
			if err != nil {
				return nil, fmt.Errorf("%s: cell %s: %w", s.File, describe(p.Columns, c.Values, seed), err)
			}
			c.ConfigKey = ConfigKey(cfg, lw.hash) // Key: below, once the build is identified
			p.Cells = append(p.Cells, c)
			p.costs = append(p.costs, estimateCost(cfg, lw))
		}
		// Advance the odometer.
		gi := len(steps) - 1
		for ; gi >= 0; gi-- {
			steps[gi]++
			if steps[gi] < s.Axes[gi].Len() {
				break
			}
			steps[gi] = 0
		}
		if gi < 0 {
			break
		}
	}
	if err := checkScopes(s, p.Cells); err != nil {
		return nil, err
	}
	p.Build = buildid.Current()
	build := p.Build.Digest()
	for i := range p.Cells {
		p.Cells[i].Key = buildKey(p.Cells[i].ConfigKey, build)
	}
	p.estimates = slices.Clone(p.costs)
	p.costSource = "estimated: tasks × policy cost class × entity factor"
	return p, nil
}

// resolvePoint resolves the configuration of one point of the axes (raw: a value per axis, nil
// for unset) and one seed through viper, base keys (baseKeys: s.Base's, sorted) first.
func resolvePoint(s *experiments.Spec, baseKeys []string, axes []experiments.Axis, raw []any, seed int64) (experiments.Config, error) {
	v := experiments.NewViper()
	for _, k := range baseKeys {
		v.Set(k, s.Base[k])
	}
	for i, a := range axes {
		if raw[i] != nil { // null: leave the key unset (base or default)
			v.Set(a.Key, raw[i])
		}
	}
	v.Set("seed", seed)
	return experiments.Resolve(v)
}

// resolveEverySeed makes NewPlanWith resolve every cell's configuration through viper, as it did
// before withSeed (a test compares the two).
var resolveEverySeed = false

// withSeed returns the configuration c resolved for one seed as it resolves for seed: the seeds
// of one point of the axes differ in the seed alone (experiments.Resolve copies the seed key to
// Config.Seed and Workload.Seed and reads it nowhere else), and resolving through viper took
// 0.6 ms per cell, a sixth of a cheap cell's cost. Slices and the params map are copied, so
// cells share no mutable state.
func withSeed(c experiments.Config, seed int64) experiments.Config {
	c.Seed, c.Workload.Seed = seed, seed
	c.Policy.ClassOrder = slices.Clone(c.Policy.ClassOrder)
	c.Policy.Params = maps.Clone(c.Policy.Params)
	c.Predict.Features = slices.Clone(c.Predict.Features)
	c.Predict.Estimators = slices.Clone(c.Predict.Estimators)
	return c
}

// countCells returns the number of cells of a spec (axes and seeds applied), or a configuration
// error if it exceeds limit; it allocates nothing per cell, so absurd sizes (a trillion seeds,
// ten axes of ten values) are refused before they cost anything.
func countCells(s *experiments.Spec, limit int) (int, error) {
	seeds := int64(s.Seeds.Count)
	if s.Seeds.List != nil {
		seeds = int64(len(s.Seeds.List))
	}
	n, over := max(seeds, 0), seeds > int64(limit)
	var factors []string
	for _, g := range s.Axes {
		k := int64(g.Len())
		var keys []string
		for _, a := range g.Axes {
			keys = append(keys, a.Key)
		}
		factors = append(factors, fmt.Sprintf("%s %d", strings.Join(keys, "+"), k))
		if k == 0 {
			n, over = 0, false
			break
		}
		if !over {
			if n > int64(limit)/k {
				over = true
			} else {
				n *= k
			}
		}
	}
	if !over && n <= int64(limit) {
		return int(n), nil
	}
	size := "more than " + formatCount(math.MaxInt64)
	if prod, ok := exactProduct(seeds, s.Axes); ok {
		size = formatCount(prod)
	}
	if seeds == 1 {
		factors = append(factors, "1 seed")
	} else {
		factors = append(factors, formatCount(seeds)+" seeds")
	}
	return 0, fmt.Errorf("%w: %s: the sweep has %s cells (%s), over the limit of %s; narrow its axes or seeds (a label, --set) or raise --max-cells",
		experiments.ErrConfig, s.File, size, strings.Join(factors, " × "), formatCount(int64(limit)))
}

// exactProduct multiplies the seeds by the axis group lengths unless that overflows int64.
func exactProduct(seeds int64, groups []experiments.AxisGroup) (int64, bool) {
	n := seeds
	for _, g := range groups {
		k := int64(g.Len())
		if k != 0 && n > math.MaxInt64/k {
			return 0, false
		}
		n *= k
	}
	return n, true
}

// workload loads and hashes a workload configuration once while planning.
func (p *Plan) workload(c experiments.WorkloadConfig) (*loadedWorkload, error) {
	if lw, ok := p.workloads[c]; ok {
		return lw, nil
	}
	w, err := experiments.LoadWorkload(c)
	if err != nil {
		return nil, err
	}
	lw := &loadedWorkload{hash: w.Hash(), tasks: int(w.Tasks()), jobs: len(w.Jobs)}
	queues := map[string]bool{}
	for i := range w.Jobs {
		queues[w.Jobs[i].Queue] = true
	}
	lw.queues = len(queues)
	if len(p.workloads) < keepWorkloads {
		lw.w = w
	}
	p.workloads[c] = lw
	return lw, nil
}

// acquire returns a cell's workload and its content hash for running, loading the workload again
// if it was dropped.
func (p *Plan) acquire(c experiments.WorkloadConfig) (*traces.Workload, string, error) {
	p.wmu.Lock()
	lw := p.workloads[c]
	p.wmu.Unlock()
	if lw == nil {
		return nil, "", fmt.Errorf("sweep: workload %+v not in the plan", c)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.w == nil {
		w, err := experiments.LoadWorkload(c)
		if err != nil {
			return nil, "", err
		}
		if h := w.Hash(); h != lw.hash {
			return nil, "", fmt.Errorf("sweep: workload %s changed since the sweep was planned (hash %s, now %s)", c.Name, lw.hash[:12], h[:12])
		}
		lw.w = w
	}
	return lw.w, lw.hash, nil
}

// release records that a cell is done with its workload and drops the workload when no cell of
// the run needs it any more.
func (p *Plan) release(c experiments.WorkloadConfig) {
	p.wmu.Lock()
	lw := p.workloads[c]
	p.wmu.Unlock()
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.pending--; lw.pending <= 0 {
		lw.w = nil
	}
}

// expect sets how many cells of a run need each workload.
func (p *Plan) expect(cells []*Cell) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	for _, lw := range p.workloads {
		lw.mu.Lock()
		lw.pending = 0
		lw.mu.Unlock()
	}
	for _, c := range cells {
		lw := p.workloads[c.Config.Workload]
		lw.mu.Lock()
		lw.pending++
		lw.mu.Unlock()
	}
}

// Describe names a cell by its axis values and seed, e.g. "policy.name=drf workload.machines=50
// seed=2".
func (p *Plan) Describe(c *Cell) string { return describe(p.Columns, c.Values, c.Seed) }

func describe(cols []Column, vals []any, seed int64) string {
	var b strings.Builder
	for i, c := range cols {
		fmt.Fprintf(&b, "%s=%s ", c.Key, experiments.FormatAxisValue(vals[i]))
	}
	fmt.Fprintf(&b, "seed=%d", seed)
	return b.String()
}

// CellKey is the cache key of a cell computed by the running build (buildid.Current): see
// Cell.Key.
func CellKey(cfg experiments.Config, workloadHash string) string {
	return buildKey(ConfigKey(cfg, workloadHash), buildid.Current().Digest())
}

// configPrefix is how many hex digits of a ConfigKey begin a cell's Key (160 bits).
const configPrefix = 40

// buildKey joins the first configPrefix digits of a ConfigKey and the start of a build digest.
func buildKey(configKey, buildDigest string) string {
	return configKey[:configPrefix] + buildDigest[:64-configPrefix]
}

// ConfigKey is the build-independent content address of a cell: the SHA-256 of its resolved
// configuration (which includes the seed), the workload's content hash, schedlab's version and,
// for the external policy, the contents of the script files its command names.
func ConfigKey(cfg experiments.Config, workloadHash string) string {
	doc := map[string]any{"config": cfg.Map(), "workload_hash": workloadHash, "schedlab_version": experiments.Version}
	if cfg.Policy.Name == external.Name {
		// An external scheduler's code is not in the build: its script files' contents are.
		if d := external.InputDigests(cfg.Policy.Params); len(d) > 0 {
			doc["policy_inputs"] = d
		}
	}
	b, err := json.Marshal(doc) // map keys are sorted: canonical
	if err != nil {
		// Config.Map holds only JSON-encodable values; policy params come from YAML or strings.
		b = []byte(fmt.Sprintf("%#v", doc))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Hash identifies the plan: its spec, label, sets, columns and cells' keys, so shards of the
// same sweep can be recognized when they are gathered.
func (p *Plan) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00", p.Spec.ID, p.Label, p.Sets)
	for _, c := range p.Columns {
		fmt.Fprintf(h, "%s:%s\x00", c.Key, c.Type)
	}
	for _, c := range p.Cells {
		fmt.Fprintf(h, "%d:%s\x00", c.Index, c.Key)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Shard is one of Count deterministic, cost-balanced parts of a sweep (see cost.go). The zero
// value (Count 0) is the whole sweep.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" with 0 ≤ i < n (Slurm array and Kubernetes completion indices both
// start at 0).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("%w: --shard %q: want i/n with 0 ≤ i < n", experiments.ErrConfig, s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String formats the shard as "i/n" ("all" for the whole sweep).
func (s Shard) String() string {
	if s.Count <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ShardCells returns the plan's cells in the shard, in plan order.
func (p *Plan) ShardCells(s Shard) []*Cell {
	var a []int
	if s.Count > 1 {
		a = p.Assignment(s.Count)
	}
	var out []*Cell
	for i := range p.Cells {
		if a == nil || a[i] == s.Index {
			out = append(out, &p.Cells[i])
		}
	}
	return out
}

func applySets(s *experiments.Spec, sets []string) error {
	for _, set := range sets {
		k, val, ok := strings.Cut(set, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%w: --set %q: want key=value", experiments.ErrConfig, set)
		}
		if k == "seed" {
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return fmt.Errorf("%w: --set seed=%s: want an integer", experiments.ErrConfig, val)
			}
			s.Seeds = experiments.Seeds{List: []int64{n}}
			continue
		}
		if err := experiments.CheckKeys([]string{k}, "--set"); err != nil {
			return err
		}
		gi, ai := -1, -1
		for i, g := range s.Axes {
			for j, a := range g.Axes {
				if a.Key == k {
					gi, ai = i, j
				}
			}
		}
		if gi < 0 {
			if err := experiments.CheckValue(k, val); err != nil {
				return fmt.Errorf("--set %s: %w", set, err)
			}
			s.Base[k] = val
			continue
		}
		// Keep only the matching step of the axis (and of its zipped partners).
		g := s.Axes[gi]
		var keep []int
		var have []string
		for step, v := range g.Axes[ai].Values {
			f := experiments.FormatAxisValue(v)
			have = append(have, f)
			if f == strings.TrimSpace(val) {
				keep = append(keep, step)
			}
		}
		if len(keep) == 0 {
			return fmt.Errorf("%w: --set %s: %s is an axis of %s and %q is not among its values (%s)", experiments.ErrConfig, set, k, s.ID, val, strings.Join(have, ", "))
		}
		ng := experiments.AxisGroup{}
		for _, a := range g.Axes {
			na := a
			na.Values = nil
			for _, step := range keep {
				na.Values = append(na.Values, a.Values[step])
			}
			ng.Axes = append(ng.Axes, na)
		}
		s.Axes[gi] = ng
	}
	return nil
}

// columnType picks the narrowest column type holding every value.
func columnType(vals []any) string {
	allInt, allNum, allBool := true, true, true
	n := 0
	for _, v := range vals {
		if v == nil {
			continue // null fits any column
		}
		n++
		switch v.(type) {
		case int, int64:
			allBool = false
		case float64:
			allInt, allBool = false, false
		case bool:
			allInt, allNum = false, false
		default:
			allInt, allNum, allBool = false, false, false
		}
	}
	switch {
	case n == 0:
		return TypeString
	case allInt:
		return TypeInt64
	case allNum:
		return TypeFloat64
	case allBool:
		return TypeBool
	}
	return TypeString
}

// typed converts a spec value to its column's type (nil stays nil).
func typed(v any, typ string) any {
	if v == nil {
		return nil
	}
	switch typ {
	case TypeInt64:
		switch x := v.(type) {
		case int:
			return int64(x)
		case int64:
			return x
		}
	case TypeFloat64:
		switch x := v.(type) {
		case int:
			return float64(x)
		case int64:
			return float64(x)
		case float64:
			return x
		}
	case TypeBool:
		if b, ok := v.(bool); ok {
			return b
		}
	}
	return experiments.FormatValue(v)
}

// parseTyped parses a formatted value back into its column's type.
func parseTyped(s, typ string) (any, error) {
	switch typ {
	case TypeInt64:
		return strconv.ParseInt(s, 10, 64)
	case TypeFloat64:
		return strconv.ParseFloat(s, 64)
	case TypeBool:
		return strconv.ParseBool(s)
	case TypeString:
		return s, nil
	}
	return nil, fmt.Errorf("unknown column type %q", typ)
}
