package jamaisvu

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

const sec = traces.Second

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x1a3)) }

func feat(user, name string) traces.Features {
	return traces.Features{User: user, JobName: name, LogicalJobName: name}
}

// synthetic returns three well-separated runtime groups (≈10 s, ≈1000 s, ≈100000 s) with 60, 30
// and 10 samples, task counts 1..60, and features tied to the group, plus two samples larger than
// 256 tasks.
func synthetic() []Sample {
	var out []Sample
	groups := []struct {
		base  float64
		n     int
		users []string
	}{{10, 60, []string{"alice", "bob"}}, {1000, 30, []string{"carol"}}, {100000, 10, []string{"dave"}}}
	for gi, g := range groups {
		for i := range g.n {
			rt := g.base * (0.9 + 0.2*float64(i%5)/4) // 0.9..1.1 × base
			out = append(out, Sample{
				Runtime:  traces.FromSeconds(rt),
				Tasks:    int32(1 + (i*7+gi)%60),
				Features: feat(g.users[i%len(g.users)], "job"+strconv.Itoa(gi)),
			})
		}
	}
	out = append(out, Sample{Runtime: 5 * sec, Tasks: 300, Features: feat("huge", "x")},
		Sample{Runtime: 5 * sec, Tasks: 257, Features: feat("huge", "y")})
	return out
}

func TestFit(t *testing.T) {
	m, err := Fit(synthetic(), 3, 256, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dropped != 2 || len(m.Classes) != 3 {
		t.Fatalf("dropped %d, %d classes; want 2, 3", m.Dropped, len(m.Classes))
	}
	wantW := []float64{0.6, 0.3, 0.1}
	wantC := []float64{10, 1000, 100000}
	for ci, c := range m.Classes {
		if math.Abs(c.Weight-wantW[ci]) > 1e-12 {
			t.Errorf("class %d: weight %v, want %v", ci, c.Weight, wantW[ci])
		}
		if math.Abs(math.Log(c.CentroidS/wantC[ci])) > 0.02 {
			t.Errorf("class %d: centroid %v s, want ≈ %v s", ci, c.CentroidS, wantC[ci])
		}
		if !slices.IsSorted(c.Runtimes) || !slices.IsSorted(c.Tasks) || len(c.Runtimes) != len(c.Samples) {
			t.Errorf("class %d: distributions not sorted or incomplete", ci)
		}
	}
	// Class 0's PMF: alice and bob, 30 samples each, sorted by user.
	want := []FeatureCount{{feat("alice", "job0"), 30}, {feat("bob", "job0"), 30}}
	if got := m.Classes[0].Features; !reflect.DeepEqual(got, want) {
		t.Errorf("class 0 PMF %v, want %v", got, want)
	}
	// The same samples and seed give the same model; another seed finds the same clusters here.
	m2, _ := Fit(synthetic(), 3, 256, rng(1))
	m3, _ := Fit(synthetic(), 3, 256, rng(99))
	if !reflect.DeepEqual(m, m2) || m3.Classes[2].Weight != 0.1 {
		t.Error("fit not deterministic or not stable across seeds on separated data")
	}
}

func TestFitEdgeCases(t *testing.T) {
	s := func(rtS float64, tasks int32) Sample { return Sample{Runtime: traces.FromSeconds(rtS), Tasks: tasks} }
	tests := []struct {
		name    string
		samples []Sample
		k       int
		max     int32
		classes int
		err     string
	}{
		{"k capped at distinct runtimes", []Sample{s(1, 1), s(1, 2), s(50, 1), s(50, 3)}, 5, 256, 2, ""},
		{"single class", []Sample{s(1, 1), s(2, 1), s(3, 1)}, 1, 0, 1, ""},
		{"no task limit", []Sample{s(1, 1000)}, 2, 0, 1, ""},
		{"zero runtime", []Sample{s(1, 1), {Runtime: 0, Tasks: 1}}, 2, 0, 0, "Options.Samples[1].Runtime"},
		{"zero tasks", []Sample{s(1, 0)}, 2, 0, 0, "Options.Samples[0].Tasks"},
		{"all too large", []Sample{s(1, 300)}, 2, 256, 0, "none of the 1 samples has at most 256 tasks"},
		{"bad k", []Sample{s(1, 1)}, 0, 0, 0, "Options.K"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Fit(tc.samples, tc.k, tc.max, rng(1))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Classes) != tc.classes {
				t.Errorf("%d classes, want %d", len(m.Classes), tc.classes)
			}
		})
	}
	if _, err := Fit([]Sample{s(1, 1)}, 1, 0, nil); err == nil {
		t.Error("Fit accepted a nil *rand.Rand")
	}
}

