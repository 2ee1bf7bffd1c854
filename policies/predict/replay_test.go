package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// randomJobs returns n jobs in submission order with features drawn from small pools (so that
// groups build up history), heavy-tailed runtimes, ties in submission time, resource requests,
// and about 15% of jobs that never complete.
func randomJobs(r *rand.Rand, n int) []Job {
	jobs := make([]Job, n)
	var at traces.Time
	for i := range jobs {
		if r.IntN(4) > 0 { // a quarter of submissions share the previous one's time
			at += traces.Time(r.IntN(200))
		}
		j := Job{ID: int64(i + 1), Submit: at, End: -1, Runtime: -1}
		j.Features = traces.Features{
			JobName:        fmt.Sprintf("j%d", r.IntN(25)),
			LogicalJobName: fmt.Sprintf("l%d", r.IntN(8)),
			User:           fmt.Sprintf("u%d", r.IntN(4)),
		}
		j.CPU, j.Mem, j.Tasks = r.Float64()*3, r.Float64(), int32(1+r.IntN(5))
		if r.IntN(7) > 0 {
			wait := traces.Time(r.IntN(50))
			j.Runtime = traces.Time(1 + r.ExpFloat64()*float64(1+r.IntN(3))*300)
			j.End = at + wait + j.Runtime
		}
		jobs[i] = j
	}
	return jobs
}

// detailOf replays jobs and returns job k's estimate and candidates.
func detailOf(t *testing.T, jobs []Job, k int) (Estimate, []float64) {
	t.Helper()
	p := mustJVu(t, Options{Secondary: true, MedianFilter: true})
	var d Detail
	var est Estimate
	var cands []float64
	err := Replay(jobs, p, func(i int, j *Job) error {
		e := p.PredictDetail(j, j.Submit, &d)
		if i == k {
			est, cands = e, slices.Clone(d.Cands)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return est, cands
}

func sameCands(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) })
}

// TestNoLookAhead proves that a job's prediction depends only on jobs that completed strictly
// before its submission: rewriting everything about every other job that completes at or
// after that time (runtime, completion time, features, requests) leaves the prediction and
// every candidate unchanged, while rewriting the runtimes of jobs completed before it does
// change them (so the check can fail).
func TestNoLookAhead(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	jobs := randomJobs(r, 600)
	changedByPast := 0
	for k := 25; k < len(jobs); k += 23 {
		t.Run(fmt.Sprintf("job %d", k), func(t *testing.T) {
			base, baseCands := detailOf(t, jobs, k)
			sk := jobs[k].Submit

			future := slices.Clone(jobs)
			for i := range future {
				j := &future[i]
				if i == k || (j.End >= 0 && j.End < sk) {
					continue
				}
				j.Features = traces.Features{JobName: "x" + j.Features.JobName, LogicalJobName: j.Features.User, User: j.Features.JobName}
				j.CPU, j.Mem, j.Tasks = j.Mem, j.CPU, j.Tasks+7
				if r.IntN(5) == 0 {
					j.End, j.Runtime = -1, -1 // now it never completes
					continue
				}
				j.End = max(j.Submit, sk) + traces.Time(r.IntN(5000))
				j.Runtime = traces.Time(r.Int64N(j.End - j.Submit + 1))
			}
			got, gotCands := detailOf(t, future, k)
			if got != base && !(got.Runtime == base.Runtime && got.Pair == base.Pair && math.IsNaN(got.Score) && math.IsNaN(base.Score)) {
				t.Errorf("prediction changed from %+v to %+v when only jobs completing at or after its submission changed", base, got)
			}
			if !sameCands(baseCands, gotCands) {
				t.Errorf("candidates changed when only jobs completing at or after its submission changed")
			}

			past := slices.Clone(jobs)
			for i := range past {
				if j := &past[i]; i != k && j.End >= 0 && j.End < sk {
					j.Runtime = max(0, j.Runtime/3)
				}
			}
			if _, pastCands := detailOf(t, past, k); !sameCands(baseCands, pastCands) {
				changedByPast++
			}
		})
	}
	if changedByPast == 0 {
		t.Fatal("rewriting earlier completions never changed a prediction: the test cannot detect dependence")
	}
}

// recorder is a Model that logs the calls Replay makes.
type recorder struct{ log []string }

func (r *recorder) Name() string    { return "recorder" }
func (r *recorder) Pairs() []string { return nil }
func (r *recorder) PredictJob(j *Job, now traces.Time) Estimate {
	r.log = append(r.log, fmt.Sprintf("predict %d@%d", j.ID, now))
	return Estimate{Pair: -1}
}
func (r *recorder) ObserveJob(j *Job, rt traces.Time) {
	r.log = append(r.log, fmt.Sprintf("observe %d=%d", j.ID, rt))
}
func (r *recorder) Forget(id int64) { r.log = append(r.log, fmt.Sprintf("forget %d", id)) }

