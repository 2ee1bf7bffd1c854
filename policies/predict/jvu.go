package predict

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

type feature uint8

const (
	featJob feature = iota
	featLJob
	featUser
	featAll
)

var featureByName = map[string]feature{"job": featJob, "ljob": featLJob, "user": featUser}

type secondary uint8

const (
	secNone secondary = iota
	secCPU
	secMem
	secTasks
)

var secondaryNames = [...]string{secCPU: "cpu", secMem: "mem", secTasks: "tasks"}

type estimator uint8

const (
	estAverage estimator = iota
	estMedian
	estRolling
	estRecent
)

var estimatorByName = map[string]estimator{"average": estAverage, "median": estMedian, "rolling": estRolling, "recent": estRecent}

// AllGroup is the name of the catch-all slot that groups every job together.
const AllGroup = "all"

// FilterSuffix marks the pairs of median-filtered histories, e.g. "ljob-recent-mf".
const FilterSuffix = "-mf"

// slot is one way of grouping jobs: a primary feature, optionally refined by a secondary one,
// or the catch-all group.
type slot struct {
	name    string
	feat    feature
	primary int // index into Options.Features (and JVu.values); -1 for "all"
	sec     secondary
}

// group is the state of one feature value: its raw history, its median-filtered history (with
// the median filter), the score of each of its estimator pairs, and the running mean and
// variance (Welford) the outlier test uses.
//
// To keep the many short-lived groups small, two parts are allocated only when needed: scores
// at the group's first scored prediction (before it every score is "unscored"), and filt at
// its first outlier (before it the filtered history equals the raw one, so filtered
// candidates read raw).
type group struct {
	raw      history
	filt     *history // nil: identical to raw so far
	scores   []score  // index e*nVar + v; nil: nothing scored yet
	mean, m2 float64
	outliers int64
}

// filtered returns the group's median-filtered history.
func (g *group) filtered() *history {
	if g.filt != nil {
		return g.filt
	}
	return &g.raw
}

// valueGroups holds the groups of one primary feature value: the value's own group and, with
// secondary features, its refinements by each secondary feature's discretized value.
type valueGroups struct {
	g   *group
	sec *[3]bucketGroups // indexed by secondary-1; nil until a refined group exists
}

// bucketGroups maps a discretized secondary value to its group: a short list scanned linearly,
// switched to a map once it grows past bucketListMax.
type bucketGroups struct {
	list []bucketGroup
	m    map[int64]*group
}

type bucketGroup struct {
	bucket int64
	g      *group
}

const bucketListMax = 16

func (b *bucketGroups) get(bucket int64) *group {
	if b.m != nil {
		return b.m[bucket]
	}
	for i := range b.list {
		if b.list[i].bucket == bucket {
			return b.list[i].g
		}
	}
	return nil
}

func (b *bucketGroups) put(bucket int64, g *group) {
	if b.m == nil && len(b.list) < bucketListMax {
		b.list = append(b.list, bucketGroup{bucket, g})
		return
	}
	if b.m == nil {
		b.m = make(map[int64]*group, 2*bucketListMax)
		for _, e := range b.list {
			b.m[e.bucket] = e.g
		}
		b.list = nil
	}
	b.m[bucket] = g
}

// pendingJob is what JVu keeps between a job's submission and its completion: every candidate
// it made and the value entries it looked up (so that the completion need not look them up
// again).
type pendingJob struct {
	preds []float64
	vals  []*valueGroups // per primary feature; nil when the value had no entry yet
}

