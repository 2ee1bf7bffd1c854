package baseline_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// reference recomputes a baseline's plan from scratch by brute force: at every step it scans all
// active jobs, recomputes every key, and places by scanning machines in order. It shares no code
// with the package, so agreement checks the incremental indexes, the heap and the free-capacity
// mirror against the documented semantics. It does not preempt.
type reference struct {
	kind       string
	queueLevel bool
	backfill   bool
	classRank  map[string]int64
	weights    map[string]float64
}

type refKey struct {
	a  int64
	s  float64
	b  int64
	id int64
}

func (x refKey) less(y refKey) bool {
	if x.a != y.a {
		return x.a < y.a
	}
	if x.s != y.s {
		return x.s < y.s
	}
	if x.b != y.b {
		return x.b < y.b
	}
	return x.id < y.id
}

type refJob struct {
	id      policies.JobID
	info    *policies.JobInfo
	running int32
	alloc   traces.Vec
	pending int32
	taken   map[int32]int32
	remain  int64
	rank    int64
	weight  float64
}

func refWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 0) {
		return 1
	}
	return w
}

func (r *reference) plan(v policies.View) policies.Plan {
	var p policies.Plan
	free := make([]traces.Vec, v.NumMachines())
	for m := range free {
		free[m] = v.Free(m)
	}
	capacity := v.Capacity()
	var jobs []*refJob
	for _, j := range v.Active() {
		js := v.JobState(j)
		info := v.Job(j)
		rj := &refJob{id: j, info: info, running: js.Running, alloc: js.Alloc, pending: js.Pending,
			taken: map[int32]int32{}, remain: js.RemainingEstimate, weight: refWeight(info.Weight)}
		if r.kind == baseline.SPName {
			if r.classRank != nil {
				rank, ok := r.classRank[info.Class]
				if !ok {
					rank = int64(len(r.classRank))
				}
				rj.rank = rank
			} else {
				rj.rank = -int64(info.Priority)
			}
		}
		jobs = append(jobs, rj)
	}
	shares := r.kind == baseline.FairName || r.kind == baseline.DRFName || r.kind == baseline.SPName
	groupOf := func(j *refJob) [2]int64 { return [2]int64{j.rank, int64(j.info.Queue)} }
	jobKey := func(j *refJob) refKey {
		k := refKey{b: j.info.Submit, id: int64(j.id)}
		switch r.kind {
		case baseline.EDFName:
			k.a = j.info.Deadline
			if k.a <= 0 {
				k.a = math.MaxInt64
			}
		case baseline.SRPTName:
			k.a = j.remain
		case baseline.FairName:
			k.s = float64(j.running) / j.weight
		case baseline.DRFName:
			k.s = j.alloc.DominantShare(capacity) / j.weight
		case baseline.SPName:
			k.a = j.rank
			k.s = j.alloc.DominantShare(capacity) / j.weight
		}
		return k
	}
	groupKey := func(g [2]int64) refKey {
		var running int64
		var alloc traces.Vec
		for _, j := range jobs {
			if groupOf(j) == g {
				running += int64(j.running)
				alloc = alloc.Add(j.alloc)
			}
		}
		w := 1.0
		if x, ok := r.weights[v.Queues()[g[1]]]; ok {
			w = x
		}
		k := refKey{a: g[0], id: g[1]}
		if r.kind == baseline.FairName {
			k.s = float64(running) / w
		} else {
			k.s = alloc.DominantShare(capacity) / w
		}
		return k
	}
	asideJob := map[policies.JobID]bool{}
	asideGroup := map[[2]int64]bool{}
	for {
		var best *refJob
		var bestKey refKey
		if !r.queueLevel || !shares {
			for _, j := range jobs {
				if j.pending > 0 && !asideJob[j.id] {
					if k := jobKey(j); best == nil || k.less(bestKey) {
						best, bestKey = j, k
					}
				}
			}
		} else {
			var bestGroup [2]int64
			found := false
			// Pick the best group, then its first job in FIFO order.
			for _, j := range jobs {
				g := groupOf(j)
				if j.pending <= 0 || asideGroup[g] {
					continue
				}
				k := groupKey(g)
				if !found || k.less(bestKey) {
					bestGroup, bestKey, found = g, k, true
				}
			}
			if found {
				for _, j := range jobs {
					if groupOf(j) == bestGroup && j.pending > 0 {
						if best == nil || (refKey{b: j.info.Submit, id: int64(j.id)}).less(refKey{b: best.info.Submit, id: int64(best.id)}) {
							best = j
						}
					}
				}
			}
		}
		if best == nil {
			break
		}
		blocked := true
	stages:
		for _, s := range v.RunnableStages(best.id) {
			d := best.info.Stages[s].Demand
			for v.StageState(best.id, s).Pending-best.taken[s] > 0 {
				m := slices.IndexFunc(free, func(f traces.Vec) bool { return d.Fits(f) })
				if m < 0 {
					break
				}
				k := int32(1)
				if !shares {
					left := int64(v.StageState(best.id, s).Pending - best.taken[s])
					for i := range d {
						if d[i] > 0 {
							left = min(left, free[m][i]/d[i])
						}
					}
					k = int32(left)
				}
				if n := len(p.Starts); n > 0 && p.Starts[n-1].Job == best.id && p.Starts[n-1].Stage == s && int(p.Starts[n-1].Machine) == m {
					p.Starts[n-1].Count += k
				} else {
					p.Starts = append(p.Starts, policies.Start{Job: best.id, Stage: s, Machine: int32(m), Count: k})
				}
				free[m] = free[m].Sub(d.Scale(int64(k)))
				best.taken[s] += k
				best.pending -= k
				best.running += k
				best.alloc = best.alloc.Add(d.Scale(int64(k)))
				if shares {
					blocked = false
					break stages
				}
			}
		}
		if !shares {
			blocked = best.pending > 0
		}
		if !blocked {
			continue
		}
		if !r.backfill {
			break
		}
		if r.queueLevel && shares {
			asideGroup[groupOf(best)] = true
		} else {
			asideJob[best.id] = true
		}
	}
	return p
}

