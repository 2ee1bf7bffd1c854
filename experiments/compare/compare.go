// Package compare compares two result sets — run outputs (summary.json) or sweep outputs
// (cells.parquet) — the way benchstat compares benchmark runs: per group of configuration values
// (policy and axis values) and metric, it reports both means, the relative change with a
// bootstrap confidence interval across seeds, and a significance test (Mann-Whitney U, or the
// bootstrap interval when the samples are too small for U to reach the significance level).
// Every metric declares whether higher or lower is better, so a significant move the wrong way
// beyond a threshold is a regression: that is how a policy change is gated in CI.
package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report/stats"
)

// Direction says which way a metric should move.
type Direction int

// Directions.
const (
	// Neutral metrics (counts of jobs, engine counters) are reported but never regress.
	Neutral Direction = iota
	// LowerIsBetter: completion times, makespan, SLO miss rate, preemptions.
	LowerIsBetter
	// HigherIsBetter: utilization, goodput, utility, completed jobs.
	HigherIsBetter
)

// String returns "lower", "higher" or "neutral".
func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return "neutral"
}

// MetricDirection returns whether higher or lower is better for a metric of cells.parquet or
// summary.json, judged by its last dotted part (by_queue.q1.avg_jct_s is a JCT).
func MetricDirection(metric string) Direction {
	if strings.HasPrefix(metric, "engine.") {
		return Neutral
	}
	last := metric[strings.LastIndexByte(metric, '.')+1:]
	if strings.HasPrefix(metric, "waits.") { // how long tasks waited to start, and how many did
		if last == "starts" {
			return Neutral
		}
		return LowerIsBetter
	}
	switch {
	case strings.HasPrefix(metric, "utilization."):
		return HigherIsBetter
	case strings.HasSuffix(last, "_jct_s"), last == "makespan_s", last == "slo_miss_rate",
		last == "be_mean_latency_s", last == "preemptions", last == "unfinished",
		strings.HasSuffix(last, "_delta_s"), last == "missed_targets":
		return LowerIsBetter
	case last == "be_goodput_task_hours", last == "completed", last == "min_utility", last == "sum_utility":
		return HigherIsBetter
	}
	return Neutral
}

// Sample is one result: its resolved configuration (flattened keys, the seed left out; for a
// sweep whose cells cannot be read, its axis values alone), seed, workload hash and metrics.
type Sample struct {
	Group        map[string]string
	Seed         int64
	WorkloadHash string
	Metrics      map[string]float64
}

// Dataset is a loaded result set.
type Dataset struct {
	// Source describes where it came from.
	Source string
	// Spec and Label name the sweep ("" for run outputs); Sets are its --set overrides (nil when
	// unknown: no sweep.json); Axes are its axis keys (nil for run outputs).
	Spec, Label string
	Sets        []string
	Axes        []string
	// GroupKeys are the configuration keys whose values differ between samples.
	GroupKeys []string
	Samples   []Sample
	// Partial says why samples carry less than their full configuration ("" when they carry it).
	Partial string
}

// hashKey is the pseudo configuration key of a sample's workload content hash (12 hex digits):
// samples of different workloads are different configurations whatever their workload.name.
const hashKey = "workload.hash"

// Load reads a result set: a sweep output (a directory with cells.parquet, or the file itself),
// a run output (a directory with summary.json, or the file), or a directory whose
// subdirectories are run outputs (e.g. one per seed).
func Load(p string) (*Dataset, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", experiments.ErrConfig, err)
	}
	if !st.IsDir() {
		switch filepath.Base(p) {
		case sweep.CellsFile:
			return loadSweep(p)
		case experiments.SummaryFile:
			return loadRuns(p, []string{p})
		}
		return nil, fmt.Errorf("%w: %s: want a run or sweep output (a directory with %s or %s)", experiments.ErrConfig, p, experiments.SummaryFile, sweep.CellsFile)
	}
	if f := filepath.Join(p, sweep.CellsFile); exists(f) {
		return loadSweep(f)
	}
	if f := filepath.Join(p, experiments.SummaryFile); exists(f) {
		return loadRuns(p, []string{f})
	}
	files, _ := filepath.Glob(filepath.Join(p, "*", experiments.SummaryFile))
	if len(files) > 0 {
		slices.Sort(files)
		return loadRuns(p, files)
	}
	return nil, fmt.Errorf("%w: %s: no %s or %s (nor run outputs in its subdirectories)", experiments.ErrConfig, p, sweep.CellsFile, experiments.SummaryFile)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// loadSweep reads cells.parquet and, through the sweep.json beside it, each cell's resolved