// JVu is JamaisVu's runtime predictor, JVuPredict (§3). Each job is mapped, per slot (primary
// feature, feature refined by a secondary feature, and the catch-all "all"), to the group of
// jobs with the same value. Each group keeps its runtime history incrementally and offers one
// candidate per estimator (average, median, rolling, recent — and, with the median filter, the
// same four over the filtered history). Every candidate made at a job's submission is scored
// when the job completes; a pair's score is the RMSE of its past predictions normalized by the
// mean of the runtimes they predicted.
//
// Selection: among the candidates of the job's feature slots whose group has history, the one
// with the lowest score wins; candidates never scored yet lose to scored ones and are used only
// when no candidate is scored (then the first in slot and estimator order). Ties go to the
// earlier slot, then the earlier estimator. Only when none of the job's feature values has any
// history does the "all" group predict (by the same rule). Before the first completion the
// prediction is 0 (the paper's "near-zero" estimate).
//
// Cost: a prediction or an observation is O(slots × estimators) plus O(log n) per median heap;
// nothing re-scans a history. Memory: O(1) per group except the exact median, whose two heaps
// hold every runtime of the group (8 bytes per runtime per group it belongs to), and O(pairs)
// per job between its submission and its completion (or Forget).
//
// A JVu is deterministic (no randomness, no clock, no map order in any output) and not safe
// for concurrent use.
type JVu struct {
	opts       Options
	slots      []slot
	ests       []estimator
	nVar       int
	pairs      []string
	rawMedian  bool
	filtMedian bool

	values  []map[string]*valueGroups // per primary feature
	all     *group
	pending map[int64]*pendingJob
	free    []*pendingJob
	ignored int64

	// Slabs from which groups and scores are carved, so that they cost no allocation each.
	groupSlab []group
	scoreSlab []score
}

var _ Predictor = (*JVu)(nil)

// NewJVu returns a JVuPredict predictor configured by opts.
func NewJVu(opts Options) (*JVu, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return newJVu(o), nil
}

func newJVu(o Options) *JVu {
	p := &JVu{opts: o, nVar: 1, pending: map[int64]*pendingJob{}}
	if o.MedianFilter {
		p.nVar = 2
	}
	for i, f := range o.Features {
		p.slots = append(p.slots, slot{name: f, feat: featureByName[f], primary: i})
		p.values = append(p.values, map[string]*valueGroups{})
	}
	if o.Secondary {
		for i, f := range o.Features {
			for _, s := range []secondary{secCPU, secMem, secTasks} {
				p.slots = append(p.slots, slot{name: f + "+" + secondaryNames[s], feat: featureByName[f], primary: i, sec: s})
			}
		}
	}
	p.slots = append(p.slots, slot{name: AllGroup, feat: featAll, primary: -1})
	for _, e := range o.Estimators {
		p.ests = append(p.ests, estimatorByName[e])
		if estimatorByName[e] == estMedian {
			p.rawMedian, p.filtMedian = true, true
		}
	}
	if o.MedianFilter {
		p.rawMedian = true // the filter replaces an outlier by the history's median
	}
	for _, s := range p.slots {
		for _, e := range o.Estimators {
			p.pairs = append(p.pairs, s.name+"-"+e)
			if p.nVar == 2 {
				p.pairs = append(p.pairs, s.name+"-"+e+FilterSuffix)
			}
		}
	}
	p.all = p.newGroup()
	return p
}

// Name returns "jvupredict".
func (*JVu) Name() string { return JVuName }

// Options returns the predictor's options with defaults filled in.
func (p *JVu) Options() Options { return p.opts }

// Pairs names the feature:estimator pairs in index order: for each slot (Slots order), each
// estimator, raw then (with the median filter) filtered, e.g. "job-median", "ljob-recent-mf",
// "user+cpu-rolling", "all-average".
func (p *JVu) Pairs() []string { return slices.Clone(p.pairs) }

// Slots names the grouping slots in tie-break order: the primary features, then (with
// secondary features) each primary refined by cpu, mem and tasks ("job+cpu", ...), then "all".
func (p *JVu) Slots() []string {
	out := make([]string, len(p.slots))
	for i, s := range p.slots {
		out[i] = s.name
	}
	return out
}

// PairIndex returns the index of the named pair, or -1.
func (p *JVu) PairIndex(name string) int {
	for i, n := range p.pairs {
		if n == name {
			return i
		}
	}
	return -1
}

// PairSlot returns the slot index of pair i.
func (p *JVu) PairSlot(i int) int { return i / (len(p.ests) * p.nVar) }

// Discretize rounds a secondary feature value as JamaisVu §3.2 does: values in (0, 1] to the
// nearest tenth, values above 1 to the nearest integer (0 stays 0). It returns false for a
// negative or non-finite (unknown) value.
func Discretize(x float64) (float64, bool) {
	t, ok := bucket(x)
	return float64(t) / 10, ok
}

// bucket returns Discretize's value in tenths.
func bucket(x float64) (int64, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0, false
	}
	if x <= 1 {
		return int64(math.Round(x * 10)), true
	}
	return int64(math.Round(x)) * 10, true
}

