package shape

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

// job builds a single-stage job.
func job(id int64, submitS float64, tasks int32, durS float64) traces.Job {
	d := traces.FromSeconds(durS)
	return traces.Job{
		ID:     id,
		Submit: traces.FromSeconds(submitS),
		Queue:  "default",
		Stages: []traces.Stage{{Name: "s0", Tasks: tasks, Demand: traces.VecOf(0.5), Duration: d, Estimate: d}},
	}
}

func workload(jobs ...traces.Job) *traces.Workload {
	return &traces.Workload{
		Name:    "test",
		Dims:    []string{"cpu"},
		Cluster: traces.Uniform(4, traces.VecOf(1), 2),
		Jobs:    jobs,
	}
}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5ba9e)) }

func with(f func(*Options)) Options {
	o := Defaults()
	f(&o)
	return o
}

func ids(w *traces.Workload) []int64 {
	var out []int64
	for _, j := range w.Jobs {
		out = append(out, j.ID)
	}
	return out
}

func TestApplySteps(t *testing.T) {
	chain := traces.Job{ID: 9, Submit: 10 * sec, Class: "slo", Stages: []traces.Stage{
		{Name: "a", Tasks: 2, Demand: traces.VecOf(0.5), Duration: 30 * sec, Estimate: 30 * sec},
		{Name: "b", Tasks: 1, Demand: traces.VecOf(0.5), Duration: 70 * sec, Estimate: 70 * sec, Parents: []int32{0}},
	}}
	hetero := traces.Job{ID: 3, Stages: []traces.Stage{
		{Name: "h", Tasks: 3, Demand: traces.VecOf(0.5), TaskDurations: []traces.Time{1 * sec, 2 * sec, 3 * sec},
			History: []traces.TaskHistory{{Attempts: 1}, {Attempts: 2, Evictions: 1}, {Attempts: 1, Outcome: traces.TaskRunning}}},
	}}
	withDeadline := func(j traces.Job, d traces.Time, class string) traces.Job {
		j.Deadline = d
		j.Class = class
		j.Utility = &traces.Utility{Kind: traces.UtilitySigmoid, Priority: 1, Decay: 1, Target: d}
		return j
	}
	tests := []struct {
		name  string
		in    *traces.Workload
		opts  Options
		check func(t *testing.T, w *traces.Workload)
		err   string // a wanted error instead of a check
	}{
		{
			name: "defaults change nothing",
			in:   workload(job(1, 0, 1, 5), job(2, 3, 2, 7)),
			opts: Defaults(),
			check: func(t *testing.T, w *traces.Workload) {
				want := workload(job(1, 0, 1, 5), job(2, 3, 2, 7))
				if w.Hash() != want.Hash() || w.Source != "" {
					t.Errorf("defaults changed the workload (source %q)", w.Source)
				}
			},
		},
		{
			name: "window keeps [start,end)",
			in:   workload(job(1, 0, 1, 1), job(2, 5, 1, 1), job(3, 10, 1, 1), job(4, 15, 1, 1)),
			opts: with(func(o *Options) { o.WindowStartS, o.WindowEndS = 5, 15 }),
			check: func(t *testing.T, w *traces.Workload) {
				if got := ids(w); !slices.Equal(got, []int64{2, 3}) {
					t.Errorf("ids %v, want [2 3]", got)
				}
				if w.Jobs[0].Submit != 5*sec {
					t.Errorf("submit %d moved without rebase", w.Jobs[0].Submit)
				}
			},
		},
		{
			name: "window rebase shifts submit, deadline and utility target",
			in:   workload(job(1, 0, 1, 1), withDeadline(job(2, 100, 1, 1), 150*sec, "slo")),
			opts: with(func(o *Options) { o.WindowStartS, o.WindowRebase = 50, true }),
			check: func(t *testing.T, w *traces.Workload) {
				j := w.Jobs[0]
				if len(w.Jobs) != 1 || j.Submit != 50*sec || j.Deadline != 100*sec || j.Utility.Target != 100*sec {
					t.Errorf("got %d jobs, submit %d deadline %d target %d; want 1, 50 s, 100 s, 100 s", len(w.Jobs), j.Submit, j.Deadline, j.Utility.Target)
				}
			},
		},
		{
			name: "size filter drops jobs with more than max_tasks tasks over all stages",
			in:   workload(job(1, 0, 256, 1), job(2, 1, 257, 1), chain, job(11, 20, 1, 1)),
			opts: with(func(o *Options) { o.MaxTasks = 256 }),
			check: func(t *testing.T, w *traces.Workload) {
				if got := ids(w); !slices.Equal(got, []int64{1, 9, 11}) {
					t.Errorf("ids %v, want [1 9 11]", got)
				}
			},
		},
		{
			name: "size filter counts all stages",
			in:   workload(chain),
			opts: with(func(o *Options) { o.MaxTasks = 2 }),
			err:  "size step keeps none of the 1 jobs",
		},
		{
			name: "scale tasks rounds and keeps at least one",
			in:   workload(job(1, 0, 3, 10), job(2, 1, 1, 10)),
			opts: with(func(o *Options) { o.ScaleTasks = 2.5 }),
			check: func(t *testing.T, w *traces.Workload) {
				// math.Round rounds halves away from zero: 7.5 → 8, 2.5 → 3.
				if a, b := w.Jobs[0].Stages[0].Tasks, w.Jobs[1].Stages[0].Tasks; a != 8 || b != 3 {
					t.Errorf("tasks %d, %d; want 8, 3", a, b)
				}
			},
		},
		{
			name: "scale tasks down to at least one",
			in:   workload(job(1, 0, 3, 10)),
			opts: with(func(o *Options) { o.ScaleTasks = 0.1 }),
			check: func(t *testing.T, w *traces.Workload) {
				if n := w.Jobs[0].Stages[0].Tasks; n != 1 {
					t.Errorf("tasks %d, want 1", n)
				}
			},
		},
		{
			name: "scale durations scales duration and estimate, not deadline",
			in:   workload(withDeadline(job(1, 0, 1, 10), 40*sec, "slo")),
			opts: with(func(o *Options) { o.ScaleDurations = 1.5 }),
			check: func(t *testing.T, w *traces.Workload) {
				s := w.Jobs[0].Stages[0]
				if s.Duration != 15*sec || s.Estimate != 15*sec || w.Jobs[0].Deadline != 40*sec {
					t.Errorf("duration %d estimate %d deadline %d; want 15 s, 15 s, 40 s", s.Duration, s.Estimate, w.Jobs[0].Deadline)
				}
			},
		},
		{
			name: "scale tasks repeats per-task durations",
			in:   workload(hetero),
			opts: with(func(o *Options) { o.ScaleTasks = 2 }),
			check: func(t *testing.T, w *traces.Workload) {
				want := []traces.Time{1 * sec, 1 * sec, 2 * sec, 2 * sec, 3 * sec, 3 * sec}
				if s := w.Jobs[0].Stages[0]; s.Tasks != 6 || !slices.Equal(s.TaskDurations, want) {
					t.Errorf("tasks %d durations %v, want 6 %v", s.Tasks, s.TaskDurations, want)
				}
				if h := w.Jobs[0].Stages[0].History; len(h) != 6 || h[3].Attempts != 2 || h[5].Outcome != traces.TaskRunning {
					t.Errorf("task histories %v, want each of the 3 repeated twice", h)
				}
			},
		},
		{
			name: "scale tasks thins per-task durations and scales them",
			in:   workload(hetero),
			opts: with(func(o *Options) { o.ScaleTasks, o.ScaleDurations = 2.0/3, 2 }),
			check: func(t *testing.T, w *traces.Workload) {
				want := []traces.Time{2 * sec, 4 * sec}
				if s := w.Jobs[0].Stages[0]; s.Tasks != 2 || !slices.Equal(s.TaskDurations, want) {
					t.Errorf("tasks %d durations %v, want 2 %v", s.Tasks, s.TaskDurations, want)
				}
			},
		},
		{
			name: "slo_fraction makes an exact share slo and clears be deadlines",
			in: workload(withDeadline(job(1, 0, 1, 1), 9*sec, ""), withDeadline(job(2, 1, 1, 1), 9*sec, ""),
				withDeadline(job(3, 2, 1, 1), 9*sec, ""), withDeadline(job(4, 3, 1, 1), 9*sec, "")),
			opts: with(func(o *Options) { o.Classes, o.SLOFraction = ClassesSLOFraction, 0.25 }),
			check: func(t *testing.T, w *traces.Workload) {
				slo := 0
				for _, j := range w.Jobs {
					switch j.Class {
					case ClassSLO:
						slo++
						if j.Deadline != 9*sec {
							t.Errorf("slo job %d lost its deadline", j.ID)
						}
					case ClassBE:
						if j.Deadline != 0 {
							t.Errorf("be job %d keeps deadline %d", j.ID, j.Deadline)
						}
					default:
						t.Errorf("job %d has class %q", j.ID, j.Class)
					}
				}
				if slo != 1 {
					t.Errorf("%d slo jobs, want 1 (25%% of 4)", slo)
				}
			},
		},
		{
			name: "queue_prefix: first matching rule wins, unmatched keep their class",
			in: func() *traces.Workload {
				w := workload(job(1, 0, 1, 1), job(2, 1, 1, 1), job(3, 2, 1, 1), job(4, 3, 1, 1))
				for i, q := range []string{"bursty0", "batch3", "batchy", "other"} {
					w.Jobs[i].Queue = q
					w.Jobs[i].Class = "orig"
				}
				return w
			}(),
			opts: with(func(o *Options) {
				o.Classes, o.ClassRules = ClassesQueuePrefix, []string{"bursty=lq", "batchy=x", "batch=tq"}
			}),
			check: func(t *testing.T, w *traces.Workload) {
				var got []string
				for _, j := range w.Jobs {
					got = append(got, j.Class)
				}
				if want := []string{"lq", "tq", "x", "orig"}; !slices.Equal(got, want) {
					t.Errorf("classes %v, want %v", got, want)
				}
			},
		},
		{
			name: "slack 50% on a 100 s job submitted at 10 s gives 160 s",
			in:   workload(job(1, 10, 4, 100)),
			opts: with(func(o *Options) { o.Deadlines, o.SlackPercent = DeadlinesSlack, []float64{50} }),
			check: func(t *testing.T, w *traces.Workload) {
				if d := w.Jobs[0].Deadline; d != 160*sec {
					t.Errorf("deadline %v s, want 160 s", traces.Seconds(d))
				}
			},
		},
		{
			name: "slack uses the critical path of a DAG and skips be jobs",
			in:   workload(chain, func() traces.Job { j := job(12, 20, 1, 100); j.Class = ClassBE; return j }()),
			opts: with(func(o *Options) { o.Deadlines, o.SlackPercent = DeadlinesSlack, []float64{20} }),
			check: func(t *testing.T, w *traces.Workload) {
				// chain: 30 s + 70 s = 100 s critical path, submitted at 10 s.
				if d := w.Jobs[0].Deadline; d != 130*sec {
					t.Errorf("chain deadline %v s, want 130 s", traces.Seconds(d))
				}
				if d := w.Jobs[1].Deadline; d != 0 {
					t.Errorf("be job got deadline %v s", traces.Seconds(d))
				}
			},
		},
		{
			name: "deadline_classes selects classes",
			in:   workload(func() traces.Job { j := job(1, 0, 1, 10); j.Class = "lq"; return j }(), job(2, 1, 1, 10)),
			opts: with(func(o *Options) {
				o.Deadlines, o.SlackPercent, o.DeadlineClasses = DeadlinesSlack, []float64{0}, []string{"lq"}
			}),
			check: func(t *testing.T, w *traces.Workload) {
				if w.Jobs[0].Deadline != 10*sec || w.Jobs[1].Deadline != 0 {
					t.Errorf("deadlines %d, %d; want 10 s, none", w.Jobs[0].Deadline, w.Jobs[1].Deadline)
				}
			},
		},
		{
			name: "estimates with sigma 0 and bias 20 are exactly 1.2 × true",
			in:   workload(job(1, 0, 1, 100), chain),
			opts: with(func(o *Options) { o.Estimates, o.EstimateBias = EstimatesNoise, 20 }),
			check: func(t *testing.T, w *traces.Workload) {
				for _, j := range w.Jobs {
					for _, s := range j.Stages {
						if want := s.Duration * 6 / 5; s.Estimate != want {
							t.Errorf("job %d stage %s: estimate %d, want %d", j.ID, s.Name, s.Estimate, want)
						}
					}
				}
			},
		},
		{
			name: "estimates clamp at 1 µs",
			in:   workload(job(1, 0, 1, 100)),
			opts: with(func(o *Options) { o.Estimates, o.EstimateBias, o.EstimatePer = EstimatesNoise, -150, PerStage }),
			check: func(t *testing.T, w *traces.Workload) {
				if e := w.Jobs[0].Stages[0].Estimate; e != 1 {
					t.Errorf("estimate %d, want 1", e)
				}
			},
		},
		{
			name: "true estimates reset to the truth, mean of per-task durations",
			in: workload(hetero, func() traces.Job {
				j := job(5, 1, 1, 10)
				j.Stages[0].Estimate = 3
				return j
			}()),
			opts: with(func(o *Options) { o.Estimates = EstimatesTrue }),
			check: func(t *testing.T, w *traces.Workload) {
				if a, b := w.Jobs[0].Stages[0].Estimate, w.Jobs[1].Stages[0].Estimate; a != 2*sec || b != 10*sec {
					t.Errorf("estimates %d, %d; want 2 s, 10 s", a, b)
				}
			},
		},
		{
			name: "estimate_classes restricts the step",
			in: workload(func() traces.Job { j := job(1, 0, 1, 10); j.Class = "lq"; return j }(),
				func() traces.Job { j := job(2, 0, 1, 10); j.Class = "tq"; return j }()),
			opts: with(func(o *Options) {
				o.Estimates, o.EstimateBias, o.EstimateClasses = EstimatesNoise, 50, []string{"lq"}
			}),
			check: func(t *testing.T, w *traces.Workload) {
				if a, b := w.Jobs[0].Stages[0].Estimate, w.Jobs[1].Stages[0].Estimate; a != 15*sec || b != 10*sec {
					t.Errorf("estimates %d, %d; want 15 s (lq), 10 s (tq untouched)", a, b)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Apply(tc.in, tc.opts, rng(1))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.in.Validate(); err != nil {
				t.Fatal(err)
			}
			tc.check(t, tc.in)
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name string
		w    *traces.Workload
		o    Options
		r    *rand.Rand
		want string
	}{
		{"nil workload", nil, Defaults(), rng(1), "nil workload"},
		{"nil rng", workload(job(1, 0, 1, 1)), Defaults(), nil, "nil *rand.Rand"},
		{"invalid options", workload(job(1, 0, 1, 1)), Options{}, rng(1), "sample"},
		{"window empties", workload(job(1, 0, 1, 1)), with(func(o *Options) { o.WindowStartS = 5 }), rng(1), "window step keeps none of the 1 jobs"},
		{"tasks overflow", workload(job(1, 0, 1<<30, 1)), with(func(o *Options) { o.ScaleTasks = 4 }), rng(1), "scale_tasks: job 0 (id 1) stage 0"},
		{"duration overflow", workload(job(1, 0, 1, 1e6)), with(func(o *Options) { o.ScaleDurations = 1e4 }), rng(1), "scale_durations: job 0 (id 1) stage 0: duration"},
		{"deadline overflow", workload(job(1, 0, 1, 1e8)), with(func(o *Options) { o.Deadlines, o.SlackPercent = DeadlinesSlack, []float64{1e5} }), rng(1), "slack_percent: job 0 (id 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Apply(tc.w, tc.o, tc.r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Options)
		key  string // "" = valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"full window", func(o *Options) { o.WindowStartS, o.WindowEndS = 10, 20 }, ""},
		{"negative start", func(o *Options) { o.WindowStartS = -1 }, "window_start_s"},
		{"NaN start", func(o *Options) { o.WindowStartS = math.NaN() }, "window_start_s"},
		{"end before start", func(o *Options) { o.WindowStartS, o.WindowEndS = 10, 5 }, "window_end_s"},
		{"infinite end", func(o *Options) { o.WindowEndS = math.Inf(1) }, "window_end_s"},
		{"zero sample", func(o *Options) { o.Sample = 0 }, "sample"},
		{"sample above one", func(o *Options) { o.Sample = 1.5 }, "sample"},
		{"negative max_tasks", func(o *Options) { o.MaxTasks = -1 }, "max_tasks"},
		{"zero scale_tasks", func(o *Options) { o.ScaleTasks = 0 }, "scale_tasks"},
		{"huge scale_durations", func(o *Options) { o.ScaleDurations = 1e9 }, "scale_durations"},
		{"unknown classes", func(o *Options) { o.Classes = "random" }, "classes"},
		{"slo_fraction above one", func(o *Options) { o.SLOFraction = 1.1 }, "slo_fraction"},
		{"rule without class", func(o *Options) { o.ClassRules = []string{"batch="} }, "class_rules"},
		{"rule without equals", func(o *Options) { o.ClassRules = []string{"batch"} }, "class_rules"},
		{"queue_prefix without rules", func(o *Options) { o.Classes = ClassesQueuePrefix }, "class_rules"},
		{"unknown deadlines", func(o *Options) { o.Deadlines = "fixed" }, "deadlines"},
		{"slack -100", func(o *Options) { o.SlackPercent = []float64{-100} }, "slack_percent"},
		{"slack mode without slack", func(o *Options) { o.Deadlines = DeadlinesSlack }, "slack_percent"},
		{"unknown estimates", func(o *Options) { o.Estimates = "oracle" }, "estimates"},
		{"NaN bias", func(o *Options) { o.EstimateBias = math.NaN() }, "estimate_bias"},
		{"negative std", func(o *Options) { o.EstimateStd = -1 }, "estimate_std"},
		{"unknown per", func(o *Options) { o.EstimatePer = "task" }, "estimate_per"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := with(tc.mod).Validate()
			switch {
			case tc.key == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.key != "" && (err == nil || !strings.Contains(err.Error(), "shape: "+tc.key+":")):
				t.Errorf("got %v, want an error naming %s", err, tc.key)
			}
		})
	}
	// All problems are reported at once.
	err := Options{}.Validate()
	for _, key := range []string{"sample", "scale_tasks", "scale_durations", "classes", "deadlines", "estimates", "estimate_per"} {
		if err == nil || !strings.Contains(err.Error(), "shape: "+key+":") {
			t.Errorf("zero Options: error %v does not name %s", err, key)
		}
	}
}

// big returns n single-stage jobs of 10 tasks and 100 s, one per second.
func big(n int) *traces.Workload {
	w := workload()
	for i := range n {
		w.Jobs = append(w.Jobs, job(int64(i), float64(i), 10, 100))
	}
	return w
}

func TestSampleFraction(t *testing.T) {
	const n = 10000
	w := big(n)
	if err := Apply(w, with(func(o *Options) { o.Sample = 0.3 }), rng(7)); err != nil {
		t.Fatal(err)
	}
	// Binomial(10000, 0.3): sd ≈ 45.8; allow 4 sd.
	if got := len(w.Jobs); math.Abs(float64(got)-0.3*n) > 4*math.Sqrt(n*0.3*0.7) {
		t.Errorf("kept %d of %d jobs with sample=0.3", got, n)
	}
}

func TestEstimateNoiseStatistics(t *testing.T) {
	const n = 20000
	for _, per := range []string{PerJob, PerStage} {
		t.Run(per, func(t *testing.T) {
			w := big(n)
			o := with(func(o *Options) {
				o.Estimates, o.EstimateBias, o.EstimateStd, o.EstimatePer = EstimatesNoise, -5, 10, per
			})
			if err := Apply(w, o, rng(3)); err != nil {
				t.Fatal(err)
			}
			var sum, sq float64
			for _, j := range w.Jobs {
				s := j.Stages[0]
				e := 100 * (float64(s.Estimate)/float64(s.Duration) - 1)
				sum += e
				sq += e * e
			}
			mean := sum / n
			sd := math.Sqrt(sq/n - mean*mean)
			// Standard error of the mean is 10/√20000 ≈ 0.07.
			if math.Abs(mean-(-5)) > 0.3 || math.Abs(sd-10) > 0.3 {
				t.Errorf("relative error mean %.3f sd %.3f, want ≈ -5 and 10", mean, sd)
			}
		})
	}
}

func TestEstimatePerJobVersusStage(t *testing.T) {
	mk := func() *traces.Workload {
		w := workload()
		for i := range 50 {
			w.Jobs = append(w.Jobs, traces.Job{ID: int64(i), Submit: traces.Time(i), Stages: []traces.Stage{
				{Name: "a", Tasks: 1, Demand: traces.VecOf(0.5), Duration: 100 * sec},
				{Name: "b", Tasks: 1, Demand: traces.VecOf(0.5), Duration: 200 * sec, Parents: []int32{0}},
			}})
		}
		return w
	}
	for _, tc := range []struct {
		per  string
		same bool
	}{{PerJob, true}, {PerStage, false}} {
		w := mk()
		o := with(func(o *Options) { o.Estimates, o.EstimateStd, o.EstimatePer = EstimatesNoise, 20, tc.per })
		if err := Apply(w, o, rng(11)); err != nil {
			t.Fatal(err)
		}
		same := 0
		for _, j := range w.Jobs {
			// per job: b's estimate is exactly twice a's, up to 1 µs of rounding.
			if d := j.Stages[1].Estimate - 2*j.Stages[0].Estimate; d >= -2 && d <= 2 {
				same++
			}
		}
		if tc.same && same != len(w.Jobs) || !tc.same && same > 1 {
			t.Errorf("estimate_per=%s: %d of %d jobs have one factor for both stages", tc.per, same, len(w.Jobs))
		}
	}
}

func TestDeterminismAndStreams(t *testing.T) {
	full := with(func(o *Options) {
		o.Sample = 0.8
		o.Classes, o.SLOFraction = ClassesSLOFraction, 0.5
		o.Deadlines, o.SlackPercent = DeadlinesSlack, []float64{20, 40, 60, 80}
		o.Estimates, o.EstimateStd = EstimatesNoise, 15
	})
	run := func(o Options, seed uint64) *traces.Workload {
		w := big(500)
		if err := Apply(w, o, rng(seed)); err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b, c := run(full, 1), run(full, 1), run(full, 2)
	if a.Hash() != b.Hash() {
		t.Error("same seed, different workloads")
	}
	if a.Hash() == c.Hash() {
		t.Error("different seeds, same workload")
	}
	// Each step has its own stream: turning the classes step off must not change which jobs the
	// sample step keeps, nor the estimates drawn for them.
	noClasses := full
	noClasses.Classes = ClassesKeep
	d := run(noClasses, 1)
	if !slices.Equal(ids(a), ids(d)) {
		t.Fatal("disabling classes changed the sampled jobs")
	}
	for i := range a.Jobs {
		if a.Jobs[i].Stages[0].Estimate != d.Jobs[i].Stages[0].Estimate {
			t.Fatalf("job %d: disabling classes changed its estimate", a.Jobs[i].ID)
		}
	}
	// Every slack of the list is used and only those.
	seen := map[traces.Time]bool{}
	for _, j := range a.Jobs {
		if j.Class == ClassSLO {
			seen[j.Deadline-j.Submit] = true
		} else if j.Deadline != 0 {
			t.Errorf("be job %d has a deadline", j.ID)
		}
	}
	want := map[traces.Time]bool{120 * sec: true, 140 * sec: true, 160 * sec: true, 180 * sec: true}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("relative deadlines %v, want %v", seen, want)
	}
	if !strings.Contains(a.Source, "shape: sample=0.8 classes=slo_fraction") {
		t.Errorf("source %q does not record the shaping", a.Source)
	}
}

func TestSharedSlicesNotMutated(t *testing.T) {
	stages := []traces.Stage{{Name: "s", Tasks: 2, Demand: traces.VecOf(0.5), Duration: 10 * sec, Estimate: 10 * sec}}
	u := &traces.Utility{Kind: traces.UtilityConstant, Priority: 1, Target: 50 * sec}
	w := workload(
		traces.Job{ID: 1, Submit: 20 * sec, Stages: stages, Utility: u},
		traces.Job{ID: 2, Submit: 30 * sec, Stages: stages, Utility: u},
	)
	o := with(func(o *Options) {
		o.WindowStartS, o.WindowRebase = 10, true
		o.ScaleDurations = 2
		o.Estimates, o.EstimateBias = EstimatesNoise, 10
	})
	if err := Apply(w, o, rng(1)); err != nil {
		t.Fatal(err)
	}
	if stages[0].Duration != 10*sec || stages[0].Estimate != 10*sec || u.Target != 50*sec {
		t.Errorf("shared stage or utility mutated: %+v %+v", stages[0], *u)
	}
	for _, j := range w.Jobs {
		if j.Stages[0].Duration != 20*sec || j.Stages[0].Estimate != 22*sec || j.Utility.Target != 40*sec {
			t.Errorf("job %d: duration %d estimate %d target %d; want 20 s, 22 s, 40 s", j.ID, j.Stages[0].Duration, j.Stages[0].Estimate, j.Utility.Target)
		}
	}
}

func TestKeysAndFromConfig(t *testing.T) {
	keys := Keys()
	names := map[string]bool{}
	for _, k := range keys {
		if names[k.Name] {
			t.Errorf("duplicate key %s", k.Name)
		}
		names[k.Name] = true
		if k.Doc == "" {
			t.Errorf("key %s has no doc", k.Name)
		}
	}
	// The documented defaults decode to Defaults() (lists: empty).
	byName := map[string]any{}
	for _, k := range keys {
		byName[k.Name] = k.Default
	}
	got, err := FromConfig(func(k string) any { return byName[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.ClassRules, want.SlackPercent, want.DeadlineClasses, want.EstimateClasses = []string{}, []float64{}, []string{}, []string{}
	if got.SlackPercent == nil {
		got.SlackPercent = []float64{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults from Keys decode to %+v, want %+v", got, want)
	}
	// Every Options field has a key.
	if n := reflect.TypeFor[Options]().NumField(); n != len(keys) {
		t.Errorf("%d Options fields, %d keys", n, len(keys))
	}

	tests := []struct {
		name string
		vals map[string]any
		want func(*Options)
		err  string
	}{
		{"strings from --set", map[string]any{"sample": "0.5", "slack_percent": "20, 40", "class_rules": "bursty=lq,batch=tq", "window_rebase": "true", "max_tasks": "256"},
			func(o *Options) {
				o.Sample, o.SlackPercent, o.ClassRules, o.WindowRebase, o.MaxTasks = 0.5, []float64{20, 40}, []string{"bursty=lq", "batch=tq"}, true, 256
			}, ""},
		{"yaml lists", map[string]any{"slack_percent": []any{25, 50.5}, "deadline_classes": []any{"slo"}, "deadlines": "slack"},
			func(o *Options) {
				o.SlackPercent, o.DeadlineClasses, o.Deadlines = []float64{25, 50.5}, []string{"slo"}, DeadlinesSlack
			}, ""},
		{"single slack number", map[string]any{"slack_percent": 60}, func(o *Options) { o.SlackPercent = []float64{60} }, ""},
		{"bad number", map[string]any{"estimate_std": "lots"}, nil, "shape: estimate_std: want a number"},
		{"bad bool", map[string]any{"window_rebase": "maybe"}, nil, "shape: window_rebase: want a boolean"},
		{"bad list", map[string]any{"slack_percent": []any{"x"}}, nil, "shape: slack_percent: want a list of numbers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromConfig(func(k string) any { return tc.vals[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want error %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := with(tc.want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}
