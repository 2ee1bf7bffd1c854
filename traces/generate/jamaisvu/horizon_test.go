package jamaisvu

import (
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestConstraintsBind checks that every constraint a generated SLO job carries can fail to hold:
// a rack constraint only on a gang of more than one task (a single task is always on one rack),
// a GPU constraint only where the job fits the GPU nodes.
func TestConstraintsBind(t *testing.T) {
	for _, mix := range []string{"EXP1", "EXP2", "EXP3"} {
		w, err := Generate(opts(func(o *Options) { o.Mix = mix }), rng(3))
		if err != nil {
			t.Fatal(err)
		}
		var single, constrained int
		for i := range w.Jobs {
			j := &w.Jobs[i]
			if j.Placement.IsZero() {
				continue
			}
			constrained++
			n := j.Stages[0].Tasks
			if n == 1 {
				single++
			}
			switch j.Placement.Kind {
			case KindRack:
				if n < 2 || n > 32 {
					t.Errorf("%s: job %d: rack constraint on %d tasks", mix, j.ID, n)
				}
			case KindGPU:
				if n > 64 {
					t.Errorf("%s: job %d: GPU constraint on %d tasks", mix, j.ID, n)
				}
			}
		}
		if constrained == 0 || single == 0 {
			t.Errorf("%s: %d constrained jobs, %d single-task: the test needs both", mix, constrained, single)
		}
	}
}

// TestHorizonArrivals checks the fixed-horizon design: arrivals fall in [0, H] at the rate that
// offers Load from the model's expected work per job, so the job count is Poisson around
// Load × nodes × H / E[work]; long_jobs=cap caps runtimes at H, long_jobs=fit drops longer samples.
func TestHorizonArrivals(t *testing.T) {
	const h = 14400.0 // 4 h; the synthetic samples' long class (≈ 27 h) is beyond it
	for _, long := range []string{"keep", "cap", "fit"} {
		t.Run(long, func(t *testing.T) {
			o := opts(func(o *Options) { o.HorizonS, o.LongJobs, o.Mix, o.Load = h, long, "DEADLINE-20", 0.9 })
			ew, err := ExpectedWork(o)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.9 * 256 * h / ew
			var total float64
			const seeds = 20
			for seed := range uint64(seeds) {
				w, err := Generate(o, rng(seed))
				if err != nil {
					t.Fatal(err)
				}
				total += float64(len(w.Jobs))
				for i := range w.Jobs {
					j := &w.Jobs[i]
					if j.Submit < 0 || j.Submit > traces.FromSeconds(h) {
						t.Fatalf("job %d submitted at %v s, outside [0, %v]", j.ID, traces.Seconds(j.Submit), h)
					}
					if long != "keep" && j.Stages[0].Duration > traces.FromSeconds(h) {
						t.Fatalf("job %d runs %v s > H with long_jobs=%s", j.ID, traces.Seconds(j.Stages[0].Duration), long)
					}
				}
				if !strings.Contains(w.Source, "horizon_s=14400") || !strings.Contains(w.Source, "long_jobs="+long) {
					t.Errorf("source %q does not state the horizon design", w.Source)
				}
			}
			// The mean of 20 Poisson counts: sd = sqrt(want/20).
			if mean := total / seeds; math.Abs(mean-want) > 5*math.Sqrt(want/seeds) {
				t.Errorf("mean job count %.1f, want %.1f (E[work] %.0f task-s)", mean, want, ew)
			}
		})
	}
	// keep: the long class carries most work, so it admits fewer jobs than fit.
	ek, _ := ExpectedWork(opts(func(o *Options) { o.HorizonS, o.LongJobs = h, "keep" }))
	ef, _ := ExpectedWork(opts(func(o *Options) { o.HorizonS, o.LongJobs = h, "fit" }))
	ec, _ := ExpectedWork(opts(func(o *Options) { o.HorizonS, o.LongJobs = h, "cap" }))
	if !(ef < ec && ec < ek) {
		t.Errorf("E[work]: fit %v, cap %v, keep %v; want fit < cap < keep", ef, ec, ek)
	}
}

// TestExpectedWorkExact checks ExpectedWork against a hand computation on two classes.
func TestExpectedWorkExact(t *testing.T) {
	s := []Sample{
		{Runtime: 10 * sec, Tasks: 1}, {Runtime: 10 * sec, Tasks: 3},
		{Runtime: 1000 * sec, Tasks: 2}, {Runtime: 1000 * sec, Tasks: 2},
	}
	o := Defaults()
	o.Samples, o.K, o.Mix = s, 2, "DEADLINE-10"
	// Independent draws: class weights ½, ½; class 0: E[tasks] 2 × E[rt] 10; class 1: 2 × 1000.
	got, err := ExpectedWork(o)
	if want := 0.5*2*10 + 0.5*2*1000; err != nil || math.Abs(got-want) > 1e-9 {
		t.Errorf("ExpectedWork %v (%v), want %v", got, err, want)
	}
	// EXP3: half the jobs soft-constrained, drawn conditioned on a binding constraint: a
	// single-task job only on GPUs (64 nodes: all fit), so nothing is rejected here.
	o.Mix = "EXP3"
	if got2, _ := ExpectedWork(o); math.Abs(got2-got) > 1e-9 {
		t.Errorf("EXP3 ExpectedWork %v, want %v", got2, got)
	}
	// Without GPU nodes, constrained jobs need 2..32 tasks: class 0 keeps only its 3-task draw.
	o.GPURacks = 0
	// constrained: P(c0, t=3) = ½·½, P(c1) = ½ → E = (¼·3·10 + ½·2·1000) / ¾
	cond := (0.25*3*10 + 0.5*2*1000) / 0.75
	want := 0.5*(0.5*2*10+0.5*2*1000) + 0.5*cond
	if got3, _ := ExpectedWork(o); math.Abs(got3-want) > 1e-9 {
		t.Errorf("EXP3 without GPUs: ExpectedWork %v, want %v", got3, want)
	}
}

// TestGPUAt checks where the GPU racks go in the machine order.
func TestGPUAt(t *testing.T) {
	racksOf := func(at string, seed uint64) map[string]bool {
		w, err := Generate(opts(func(o *Options) { o.GPUAt = at }), rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		n := 0
		for _, m := range w.Cluster.Machines {
			if m.GPU {
				out[m.Rack] = true
				n++
			}
		}
		if n != 64 {
			t.Errorf("%s: %d GPU nodes, want 64", at, n)
		}
		return out
	}
	if got := racksOf("first", 1); !got["r0"] || !got["r1"] || len(got) != 2 {
		t.Errorf("first: GPU racks %v", got)
	}
	if got := racksOf("last", 1); !got["r6"] || !got["r7"] || len(got) != 2 {
		t.Errorf("last: GPU racks %v", got)
	}
	seen := map[string]bool{}
	for seed := range uint64(10) {
		for r := range racksOf("random", seed) {
			seen[r] = true
		}
	}
	if len(seen) < 5 {
		t.Errorf("random over 10 seeds used only racks %v", seen)
	}
	if _, err := Generate(opts(func(o *Options) { o.GPUAt = "middle" }), rng(1)); err == nil || !strings.Contains(err.Error(), "GPUAt") {
		t.Errorf("gpu_at=middle: %v", err)
	}
}
