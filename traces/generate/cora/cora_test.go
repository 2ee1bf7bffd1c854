package cora

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

const sec = traces.Second

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0xc02a)) }

func with(f func(*Options)) Options {
	o := Defaults()
	f(&o)
	return o
}

func TestTemplateRuntime(t *testing.T) {
	tests := []struct {
		t          Template
		containers int
		want       traces.Time
	}{
		{Template{Maps: 100, Reduces: 20, MapTaskS: 15, ReduceTaskS: 60}, 40, 105 * sec}, // 3 map waves + 1 reduce wave
		{Template{Maps: 80, Reduces: 5, MapTaskS: 20, ReduceTaskS: 5}, 40, 45 * sec},
		{Template{Maps: 40, Reduces: 0, MapTaskS: 10}, 40, 10 * sec},
		{Template{Maps: 41, Reduces: 1, MapTaskS: 10, ReduceTaskS: 1.5}, 40, 21500 * traces.Millisecond},
		{Template{Maps: 3, Reduces: 2, MapTaskS: 1, ReduceTaskS: 1}, 1, 5 * sec},
	}
	for _, tc := range tests {
		if got := tc.t.Runtime(tc.containers); got != tc.want {
			t.Errorf("%+v on %d containers: runtime %v s, want %v s", tc.t, tc.containers, traces.Seconds(got), traces.Seconds(tc.want))
		}
	}
}

func TestDefaultTemplatesWithinPaperBounds(t *testing.T) {
	var runtime, work float64
	ts := DefaultTemplates()
	if len(ts) != 8 {
		t.Fatalf("%d templates, want the paper's 8", len(ts))
	}
	for _, tp := range ts {
		if tp.Maps < 80 || tp.Maps > 100 || tp.Reduces < 1 || tp.Reduces > 20 {
			t.Errorf("%s: %d maps, %d reduces outside the paper's bounds", tp.Name, tp.Maps, tp.Reduces)
		}
		runtime += traces.Seconds(tp.Runtime(40))
		work += float64(tp.Maps)*tp.MapTaskS + float64(tp.Reduces)*tp.ReduceTaskS
	}
	// The documented figures: mean runtime 115 s, mean work 3,556 container-seconds (load 0.68).
	if got := runtime / 8; math.Abs(got-115) > 1e-9 {
		t.Errorf("mean template runtime %v s, want 115", got)
	}
	if got := work / 8; math.Abs(got-3556.25) > 1e-9 {
		t.Errorf("mean template work %v container-s, want 3556.25", got)
	}
}

func TestActiveJobs(t *testing.T) {
	s := func(xs ...float64) []traces.Time {
		out := make([]traces.Time, len(xs))
		for i, x := range xs {
			out[i] = traces.FromSeconds(x)
		}
		return out
	}
	tests := []struct {
		name         string
		submit, size []traces.Time
		ps, window   []int
	}{
		// 0 → alone; 5 → job 0 has 5 s left, 2 active; PS finishes job 0 at 15 and job 1 at 25.
		{"drains", s(0, 5, 30), s(10, 10, 10), []int{1, 2, 1}, []int{1, 2, 1}},
		// At 12, PS has served job 0 only 5 + 3.5 s, but the window has job 0 done at 10.
		{"sharing slows jobs", s(0, 5, 12), s(10, 10, 10), []int{1, 2, 3}, []int{1, 2, 2}},
		{"pile up", s(0, 1, 2), s(100, 100, 100), []int{1, 2, 3}, []int{1, 2, 3}},
		// A job finishing exactly at the next arrival is not active.
		{"exact finish", s(0, 10), s(10, 1), []int{1, 1}, []int{1, 1}},
		{"simultaneous", s(3, 3, 3), s(1, 1, 1), []int{1, 2, 3}, []int{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := psActive(tc.submit, tc.size); !slices.Equal(got, tc.ps) {
				t.Errorf("ps: %v, want %v", got, tc.ps)
			}
			if got := windowActive(tc.submit, tc.size); !slices.Equal(got, tc.window) {
				t.Errorf("window: %v, want %v", got, tc.window)
			}
		})
	}
}