// value returns job j's value of primary feature i ("" when unknown).
func (p *JVu) value(j *Job, i int) string {
	switch p.slots[i].feat {
	case featJob:
		return j.Features.JobName
	case featLJob:
		return j.Features.LogicalJobName
	case featUser:
		return j.Features.User
	}
	return ""
}

// secBucket returns j's discretized value of secondary feature s, false when unknown.
func secBucket(j *Job, s secondary) (int64, bool) {
	switch s {
	case secCPU:
		return bucket(j.CPU)
	case secMem:
		return bucket(j.Mem)
	case secTasks:
		if j.Tasks <= 0 {
			return 0, false
		}
		return bucket(float64(j.Tasks))
	}
	return 0, false
}

// lookup returns j's group in feature slot s, given the entry v of the slot's primary value
// (nil when the value has none yet), creating the group when create is set; applies is false
// when the slot does not apply to j (unknown feature or secondary value).
func (p *JVu) lookup(j *Job, s int, v *valueGroups, known, create bool) (g *group, applies bool) {
	if !known {
		return nil, false
	}
	sl := &p.slots[s]
	if sl.sec == secNone {
		if v == nil {
			return nil, true
		}
		if v.g == nil && create {
			v.g = p.newGroup()
		}
		return v.g, true
	}
	b, ok := secBucket(j, sl.sec)
	if !ok {
		return nil, false
	}
	if v == nil {
		return nil, true
	}
	if v.sec == nil {
		if !create {
			return nil, true
		}
		v.sec = new([3]bucketGroups)
	}
	bg := &v.sec[sl.sec-1]
	g = bg.get(b)
	if g == nil && create {
		g = p.newGroup()
		bg.put(b, g)
	}
	return g, true
}

func (p *JVu) newGroup() *group {
	if len(p.groupSlab) == 0 {
		p.groupSlab = make([]group, 1024)
	}
	g := &p.groupSlab[0]
	p.groupSlab = p.groupSlab[1:]
	g.raw.useMed = p.rawMedian
	return g
}

// scoresOf returns g's scores, allocating them (from a slab) on first use.
func (p *JVu) scoresOf(g *group) []score {
	if g.scores == nil {
		n := len(p.ests) * p.nVar
		if len(p.scoreSlab) < n {
			p.scoreSlab = make([]score, 1024*n)
		}
		g.scores = p.scoreSlab[:n:n]
		p.scoreSlab = p.scoreSlab[n:]
	}
	return g.scores
}

// splitFilter gives g a filtered history of its own, a copy of the raw one, before the
// first outlier makes them differ.
func (p *JVu) splitFilter(g *group) {
	f := g.raw
	f.useMed = p.filtMedian
	if f.useMed {
		f.med = medianHeap{lo: slices.Clone(g.raw.med.lo), hi: slices.Clone(g.raw.med.hi)}
	} else {
		f.med, f.medVal = medianHeap{}, 0
	}
	f.ring = slices.Clone(g.raw.ring)
	g.filt = &f
}

// Detail receives, from PredictDetail, every candidate a prediction considered.
type Detail struct {
	// Cands[i] is pair i's prediction in µs (Pairs order), NaN when its group had no history.
	// A pair "used alone" predicts Cands[i], or near zero when it is NaN.
	Cands []float64
	// History[s] is the number of completed runtimes in the job's group of slot s (Slots
	// order), or -1 when the slot does not apply to the job.
	History []int64
}

// PredictJob predicts j's runtime from the completions observed so far.
func (p *JVu) PredictJob(j *Job, now traces.Time) Estimate { return p.PredictDetail(j, now, nil) }

// choice tracks the selection among candidates: the best scored one and the first one.
type choice struct {
	scored, first int
	score         float64
}

func newChoice() choice { return choice{scored: -1, first: -1, score: math.Inf(1)} }

// pick returns the selected pair: the best scored candidate, else the first, else -1.
func (c *choice) pick() int {
	if c.scored >= 0 {
		return c.scored
	}
	return c.first
}

