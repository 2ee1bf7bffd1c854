package baseline_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/internal/fit"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
	"github.com/schedlab/schedlab/policies/policytest"
	"github.com/schedlab/schedlab/traces"
)

// sharedView is the fake View with the SharedFit ability, kept as the engine keeps its tree:
// every machine's free capacity before Schedule, the policy's changes journaled while it plans,
// and each changed machine set back to its free capacity once the plan is applied.
type sharedView struct {
	*policytest.Fake
	tree *fit.Tree
}

func (v sharedView) PlanFit() *fit.Tree { return v.tree }

var _ baseline.SharedFit = sharedView{}

// TestSharedTreePlansAsTheCopy runs every baseline twice on the same random workloads, one on
// the View's shared first-fit tree and one on its own copy, and requires the same plan at every
// scheduling point, and the shared tree back at the machines' free capacity after each plan,
// also after a plan that was not applied.
func TestSharedTreePlansAsTheCopy(t *testing.T) {
	variants := []struct {
		name string
		opts policies.Options
	}{
		{"by job", policies.Options{}},
		{"by job with backfill", policies.Options{Backfill: true}},
		{"by queue", policies.Options{Level: baseline.LevelQueue}},
		{"preempting", policies.Options{Params: map[string]any{baseline.ParamPreempt: true}}},
	}
	for _, f := range factories {
		for _, variant := range variants {
			if variant.opts.Params != nil && f.name != baseline.SPName {
				continue
			}
			t.Run(fmt.Sprintf("%s %s", f.name, variant.name), func(t *testing.T) {
				multi := 0
				for seed := range uint64(60) {
					if compareShared(t, seed, f.new, variant.opts) {
						multi++
					}
				}
				if multi == 0 {
					t.Fatal("no workload had several machines: the shared tree was never used")
				}
			})
		}
	}
}

// compareShared runs one random workload; it reports whether the workload had several machines.
func compareShared(t *testing.T, seed uint64, factory policies.Factory, opts policies.Options) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	caps, jobs := randomWorkload(rng)
	f := policytest.New(caps...)
	for _, j := range jobs {
		add(t, f, j)
	}
	free := make([]traces.Vec, f.NumMachines())
	readFree := func() []traces.Vec {
		for m := range free {
			free[m] = f.Free(m)
		}
		return free
	}
	view := sharedView{f, fit.New(readFree())}
	shared, own := newPolicy(t, factory, opts), newPolicy(t, factory, opts)
	for now := traces.Time(0); now < 5000 && (now < 50 || len(f.Active()) > 0); now += 5 {
		if err := f.Advance(now); err != nil {
			t.Fatal(err)
		}
		for m, v := range readFree() {
			view.tree.Set(m, v)
		}
		view.tree.BeginPlan()
		var got policies.Plan
		if err := shared.Schedule(view, &got); err != nil {
			t.Fatalf("seed %d, t=%d: shared: %v", seed, now, err)
		}
		want, err := f.Schedule(own)
		if err != nil {
			t.Fatalf("seed %d, t=%d: own: %v", seed, now, err)
		}
		if !slices.Equal(got.Starts, want.Starts) || !slices.Equal(got.Preempts, want.Preempts) {
			t.Fatalf("seed %d, t=%d:\nshared %s\n   own %s", seed, now, fmtPlan(got), fmtPlan(want))
		}
		// Now and then the plan is dropped (as an engine may start fewer tasks than planned):
		// the machines the policy planned on must still come back to their free capacity.
		if rng.IntN(6) == 0 {
			want = policies.Plan{}
		}
		if err := f.Apply(&want); err != nil {
			t.Fatalf("seed %d, t=%d: plan rejected: %v\n%s", seed, now, err, fmtPlan(want))
		}
		for m, v := range readFree() { // the engine's own updates as it starts tasks
			if !view.tree.Planned(m) {
				view.tree.Set(m, v)
			}
		}
		view.tree.EndPlan(free)
		for m, v := range free {
			if got := view.tree.Free(m); got != v {
				t.Fatalf("seed %d, t=%d: after the plan the shared tree has machine %d at %v, its free capacity is %v", seed, now, m, got, v)
			}
		}
		finishSome(t, f, rng)
		f.Release()
	}
	return len(caps) > 1
}