func TestGenerateDefaults(t *testing.T) {
	w, err := Generate(Defaults(), rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 100 || !w.Cluster.Pooled || len(w.Cluster.Machines) != 5 || w.Cluster.Total() != traces.VecOf(40) {
		t.Fatalf("%d jobs, pooled %v, %d machines, capacity %v", len(w.Jobs), w.Cluster.Pooled, len(w.Cluster.Machines), w.Cluster.Total().Format(1))
	}
	if !strings.HasPrefix(w.Source, "generate/cora jobs=100 mean_interarrival_s=130 containers=40") {
		t.Errorf("source %q", w.Source)
	}
	byName := map[string]Template{}
	for _, tp := range DefaultTemplates() {
		byName[tp.Name] = tp
	}
	for _, j := range w.Jobs {
		tp, ok := byName[j.Name]
		if !ok {
			t.Fatalf("job %d: unknown template %q", j.ID, j.Name)
		}
		if len(j.Stages) != 2 || j.Stages[0].Tasks != tp.Maps || j.Stages[1].Tasks != tp.Reduces ||
			!slices.Equal(j.Stages[1].Parents, []int32{0}) || j.Stages[0].Demand != traces.VecOf(1) {
			t.Errorf("job %d: stages %+v do not match template %+v", j.ID, j.Stages, tp)
		}
		u := j.Utility
		if u == nil || u.Kind != traces.UtilitySigmoid || u.Target != j.Deadline || u.Priority != j.Weight || j.Priority != int(math.Round(u.Priority)) {
			t.Fatalf("job %d: utility %+v, deadline %d, weight %v, priority %d", j.ID, u, j.Deadline, j.Weight, j.Priority)
		}
		// Every target is at least the template runtime × 1 active job × a factor well above 0.5.
		if j.Deadline-j.Submit < tp.Runtime(40)/2 {
			t.Errorf("job %d: target %v s after submit, template runtime %v s", j.ID, traces.Seconds(j.Deadline-j.Submit), traces.Seconds(tp.Runtime(40)))
		}
	}
}

func TestGenerateStatistics(t *testing.T) {
	const n = 5000
	o := with(func(o *Options) { o.Jobs = n })
	w, err := Generate(o, rng(2))
	if err != nil {
		t.Fatal(err)
	}
	// Arrival gaps: mean within 5% of 130 s (the standard error is 130/√5000 ≈ 1.8 s).
	if mean := traces.Seconds(w.Jobs[n-1].Submit) / n; math.Abs(mean-130) > 0.05*130 {
		t.Errorf("mean inter-arrival %v s, want 130 ± 5%%", mean)
	}
	counts := map[string]int{}
	templates := map[string]int{}
	var psum float64
	submit := make([]traces.Time, n)
	runtime := make([]traces.Time, n)
	byName := map[string]Template{}
	for _, tp := range DefaultTemplates() {
		byName[tp.Name] = tp
	}
	for i, j := range w.Jobs {
		counts[j.Class]++
		templates[j.Name]++
		u := j.Utility
		psum += u.Priority
		if u.Priority < 1 || u.Priority >= 5 {
			t.Errorf("job %d: priority %v outside [1,5)", j.ID, u.Priority)
		}
		switch j.Class {
		case ClassCritical:
			if u.Decay < 4 || u.Decay >= 6 {
				t.Errorf("critical job %d: decay %v", j.ID, u.Decay)
			}
		case ClassSensitive:
			if u.Decay < 0.01 || u.Decay >= 1 {
				t.Errorf("sensitive job %d: decay %v", j.ID, u.Decay)
			}
		case ClassInsensitive:
			if u.Decay != 0 {
				t.Errorf("insensitive job %d: decay %v", j.ID, u.Decay)
			}
		}
		submit[i], runtime[i] = j.Submit, byName[j.Name].Runtime(40)
	}
	if want := map[string]int{ClassCritical: 1000, ClassSensitive: 3000, ClassInsensitive: 1000}; !reflect.DeepEqual(counts, want) {
		t.Errorf("class counts %v, want %v", counts, want)
	}
	for name, c := range templates {
		// Binomial(5000, 1/8): sd ≈ 23.4; allow 4 sd.
		if math.Abs(float64(c)-n/8.0) > 4*23.4 {
			t.Errorf("template %s drawn %d times, want ≈ %d", name, c, n/8)
		}
	}
	if mean := psum / n; math.Abs(mean-3) > 0.06 {
		t.Errorf("mean priority %v, want ≈ 3", mean)
	}
	// Recover the target factor f = (d − submit) / (R × active) and check N(1.25, 0.1).
	active := psActive(submit, runtime)
	var fs, fs2 float64
	maxActive := 0
	for i, j := range w.Jobs {
		f := float64(j.Deadline-j.Submit) / (float64(runtime[i]) * float64(active[i]))
		fs += f
		fs2 += f * f
		maxActive = max(maxActive, active[i])
	}
	mf := fs / n
	if sd := math.Sqrt(fs2/n - mf*mf); math.Abs(mf-1.25) > 0.006 || math.Abs(sd-0.1) > 0.006 {
		t.Errorf("target factor mean %v sd %v, want 1.25 and 0.1", mf, sd)
	}
	if maxActive < 3 {
		t.Errorf("at load 0.68 some jobs should see contention; max active %d", maxActive)
	}
}

func TestGenerateDeterminismAndStreams(t *testing.T) {
	gen := func(o Options, seed uint64) *traces.Workload {
		w, err := Generate(o, rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b, c := gen(Defaults(), 7), gen(Defaults(), 7), gen(Defaults(), 8)
	if a.Hash() != b.Hash() {
		t.Error("same seed, different workloads")
	}
	if a.Hash() == c.Hash() {
		t.Error("different seeds, same workload")
	}
	// Changing the class mix must not move arrivals or templates.
	d := gen(with(func(o *Options) { o.CriticalFraction, o.SensitiveFraction = 0.5, 0.3 }), 7)
	for i := range a.Jobs {
		if a.Jobs[i].Submit != d.Jobs[i].Submit || a.Jobs[i].Name != d.Jobs[i].Name {
			t.Fatalf("job %d: class mix changed its arrival or template", i)
		}
	}
	// The window estimate never counts more active jobs than processor sharing.
	e := gen(with(func(o *Options) { o.ActiveJobs = ActiveWindow }), 7)
	for i := range a.Jobs {
		if e.Jobs[i].Deadline > a.Jobs[i].Deadline {
			t.Fatalf("job %d: window target %d after ps target %d", i, e.Jobs[i].Deadline, a.Jobs[i].Deadline)
		}
	}
}

func TestCustomTemplates(t *testing.T) {
	o := with(func(o *Options) {
		o.Templates = []Template{{Name: "maponly", Maps: 4, MapTaskS: 2}}
		o.Containers, o.Machines = 4, 1
		o.TargetFactorStd = 0
		o.MeanInterarrivalS = 1e5 // far apart: always 1 active job
	})
	w, err := Generate(o, rng(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		if len(j.Stages) != 1 || j.Stages[0].Tasks != 4 {
			t.Fatalf("job %d: stages %+v", j.ID, j.Stages)
		}
		// 1 wave of 2 s × 1.25 × 1 active job.
		if d := j.Deadline - j.Submit; d != 2500*traces.Millisecond {
			t.Errorf("job %d: relative target %v s, want 2.5 s", j.ID, traces.Seconds(d))
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*Options)
		field string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no jobs", func(o *Options) { o.Jobs = 0 }, "Jobs"},
		{"zero gap", func(o *Options) { o.MeanInterarrivalS = 0 }, "MeanInterarrivalS"},
		{"NaN gap", func(o *Options) { o.MeanInterarrivalS = math.NaN() }, "MeanInterarrivalS"},
		{"no containers", func(o *Options) { o.Containers = 0 }, "Containers"},
		{"machines not dividing", func(o *Options) { o.Machines = 3 }, "Machines"},
		{"empty templates", func(o *Options) { o.Templates = []Template{} }, "Templates"},
		{"template without maps", func(o *Options) { o.Templates = []Template{{Name: "x", MapTaskS: 1}} }, "Templates"},
		{"template without name", func(o *Options) { o.Templates = []Template{{Maps: 1, MapTaskS: 1}} }, "Templates"},
		{"template zero reduce time", func(o *Options) { o.Templates = []Template{{Name: "x", Maps: 1, Reduces: 1, MapTaskS: 1}} }, "Templates"},
		{"negative fraction", func(o *Options) { o.CriticalFraction = -0.1 }, "CriticalFraction"},
		{"fractions not summing to 1", func(o *Options) { o.InsensitiveFraction = 0.3 }, "CriticalFraction"},
		{"decay range reversed", func(o *Options) { o.CriticalDecayMax = 3 }, "CriticalDecayMax"},
		{"negative decay", func(o *Options) { o.SensitiveDecayMin = -1 }, "SensitiveDecayMin"},
		{"priority range reversed", func(o *Options) { o.PriorityMin = 6 }, "PriorityMax"},
		{"zero factor", func(o *Options) { o.TargetFactorMean = 0 }, "TargetFactorMean"},
		{"negative std", func(o *Options) { o.TargetFactorStd = -0.1 }, "TargetFactorStd"},
		{"unknown active mode", func(o *Options) { o.ActiveJobs = "all" }, "ActiveJobs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := with(tc.mod).Validate()
			if tc.field == "" {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "cora: Options."+tc.field+":") {
				t.Errorf("got %v, want an error naming %s", err, tc.field)
			}
			if _, gerr := Generate(with(tc.mod), rng(1)); gerr == nil {
				t.Error("Generate accepted invalid options")
			}
		})
	}
	if _, err := Generate(Defaults(), nil); err == nil {
		t.Error("Generate accepted a nil *rand.Rand")
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Name] || k.Doc == "" {
			t.Errorf("key %q duplicated or undocumented", k.Name)
		}
		seen[k.Name] = true
	}
	// One key per scalar option (every field but Templates; the paired fields count twice).
	fields := 0
	rt := reflect.TypeFor[Options]()
	for i := range rt.NumField() {
		if rt.Field(i).Name != "Templates" {
			fields++
		}
	}
	if fields != len(keys) {
		t.Errorf("%d scalar options, %d keys", fields, len(keys))
	}
}

func TestGenerateLinear(t *testing.T) {
	o := with(func(o *Options) { o.Jobs = 200; o.Utility = UtilityLinear })
	w, err := Generate(o, rng(9))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	bounds := map[string][2]float64{ClassSteep: {-1, -0.7}, ClassGradual: {-0.4, -0.1}, ClassFlat: {0, 0}}
	for _, j := range w.Jobs {
		count[j.Class]++
		u := j.Utility
		if u == nil || u.Kind != traces.UtilityLinear || u.Target != j.Deadline || j.Weight != 1 {
			t.Fatalf("job %d: utility %+v, weight %v", j.ID, u, j.Weight)
		}
		if b := bounds[j.Class]; u.Slope < b[0] || u.Slope > b[1] {
			t.Errorf("job %d (%s): slope %v outside %v", j.ID, j.Class, u.Slope, b)
		}
		if v := u.Value(j.Submit, j.Deadline); math.Abs(v-0.5) > 1e-9 {
			t.Errorf("job %d: U(target) = %v, want 0.5", j.ID, v)
		}
		if v := u.Value(j.Submit, j.Deadline+1); v != 0 {
			t.Errorf("job %d: U after the target = %v, want 0", j.ID, v)
		}
		if early := u.Value(j.Submit, j.Deadline-10*traces.Second); math.Abs(early-(0.5-10*u.Slope)) > 1e-6 {
			t.Errorf("job %d: U(target − 10 s) = %v, want %v", j.ID, early, 0.5-10*u.Slope)
		}
	}
	if count[ClassSteep] != 40 || count[ClassGradual] != 120 || count[ClassFlat] != 40 {
		t.Errorf("classes %v", count)
	}
	if !strings.Contains(w.Source, "utility=linear steep_slope=[-1,-0.7]") {
		t.Errorf("source %q", w.Source)
	}
}