// consider computes slot s's candidates from group g into preds and offers them to c.
func (p *JVu) consider(s int, g *group, preds []float64, c *choice) {
	base := s * len(p.ests) * p.nVar
	for e, est := range p.ests {
		for v := 0; v < p.nVar; v++ {
			h := &g.raw
			if v == 1 {
				h = g.filtered()
			}
			i := base + e*p.nVar + v
			preds[i] = h.estimate(est)
			if c.first < 0 {
				c.first = i
			}
			if g.scores == nil {
				continue
			}
			if sc := g.scores[e*p.nVar+v].nrmse(); sc < c.score { // false for NaN
				c.scored, c.score = i, sc
			}
		}
	}
}

// PredictDetail is PredictJob that also fills d (when non-nil) with every candidate.
func (p *JVu) PredictDetail(j *Job, _ traces.Time, d *Detail) Estimate {
	pj := p.alloc()
	preds := pj.preds
	if d != nil {
		d.History = resize(d.History, len(p.slots))
	}
	for i := range p.values {
		pj.vals[i] = nil
		if v := p.value(j, i); v != "" {
			pj.vals[i] = p.values[i][v]
		}
	}
	feat, all := newChoice(), newChoice()
	last := len(p.slots) - 1
	for s := 0; s < last; s++ {
		pi := p.slots[s].primary
		g, applies := p.lookup(j, s, pj.vals[pi], p.value(j, pi) != "", false)
		var n int64 = -1
		if applies {
			n = 0
			if g != nil {
				n = g.raw.n
			}
		}
		if d != nil {
			d.History[s] = n
		}
		if n > 0 {
			p.consider(s, g, preds, &feat)
		}
	}
	if d != nil {
		d.History[last] = p.all.raw.n
	}
	// The catch-all's candidates are always computed (they are reported), but compete only
	// when none of the job's feature values has history.
	if p.all.raw.n > 0 {
		p.consider(last, p.all, preds, &all)
	}
	c := &feat
	if c.first < 0 {
		c = &all
	}
	est := Estimate{Pair: c.pick(), Score: math.NaN()}
	if est.Pair >= 0 {
		est.Runtime = traces.Time(math.Round(preds[est.Pair]))
		if est.Pair == c.scored {
			est.Score = c.score
		}
	}
	if d != nil {
		d.Cands = resize(d.Cands, len(preds))
		copy(d.Cands, preds)
	}
	if old, ok := p.pending[j.ID]; ok {
		p.free = append(p.free, old)
	}
	p.pending[j.ID] = pj
	return est
}

// ObserveJob records that j completed after runtime: it scores every candidate j received at
// its submission and appends runtime to each of j's groups (creating them as needed). A
// negative runtime is ignored (and counted in Stats).
func (p *JVu) ObserveJob(j *Job, runtime traces.Time) {
	pj, had := p.pending[j.ID]
	if had {
		delete(p.pending, j.ID)
		defer func() { p.free = append(p.free, pj) }()
	}
	if runtime < 0 {
		p.ignored++
		return
	}
	x := float64(runtime)
	perSlot := len(p.ests) * p.nVar
	var vals [3]*valueGroups
	var known [3]bool
	for i := range p.values {
		v := p.value(j, i)
		if known[i] = v != ""; !known[i] {
			continue
		}
		if had && pj.vals[i] != nil {
			vals[i] = pj.vals[i]
			continue
		}
		if vals[i] = p.values[i][v]; vals[i] == nil {
			vals[i] = &valueGroups{}
			p.values[i][v] = vals[i]
		}
	}
	last := len(p.slots) - 1
	for s := 0; s <= last; s++ {
		g := p.all
		if s < last {
			pi := p.slots[s].primary
			var applies bool
			if g, applies = p.lookup(j, s, vals[pi], known[pi], true); !applies {
				continue
			}
		}
		if had {
			for i, v := range pj.preds[s*perSlot : (s+1)*perSlot] {
				if !math.IsNaN(v) {
					p.scoresOf(g)[i].add(v, x)
				}
			}
		}
		p.add(g, runtime)
	}
}