func TestKMeansAgainstBruteForce(t *testing.T) {
	// On small inputs, 1-D k-means' fixed point must be a local optimum: no single value moves to
	// another cluster and lowers the within-cluster sum of squares (checked exhaustively).
	r := rng(5)
	for trial := range 50 {
		n := 5 + r.IntN(20)
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Round(r.NormFloat64()*3*100) / 100
		}
		k := 1 + r.IntN(4)
		cs := kmeans(x, k, rng(uint64(trial)))
		assign := make([]int, n)
		for i, v := range x {
			assign[i] = nearest(cs, v)
		}
		for c := range cs {
			var sum float64
			cnt := 0
			for i, v := range x {
				if assign[i] == c {
					sum += v
					cnt++
				}
			}
			if cnt > 0 && math.Abs(sum/float64(cnt)-cs[c]) > 1e-9 {
				t.Fatalf("trial %d: centroid %d = %v is not the mean %v of its points", trial, c, cs[c], sum/float64(cnt))
			}
		}
		if !slices.IsSorted(cs) {
			t.Fatalf("trial %d: centroids %v not sorted", trial, cs)
		}
	}
}

func opts(mod func(*Options)) Options {
	o := Defaults()
	o.Samples = synthetic()
	o.K = 3
	if mod != nil {
		mod(&o)
	}
	return o
}

func TestGenerateMixes(t *testing.T) {
	tests := []struct {
		mix                  string
		hard, soft, none, be int
		slowdown             float64
		slacks               []float64
	}{
		{"EXP1", 250, 250, 0, 500, 1.5, []float64{20, 40, 60, 80}},
		{"EXP2", 167, 333, 0, 500, 1.4, []float64{25, 50, 75}}, // 1000/6 = 166.7 rounds up by largest remainder
		{"EXP3", 0, 500, 0, 500, 1.4, []float64{50, 60, 70, 80}},
		{"DEADLINE-40", 0, 0, 500, 500, 0, []float64{40}},
	}
	for _, tc := range tests {
		t.Run(tc.mix, func(t *testing.T) {
			w, err := Generate(opts(func(o *Options) { o.Mix = tc.mix }), rng(2))
			if err != nil {
				t.Fatal(err)
			}
			var hard, soft, none, be int
			slacks := map[float64]bool{}
			for i := range w.Jobs {
				j := &w.Jobs[i]
				s := j.Stages[0]
				c, constrained := j.Placement, !j.Placement.IsZero()
				if ci, err := strconv.Atoi(strings.TrimPrefix(j.Name, "c")); err != nil || j.Name != "c"+strconv.Itoa(ci) {
					t.Fatalf("job %d: name %q, want c<class>", j.ID, j.Name)
				}
				switch {
				case j.Class == ClassBE:
					be++
					if constrained || j.Deadline != 0 || j.Priority != 0 || j.Queue != ClassBE {
						t.Fatalf("best-effort job %d: placement %+v deadline %d priority %d", j.ID, j.Placement, j.Deadline, j.Priority)
					}
					continue
				case !constrained:
					none++
				case c.Hard:
					hard++
					if c.Slowdown != 0 {
						t.Errorf("job %d: hard constraint with slowdown %v", j.ID, c.Slowdown)
					}
				default:
					soft++
					if c.Slowdown != tc.slowdown {
						t.Errorf("job %d: slowdown %v, want %v", j.ID, c.Slowdown, tc.slowdown)
					}
				}
				if j.Class != ClassSLO || j.Priority != 1 || j.Queue != ClassSLO {
					t.Fatalf("SLO job %d: class %q priority %d", j.ID, j.Class, j.Priority)
				}
				if constrained && (c.Kind == KindRack && s.Tasks > 32 || c.Kind == KindGPU && s.Tasks > 64) {
					t.Errorf("job %d: %d tasks cannot meet constraint %v", j.ID, s.Tasks, c)
				}
				// deadline = submit + runtime × (1 + slack/100)
				slack := 100 * (float64(j.Deadline-j.Submit)/float64(s.Duration) - 1)
				slacks[math.Round(slack)] = true
				if want := j.Submit + traces.Time(math.Round(float64(s.Duration)*(1+math.Round(slack)/100))); want != j.Deadline {
					t.Errorf("job %d: deadline %d, want %d", j.ID, j.Deadline, want)
				}
			}
			if hard != tc.hard || soft != tc.soft || none != tc.none || be != tc.be {
				t.Errorf("hard/soft/none/be = %d/%d/%d/%d, want %d/%d/%d/%d", hard, soft, none, be, tc.hard, tc.soft, tc.none, tc.be)
			}
			for _, s := range tc.slacks {
				if !slacks[s] {
					t.Errorf("slack %v never drawn (drawn: %v)", s, slacks)
				}
			}
			if len(slacks) != len(tc.slacks) {
				t.Errorf("slacks drawn %v, want %v", slacks, tc.slacks)
			}
		})
	}
}

