package jamaisvu

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/generate/internal/draw"
)

// Long-job treatments in the fixed-horizon design (Options.LongJobs).
const (
	LongKeep = "keep" // runtimes as drawn, even beyond the horizon
	LongCap  = "cap"  // runtimes capped at the horizon
	LongFit  = "fit"  // the classes are fitted to the samples no longer than the horizon
)

// GPU rack placements (Options.GPUAt).
const (
	GPUFirst  = "first"
	GPULast   = "last"
	GPURandom = "random"
)

// gpuRacks returns which racks have GPUs: the first or last GPURacks racks, or GPURacks racks
// drawn uniformly from r.
func gpuRacks(o Options, r *rand.Rand) []bool {
	out := make([]bool, o.Racks)
	switch o.GPUAt {
	case GPULast:
		for i := o.Racks - o.GPURacks; i < o.Racks; i++ {
			out[i] = true
		}
	case GPURandom:
		for _, i := range r.Perm(o.Racks)[:o.GPURacks] {
			out[i] = true
		}
	default:
		for i := range o.GPURacks {
			out[i] = true
		}
	}
	return out
}

// maxHorizonJobs bounds the expected job count of a fixed-horizon workload, checked before
// drawing.
const maxHorizonJobs = 10_000_000

// feasibleKinds returns the constraint kinds a job of n tasks can carry so that the constraint
// binds: GPU when the job fits the GPU nodes (most nodes have none, so it can fail), one rack
// only for a gang of more than one task that fits a rack (a single task is always on one rack).
func feasibleKinds(n int32, gpuNodes, rackSize int, out []string) []string {
	out = out[:0]
	if gpuNodes > 0 && int(n) <= gpuNodes {
		out = append(out, KindGPU)
	}
	if n > 1 && int(n) <= rackSize {
		out = append(out, KindRack)
	}
	return out
}

// fitSamples returns the samples the classes are fitted to: all of them, or with
// LongJobs=fit those no longer than the horizon.
func (o Options) fitSamples() []Sample {
	if o.LongJobs != LongFit || o.HorizonS <= 0 {
		return o.Samples
	}
	h := traces.FromSeconds(o.HorizonS)
	var out []Sample
	for _, s := range o.Samples {
		if s.Runtime <= h {
			out = append(out, s)
		}
	}
	return out
}

// runtime applies LongJobs=cap to a drawn runtime.
func (o Options) runtime(rt traces.Time) traces.Time {
	if o.LongJobs == LongCap && o.HorizonS > 0 {
		return min(rt, traces.FromSeconds(o.HorizonS))
	}
	return rt
}

// ExpectedWork returns the expected work of one generated job in task-seconds (on preferred
// resources), the quantity the fixed-horizon arrival rate is set from: the class model's
// E[tasks × runtime] (runtimes capped with LongJobs=cap), each SLO label's jobs conditioned as
// generated — a constrained job is redrawn until its constraint can bind (feasibleKinds). It
// fits the model as Generate does, with the same fitting stream when r is the same; with a
// fresh generator the k-means seeding may differ, which on well-separated data it rarely does.
func ExpectedWork(o Options) (float64, error) {
	if err := o.Validate(); err != nil {
		return 0, err
	}
	s := draw.Streams(rand.New(rand.NewPCG(0, 0)), numStreams)
	m, err := Fit(o.fitSamples(), o.K, o.MaxTasks, s[streamFit])
	if err != nil {
		return 0, err
	}
	mix, _ := ParseMix(o.Mix)
	return m.expectedWork(o, mix), nil
}

// expectedWork is ExpectedWork on a fitted model.
func (m *Model) expectedWork(o Options, mix Mix) float64 {
	gpuNodes := o.GPURacks * o.RackSize
	var buf []string
	feasible := func(n int32) bool { return len(feasibleKinds(n, gpuNodes, o.RackSize, buf)) > 0 }
	// Per class: E[work] over all draws, and the mass and work of draws that can carry a
	// constraint. Independent draws: work = tasks × runtime with the two independent.
	var all, cw, cp float64
	for ci := range m.Classes {
		c := &m.Classes[ci]
		if o.Joint {
			var w, fw, fp float64
			for _, sm := range c.Samples {
				x := float64(sm.Tasks) * traces.Seconds(o.runtime(sm.Runtime))
				w += x
				if feasible(sm.Tasks) {
					fw += x
					fp++
				}
			}
			n := float64(len(c.Samples))
			all += c.Weight * w / n
			cw += c.Weight * fw / n
			cp += c.Weight * fp / n
			continue
		}
		var rt float64
		for _, r := range c.Runtimes {
			rt += traces.Seconds(o.runtime(r))
		}
		rt /= float64(len(c.Runtimes))
		var t, ft, fp float64
		for _, n := range c.Tasks {
			t += float64(n)
			if feasible(n) {
				ft += float64(n)
				fp++
			}
		}
		n := float64(len(c.Tasks))
		all += c.Weight * t / n * rt
		cw += c.Weight * ft / n * rt
		cp += c.Weight * fp / n
	}
	constrained := mix.Hard + mix.Soft
	if constrained == 0 || cp == 0 {
		return all
	}
	return (1-constrained)*all + constrained*cw/cp
}

// horizonArrivals returns the submission times (µs) of a Poisson process of rate
// Load × nodes / perJob over [0, HorizonS]: the jobs offer Load of the cluster in expectation,
// whatever the sample of one run (its realised load varies with the draws: the horizon.offered_load metric of a run).
func (o Options) horizonArrivals(perJob float64, nodes int, r *rand.Rand) ([]traces.Time, error) {
	if !(perJob > 0) {
		return nil, fmt.Errorf("jamaisvu: Options.Samples: expected work per job is %v task-s", perJob)
	}
	rate := o.Load * float64(nodes) / perJob // jobs per second
	if n := rate * o.HorizonS; n > maxHorizonJobs {
		return nil, fmt.Errorf("jamaisvu: Options.HorizonS: load %v over %v s expects %.4g jobs, beyond %d", o.Load, o.HorizonS, n, maxHorizonJobs)
	}
	var out []traces.Time
	for t := draw.Exp(r, 1/rate); t <= o.HorizonS; t += draw.Exp(r, 1/rate) {
		if len(out) == 2*maxHorizonJobs {
			return nil, fmt.Errorf("jamaisvu: Options.HorizonS: more than %d arrivals", len(out))
		}
		out = append(out, traces.Time(math.Round(t*float64(traces.Second))))
	}
	return out, nil
}
