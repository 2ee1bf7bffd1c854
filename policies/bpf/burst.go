package bpf

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// step is a change of a burst's estimated demand profile.
type step struct {
	t traces.Time
	d traces.Vec
	s int64 // +1 start, -1 end
}

// profile estimates a burst from its jobs, using only scheduler-visible estimates: its
// execution with the whole cluster to itself, every stage starting as soon as its parents end
// and running its tasks in as few waves as capacity allows (one wave when they fit at once),
// each wave lasting the stage's estimated task duration — the paper's "shortest completion
// time". It returns the per-dimension peak of the summed demand (d_i(n)) and the span from start
// until the last job's last stage ends.
func profile(v policies.View, jobs []policies.JobID, start traces.Time, capacity traces.Vec, dims int, steps []step) (traces.Vec, traces.Time, []step, error) {
	steps = steps[:0]
	var span traces.Time
	for _, j := range jobs {
		info := v.Job(j)
		if info == nil {
			return traces.Vec{}, 0, steps, fmt.Errorf("the view has no job %d", j)
		}
		n := len(info.Stages)
		finish := make([]traces.Time, n)
		state := make([]uint8, n) // 0 unvisited, 1 in progress, 2 done
		var visit func(s int) (traces.Time, error)
		visit = func(s int) (traces.Time, error) {
			switch state[s] {
			case 2:
				return finish[s], nil
			case 1:
				return 0, fmt.Errorf("job %d: stage graph has a cycle through stage %d", j, s)
			}
			state[s] = 1
			begin := max(info.Submit, start)
			for _, par := range info.Stages[s].Parents {
				if par < 0 || int(par) >= n {
					return 0, fmt.Errorf("job %d: stage %d has parent %d out of range", j, s, par)
				}
				f, err := visit(int(par))
				if err != nil {
					return 0, err
				}
				begin = max(begin, f)
			}
			st := &info.Stages[s]
			wave, waves := waves(st.Tasks, st.Demand, capacity, dims)
			finish[s] = begin + max(st.Estimate, 0)*traces.Time(waves)
			state[s] = 2
			if finish[s] > begin {
				d := st.Demand.Scale(int64(wave))
				steps = append(steps, step{begin, d, +1}, step{finish[s], d, -1})
			}
			return finish[s], nil
		}
		for s := 0; s < n; s++ {
			f, err := visit(s)
			if err != nil {
				return traces.Vec{}, 0, steps, err
			}
			span = max(span, f-start)
		}
	}
	slices.SortFunc(steps, func(a, b step) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.s, b.s)) })
	var level, peak traces.Vec
	for i := range steps {
		level = level.Add(steps[i].d.Scale(steps[i].s))
		for k := 0; k < dims; k++ {
			peak[k] = max(peak[k], level[k])
		}
	}
	return peak, span, steps, nil
}

// waves returns how many of n tasks of demand d run at once on capacity, and in how many
// rounds all n run. A task that fits nowhere runs alone.
func waves(n int32, d, capacity traces.Vec, dims int) (int32, int64) {
	per := int64(n)
	for k := 0; k < dims; k++ {
		if d[k] > 0 {
			per = min(per, capacity[k]/d[k])
		}
	}
	per = max(per, 1)
	return int32(per), (int64(n) + per - 1) / per
}

// derivedBurst estimates a burst from its jobs: the peak of their estimated profile capped at
// capacity (d), and the latest deadline less start or, without deadlines, the estimated span
// (t), stretched where needed so that d·t covers the burst's estimated work in every dimension.
func (c *core) derivedBurst(v policies.View, jobs []policies.JobID, start traces.Time, steps []step) (traces.Vec, traces.Time, []step, error) {
	peak, span, steps, err := profile(v, jobs, start, c.capacity, c.dims, steps)
	if err != nil {
		return peak, span, steps, err
	}
	var deadline traces.Time
	var work [traces.MaxDims]float64 // Σ tasks × demand × estimate
	for _, j := range jobs {
		info := v.Job(j)
		if info == nil {
			continue
		}
		if info.Deadline > start {
			deadline = max(deadline, info.Deadline-start)
		}
		for s := range info.Stages {
			st := &info.Stages[s]
			for k := 0; k < c.dims; k++ {
				work[k] += float64(st.Tasks) * float64(st.Demand[k]) * float64(max(st.Estimate, 0))
			}
		}
	}
	if deadline > 0 {
		span = deadline
	}
	for k := 0; k < c.dims; k++ {
		peak[k] = min(peak[k], c.capacity[k])
		// At rate d the burst's work takes at least work/d: an ON period shorter than that
		// (stages that overlap beyond capacity, a deadline tighter than feasible) could never
		// hold the burst, so t is stretched to make d·t cover it.
		if peak[k] > 0 {
			need := traces.Time(math.Ceil(work[k] / float64(peak[k])))
			span = max(span, need)
		}
	}
	return peak, span, steps, nil
}