func TestReplayTimeline(t *testing.T) {
	jobs := []Job{
		{ID: 1, Submit: 0, End: 10, Runtime: 9},
		{ID: 2, Submit: 5, End: 8, Runtime: 3},
		{ID: 3, Submit: 10, End: 10, Runtime: 0}, // job 1 completes at its submission time: not visible
		{ID: 4, Submit: 11, End: -1, Runtime: -1},
		{ID: 5, Submit: 11, End: 20, Runtime: 4},
	}
	var rec recorder
	if _, err := Evaluate(jobs, &rec); err != nil {
		t.Fatal(err)
	}
	want := "predict 1@0, predict 2@5, observe 2=3, predict 3@10, observe 1=9, observe 3=0, predict 4@11, forget 4, predict 5@11, observe 5=4"
	if got := strings.Join(rec.log, ", "); got != want {
		t.Errorf("timeline:\n got %s\nwant %s", got, want)
	}
}

func TestReplayRejectsInconsistentJobs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		jobs    []Job
		mention string
	}{
		{"submissions out of order", []Job{{ID: 1, Submit: 5, End: -1}, {ID: 2, Submit: 4, End: -1}}, "submission order"},
		{"completion before submission", []Job{{ID: 1, Submit: 5, End: 4, Runtime: 0}}, "inconsistent"},
		{"runtime longer than the job's life", []Job{{ID: 1, Submit: 5, End: 10, Runtime: 6}}, "inconsistent"},
		{"negative runtime of a completed job", []Job{{ID: 1, Submit: 5, End: 10, Runtime: -1}}, "inconsistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Evaluate(tc.jobs, Oracle{})
			if err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Fatalf("error = %v, want one mentioning %q", err, tc.mention)
			}
		})
	}
}

func TestReplayForgetsJobsThatNeverComplete(t *testing.T) {
	jobs := randomJobs(rand.New(rand.NewPCG(7, 7)), 300)
	p := mustJVu(t, Options{MedianFilter: true})
	if _, err := Evaluate(jobs, p); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Pending != 0 {
		t.Fatalf("%d jobs left pending after the replay", st.Pending)
	}
}

func TestSortJobsIsStable(t *testing.T) {
	jobs := []Job{{ID: 1, Submit: 5}, {ID: 2, Submit: 3}, {ID: 3, Submit: 5}, {ID: 4, Submit: 3}}
	SortJobs(jobs)
	var ids []int64
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if !slices.Equal(ids, []int64{2, 4, 1, 3}) {
		t.Fatalf("order %v, want [2 4 1 3]", ids)
	}
}

func TestNoisy(t *testing.T) {
	draw := func(seed int64, bias, sigma float64, n int) []traces.Time {
		p, err := New(NoisyName, Options{NoiseBias: bias, NoiseSigma: sigma}, NewRand(seed, "predict/noisy"))
		if err != nil {
			t.Fatal(err)
		}
		out := make([]traces.Time, n)
		for i := range out {
			j := Job{ID: int64(i), Runtime: 1_000_000}
			out[i] = p.PredictJob(&j, 0).Runtime
		}
		return out
	}
	a, b, c := draw(3, 5, 10, 20000), draw(3, 5, 10, 20000), draw(4, 5, 10, 20000)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different predictions")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same predictions")
	}
	var sum, sq float64
	for _, x := range a {
		e := (float64(x)/1e6 - 1) * 100
		sum += e
		sq += e * e
	}
	mean := sum / float64(len(a))
	sd := math.Sqrt(sq/float64(len(a)) - mean*mean)
	// Standard error of the mean is 10/sqrt(20000) ≈ 0.07 percentage points.
	if math.Abs(mean-5) > 0.3 || math.Abs(sd-10) > 0.3 {
		t.Errorf("relative error mean %.3f%% sd %.3f%%, want about 5%% and 10%%", mean, sd)
	}
	for _, x := range draw(5, -300, 1, 100) {
		if x != 1 {
			t.Fatalf("a prediction below zero was not clamped to 1 µs: %d", x)
		}
	}
}

func TestReplayHook(t *testing.T) {
	tj := &traces.Job{
		ID: 7, Submit: 100, Features: traces.Features{JobName: "A", User: "u"},
		Stages: []traces.Stage{
			{Tasks: 4, Demand: traces.VecOf(0.25, 0.5), Duration: 30},
			{Tasks: 2, Demand: traces.VecOf(1, 0.1), Duration: 50, Parents: []int32{0}},
		},
	}
	q := FromTraces(tj, true)
	if q.CPU != 3 || q.Mem != 2.2 || q.Tasks != 6 || q.Runtime != 80 || q.End != 180 {
		t.Fatalf("FromTraces = %+v, want cpu 3, mem 2.2, 6 tasks, runtime 80", q)
	}
	if got := (Oracle{}).Predict(tj, 100); got != 80 {
		t.Errorf("oracle predicted %d, want the critical path 80", got)
	}
	p, err := New(JVuName, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Predict(tj, 100); got != 0 {
		t.Errorf("first prediction %d, want 0 (no history)", got)
	}
	p.Observe(tj, 75)
	tj2 := *tj
	tj2.ID, tj2.Submit = 8, 200
	if got := p.Predict(&tj2, 200); got != 75 {
		t.Errorf("second prediction %d, want 75 from the first run", got)
	}
}
