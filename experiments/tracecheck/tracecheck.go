// Package tracecheck checks the replay model against a trace: it replays a workload that carries
// its trace placements under the `trace` policy (policies/tracepolicy) and compares the cluster's
// allocation over time with the trace's own, computed from the same placements (each task holds
// its request from its trace start for its duration; the trace's task_usage is not used).
//
// Two pairs of curves: the workload's tasks alone (Trace, Replay), where the tracking error
// measures the starts the replay had to delay because no machine had room at the trace's time
// (the curves are equal when every placement starts on time, wherever it lands), and the totals
// with the initial holds (a mid-trace window's running state: in the trace all of them, in the
// replay those that fit their machine — an overcommitted cell held more than its capacity).
package tracecheck

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/tracepolicy"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Curve is a resource allocation over time: per bin (starting at T seconds), the time-averaged
// allocation of each of the first two dimensions as a fraction of the cluster's capacity.
type Curve struct {
	T        []float64
	CPU, Mem []float64
}

// Comparison is the trace's allocation and the replay's over the same bins.
type Comparison struct {
	Bin traces.Time
	// Start and End bound the comparison: the first trace start and the last trace task's end.
	Start, End    traces.Time
	Trace, Replay Curve
	// TraceTotal and ReplayTotal add the initial holds: all of them, and those the replay took.
	TraceTotal, ReplayTotal Curve
	// MeanAbs and MaxAbs are the tracking error per dimension (cpu, mem) of the tasks' curves:
	// the mean and the largest absolute difference over the bins, in fractions of capacity;
	// TotalMeanAbs and TotalMaxAbs those of the totals.
	MeanAbs, MaxAbs           [2]float64
	TotalMeanAbs, TotalMaxAbs [2]float64
	// Policy counts how the replay followed the placements; HoldsRejected is the initial holds
	// that did not fit their machine in the replay.
	Policy        tracepolicy.Stats
	HoldsRejected int64
}

// PolicyStats counts how the replay followed the placements (tracepolicy.Stats).
type PolicyStats = tracepolicy.Stats

// ErrNoPlacements is returned for a workload without trace placements.
var ErrNoPlacements = tracepolicy.ErrNoPlacements

// step is a change of allocation at a time.
type step struct {
	t traces.Time
	d traces.Vec // signed
}

// Compare replays w under the trace policy with the engine configuration cfg (its Log is the
// comparison's) and compares allocations over bins of length bin, from the first trace start to
// the end of the trace's last task.
func Compare(w *traces.Workload, bin traces.Time, cfg replay.Config) (*Comparison, error) {
	if len(w.Placements) == 0 {
		return nil, ErrNoPlacements
	}
	if bin <= 0 {
		return nil, fmt.Errorf("tracecheck: bin %d µs must be positive", bin)
	}
	if len(w.Dims) < 1 {
		return nil, errors.New("tracecheck: workload has no dimensions")
	}
	stageOf := make(map[int64]*traces.Job, len(w.Jobs))
	for i := range w.Jobs {
		stageOf[w.Jobs[i].ID] = &w.Jobs[i]
	}
	var tr []step
	var end traces.Time
	start := traces.Time(math.MaxInt64)
	for _, p := range w.Placements {
		j := stageOf[p.Job]
		if j == nil {
			continue
		}
		s := &j.Stages[p.Stage]
		stop := p.Start + s.TaskDuration(p.Task)
		tr = append(tr, step{p.Start, s.Demand}, step{stop, traces.Vec{}.Sub(s.Demand)})
		end = max(end, stop)
		start = min(start, p.Start)
	}
	if len(tr) == 0 {
		return nil, fmt.Errorf("tracecheck: none of the %d placements is of a job in the workload", len(w.Placements))
	}
	pol, err := tracepolicy.New(policies.Options{})
	if err != nil {
		return nil, err
	}
	var rp []step
	demand := func(j, s int32) traces.Vec { return w.Jobs[j].Stages[s].Demand }
	cfg.Log = func(l replay.LogEntry) {
		switch l.Kind {
		case replay.KindStart:
			rp = append(rp, step{l.T, demand(l.Job, l.Stage)})
		case replay.KindFinish, replay.KindPreempt, replay.KindKill:
			rp = append(rp, step{l.T, traces.Vec{}.Sub(demand(l.Job, l.Stage))})
		}
	}
	e, err := replay.New(w, pol, cfg)
	if err != nil {
		return nil, err
	}
	res, err := e.Run()
	if err != nil {
		return nil, err
	}
	c := &Comparison{Bin: bin, Start: start, End: end, Policy: pol.(*tracepolicy.Policy).Stats()}
	if res.Cluster != nil {
		c.HoldsRejected = res.Cluster.HoldsRejected
	}
	capa := w.Cluster.Total()
	var taken []traces.Vec
	if res.Cluster != nil {
		taken = res.Cluster.Taken
	}
	var th, rh []step
	for i, h := range w.Initial {
		th = append(th, step{h.Start, h.Demand}, step{h.End, traces.Vec{}.Sub(h.Demand)})
		if i < len(taken) && !taken[i].IsZero() {
			rh = append(rh, step{h.Start, taken[i]}, step{h.End, traces.Vec{}.Sub(taken[i])})
		}
	}
	c.Trace = curve(tr, start, bin, end, capa)
	c.Replay = curve(rp, start, bin, end, capa)
	c.TraceTotal = curve(append(th, tr...), start, bin, end, capa)
	c.ReplayTotal = curve(append(rh, rp...), start, bin, end, capa)
	c.MeanAbs, c.MaxAbs = gap(c.Trace, c.Replay)
	c.TotalMeanAbs, c.TotalMaxAbs = gap(c.TraceTotal, c.ReplayTotal)
	return c, nil
}

// gap returns the mean and largest absolute difference of two curves over the same bins.
func gap(a, b Curve) (mean, most [2]float64) {
	for i := range a.T {
		for d, pair := range [2][2][]float64{{a.CPU, b.CPU}, {a.Mem, b.Mem}} {
			diff := math.Abs(pair[0][i] - pair[1][i])
			mean[d] += diff
			most[d] = max(most[d], diff)
		}
	}
	if n := float64(len(a.T)); n > 0 {
		mean[0] /= n
		mean[1] /= n
	}
	return mean, most
}

// curve integrates the allocation that steps describe over bins of [start, end); T is in seconds
// from start.
func curve(steps []step, start, bin, end traces.Time, capa traces.Vec) Curve {
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.t, b.t) })
	n := int((end - start + bin - 1) / bin)
	c := Curve{T: make([]float64, n), CPU: make([]float64, n), Mem: make([]float64, n)}
	var area [2]float64 // allocation × µs in the current bin
	var level traces.Vec
	t, k := traces.Time(0), 0
	for b := range n {
		lo, hi := start+traces.Time(b)*bin, min(start+traces.Time(b+1)*bin, end)
		t = lo
		area = [2]float64{}
		for ; k < len(steps) && steps[k].t < hi; k++ {
			at := max(steps[k].t, lo)
			area[0] += float64(level[0]) * float64(at-t)
			area[1] += float64(level[1]) * float64(at-t)
			t = at
			level = level.Add(steps[k].d)
		}
		area[0] += float64(level[0]) * float64(hi-t)
		area[1] += float64(level[1]) * float64(hi-t)
		c.T[b] = traces.Seconds(lo - start)
		span := float64(hi - lo)
		if capa[0] > 0 {
			c.CPU[b] = area[0] / span / float64(capa[0])
		}
		if capa[1] > 0 {
			c.Mem[b] = area[1] / span / float64(capa[1])
		}
	}
	return c
}
