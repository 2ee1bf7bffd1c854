package predict

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

func mustJVu(t *testing.T, o Options) *JVu {
	t.Helper()
	p, err := NewJVu(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// job returns a completed job submitted at submit, running runtime from submission on.
func job(id int64, submit, runtime traces.Time, name, ljob, user string) Job {
	return Job{ID: id, Submit: submit, End: submit + runtime, Runtime: runtime, CPU: math.NaN(), Mem: math.NaN(),
		Features: traces.Features{JobName: name, LogicalJobName: ljob, User: user}}
}

// TestSelectionOnHandComputedHistory replays five runs of one job name and checks every
// prediction and the pair that made it against values computed by hand (features: job;
// estimators: average, rolling with α = 0.5).
func TestSelectionOnHandComputedHistory(t *testing.T) {
	p := mustJVu(t, Options{Features: []string{"job"}, Estimators: []string{"average", "rolling"}})
	if got := strings.Join(p.Pairs(), " "); got != "job-average job-rolling all-average all-rolling" {
		t.Fatalf("pairs = %s", got)
	}
	// Each job is submitted after the previous one completed.
	runtimes := []traces.Time{100, 200, 400, 300, 500}
	var jobs []Job
	var at traces.Time
	for i, r := range runtimes {
		jobs = append(jobs, job(int64(i+1), at, r, "A", "", ""))
		at += r + 1
	}
	got, err := Evaluate(jobs, p)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		runtime traces.Time
		pair    string
		score   float64
	}{
		// No history at all: near-zero prediction, no pair.
		{0, "", math.NaN()},
		// History {100}: both pairs predict 100 and are unscored; the first (average) wins.
		{100, "job-average", math.NaN()},
		// Both predicted 100 for 200: NRMSE 100/200 = 0.5 each; the tie goes to average.
		// average = 150, rolling = .5·200 + .5·100 = 150.
		{150, "job-average", 0.5},
		// Both predicted 150 for 400: sse = 100² + 250² = 72500, n = 2, Σactual = 600:
		// NRMSE = sqrt(72500·2)/600 ≈ 0.6347 each; average = 700/3 ≈ 233 wins the tie
		// (rolling = .5·400 + .5·150 = 275).
		{233, "job-average", math.Sqrt(72500*2) / 600},
		// For 300, average erred by 66.67 and rolling by 25: average's NRMSE is
		// sqrt((72500 + 66.67²)·3)/900 ≈ 0.5339, rolling's sqrt((72500 + 25²)·3)/900 ≈ 0.5204,
		// so rolling = .5·300 + .5·275 = 287.5 → 288 wins (average would say 250).
		{288, "job-rolling", math.Sqrt((72500+625)*3) / 900},
	}
	for i, w := range want {
		e := got[i]
		pair := ""
		if e.Pair >= 0 {
			pair = p.Pairs()[e.Pair]
		}
		if e.Runtime != w.runtime || pair != w.pair || !sameFloat(e.Score, w.score, 1e-9) {
			t.Errorf("job %d: predicted %d by %q (score %v), want %d by %q (score %v)", i+1, e.Runtime, pair, e.Score, w.runtime, w.pair, w.score)
		}
	}
}

func sameFloat(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

func TestSelectionRules(t *testing.T) {
	opts := Options{Features: []string{"job", "ljob"}, Estimators: []string{"average"}}
	for _, tc := range []struct {
		name    string
		history []Job // completed before the probe's submission at t = 1000
		probe   traces.Features
		want    string
		runtime traces.Time
	}{
		{
			name:    "the catch-all predicts when no feature value has history",
			history: []Job{job(1, 0, 10, "A", "L", ""), job(2, 20, 30, "B", "M", "")},
			probe:   traces.Features{JobName: "C", LogicalJobName: "N"},
			want:    "all-average", runtime: 20,
		},
		{
			name:    "an unscored feature value beats the scored catch-all",
			history: []Job{job(1, 0, 10, "A", "L", ""), job(2, 20, 30, "B", "M", "")},
			probe:   traces.Features{JobName: "C", LogicalJobName: "M"},
			want:    "ljob-average", runtime: 30,
		},
		{
			name: "a scored pair beats an unscored one that comes first",
			// ljob L is scored (its second run was predicted); job name D ran once.
			history: []Job{job(1, 0, 10, "A", "L", ""), job(2, 20, 30, "B", "L", ""), job(3, 60, 50, "D", "X", "")},
			probe:   traces.Features{JobName: "D", LogicalJobName: "L"},
			want:    "ljob-average", runtime: 20,
		},
		{
			name:    "between unscored pairs the earlier slot wins",
			history: []Job{job(1, 0, 10, "A", "L", ""), job(2, 20, 30, "B", "M", "")},
			probe:   traces.Features{JobName: "A", LogicalJobName: "M"},
			want:    "job-average", runtime: 10,
		},
		{
			name:    "an unknown feature value is skipped",
			history: []Job{job(1, 0, 10, "A", "L", ""), job(2, 20, 30, "B", "M", "")},
			probe:   traces.Features{JobName: "", LogicalJobName: "L"},
			want:    "ljob-average", runtime: 10,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustJVu(t, opts)
			jobs := append(tc.history, Job{ID: 99, Submit: 1000, End: -1, Runtime: -1, Features: tc.probe, CPU: math.NaN(), Mem: math.NaN()})
			got, err := Evaluate(jobs, p)
			if err != nil {
				t.Fatal(err)
			}
			e := got[len(got)-1]
			if e.Pair < 0 || p.Pairs()[e.Pair] != tc.want || e.Runtime != tc.runtime {
				t.Fatalf("predicted %d by pair %d (%v), want %d by %s", e.Runtime, e.Pair, p.Pairs(), tc.runtime, tc.want)
			}
		})
	}
}

func TestDiscretize(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want float64
		ok   bool
	}{
		{0, 0, true},
		{0.04, 0, true},
		{0.05, 0.1, true},
		{0.25, 0.3, true},
		{0.96, 1, true},
		{1, 1, true},
		{1.4, 1, true},
		{1.5, 2, true},
		{137.49, 137, true},
		{-0.1, 0, false},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
	} {
		got, ok := Discretize(tc.x)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Discretize(%v) = %v, %v; want %v, %v", tc.x, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSecondaryFeaturesRefineGroups checks that user+cpu groups hold only the runtimes of
// jobs with the same discretized cpu request, and that unknown requests join no refined group.
func TestSecondaryFeaturesRefineGroups(t *testing.T) {
	p := mustJVu(t, Options{Features: []string{"user"}, Estimators: []string{"average"}, Secondary: true})
	if got := strings.Join(p.Slots(), " "); got != "user user+cpu user+mem user+tasks all" {
		t.Fatalf("slots = %s", got)
	}
	mk := func(id int64, submit, runtime traces.Time, cpu, mem float64, tasks int32) Job {
		j := job(id, submit, runtime, "", "", "u")
		j.CPU, j.Mem, j.Tasks = cpu, mem, tasks
		return j
	}
	jobs := []Job{
		mk(1, 0, 10, 0.31, 0.5, 1),   // cpu bucket 0.3
		mk(2, 20, 100, 2.4, 0.5, 10), // cpu bucket 2
		mk(3, 200, 30, 0.26, 0.52, 1),
		mk(4, 300, 1, math.NaN(), 0.5, 0), // unknown cpu and tasks
	}
	probe := mk(5, 1000, -1, 0.29, 0.49, 1)
	probe.End = -1
	jobs = append(jobs, probe)
	var d Detail
	var last Estimate
	err := Replay(jobs, p, func(i int, j *Job) error {
		last = p.PredictDetail(j, j.Submit, &d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cand := func(name string) float64 { return d.Cands[p.PairIndex(name)] }
	if got := cand("user-average"); got != 141.0/4 {
		t.Errorf("user-average = %v, want 141/4", got)
	}
	if got := cand("user+cpu-average"); got != 20 { // jobs 1 and 3 (0.3)
		t.Errorf("user+cpu-average = %v, want 20", got)
	}
	if got := cand("user+mem-average"); got != 141.0/4 { // all four at 0.5
		t.Errorf("user+mem-average = %v, want 141/4", got)
	}
	if got := cand("user+tasks-average"); got != 20 { // jobs 1 and 3 have one task
		t.Errorf("user+tasks-average = %v, want 20", got)
	}
	if want := []int64{4, 2, 4, 2, 4}; !equalInts(d.History, want) {
		t.Errorf("history sizes %v, want %v", d.History, want)
	}
	if last.Pair < 0 {
		t.Fatal("no prediction")
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMedianFilter checks that an outlier (more than 3σ from the history's mean) enters the
// filtered history as the history's median, while the raw history keeps it.
func TestMedianFilter(t *testing.T) {
	p := mustJVu(t, Options{Features: []string{"job"}, Estimators: []string{"average", "median"}, MedianFilter: true})
	want := "job-average job-average-mf job-median job-median-mf all-average all-average-mf all-median all-median-mf"
	if got := strings.Join(p.Pairs(), " "); got != want {
		t.Fatalf("pairs = %s, want %s", got, want)
	}
	// 100, 110, 90, 100: mean 100, σ = sqrt(50) ≈ 7.07; 10000 is an outlier, 115 is not
	// (|115 − mean 2080| is below 3σ once 10000 inflated σ).
	var jobs []Job
	var at traces.Time
	for i, r := range []traces.Time{100, 110, 90, 100, 10000, 115} {
		jobs = append(jobs, job(int64(i+1), at, r, "A", "", ""))
		at += r + 1
	}
	jobs = append(jobs, Job{ID: 99, Submit: at, End: -1, Runtime: -1, Features: traces.Features{JobName: "A"}, CPU: math.NaN(), Mem: math.NaN()})
	var d Detail
	if err := Replay(jobs, p, func(_ int, j *Job) error { p.PredictDetail(j, j.Submit, &d); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pair string
		want float64
	}{
		{"job-average", (400.0 + 10000 + 115) / 6},
		{"job-average-mf", (400.0 + 100 + 115) / 6}, // 10000 replaced by the median of 90,100,100,110
		{"job-median", 105},                         // 90 100 100 110 115 10000
		{"job-median-mf", 100},                      // 90 100 100 100 110 115
	} {
		if got := d.Cands[p.PairIndex(c.pair)]; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.pair, got, c.want)
		}
	}
	st := p.Stats()
	if st.Slots[0].Name != "job" || st.Slots[0].Outliers != 1 || st.Slots[0].GroupsWithOutliers != 1 || st.Slots[0].Observations != 6 {
		t.Errorf("job slot stats %+v, want 1 outlier in 1 group of 6 runtimes", st.Slots[0])
	}
	if st.Pending != 0 {
		t.Errorf("%d jobs still pending after the replay", st.Pending)
	}
}

func TestNewRejectsBadNamesAndOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pred    string
		opts    Options
		wantErr error
		mention string
	}{
		{"unknown predictor", "magic", Options{}, ErrUnknown, "jvupredict, noisy, oracle"},
		{"unknown feature", JVuName, Options{Features: []string{"job", "host"}}, ErrOptions, "job, ljob, user"},
		{"duplicate estimator", JVuName, Options{Estimators: []string{"median", "median"}}, ErrOptions, "twice"},
		{"alpha above one", JVuName, Options{Alpha: 1.5}, ErrOptions, "alpha"},
		{"negative recent window", JVuName, Options{RecentN: -2}, ErrOptions, "recent window"},
		{"noisy without a generator", NoisyName, Options{NoiseSigma: 5}, ErrOptions, "random source"},
		{"negative noise", NoisyName, Options{NoiseSigma: -5}, ErrOptions, "sigma"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.pred, tc.opts, nil)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.mention) {
				t.Fatalf("New(%q) error = %v, want %v mentioning %q", tc.pred, err, tc.wantErr, tc.mention)
			}
		})
	}
	for _, n := range Names() {
		if _, err := New(n, Options{}, NewRand(1, "test")); err != nil {
			t.Errorf("New(%q): %v", n, err)
		}
	}
}

func TestObserveIgnoresNegativeRuntimes(t *testing.T) {
	p := mustJVu(t, Options{})
	j := job(1, 0, 10, "A", "L", "u")
	p.PredictJob(&j, 0)
	p.ObserveJob(&j, -5)
	st := p.Stats()
	if st.Ignored != 1 || st.Pending != 0 || st.Slots[0].Observations != 0 {
		t.Fatalf("stats %+v after a negative runtime, want it ignored and the job dropped", st)
	}
}