// configuration and workload hash from its summary.json.
func loadSweep(file string) (*Dataset, error) {
	t, err := sweep.ReadTable(file)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Source: fmt.Sprintf("%s (sweep %s, label %q, %s)", file, t.Spec, t.Label, sweep.Plural(len(t.Rows), "cell", "cells")),
		Spec: t.Spec, Label: t.Label}
	for _, c := range t.Axes {
		d.Axes = append(d.Axes, c.Key)
	}
	dir := filepath.Dir(file)
	m, err := sweep.ReadManifest(dir)
	if err != nil {
		m = nil
		d.Partial = fmt.Sprintf("%s has no readable %s beside it", file, sweep.ManifestFile)
	} else {
		d.Sets = m.Sets
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		s := Sample{Group: map[string]string{}, Seed: r.Seed, Metrics: r.Metrics}
		if m != nil && d.Partial == "" {
			cell := m.FindCell(dir, r.Key)
			doc, err := sweep.ReadCellSummary(cell)
			if cell == "" || err != nil {
				d.Partial = fmt.Sprintf("cell %d of %s is not in its cache", r.Cell, file)
			} else {
				flattenConfig("", doc.Provenance.Config, s.Group)
				s.WorkloadHash = doc.Provenance.WorkloadHash
			}
		}
		for _, k := range d.Axes {
			s.Group[k], _ = t.Value(r, k)
		}
		d.Samples = append(d.Samples, s)
	}
	if d.Partial != "" { // axis values only, for every sample alike
		for i := range d.Samples {
			g := map[string]string{}
			for _, k := range d.Axes {
				g[k] = d.Samples[i].Group[k]
			}
			d.Samples[i].Group, d.Samples[i].WorkloadHash = g, ""
		}
	}
	d.finish()
	return d, nil
}

// loadRuns reads run outputs, each with its resolved configuration and workload hash.
func loadRuns(src string, files []string) (*Dataset, error) {
	d := &Dataset{Source: fmt.Sprintf("%s (%s)", src, sweep.Plural(len(files), "run", "runs"))}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc experiments.SummaryDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		m, err := sweep.Metrics(&doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		s := Sample{Group: map[string]string{}, Seed: doc.Provenance.Seed, WorkloadHash: doc.Provenance.WorkloadHash, Metrics: m}
		flattenConfig("", doc.Provenance.Config, s.Group)
		d.Samples = append(d.Samples, s)
	}
	d.finish()
	return d, nil
}

