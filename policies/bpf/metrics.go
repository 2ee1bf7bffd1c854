package bpf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// The metric helpers below are pure functions over plain values, so that the experiments layer
// (which imports both replay and this package; policies never import replay) can compute the
// paper's metrics from a run's job records, per-queue usage series and this package's
// admission records. Utilization and the per-queue usage series themselves come from the
// engine's summary.

// JobTime is one job's outcome as the BPF metrics need it.
type JobTime struct {
	Queue     string
	Class     string // "lq" (any case) marks a job of a latency-sensitive queue; others count as TQ
	Submit    traces.Time
	Finish    traces.Time
	Completed bool
}

// IsLQ reports whether the job belongs to a latency-sensitive queue.
func (j JobTime) IsLQ() bool { return strings.EqualFold(j.Class, "lq") }

// Completion summarizes the completion times (finish − submit, in seconds) of LQ and TQ jobs.
type Completion struct {
	LQ, TQ                     []float64 // completed jobs' times, ascending
	LQAvg, TQAvg               float64   // averages over completed jobs; 0 when there are none
	LQUnfinished, TQUnfinished int
}

// Completions splits jobs into LQ and TQ jobs and summarizes their completion times.
func Completions(jobs []JobTime) Completion {
	var c Completion
	for _, j := range jobs {
		lq := j.IsLQ()
		if !j.Completed {
			if lq {
				c.LQUnfinished++
			} else {
				c.TQUnfinished++
			}
			continue
		}
		x := traces.Seconds(j.Finish - j.Submit)
		if lq {
			c.LQ = append(c.LQ, x)
		} else {
			c.TQ = append(c.TQ, x)
		}
	}
	slices.Sort(c.LQ)
	slices.Sort(c.TQ)
	c.LQAvg, c.TQAvg = mean(c.LQ), mean(c.TQ)
	return c
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// FactorOfImprovement is the paper's §5.1 metric: the average LQ completion time under DRF over
// the average under the policy. Both must be positive and finite.
func FactorOfImprovement(drfAvg, policyAvg float64) (float64, error) {
	if !(drfAvg > 0) || !(policyAvg > 0) || math.IsInf(drfAvg, 0) || math.IsInf(policyAvg, 0) {
		return 0, fmt.Errorf("factor of improvement: averages must be positive and finite (DRF %v, policy %v)", drfAvg, policyAvg)
	}
	return drfAvg / policyAvg, nil
}

// CDFPoint is one step of an empirical CDF: a fraction P of the values are ≤ X.
type CDFPoint struct{ X, P float64 }

// CDF returns the empirical CDF of xs: one point per distinct value, ascending.
func CDF(xs []float64) []CDFPoint {
	s := slices.Clone(xs)
	slices.Sort(s)
	var out []CDFPoint
	for i, x := range s {
		p := float64(i+1) / float64(len(s))
		if n := len(out); n > 0 && out[n-1].X == x {
			out[n-1].P = p
			continue
		}
		out = append(out, CDFPoint{X: x, P: p})
	}
	return out
}

// LongWindowShares turns a per-queue usage series (usage[q][w][d]: queue q's average allocation
// of dimension d over window w as a fraction of capacity, as the engine reports it) into each
// queue's average dominant share over long windows of per consecutive windows: the largest,
// over dimensions, of the long window's average allocation (the paper's
// max_k (1/T)∫a_k(τ)dτ). Queues with shorter series count as idle in the windows they lack; a
// final partial long window averages the windows it has.
func LongWindowShares(usage [][][traces.MaxDims]float64, dims, per int) ([][]float64, error) {
	if per < 1 {
		return nil, fmt.Errorf("long window of %d usage windows; want at least 1", per)
	}
	if dims < 1 || dims > traces.MaxDims {
		return nil, fmt.Errorf("%d resource dimensions; want 1..%d", dims, traces.MaxDims)
	}
	n := 0
	for _, s := range usage {
		n = max(n, len(s))
	}
	long := (n + per - 1) / per
	out := make([][]float64, len(usage))
	for q, s := range usage {
		out[q] = make([]float64, long)
		for l := 0; l < long; l++ {
			lo, hi := l*per, min((l+1)*per, n)
			var sum [traces.MaxDims]float64
			for w := lo; w < hi && w < len(s); w++ {
				for d := 0; d < dims; d++ {
					sum[d] += s[w][d]
				}
			}
			best := 0.0
			for d := 0; d < dims; d++ {
				best = max(best, sum[d]/float64(hi-lo))
			}
			out[q][l] = best
		}
	}
	return out, nil
}

// QueueShare is one queue's average dominant share over an evaluation interval.
type QueueShare struct {
	Queue    string
	Kind     Kind
	Admitted bool // rejected queues take no part in the fairness check
	Share    float64
}

// ShareTable joins the engine's per-queue shares (queues[i] has shares[i]) with the queues'
// kinds and admission: a queue's kind and admission come from its admission record when there
// is one, else from its jobs' class (an unadmitted queue under another policy counts as
// admitted).
func ShareTable(queues []string, shares []float64, admissions []Admission, jobs []JobTime) ([]QueueShare, error) {
	if len(queues) != len(shares) {
		return nil, fmt.Errorf("share table: %d queues but %d shares", len(queues), len(shares))
	}
	out := make([]QueueShare, len(queues))
	for i, name := range queues {
		out[i] = QueueShare{Queue: name, Kind: TQ, Admitted: true, Share: shares[i]}
		for _, j := range jobs {
			if j.Queue == name {
				if j.IsLQ() {
					out[i].Kind = LQ
				}
				break
			}
		}
		for _, a := range admissions {
			if a.Queue == name {
				out[i].Kind, out[i].Admitted = a.Kind, a.Class != Rejected
				break
			}
		}
	}
	return out, nil
}

// FairnessViolation is an admitted TQ whose share fell below an admitted LQ's.
type FairnessViolation struct {
	TQ, LQ           string
	TQShare, LQShare float64
}

// FairnessCheck is the outcome of the long-term fairness check.
type FairnessCheck struct {
	OK bool
	// MinTQ and MaxLQ are the smallest admitted TQ share and the largest admitted LQ share (0
	// when there is no such queue).
	MinTQ, MaxLQ float64
	// Violations lists, for each admitted TQ below the largest LQ share, that LQ (in input order).
	Violations []FairnessViolation
}

// CheckFairness checks the paper's long-term fairness condition over one interval: no admitted
// TQ's average dominant share is below any admitted LQ's, up to tolerance tol (a TQ passes when
// its share ≥ the LQ's − tol).
func CheckFairness(shares []QueueShare, tol float64) (FairnessCheck, error) {
	if tol < 0 || math.IsNaN(tol) {
		return FairnessCheck{}, errors.New("fairness check: tolerance must be ≥ 0")
	}
	c := FairnessCheck{OK: true}
	maxLQ := -1
	firstTQ := true
	for i, s := range shares {
		if !s.Admitted {
			continue
		}
		if s.Kind == LQ {
			if maxLQ < 0 || s.Share > shares[maxLQ].Share {
				maxLQ = i
			}
		} else if firstTQ || s.Share < c.MinTQ {
			c.MinTQ, firstTQ = s.Share, false
		}
	}
	if maxLQ < 0 {
		return c, nil
	}
	lq := shares[maxLQ]
	c.MaxLQ = lq.Share
	for _, s := range shares {
		if s.Admitted && s.Kind == TQ && s.Share < lq.Share-tol {
			c.OK = false
			c.Violations = append(c.Violations, FairnessViolation{TQ: s.Queue, LQ: lq.Queue, TQShare: s.Share, LQShare: lq.Share})
		}
	}
	return c, nil
}