// randomWorkload builds a small random cluster and job mix from a seeded generator.
func randomWorkload(rng *rand.Rand) ([]traces.Vec, []traces.Job) {
	var caps []traces.Vec
	n := 1
	if rng.IntN(2) == 0 {
		n = 2 + rng.IntN(4)
	}
	for range n {
		caps = append(caps, vec(float64(2+rng.IntN(7)), float64(2+rng.IntN(7))))
	}
	fits := caps[rng.IntN(len(caps))] // every demand fits this machine
	classes := []string{"slo", "be", "batch", ""}
	queues := []string{"a", "b", "c"}
	var jobs []traces.Job
	for range 3 + rng.IntN(10) {
		j := traces.Job{
			Submit:   traces.Time(rng.IntN(40)),
			Queue:    queues[rng.IntN(len(queues))],
			Class:    classes[rng.IntN(len(classes))],
			Priority: rng.IntN(3),
			Weight:   float64(rng.IntN(4)),
		}
		if rng.IntN(2) == 0 {
			j.Deadline = traces.Time(50 + rng.IntN(200))
		}
		for s := range 1 + rng.IntN(3) {
			d := vec(float64(1+rng.IntN(4))/2, float64(rng.IntN(5))/2)
			for i := range d {
				d[i] = min(d[i], fits[i])
			}
			st := traces.Stage{Tasks: int32(1 + rng.IntN(6)), Demand: d, Duration: 10, Estimate: traces.Time(1 + rng.IntN(20))}
			if s > 0 && rng.IntN(2) == 0 {
				st.Parents = []int32{int32(rng.IntN(s))}
			}
			j.Stages = append(j.Stages, st)
		}
		jobs = append(jobs, j)
	}
	slices.SortStableFunc(jobs, func(a, b traces.Job) int { return int(a.Submit - b.Submit) })
	return caps, jobs
}

// finishSome finishes a random subset of the running tasks.
func finishSome(t *testing.T, f *policytest.Fake, rng *rand.Rand) {
	t.Helper()
	var running []policies.TaskRef
	for _, j := range f.Active() {
		for _, rt := range f.RunningTasks(j) {
			running = append(running, rt.TaskRef)
		}
	}
	for _, r := range running {
		if rng.IntN(3) == 0 {
			if err := f.FinishTask(r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAgreesWithABruteForceReference(t *testing.T) {
	variants := []struct {
		name string
		opts policies.Options
	}{
		{"by job", policies.Options{}},
		{"by job with backfill", policies.Options{Backfill: true}},
		{"by queue", policies.Options{Level: baseline.LevelQueue, Params: map[string]any{"weights": map[string]any{"a": 2, "c": 0.5}}}},
		{"by queue with backfill", policies.Options{Level: baseline.LevelQueue, Backfill: true}},
	}
	for _, f := range factories {
		for _, variant := range variants {
			t.Run(fmt.Sprintf("%s %s plans exactly what the reference plans", f.name, variant.name), func(t *testing.T) {
				for seed := range uint64(60) {
					opts := variant.opts
					if f.name != baseline.FairName && f.name != baseline.DRFName && f.name != baseline.SPName {
						opts.Params = nil
					}
					ref := &reference{kind: f.name, queueLevel: opts.Level == baseline.LevelQueue, backfill: opts.Backfill}
					if w, ok := opts.Params["weights"].(map[string]any); ok {
						ref.weights = map[string]float64{}
						for q, x := range w {
							ref.weights[q] = float64FromAny(x)
						}
					}
					if f.name == baseline.SPName && seed%2 == 0 {
						opts.ClassOrder = []string{"slo", "be"}
						ref.classRank = map[string]int64{"slo": 0, "be": 1}
					}
					compareWithReference(t, seed, f.new, opts, ref)
				}
			})
		}
	}
}

func float64FromAny(x any) float64 {
	switch v := x.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	return 1
}

func compareWithReference(t *testing.T, seed uint64, factory policies.Factory, opts policies.Options, ref *reference) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	caps, jobs := randomWorkload(rng)
	f := policytest.New(caps...)
	f.HideMachineChanges = seed%2 == 1
	for _, j := range jobs {
		add(t, f, j)
	}
	pol := newPolicy(t, factory, opts)
	for now := traces.Time(0); now < 5000 && (now < 50 || len(f.Active()) > 0); now += 5 {
		if err := f.Advance(now); err != nil {
			t.Fatal(err)
		}
		want := ref.plan(f)
		got, err := f.Schedule(pol)
		if err != nil {
			t.Fatalf("seed %d, t=%d: %v", seed, now, err)
		}
		if !slices.Equal(got.Starts, want.Starts) || len(got.Preempts) != 0 {
			t.Fatalf("seed %d, t=%d:\n got %s\nwant %s", seed, now, fmtPlan(got), fmtPlan(want))
		}
		if err := f.Apply(&got); err != nil {
			t.Fatalf("seed %d, t=%d: plan rejected: %v\n%s", seed, now, err, fmtPlan(got))
		}
		finishSome(t, f, rng)
	}
	if n := len(f.Active()); n != 0 {
		t.Fatalf("seed %d: %d jobs never finished", seed, n)
	}
}