// contractFor builds an LQ's contract at its admission from its declaration and, for what the
// declaration leaves out, from the jobs of its first burst (the jobs that arrived with its first
// arrival). ok is false when no period is known.
//
//   - start: declared start_s, else the first arrival.
//   - period: declared per burst shape, else policy.params.period_s.
//   - duration t: declared, else the latest deadline of the first burst's jobs less the start,
//     else their estimated shortest completion time (see profile); at least 1µs and at most the
//     period.
//   - demand d: declared fractions of capacity, else the peak of the first burst's estimated
//     profile, capped at capacity.
//   - count: declared, else every burst starting before policy.params.horizon_s (at least one).
//
// Flags of the burst parameters a queue's jobs determine (Contract shapes declared without them).
const (
	deriveDemand uint8 = 1 << iota
	deriveDuration
)

func (c *core) contractFor(v policies.View, q *queue, steps []step) (Contract, []uint8, bool, []step, error) {
	var first traces.Time = math.MaxInt64
	for _, j := range q.arrivals {
		if info := v.Job(j); info != nil {
			first = min(first, info.Submit)
		}
	}
	if first == math.MaxInt64 {
		first = v.Now()
	}
	spec := q.spec
	if spec == nil {
		spec = &queueSpec{start: -1, shapes: []shapeSpec{{}}}
	}
	start := first
	if spec.start >= 0 {
		start = spec.start
	}
	var (
		derived bool
		peak    traces.Vec
		span    traces.Time
		err     error
	)
	derive := func() error {
		if derived {
			return nil
		}
		derived = true
		peak, span, steps, err = c.derivedBurst(v, q.arrivals, start, steps)
		if err != nil {
			return c.errorf("queue %q: %v", q.name, err)
		}
		return nil
	}
	k := Contract{Start: start, Shapes: make([]Shape, len(spec.shapes))}
	flags := make([]uint8, len(spec.shapes))
	for i, sh := range spec.shapes {
		out := &k.Shapes[i]
		out.Period = sh.period
		if out.Period == 0 {
			out.Period = c.cfg.period
		}
		if out.Period == 0 {
			return k, nil, false, steps, nil
		}
		out.Duration = sh.duration
		if out.Duration == 0 {
			if err := derive(); err != nil {
				return k, nil, false, steps, err
			}
			out.Duration = span
			flags[i] |= deriveDuration
		}
		out.Duration = min(max(out.Duration, 1), out.Period)
		switch {
		case sh.demand != nil:
			for d, f := range sh.demand {
				if d < c.dims {
					out.Demand[d] = int64(math.Round(f * float64(c.capacity[d])))
				}
			}
		case sh.named != nil:
			for name, f := range sh.named {
				d := slices.Index(c.dimNames, name)
				if d < 0 || d >= c.dims {
					return k, nil, false, steps, c.errorf("policy.params.%s.%s.%s: unknown resource dimension %q (workload has %v)", ParamQueues, q.name, specDemand, name, c.dimNames)
				}
				out.Demand[d] = int64(math.Round(f * float64(c.capacity[d])))
			}
		default:
			if err := derive(); err != nil {
				return k, nil, false, steps, err
			}
			out.Demand = peak
			flags[i] |= deriveDemand
		}
	}
	k.Count = 1
	if err := k.Validate(); err != nil {
		return k, nil, false, steps, c.errorf("queue %q: %v", q.name, err)
	}
	if spec.count > 0 {
		k.Count = spec.count
	} else {
		k.Count = burstsBefore(&k, c.cfg.horizon)
	}
	if err := k.Validate(); err != nil {
		return k, nil, false, steps, c.errorf("queue %q: %v", q.name, err)
	}
	return k, flags, true, steps, nil
}

// burstsBefore counts the bursts of a validated contract that start before horizon (at least 1).
func burstsBefore(k *Contract, horizon traces.Time) int {
	if horizon <= k.Start {
		return 1
	}
	l := len(k.Shapes)
	span := horizon - k.Start
	full := (span - 1) / k.cycle
	if full > int64(math.MaxInt32)/int64(l) {
		return math.MaxInt32 / l * l
	}
	n := int(full) * l
	off := span - full*k.cycle
	for _, p := range k.prefix {
		if p < off {
			n++
		}
	}
	return max(n, 1)
}
