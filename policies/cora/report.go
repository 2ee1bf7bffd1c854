package cora

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies"
)

// Names of the policy's outputs (policies.Reporter).
const (
	// EventsTable is cora_events.parquet: one row per scheduling event at which the policy
	// solved the CORA problem.
	EventsTable = "cora_events"
	// ShadowTable is cora_shadow.parquet (with policy.params.shadow): one row per event with the
	// smallest projected utility of CORA and of FIFO's, Fair's, EDF's and RRH's rules (Fig. 3).
	ShadowTable = "cora_shadow"
)

// eventRecord is one solve.
type eventRecord struct {
	time     float64 // simulated seconds
	active   int
	slots    int
	slot     float64 // seconds
	solver   string
	status   string
	err      string
	wall     float64 // ms, wall clock
	min, sum float64 // predicted by the solution (NaN when it failed)
	rounds   int
	branches int
	lp       *lpRecord
}

// lpRecord is the LP part of an event.
type lpRecord struct {
	vars, rows, underflow int
	scale                 float64
	iterations            int64
	highsMS               float64
	fractional, objective float64
	compared, same        bool
	exactMin, exactSum    float64
	exactWall             float64
}

type eventLog struct{ recs []eventRecord }

func (l *eventLog) add(r eventRecord) { l.recs = append(l.recs, r) }

// table returns the events as columns; the LP columns appear when the solver is lp.
func (l *eventLog) table(lp bool) policies.Table {
	n := len(l.recs)
	f := func(name string, get func(*eventRecord) float64) policies.Column {
		c := policies.Column{Name: name, Float64: make([]float64, n)}
		for i := range l.recs {
			c.Float64[i] = get(&l.recs[i])
		}
		return c
	}
	in := func(name string, get func(*eventRecord) int64) policies.Column {
		c := policies.Column{Name: name, Int64: make([]int64, n)}
		for i := range l.recs {
			c.Int64[i] = get(&l.recs[i])
		}
		return c
	}
	s := func(name string, get func(*eventRecord) string) policies.Column {
		c := policies.Column{Name: name, String: make([]string, n)}
		for i := range l.recs {
			c.String[i] = get(&l.recs[i])
		}
		return c
	}
	t := policies.Table{Name: EventsTable, Columns: []policies.Column{
		f("time_s", func(r *eventRecord) float64 { return r.time }),
		in("active_jobs", func(r *eventRecord) int64 { return int64(r.active) }),
		in("slots", func(r *eventRecord) int64 { return int64(r.slots) }),
		f("slot_s", func(r *eventRecord) float64 { return r.slot }),
		s("solver", func(r *eventRecord) string { return r.solver }),
		s("status", func(r *eventRecord) string { return r.status }),
		s("error", func(r *eventRecord) string { return r.err }),
		f("wall_ms", func(r *eventRecord) float64 { return r.wall }),
		f("min_utility", func(r *eventRecord) float64 { return r.min }),
		f("sum_utility", func(r *eventRecord) float64 { return r.sum }),
		in("rounds", func(r *eventRecord) int64 { return int64(r.rounds) }),
		in("tie_branches", func(r *eventRecord) int64 { return int64(r.branches) }),
	}}
	if !lp {
		return t
	}
	lpf := func(name string, get func(*lpRecord) float64) policies.Column {
		return f(name, func(r *eventRecord) float64 {
			if r.lp == nil {
				return 0
			}
			return get(r.lp)
		})
	}
	lpi := func(name string, get func(*lpRecord) int64) policies.Column {
		return in(name, func(r *eventRecord) int64 {
			if r.lp == nil {
				return 0
			}
			return get(r.lp)
		})
	}
	same := policies.Column{Name: "same_as_exact", Bool: make([]bool, n)}
	compared := policies.Column{Name: "compared_with_exact", Bool: make([]bool, n)}
	for i := range l.recs {
		if r := l.recs[i].lp; r != nil {
			same.Bool[i], compared.Bool[i] = r.same, r.compared
		}
	}
	t.Columns = append(t.Columns,
		lpi("lp_vars", func(r *lpRecord) int64 { return int64(r.vars) }),
		lpi("lp_rows", func(r *lpRecord) int64 { return int64(r.rows) }),
		lpf("lp_scale", func(r *lpRecord) float64 { return r.scale }),
		lpi("lp_underflow", func(r *lpRecord) int64 { return int64(r.underflow) }),
		lpi("lp_iterations", func(r *lpRecord) int64 { return r.iterations }),
		lpf("lp_highs_ms", func(r *lpRecord) float64 { return r.highsMS }),
		lpf("lp_fractional", func(r *lpRecord) float64 { return r.fractional }),
		lpf("lp_objective", func(r *lpRecord) float64 { return r.objective }),
		compared, same,
		lpf("exact_min_utility", func(r *lpRecord) float64 { return r.exactMin }),
		lpf("exact_sum_utility", func(r *lpRecord) float64 { return r.exactSum }),
		lpf("exact_wall_ms", func(r *lpRecord) float64 { return r.exactWall }),
	)
	return t
}

// comparators are the shadow evaluation's rules, by output name.
var comparators = []struct {
	name string
	get  func(m *ShadowMins) float64
}{
	{"fifo", func(m *ShadowMins) float64 { return m.FIFO }},
	{"fair", func(m *ShadowMins) float64 { return m.Fair }},
	{"edf", func(m *ShadowMins) float64 { return m.EDF }},
	{"rrh", func(m *ShadowMins) float64 { return m.RRH }},
}