func TestGenerateCluster(t *testing.T) {
	w, err := Generate(opts(nil), rng(3))
	if err != nil {
		t.Fatal(err)
	}
	racks := map[string]int{}
	gpus := 0
	for _, m := range w.Cluster.Machines {
		racks[m.Rack]++
		if m.GPU {
			gpus++
			if m.Rack != "r0" && m.Rack != "r1" {
				t.Errorf("GPU node %s on rack %s", m.Name, m.Rack)
			}
		}
		if m.Capacity != traces.VecOf(4, 16) {
			t.Errorf("node %s capacity %s", m.Name, m.Capacity.Format(2))
		}
	}
	if len(w.Cluster.Machines) != 256 || len(racks) != 8 || racks["r7"] != 32 || gpus != 64 || w.Cluster.Pooled {
		t.Errorf("%d nodes on %d racks (r7: %d), %d GPU nodes, pooled %v", len(w.Cluster.Machines), len(racks), racks["r7"], gpus, w.Cluster.Pooled)
	}
	for _, j := range w.Jobs {
		if s := j.Stages[0]; s.Demand != traces.VecOf(4, 16) || s.Estimate != s.Duration || s.Tasks > 256 {
			t.Fatalf("job %d stage %+v", j.ID, s)
		}
	}
	if w.Name != "jamaisvu-exp1" || !strings.HasPrefix(w.Source, "generate/jamaisvu samples=102 jobs=1000") {
		t.Errorf("name %q source %q", w.Name, w.Source)
	}
}

func TestGenerateStatistics(t *testing.T) {
	const n = 6000
	samples := synthetic()
	o := opts(func(o *Options) { o.Jobs = n })
	w, err := Generate(o, rng(4))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Fit(samples, 3, 256, rng(0))
	// Class frequencies follow the weights 0.6/0.3/0.1 among unconstrained jobs (constrained
	// ones are conditioned on fitting, which favours no class here: every class has ≤ 60 tasks,
	// and any job fits the 64 GPU nodes).
	counts := make([]int, 3)
	var work float64
	for _, j := range w.Jobs {
		ci, _ := strconv.Atoi(strings.TrimPrefix(j.Name, "c"))
		counts[ci]++
		work += float64(j.Stages[0].Tasks) * traces.Seconds(j.Stages[0].Duration)
	}
	for ci, c := range m.Classes {
		sd := math.Sqrt(n * c.Weight * (1 - c.Weight))
		if math.Abs(float64(counts[ci])-n*c.Weight) > 4*sd {
			t.Errorf("class %d drawn %d times, want ≈ %v", ci, counts[ci], n*c.Weight)
		}
	}
	// Offered load: total work over (nodes × span) = Load = 0.9, up to the µs rounding of
	// submission times (TestOfferedLoad).
	span := traces.Seconds(w.Jobs[n-1].Submit)
	if load := work / (256 * span); math.Abs(load-0.9) > 0.001*0.9 {
		t.Errorf("offered load %v, want ≈ 0.9", load)
	}
	// Within class 0, the PMF splits alice and bob evenly.
	users := map[string]int{}
	for _, j := range w.Jobs {
		if j.Name == "c0" {
			users[j.Features.User]++
		}
	}
	if a, b := users["alice"], users["bob"]; math.Abs(float64(a-b)) > 4*math.Sqrt(float64(a+b)) || len(users) != 2 {
		t.Errorf("class 0 users %v, want alice ≈ bob only", users)
	}
}

