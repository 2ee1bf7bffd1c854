package jvusched

import (
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// stats are the run's counters, reported as metrics.
type stats struct {
	solves         int64
	limitIncumbent int64 // a limit stopped the solve; its incumbent was used
	fallbacks      int64 // no usable solution: nothing new started
	preempted      int64 // running jobs preempted
	increments     int64 // under-estimate increments
	late           int64 // SLO jobs found unable to meet their deadline
	unschedulable  int64 // jobs with more tasks than machines
	sizeLimited    int64 // MILPs over the size limits, not solved (also fallbacks)
	timeLimited    int64 // solves a limit stopped while the time limit was set (NondeterministicReason)
}

// cycleRow is one solve's record.
type cycleRow struct {
	t                            traces.Time
	call, solve, job             int64
	pending, considered, running int64
	leaves, rows, cols           int64
	binaries, integers, nonzeros int64
	partitions, slices           int64
	status                       string
	objective, gap               float64
	nodes, iters                 int64
	wallMS, solverMS             float64
	warm, limit, fallback        bool
	starts, preempts             int64
}

// records holds the rows of the cycles table.
type records struct{ rows []cycleRow }

func (r *records) add(row cycleRow) { r.rows = append(r.rows, row) }

// Solves returns how many MILPs the policy has solved so far.
func (p *Policy) Solves() int64 { return p.stats.solves }

// CyclesTable is the name of the per-solve table (written as cycles.parquet).
const CyclesTable = "cycles"

// Report implements policies.Reporter: counters as metrics (jvusched.*) and one row per MILP
// solved in the cycles table.
func (p *Policy) Report(policies.ReportContext) (*policies.Report, error) {
	s := p.stats
	var maxRows, maxCols, maxInts int64
	for _, r := range p.rec.rows {
		maxRows, maxCols, maxInts = max(maxRows, r.rows), max(maxCols, r.cols), max(maxInts, r.binaries+r.integers)
	}
	rep := &policies.Report{Metrics: map[string]float64{
		"jvusched.solves":              float64(s.solves),
		"jvusched.limit_incumbent":     float64(s.limitIncumbent),
		"jvusched.fallbacks":           float64(s.fallbacks),
		"jvusched.preempted_jobs":      float64(s.preempted),
		"jvusched.estimate_increments": float64(s.increments),
		"jvusched.late_slo_jobs":       float64(s.late),
		"jvusched.unschedulable_jobs":  float64(s.unschedulable),
		"jvusched.size_limited":        float64(s.sizeLimited),
		"jvusched.milp.max_rows":       float64(maxRows),
		"jvusched.milp.max_cols":       float64(maxCols),
		"jvusched.milp.max_integers":   float64(maxInts),
	}}
	rows := p.rec.rows
	n := len(rows)
	col := func(name string, f func(r *cycleRow) int64) policies.Column {
		c := policies.Column{Name: name, Int64: make([]int64, n)}
		for i := range rows {
			c.Int64[i] = f(&rows[i])
		}
		return c
	}
	fcol := func(name string, f func(r *cycleRow) float64) policies.Column {
		c := policies.Column{Name: name, Float64: make([]float64, n)}
		for i := range rows {
			c.Float64[i] = f(&rows[i])
		}
		return c
	}
	bcol := func(name string, f func(r *cycleRow) bool) policies.Column {
		c := policies.Column{Name: name, Bool: make([]bool, n)}
		for i := range rows {
			c.Bool[i] = f(&rows[i])
		}
		return c
	}
	status := policies.Column{Name: "status", String: make([]string, n)}
	for i := range rows {
		status.String[i] = rows[i].status
	}
	rep.Tables = []policies.Table{{Name: CyclesTable, Columns: []policies.Column{
		fcol("t_s", func(r *cycleRow) float64 { return traces.Seconds(r.t) }),
		col("call", func(r *cycleRow) int64 { return r.call }),
		col("solve", func(r *cycleRow) int64 { return r.solve }),
		col("job", func(r *cycleRow) int64 { return r.job }),
		col("pending", func(r *cycleRow) int64 { return r.pending }),
		col("considered", func(r *cycleRow) int64 { return r.considered }),
		col("running", func(r *cycleRow) int64 { return r.running }),
		col("leaves", func(r *cycleRow) int64 { return r.leaves }),
		col("rows", func(r *cycleRow) int64 { return r.rows }),
		col("cols", func(r *cycleRow) int64 { return r.cols }),
		col("binaries", func(r *cycleRow) int64 { return r.binaries }),
		col("integers", func(r *cycleRow) int64 { return r.integers }),
		col("nonzeros", func(r *cycleRow) int64 { return r.nonzeros }),
		col("partitions", func(r *cycleRow) int64 { return r.partitions }),
		col("slices", func(r *cycleRow) int64 { return r.slices }),
		status,
		fcol("objective", func(r *cycleRow) float64 { return r.objective }),
		fcol("gap", func(r *cycleRow) float64 { return r.gap }),
		col("nodes", func(r *cycleRow) int64 { return r.nodes }),
		col("simplex_iterations", func(r *cycleRow) int64 { return r.iters }),
		fcol("wall_ms", func(r *cycleRow) float64 { return r.wallMS }),
		fcol("solver_ms", func(r *cycleRow) float64 { return r.solverMS }),
		bcol("warm_started", func(r *cycleRow) bool { return r.warm }),
		bcol("limit", func(r *cycleRow) bool { return r.limit }),
		bcol("fallback", func(r *cycleRow) bool { return r.fallback }),
		col("starts", func(r *cycleRow) int64 { return r.starts }),
		col("preemptions", func(r *cycleRow) int64 { return r.preempts }),
	}}}
	return rep, nil
}