// shadowLog holds the Fig. 3 rows.
type shadowLog struct {
	time   []float64
	active []int64
	cora   []float64
	mins   []ShadowMins
}

func (l *shadowLog) add(t float64, active int, cora float64, m ShadowMins) {
	l.time = append(l.time, t)
	l.active = append(l.active, int64(active))
	l.cora = append(l.cora, cora)
	l.mins = append(l.mins, m)
}

// table returns the shadow rows: each comparator's smallest projected utility, CORA's gain over
// it (cora_min − other) and that gain relative to CORA's (0 when CORA's is 0).
func (l *shadowLog) table() policies.Table {
	n := len(l.time)
	col := func(name string, get func(k int) float64) policies.Column {
		c := policies.Column{Name: name, Float64: make([]float64, n)}
		for k := range n {
			c.Float64[k] = get(k)
		}
		return c
	}
	t := policies.Table{Name: ShadowTable, Columns: []policies.Column{
		col("time_s", func(k int) float64 { return l.time[k] }),
		{Name: "active_jobs", Int64: l.active},
		col("cora_min", func(k int) float64 { return l.cora[k] }),
	}}
	for _, c := range comparators {
		t.Columns = append(t.Columns, col(c.name+"_min", func(k int) float64 { return c.get(&l.mins[k]) }))
	}
	for _, c := range comparators {
		t.Columns = append(t.Columns, col("gain_"+c.name, func(k int) float64 { return l.cora[k] - c.get(&l.mins[k]) }))
	}
	for _, c := range comparators {
		t.Columns = append(t.Columns, col("rel_gain_"+c.name, func(k int) float64 {
			if l.cora[k] == 0 {
				return 0
			}
			return (l.cora[k] - c.get(&l.mins[k])) / l.cora[k]
		}))
	}
	return t
}

// metrics summarizes the shadow rows per comparator c: cora.shadow.<c>.positive, the share of
// events at which CORA's min utility is above the comparator's; cora.shadow.<c>.mean_gain, the
// mean of cora_min − <c>_min; cora.shadow.<c>.rel_gain_q35, the 35th percentile of the relative
// gain, i.e. the gain CORA reaches or exceeds at 65% of the events; and
// cora.shadow.<c>.share_rel_gain_18, the share of events at which the relative gain is at least
// 18% — the paper's example point read the other way: "at least 18% improvement over FAIR for
// 0.65 fraction of all scheduling events".
func (l *shadowLog) metrics(m map[string]float64) {
	n := len(l.time)
	for _, c := range comparators {
		var pos, sum, at18 float64
		rel := make([]float64, 0, n)
		for k := range n {
			g := l.cora[k] - c.get(&l.mins[k])
			if math.IsNaN(g) {
				continue
			}
			if g > 0 {
				pos++
			}
			sum += g
			r := 0.0
			if l.cora[k] != 0 {
				r = g / l.cora[k]
			}
			if r >= 0.18 {
				at18++
			}
			rel = append(rel, r)
		}
		key := "cora.shadow." + c.name + "."
		if len(rel) == 0 {
			m[key+"positive"], m[key+"mean_gain"], m[key+"rel_gain_q35"], m[key+"share_rel_gain_18"] = 0, 0, 0, 0
			continue
		}
		slices.Sort(rel)
		m[key+"positive"] = pos / float64(len(rel))
		m[key+"share_rel_gain_18"] = at18 / float64(len(rel))
		m[key+"mean_gain"] = sum / float64(len(rel))
		m[key+"rel_gain_q35"] = quantile(rel, 0.35)
	}
}

// quantile of sorted xs by linear interpolation between closest ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Report implements policies.Reporter: the per-event table (and the shadow table when enabled)
// and the run's counts as metrics cora.events, cora.failures, cora.timeouts, cora.fallbacks,
// cora.inexact, cora.size_limited (problems over the size bounds, also failures), for the lp solver cora.lp_differs (events at which FINAL's optimum had a different
// sorted utility vector from the exact solver's) and cora.lp_fractional, and with the shadow
// evaluation the cora.shadow.* summaries (shadowLog.metrics). It also releases the LP solver's
// instance.
func (p *CORA) Report(policies.ReportContext) (*policies.Report, error) {
	if p.done != nil {
		p.done()
		p.lp, p.done = nil, nil
	}
	c := p.counts
	m := map[string]float64{
		"cora.events":       float64(c.events),
		"cora.failures":     float64(c.failures),
		"cora.timeouts":     float64(c.timeouts),
		"cora.fallbacks":    float64(c.fallbacks),
		"cora.inexact":      float64(c.inexact),
		"cora.size_limited": float64(c.sizeLimited),
	}
	lp := p.cfg.solver == SolverLP
	if lp {
		m["cora.lp_differs"] = float64(c.lpDiffers)
		m["cora.lp_fractional"] = float64(c.lpFractional)
	}
	r := &policies.Report{Metrics: m, Tables: []policies.Table{p.log.table(lp)}}
	if p.cfg.shadow {
		r.Tables = append(r.Tables, p.shadow.table())
		p.shadow.metrics(m)
	}
	return r, nil
}