// add appends runtime x to g: the outlier test against the history so far, the filtered copy
// (x, or the history's median when x is an outlier), the raw history and the running moments.
func (p *JVu) add(g *group, x int64) {
	xf := float64(x)
	outlier := false
	if n := g.raw.n; n >= MinOutlierHistory {
		if sd := math.Sqrt(g.m2 / float64(n)); math.Abs(xf-g.mean) > p.opts.OutlierSigmas*sd {
			outlier = true
			g.outliers++
		}
	}
	if p.nVar == 2 {
		switch {
		case outlier:
			if g.filt == nil {
				p.splitFilter(g)
			}
			g.filt.add(int64(math.Round(g.raw.medVal)), p.opts.Alpha, p.opts.RecentN)
		case g.filt != nil:
			g.filt.add(x, p.opts.Alpha, p.opts.RecentN)
		}
	}
	g.raw.add(x, p.opts.Alpha, p.opts.RecentN)
	delta := xf - g.mean
	g.mean += delta / float64(g.raw.n)
	g.m2 += delta * (xf - g.mean)
}

// Forget drops the candidates kept for a submitted job that will never complete.
func (p *JVu) Forget(id int64) {
	if pj, ok := p.pending[id]; ok {
		delete(p.pending, id)
		p.free = append(p.free, pj)
	}
}

// Predict predicts a replayed job's runtime (Job fields from FromTraces without truth).
func (p *JVu) Predict(j *traces.Job, now traces.Time) traces.Time {
	q := FromTraces(j, false)
	return p.PredictJob(&q, now).Runtime
}

// Observe records a replayed job's completion.
func (p *JVu) Observe(j *traces.Job, runtime traces.Time) {
	q := FromTraces(j, false)
	p.ObserveJob(&q, runtime)
}

func (p *JVu) alloc() *pendingJob {
	var pj *pendingJob
	if n := len(p.free); n > 0 {
		pj = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		pj = &pendingJob{preds: make([]float64, len(p.pairs)), vals: make([]*valueGroups, len(p.values))}
	}
	for i := range pj.preds {
		pj.preds[i] = math.NaN()
	}
	return pj
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// SlotStats summarizes one slot's groups.
type SlotStats struct {
	// Name is the slot's name (Slots order).
	Name string `json:"name"`
	// Groups is the number of feature values with at least one completed runtime.
	Groups int `json:"groups"`
	// Observations is the number of runtimes added to the slot's groups.
	Observations int64 `json:"observations"`
	// Outliers counts runtimes more than OutlierSigmas standard deviations from their
	// history's mean (tested from MinOutlierHistory runtimes on), and GroupsWithOutliers the
	// groups with at least one.
	Outliers           int64 `json:"outliers"`
	GroupsWithOutliers int   `json:"groups_with_outliers"`
	// Testable counts the groups long enough for at least one runtime to have been tested
	// (more than MinOutlierHistory runtimes).
	Testable int `json:"testable_groups"`
}

// Stats describes the predictor's state.
type Stats struct {
	// Slots holds one entry per slot, in Slots order.
	Slots []SlotStats
	// Pending is the number of submitted jobs whose completion (or Forget) is outstanding.
	Pending int
	// Ignored counts observations with a negative runtime.
	Ignored int64
}

// Stats summarizes the groups (sums over an unordered map, so the result is deterministic).
func (p *JVu) Stats() Stats {
	st := Stats{Slots: make([]SlotStats, len(p.slots)), Pending: len(p.pending), Ignored: p.ignored}
	for i, s := range p.slots {
		st.Slots[i].Name = s.name
	}
	count := func(ss *SlotStats, g *group) {
		ss.Groups++
		ss.Observations += g.raw.n
		ss.Outliers += g.outliers
		if g.outliers > 0 {
			ss.GroupsWithOutliers++
		}
		if g.raw.n > MinOutlierHistory {
			ss.Testable++
		}
	}
	for i, m := range p.values {
		for _, v := range m {
			if v.g != nil {
				count(&st.Slots[i], v.g)
			}
		}
	}
	for s, sl := range p.slots {
		if sl.sec == secNone {
			continue
		}
		for _, v := range p.values[sl.primary] {
			if v.sec == nil {
				continue
			}
			bg := &v.sec[sl.sec-1]
			for _, e := range bg.list {
				count(&st.Slots[s], e.g)
			}
			for _, g := range bg.m {
				count(&st.Slots[s], g)
			}
		}
	}
	if p.all.raw.n > 0 {
		count(&st.Slots[len(p.slots)-1], p.all)
	}
	return st
}