// finish drops the seed from the samples' configurations, adds their workload hashes, and sets
// GroupKeys.
func (d *Dataset) finish() {
	for i := range d.Samples {
		s := &d.Samples[i]
		delete(s.Group, "seed")
		if s.WorkloadHash != "" {
			s.Group[hashKey] = shortHash(s.WorkloadHash)
		}
	}
	d.GroupKeys = varying(d.Axes, d.Samples)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// varying returns the configuration keys whose values differ between samples (a key a sample
// lacks counts as a value), and policy.name: axis keys first, in axis order, then the others
// sorted.
func varying(axes []string, samples ...[]Sample) []string {
	all := map[string]bool{}
	for _, ss := range samples {
		for _, s := range ss {
			for k := range s.Group {
				all[k] = true
			}
		}
	}
	vary := map[string]bool{}
	for k := range all {
		first, seen := "", false
		for _, ss := range samples {
			for _, s := range ss {
				v, ok := s.Group[k]
				if !ok {
					v = "\x00absent"
				}
				if !seen {
					first, seen = v, true
				} else if v != first {
					vary[k] = true
				}
			}
		}
	}
	if all["policy.name"] {
		vary["policy.name"] = true
	}
	var out []string
	for _, k := range axes {
		if vary[k] {
			out = append(out, k)
			delete(vary, k)
		}
	}
	var rest []string
	for k := range vary {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	out = append(out, rest...)
	// The workload hash names a group only when the other keys do not already tell apart the
	// samples of different workloads (it mostly varies with workload.machines).
	if i := slices.Index(out, hashKey); i >= 0 {
		without := slices.Delete(slices.Clone(out), i, i+1)
		hashes := map[string]string{}
		needed := false
		for _, ss := range samples {
			for _, s := range ss {
				var b strings.Builder
				for _, k := range without {
					b.WriteString(k + "=" + s.Group[k] + "\x00")
				}
				if h, ok := hashes[b.String()]; ok && h != s.Group[hashKey] {
					needed = true
				}
				hashes[b.String()] = s.Group[hashKey]
			}
		}
		if !needed {
			out = without
		}
	}
	return out
}

func flattenConfig(prefix string, v any, out map[string]string) {
	if m, ok := v.(map[string]any); ok {
		for k, e := range m {
			if prefix != "" {
				k = prefix + "." + k
			}
			flattenConfig(k, e, out)
		}
		return
	}
	if l, ok := v.([]any); ok {
		out[prefix] = experiments.FormatValue(l)
		return
	}
	if f, ok := v.(float64); ok { // JSON numbers
		out[prefix] = experiments.FormatValue(f)
		return
	}
	out[prefix] = experiments.FormatValue(v)
}

// Tests.
const (
	TestAuto      = "auto"
	TestMW        = "mw"
	TestBootstrap = "bootstrap"
)

// Options configure Compare.
type Options struct {
	// Alpha is the significance level (default 0.05).
	Alpha float64
	// Threshold is the smallest relative change, in the wrong direction, that counts as a
	// regression; 0 means the default 0.02 (2%).
	Threshold float64
	// Metrics selects metrics by name or path.Match pattern ("utilization.*"); empty means every
	// top-level metric with a direction (no by_class.*, by_queue.*).
	Metrics []string
	// Test is auto (default), mw or bootstrap. auto uses Mann-Whitney U when the sample sizes
	// can reach Alpha (n ≥ 4 each, for 0.05) and the bootstrap otherwise.
	Test string
	// Iters is the number of bootstrap replicates (default 2000).
	Iters int
	// AllowMismatch compares result sets whose spec, label, axes, seeds, workload or
	// configurations differ, on the configurations they share; without it Compare refuses them
	// (ErrMismatch). Different configurations are never pooled either way.
	AllowMismatch bool
}

func (o *Options) defaults() error {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Alpha <= 0 || o.Alpha >= 1 || math.IsNaN(o.Alpha) {
		return fmt.Errorf("%w: --alpha %v: want 0 < alpha < 1", experiments.ErrConfig, o.Alpha)
	}
	if o.Threshold == 0 {
		o.Threshold = 0.02
	}
	if o.Threshold < 0 || math.IsNaN(o.Threshold) {
		return fmt.Errorf("%w: --threshold %v: want ≥ 0", experiments.ErrConfig, o.Threshold)
	}
	if o.Test == "" {
		o.Test = TestAuto
	}
	if !slices.Contains([]string{TestAuto, TestMW, TestBootstrap}, o.Test) {
		return fmt.Errorf("%w: --test %q (valid: auto, mw, bootstrap)", experiments.ErrConfig, o.Test)
	}
	if o.Iters == 0 {
		o.Iters = 2000
	}
	for _, m := range o.Metrics {
		if _, err := path.Match(m, ""); err != nil {
			return fmt.Errorf("%w: --metric %q: %v", experiments.ErrConfig, m, err)
		}
	}
	return nil
}

// Verdicts of a comparison row.
const (
	VerdictSame       = "~"          // no significant change
	VerdictBetter     = "better"     // significant, the right way
	VerdictWorse      = "worse"      // significant, the wrong way, within the threshold
	VerdictRegression = "REGRESSION" // significant, the wrong way, beyond the threshold
	VerdictChanged    = "changed"    // significant change of a neutral metric
)

// Row is one (group, metric) comparison.
type Row struct {
	Group     string
	Metric    string
	Direction Direction
	Base, New []float64
	// BaseMean and NewMean are the sample means.
	BaseMean, NewMean float64
	// Rel is the relative change of the mean with its 95% bootstrap interval (NaN when the
	// base mean is 0).
	Rel stats.CI
	// P is the p-value of the test (NaN for the bootstrap and single samples).
	P float64
	// Test names the test used: mw, bootstrap, or exact (one deterministic sample each).
	Test        string
	Significant bool
	Verdict     string
}

// Result is a comparison.
type Result struct {
	Base, New   string
	GroupKeys   []string
	Rows        []Row
	OnlyBase    []string
	OnlyNew     []string
	Regressions int
	Options     Options
	Notes       []string
}

// ErrMismatch is wrapped (with experiments.ErrConfig) by the error of a comparison of result
// sets that are not comparable.
var ErrMismatch = errors.New("not comparable")

// Compare compares base with new per configuration and metric. Samples are grouped by their
// whole resolved configuration (the seed aside), so different configurations are never pooled;
// GroupKeys name the keys whose values tell the groups apart. Unless opts.AllowMismatch, result
// sets whose spec, label, axes, seeds, workload or configurations differ are refused with an
// error naming the first difference.
func Compare(base, new *Dataset, opts Options) (*Result, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	res := &Result{Base: base.Source, New: new.Source, Options: opts}
	res.GroupKeys = varying(base.Axes, base.Samples, new.Samples)
	bg, border := groups(base, res.GroupKeys)
	ng, norder := groups(new, res.GroupKeys)
	if diff := mismatch(base, new, border, norder); diff != "" {
		if opts.AllowMismatch {
			res.Notes = append(res.Notes, "compared under --allow-mismatch although "+diff+"; only configurations in both are compared")
		} else {
			return nil, fmt.Errorf("%w: compare: %w: %s; compare like with like, or pass --allow-mismatch to compare only the configurations both share", experiments.ErrConfig, ErrMismatch, diff)
		}
	}
	for _, d := range []*Dataset{base, new} {
		if d.Partial != "" {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: grouping by axis values only", d.Partial))
		}
	}
	for _, g := range border {
		if ng[g] == nil {
			res.OnlyBase = append(res.OnlyBase, g)
		}
	}
	for _, g := range norder {
		if bg[g] == nil {
			res.OnlyNew = append(res.OnlyNew, g)
		}
	}
	small := false
	for _, g := range border {
		if ng[g] == nil {
			continue
		}
		for _, m := range selectMetrics(bg[g], ng[g], opts.Metrics) {
			b, n := values(bg[g], m), values(ng[g], m)
			if len(b) == 0 || len(n) == 0 {
				continue
			}
			row := compareOne(g, m, b, n, opts)
			if row.Test == TestBootstrap && opts.Test == TestAuto {
				small = true
			}
			if row.Verdict == VerdictRegression {
				res.Regressions++
			}
			res.Rows = append(res.Rows, row)
		}
	}
	if small {
		res.Notes = append(res.Notes, fmt.Sprintf("some groups have too few seeds for a Mann-Whitney U test to reach p < %g (it needs 4+ per side at 0.05); their significance comes from the %d-replicate bootstrap interval of the change", opts.Alpha, opts.Iters))
	}
	if len(res.Rows) == 0 {
		return res, fmt.Errorf("%w: compare: no metric to compare between %s and %s (no configuration in both, grouping by %s; --metric selects metrics)", experiments.ErrConfig, base.Source, new.Source, strings.Join(res.GroupKeys, ", "))
	}
	return res, nil
}

// mismatch names the first difference that makes two result sets incomparable, "" if none.
func mismatch(b, n *Dataset, border, norder []string) string {
	side := func(what, bv, nv string) string {
		return fmt.Sprintf("%s differ: %s in base, %s in new", what, bv, nv)
	}
	quote := func(s string) string {
		if s == "" {
			return "none (run outputs)"
		}
		return strconv.Quote(s)
	}
	switch {
	case b.Spec != n.Spec:
		return side("specs", quote(b.Spec), quote(n.Spec))
	case b.Label != n.Label:
		return side("labels", quote(b.Label), quote(n.Label))
	case !slices.Equal(b.Axes, n.Axes):
		return side("axes", list(b.Axes), list(n.Axes))
	case b.Sets != nil && n.Sets != nil && !slices.Equal(b.Sets, n.Sets):
		return side("--set overrides", list(b.Sets), list(n.Sets))
	}
	if bs, ns := seedSet(b), seedSet(n); !slices.Equal(bs, ns) {
		return side("seeds", formatSeeds(bs), formatSeeds(ns))
	}
	if bh, nh := hashSet(b), hashSet(n); len(bh) > 0 && len(nh) > 0 && !slices.Equal(bh, nh) {
		return side("workload hashes", list(bh), list(nh))
	}
	inB, inN := map[string]bool{}, map[string]bool{}
	for _, g := range border {
		inB[g] = true
	}
	for _, g := range norder {
		inN[g] = true
	}
	for _, g := range border {
		if !inN[g] {
			return fmt.Sprintf("configurations differ: %s only in base", displayGroup(g))
		}
	}
	for _, g := range norder {
		if !inB[g] {
			return fmt.Sprintf("configurations differ: %s only in new", displayGroup(g))
		}
	}
	return ""
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	if len(xs) > 6 {
		return "[" + strings.Join(xs[:6], ", ") + fmt.Sprintf(", … (%d)]", len(xs))
	}
	return "[" + strings.Join(xs, ", ") + "]"
}

func seedSet(d *Dataset) []int64 {
	var out []int64
	for _, s := range d.Samples {
		out = append(out, s.Seed)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func formatSeeds(seeds []int64) string {
	var parts []string
	for _, s := range seeds {
		parts = append(parts, strconv.FormatInt(s, 10))
	}
	return list(parts)
}

func hashSet(d *Dataset) []string {
	var out []string
	for _, s := range d.Samples {
		if s.WorkloadHash != "" {
			out = append(out, shortHash(s.WorkloadHash))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func symDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// groups splits samples by their whole configuration, keeping first-appearance order; a group is
// named by its values of keys (the keys whose values differ between the samples of both sides,
// so distinct configurations get distinct names).
func groups(d *Dataset, keys []string) (map[string][]*Sample, []string) {
	out := map[string][]*Sample{}
	var order []string
	for i := range d.Samples {
		s := &d.Samples[i]
		parts := make([]string, len(keys))
		for j, k := range keys {
			v, ok := s.Group[k]
			if !ok {
				v = "(unset)"
			}
			parts[j] = k + "=" + v
		}
		g := strings.Join(parts, " ")
		if out[g] == nil {
			order = append(order, g)
		}
		out[g] = append(out[g], s)
	}
	return out, order
}

// selectMetrics returns the metrics present on both sides that the patterns select, sorted.
// With no patterns it picks the headline metrics that have a direction, leaving out the
// per-class and per-queue splits, the task waits (select them with "waits.*"), metrics that are zero in every sample of both sides (SLO and
// utility metrics of workloads without deadlines or utilities), the best-effort split when no
// job has a deadline (best-effort is then every job), and completed (unfinished says it).
func selectMetrics(b, n []*Sample, patterns []string) []string {
	has := func(ss []*Sample) map[string]bool {
		m := map[string]bool{}
		for _, s := range ss {
			for k := range s.Metrics {
				m[k] = true
			}
		}
		return m
	}
	allZero := func(m string) bool {
		for _, ss := range [][]*Sample{b, n} {
			for _, s := range ss {
				if v, ok := s.Metrics[m]; ok && v != 0 {
					return false
				}
			}
		}
		return true
	}
	hb, hn := has(b), has(n)
	noSLO := allZero("slo_jobs")
	var out []string
	for m := range hb {
		if !hn[m] {
			continue
		}
		keep := false
		if len(patterns) == 0 {
			keep = MetricDirection(m) != Neutral && !strings.HasPrefix(m, "by_class.") && !strings.HasPrefix(m, "by_queue.") && !strings.HasPrefix(m, "waits.") &&
				m != "completed" && !allZero(m) && !(noSLO && strings.HasPrefix(m, "be_"))
		}
		for _, p := range patterns {
			if ok, _ := path.Match(p, m); ok {
				keep = true
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

func values(ss []*Sample, m string) []float64 {
	var out []float64
	// Sort by seed so bootstrap resampling sees a stable order.
	sorted := slices.Clone(ss)
	slices.SortStableFunc(sorted, func(a, b *Sample) int {
		switch {
		case a.Seed < b.Seed:
			return -1
		case a.Seed > b.Seed:
			return 1
		}
		return 0
	})
	for _, s := range sorted {
		if v, ok := s.Metrics[m]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// minMWp is the smallest two-sided exact Mann-Whitney p-value for sample sizes n1, n2:
// 2 / C(n1+n2, n1).
func minMWp(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

func compareOne(group, metric string, b, n []float64, o Options) Row {
	r := Row{Group: group, Metric: metric, Direction: MetricDirection(metric), Base: b, New: n,
		BaseMean: stats.Mean(b), NewMean: stats.Mean(n), P: math.NaN()}
	h := fnv.New64a()
	h.Write([]byte("compare\x00" + group + "\x00" + metric))
	rng := rand.New(rand.NewPCG(0x5eed, h.Sum64()))
	r.Rel = stats.CI{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Level: 0.95}
	if r.BaseMean != 0 {
		if ci, err := stats.BootstrapRelChangeCI(b, n, 0.95, o.Iters, rng); err == nil {
			r.Rel = ci
		} else {
			r.Rel.Estimate = stats.RelChange(b, n)
		}
	}
	test := o.Test
	if test == TestAuto {
		test = TestMW
		if minMWp(len(b), len(n)) >= o.Alpha {
			test = TestBootstrap
		}
	}
	switch {
	case len(b) == 1 && len(n) == 1:
		// One deterministic run each: any difference is the change itself.
		r.Test = "exact"
		r.Significant = b[0] != n[0]
	case test == TestMW:
		r.Test = TestMW
		if mw, err := stats.MannWhitneyU(b, n); err == nil {
			r.P = mw.P
			r.Significant = mw.P < o.Alpha
		}
	default:
		r.Test = TestBootstrap
		if r.BaseMean == 0 {
			r.Significant = r.NewMean != 0 && !allEqual(n, 0)
			break
		}
		ci, err := stats.BootstrapRelChangeCI(b, n, 1-o.Alpha, o.Iters, rand.New(rand.NewPCG(0x5eed, h.Sum64())))
		r.Significant = err == nil && (ci.Lo > 0 || ci.Hi < 0)
	}
	r.Verdict = VerdictSame
	if r.Significant {
		up := r.NewMean > r.BaseMean
		switch {
		case r.NewMean == r.BaseMean:
			r.Verdict = VerdictSame
		case r.Direction == Neutral:
			r.Verdict = VerdictChanged
		case up == (r.Direction == HigherIsBetter):
			r.Verdict = VerdictBetter
		default:
			r.Verdict = VerdictWorse
			rel := math.Abs(r.Rel.Estimate)
			if math.IsNaN(rel) || rel > o.Threshold {
				r.Verdict = VerdictRegression
			}
		}
	}
	return r
}

func allEqual(xs []float64, v float64) bool {
	for _, x := range xs {
		if x != v {
			return false
		}
	}
	return true
}

// ErrRegression is returned by the CLI when --fail-on-regression finds one.
var ErrRegression = errors.New("regression")