func TestJointDraws(t *testing.T) {
	samples := synthetic()
	type key struct {
		rt    traces.Time
		tasks int32
		f     traces.Features
	}
	seen := map[key]bool{}
	for _, s := range samples {
		seen[key{s.Runtime, s.Tasks, s.Features}] = true
	}
	for _, joint := range []bool{true, false} {
		w, err := Generate(opts(func(o *Options) { o.Joint, o.Mix = joint, "DEADLINE-10" }), rng(6))
		if err != nil {
			t.Fatal(err)
		}
		novel := 0
		for _, j := range w.Jobs {
			if !seen[key{j.Stages[0].Duration, j.Stages[0].Tasks, j.Features}] {
				novel++
			}
		}
		if joint && novel != 0 {
			t.Errorf("joint: %d jobs are not trace samples", novel)
		}
		if !joint && novel < len(w.Jobs)/2 {
			t.Errorf("independent: only %d of %d jobs mix attributes across samples", novel, len(w.Jobs))
		}
	}
}

func TestDeterminismAndStreams(t *testing.T) {
	gen := func(o Options, seed uint64) *traces.Workload {
		w, err := Generate(o, rng(seed))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b, c := gen(opts(nil), 8), gen(opts(nil), 8), gen(opts(nil), 9)
	if a.Hash() != b.Hash() {
		t.Error("same seed, different workloads")
	}
	if a.Hash() == c.Hash() {
		t.Error("different seeds, same workload")
	}
	d := gen(opts(func(o *Options) { o.Mix = "EXP3" }), 8)
	for i := range a.Jobs {
		if a.Jobs[i].Submit != d.Jobs[i].Submit {
			t.Fatalf("job %d: the mix changed its arrival", i)
		}
	}
	e := gen(opts(func(o *Options) { o.MeanInterarrivalS = 10 }), 8)
	if mean := traces.Seconds(e.Jobs[len(e.Jobs)-1].Submit) / float64(len(e.Jobs)); math.Abs(mean-10) > 1 {
		t.Errorf("mean gap %v s, want ≈ 10 s", mean)
	}
}

func TestConstrainedJobsMustFit(t *testing.T) {
	big := []Sample{{Runtime: 10 * sec, Tasks: 100}, {Runtime: 20 * sec, Tasks: 120}}
	_, err := Generate(opts(func(o *Options) { o.Samples, o.GPURacks = big, 0 }), rng(1))
	if err == nil || !strings.Contains(err.Error(), "jamaisvu: Options.Mix: EXP1 needs constrained jobs") {
		t.Errorf("got %v, want an error about unsatisfiable constraints", err)
	}
	// Without constrained jobs the same samples are fine.
	if _, err := Generate(opts(func(o *Options) { o.Samples, o.GPURacks, o.Mix = big, 0, "DEADLINE-50" }), rng(1)); err != nil {
		t.Error(err)
	}
	// With 4 GPU racks (128 nodes) every job fits the GPU nodes, and only there.
	w, err := Generate(opts(func(o *Options) { o.Samples, o.GPURacks = big, 4 }), rng(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		if c := j.Placement; !c.IsZero() && c.Kind != KindGPU {
			t.Fatalf("job %d with %d tasks got constraint %v", j.ID, j.Stages[0].Tasks, c)
		}
	}
}

func TestParseMix(t *testing.T) {
	tests := []struct {
		name string
		want Mix
		err  bool
	}{
		{"EXP1", Mix{Name: "EXP1", Hard: 0.25, Soft: 0.25, BE: 0.5, Slowdown: 1.5, Slacks: []float64{20, 40, 60, 80}}, false},
		{"DEADLINE-0", Mix{Name: "DEADLINE-0", None: 0.5, BE: 0.5, Slowdown: 1, Slacks: []float64{0}}, false},
		{"DEADLINE-180", Mix{Name: "DEADLINE-180", None: 0.5, BE: 0.5, Slowdown: 1, Slacks: []float64{180}}, false},
		{"EXP4", Mix{}, true},
		{"DEADLINE-", Mix{}, true},
		{"DEADLINE--5", Mix{}, true},
		{"exp1", Mix{}, true},
	}
	for _, tc := range tests {
		got, err := ParseMix(tc.name)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseMix(%q) = %+v, %v; want %+v, error %v", tc.name, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "Options.Mix") {
			t.Errorf("error %v does not name Options.Mix", err)
		}
	}
	for _, name := range []string{"EXP1", "EXP2", "EXP3", "DEADLINE-20"} {
		m, _ := ParseMix(name)
		if s := m.Hard + m.Soft + m.None + m.BE; math.Abs(s-1) > 1e-12 {
			t.Errorf("%s shares sum to %v", name, s)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	tests := []struct {
		spec string
		want traces.Placement
		ok   bool
	}{
		{"hard:gpu", traces.Placement{Kind: KindGPU, Hard: true}, true},
		{"soft:rack:1.5", traces.Placement{Kind: KindRack, Slowdown: 1.5}, true},
		{"", traces.Placement{}, false},
		{"c2/hard:gpu", traces.Placement{}, false},
		{"soft:rack", traces.Placement{}, false},
		{"soft:rack:0.5", traces.Placement{}, false},
		{"soft:rack:NaN", traces.Placement{}, false},
		{"soft:rack:+Inf", traces.Placement{}, false},
		{"hard:tpu", traces.Placement{}, false},
		{"hard:gpu:2", traces.Placement{}, false},
	}
	for _, tc := range tests {
		got, ok := ParseConstraint(tc.spec)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseConstraint(%q) = %+v, %v; want %+v, %v", tc.spec, got, ok, tc.want, tc.ok)
		}
		if ok {
			if back, _ := ParseConstraint(got.String()); back != got {
				t.Errorf("%v does not round-trip through traces.Placement.String", got)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*Options)
		field string
	}{
		{"valid", func(*Options) {}, ""},
		{"no samples", func(o *Options) { o.Samples = nil }, "Samples"},
		{"no jobs", func(o *Options) { o.Jobs = 0 }, "Jobs"},
		{"negative max tasks", func(o *Options) { o.MaxTasks = -1 }, "MaxTasks"},
		{"zero k", func(o *Options) { o.K = 0 }, "K"},
		{"unknown mix", func(o *Options) { o.Mix = "EXP9" }, "Mix"},
		{"no racks", func(o *Options) { o.Racks = 0 }, "Racks"},
		{"empty racks", func(o *Options) { o.RackSize = 0 }, "RackSize"},
		{"too many GPU racks", func(o *Options) { o.GPURacks = 9 }, "GPURacks"},
		{"zero cpu", func(o *Options) { o.NodeCPU = 0 }, "NodeCPU"},
		{"NaN memory", func(o *Options) { o.NodeMemGB = math.NaN() }, "NodeMemGB"},
		{"zero load", func(o *Options) { o.Load = 0 }, "Load"},
		{"negative gap", func(o *Options) { o.MeanInterarrivalS = -1 }, "MeanInterarrivalS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(tc.mod)
			err := o.Validate()
			if tc.field == "" {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "jamaisvu: Options."+tc.field+":") {
				t.Errorf("got %v, want an error naming %s", err, tc.field)
			}
			if _, gerr := Generate(o, rng(1)); gerr == nil {
				t.Error("Generate accepted invalid options")
			}
		})
	}
	if _, err := Generate(opts(nil), nil); err == nil {
		t.Error("Generate accepted a nil *rand.Rand")
	}
	bad := opts(func(o *Options) { o.Samples = append(o.Samples, Sample{Runtime: -1, Tasks: 1}) })
	if _, err := Generate(bad, rng(1)); err == nil || !strings.Contains(err.Error(), "Options.Samples[102].Runtime") {
		t.Errorf("got %v, want an error naming Samples[102].Runtime", err)
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
	// One key per option but Samples and SampleNote.
	if n := reflect.TypeFor[Options]().NumField(); len(keys) != n-2 {
		t.Errorf("%d keys for %d options", len(keys), n)
	}
}

func TestSamplesFromWorkload(t *testing.T) {
	w := &traces.Workload{Jobs: []traces.Job{
		{Features: feat("u", "a"), Stages: []traces.Stage{{Tasks: 3, Duration: 7 * sec}}},
		{Stages: []traces.Stage{{Tasks: 2, Duration: 1 * sec}, {Tasks: 1, Duration: 2 * sec, Parents: []int32{0}}}},
	}}
	want := []Sample{{Runtime: 7 * sec, Tasks: 3, Features: feat("u", "a")}, {Runtime: 3 * sec, Tasks: 3}}
	if got := SamplesFromWorkload(w); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// googleMini is the shared data's self-consistent 300-job Google trace slice.
const googleMini = "../../../../shared/data/google2011/fixtures/mini_300jobs_"

// readGoogleMini derives samples from the mini trace: runtime = FINISH − first SCHEDULE of the
// job, tasks = distinct task indices, features = (user, job name, logical job name).
func readGoogleMini(t *testing.T) []Sample {
	t.Helper()
	scan := func(file string, fn func(f []string)) {
		fh, err := os.Open(googleMini + file)
		if err != nil {
			t.Skipf("shared trace data not found (a fresh clone has none): %v", err)
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fn(strings.Split(sc.Text(), ","))
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	type job struct {
		sched, finish int64
		f             traces.Features
		tasks         map[string]bool
	}
	jobs := map[string]*job{}
	var order []string
	scan("job_events.csv", func(f []string) {
		ts, _ := strconv.ParseInt(f[0], 10, 64)
		j := jobs[f[2]]
		if j == nil {
			j = &job{tasks: map[string]bool{}}
			jobs[f[2]] = j
			order = append(order, f[2])
		}
		switch f[3] {
		case "0":
			j.f = traces.Features{User: f[4], JobName: f[6], LogicalJobName: f[7]}
		case "1":
			if j.sched == 0 {
				j.sched = ts
			}
		case "4":
			j.finish = ts
		}
	})
	scan("task_events.csv", func(f []string) {
		if j := jobs[f[2]]; j != nil {
			j.tasks[f[3]] = true
		}
	})
	var out []Sample
	for _, id := range order {
		j := jobs[id]
		if j.finish > j.sched && j.sched > 0 && len(j.tasks) > 0 {
			out = append(out, Sample{Runtime: j.finish - j.sched, Tasks: int32(len(j.tasks)), Features: j.f})
		}
	}
	return out
}

func TestGoogleMiniTrace(t *testing.T) {
	samples := readGoogleMini(t)
	if len(samples) < 250 {
		t.Fatalf("only %d samples from the 300-job trace", len(samples))
	}
	o := Defaults()
	o.Samples = samples
	w, err := Generate(o, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(samples, o.K, o.MaxTasks, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Classes) != 5 {
		t.Errorf("%d classes, want 5", len(m.Classes))
	}
	for ci := 1; ci < len(m.Classes); ci++ {
		if m.Classes[ci].CentroidS <= m.Classes[ci-1].CentroidS {
			t.Errorf("class centroids not increasing: %v then %v", m.Classes[ci-1].CentroidS, m.Classes[ci].CentroidS)
		}
	}
	if len(w.Jobs) != 1000 {
		t.Errorf("%d jobs", len(w.Jobs))
	}
}

// googleLike returns samples shaped like the Google 2011 jobs that defeated a rate set from the
// mean work per job: 96% single-task, a few wide jobs, and log-normal runtimes (median 5 min,
// σ = 1.5 in ln s: p99 ≈ 2.7 h and a maximum near 16 h over 2,000 draws, as the month's finished
// jobs of at most 256 tasks have), so that the work per job is heavy tailed.
func googleLike() []Sample {
	r := rng(99)
	users := []string{"u0", "u1", "u2", "u3"}
	out := make([]Sample, 2000)
	for i := range out {
		tasks := int32(1)
		if r.Float64() < 0.04 {
			tasks = 2 + int32(r.IntN(255))
		}
		rt := math.Exp(math.Log(300) + 1.5*r.NormFloat64()) // median 5 min
		out[i] = Sample{
			Runtime:  traces.Time(math.Max(1, rt) * float64(traces.Second)),
			Tasks:    tasks,
			Features: feat(users[r.IntN(len(users))], fmt.Sprintf("j%d", r.IntN(50))),
		}
	}
	return out
}

// TestOfferedLoad checks that the jobs offer the requested load over the span of their
// submissions — Σ tasks × duration / (nodes × last submit), computed here independently of
// OfferedLoad — within 0.1% (the µs rounding of submission times), for every mix, both draw
// modes, loads below and above 1 and heavy-tailed samples. (How much of that work runs inside
// the span depends on the runtime tail: fromgoogle's TestOfferedLoadOnTrace checks it on the
// trace.)
func TestOfferedLoad(t *testing.T) {
	sets := []struct {
		name    string
		samples []Sample
	}{{"synthetic", synthetic()}, {"google-like", googleLike()}}
	for _, set := range sets {
		for _, mix := range []string{"EXP1", "EXP3", "DEADLINE-60"} {
			for _, joint := range []bool{false, true} {
				for _, load := range []float64{0.3, 0.9, 1.5} {
					for seed := uint64(1); seed <= 3; seed++ {
						name := fmt.Sprintf("%s/%s/joint=%v/load=%v/seed=%d", set.name, mix, joint, load, seed)
						o := Defaults()
						o.Samples, o.Mix, o.Joint, o.Load = set.samples, mix, joint, load
						w, err := Generate(o, rng(seed))
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						var work float64
						var last traces.Time
						for _, j := range w.Jobs {
							last = max(last, j.Submit)
							work += float64(j.Stages[0].Tasks) * traces.Seconds(j.Stages[0].Duration)
						}
						span := traces.Seconds(last)
						nodes := float64(len(w.Cluster.Machines))
						got := work / (nodes * span)
						if math.Abs(got-load) > 0.001*load {
							t.Errorf("%s: offered load %.5f, want %v ± 0.1%%", name, got, load)
						}
						if ol := OfferedLoad(w); math.Abs(ol-got) > 1e-9*got {
							t.Errorf("%s: OfferedLoad %v, computed %v", name, ol, got)
						}
					}
				}
			}
		}
	}
}

// TestOfferedLoadWithGap checks that MeanInterarrivalS, not Load, sets the arrivals when given:
// the offered load then follows from the gap.
func TestOfferedLoadWithGap(t *testing.T) {
	o := opts(func(o *Options) { o.MeanInterarrivalS, o.Load = 5, 0.9 })
	w, err := Generate(o, rng(2))
	if err != nil {
		t.Fatal(err)
	}
	var work float64
	for _, j := range w.Jobs {
		work += float64(j.Stages[0].Tasks) * traces.Seconds(j.Stages[0].Duration)
	}
	span := traces.Seconds(w.Jobs[len(w.Jobs)-1].Submit)
	if want := work / (256 * span); math.Abs(OfferedLoad(w)-want) > 1e-9 || math.Abs(span/float64(len(w.Jobs))-5) > 0.5 {
		t.Errorf("offered load %v (want %v), mean gap %v s (want ≈ 5)", OfferedLoad(w), want, span/float64(len(w.Jobs)))
	}
}
