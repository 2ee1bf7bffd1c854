package replay

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// urgent starts pending tasks greedily with the reason "greedy"; a job of class "urgent"
// preempts every running task of other jobs first, with the reason "make room".
type urgent struct{}

func (urgent) Name() string { return "urgent" }

func (urgent) Schedule(v policies.View, p *policies.Plan) error {
	free := v.Free(0)
	for _, j := range v.Active() {
		if v.Job(j).Class != "urgent" || len(v.RunnableStages(j)) == 0 {
			continue
		}
		for _, o := range v.Active() {
			for _, t := range v.RunningTasks(o) {
				p.PreemptBecause(t.TaskRef, policies.BecauseOf("make room for", v.Job(j).Name))
			}
		}
		if len(p.Preempts) > 0 {
			return nil // start after the release
		}
	}
	order := append([]policies.JobID(nil), v.Active()...)
	slices.SortStableFunc(order, func(a, b policies.JobID) int {
		return cmp.Compare(v.Job(b).Class, v.Job(a).Class) // urgent first
	})
	for _, j := range order {
		info := v.Job(j)
		for _, s := range v.RunnableStages(j) {
			d := info.Stages[s].Demand
			var n int32
			for n < v.StageState(j, s).Pending && d.Fits(free) {
				free = free.Sub(d)
				n++
			}
			if n > 0 {
				p.StartBecause(policies.Start{Job: j, Stage: s, Count: n}, policies.BecauseValue("greedy", float64(n)))
			}
		}
	}
	return nil
}

type attemptLog struct {
	rows  []string
	calls []string
}

func (l *attemptLog) Attempt(a *Attempt) {
	l.rows = append(l.rows, fmt.Sprintf("job=%d stage=%d task=%d m=%d ready=%d start=%d end=%d %s lost=%d why=%q end_why=%q",
		a.Job, a.Stage, a.Task, a.Machine, a.Ready, a.Start, a.End, a.Outcome, a.WorkLost, a.Why.String(), a.EndWhy.String()))
}

func (l *attemptLog) Call(c *CallInfo) {
	l.calls = append(l.calls, fmt.Sprintf("t=%d starts=%d preempts=%d free=%s pending=%d running=%d",
		c.T, c.Starts, c.Preempts, c.Free.Format(1), c.Pending, c.Running))
}

func TestRecorderSeesEveryAttempt(t *testing.T) {
	w := &traces.Workload{
		Dims:    []string{"cpu"},
		Cluster: traces.Uniform(1, traces.VecOf(2), 0),
		Jobs: []traces.Job{
			{ID: 1, Name: "long", Submit: 0, Stages: []traces.Stage{
				{Name: "a", Tasks: 2, Demand: traces.VecOf(1), Duration: 100, Estimate: 100},
				{Name: "b", Tasks: 1, Demand: traces.VecOf(1), Duration: 10, Estimate: 10, Parents: []int32{0}},
			}},
			{ID: 2, Name: "hot", Class: "urgent", Submit: 40, Stages: []traces.Stage{
				{Name: "x", Tasks: 1, Demand: traces.VecOf(2), Duration: 20, Estimate: 20},
			}},
		},
	}
	for _, tc := range []struct {
		name     string
		cfg      Config
		rows     []string
		ncalls   int
		lastCall string
	}{
		{"complete", Config{}, []string{
			`job=0 stage=0 task=0 m=0 ready=0 start=0 end=40 preempted lost=40 why="greedy 2" end_why="make room for hot"`,
			`job=0 stage=0 task=1 m=0 ready=0 start=0 end=40 preempted lost=40 why="greedy 2" end_why="make room for hot"`,
			// the preemption's plan starts nothing; the machine it freed at once calls the
			// policy again at t=40 (followup.go), which starts hot
			`job=1 stage=0 task=0 m=0 ready=40 start=40 end=60 finished lost=0 why="greedy 1" end_why=""`,
			`job=0 stage=0 task=0 m=0 ready=40 start=60 end=160 finished lost=0 why="greedy 2" end_why=""`,
			`job=0 stage=0 task=1 m=0 ready=40 start=60 end=160 finished lost=0 why="greedy 2" end_why=""`,
			`job=0 stage=1 task=0 m=0 ready=160 start=160 end=170 finished lost=0 why="greedy 1" end_why=""`,
		}, 6, "t=170 starts=0 preempts=0 free=[2] pending=0 running=0"},
		{"horizon", Config{Horizon: 110, PreemptKeepsWork: true}, []string{
			`job=0 stage=0 task=0 m=0 ready=0 start=0 end=40 preempted lost=0 why="greedy 2" end_why="make room for hot"`,
			`job=0 stage=0 task=1 m=0 ready=0 start=0 end=40 preempted lost=0 why="greedy 2" end_why="make room for hot"`,
			`job=1 stage=0 task=0 m=0 ready=40 start=40 end=60 finished lost=0 why="greedy 1" end_why=""`,
			`job=0 stage=0 task=0 m=0 ready=40 start=60 end=110 unfinished lost=0 why="greedy 2" end_why=""`,
			`job=0 stage=0 task=1 m=0 ready=40 start=60 end=110 unfinished lost=0 why="greedy 2" end_why=""`,
		}, 4, "t=60 starts=2 preempts=0 free=[0] pending=0 running=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &attemptLog{}
			tc.cfg.Recorder = log
			e, err := New(w, urgent{}, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(log.rows, "\n"), strings.Join(tc.rows, "\n"); got != want {
				t.Errorf("attempts:\n%s\nwant:\n%s", got, want)
			}
			if len(log.calls) != tc.ncalls || log.calls[len(log.calls)-1] != tc.lastCall {
				t.Errorf("calls:\n%s\nwant %d ending %q", strings.Join(log.calls, "\n"), tc.ncalls, tc.lastCall)
			}
		})
	}
}

// TestExplainsOnlyWhenRecording: policies are asked for reasons only in a recorded run.
func TestExplainsOnlyWhenRecording(t *testing.T) {
	w := &traces.Workload{Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 0),
		Jobs: []traces.Job{{ID: 1, Stages: []traces.Stage{{Name: "a", Tasks: 1, Demand: traces.VecOf(1), Duration: 1, Estimate: 1}}}}}
	for _, rec := range []Recorder{nil, &attemptLog{}} {
		e, err := New(w, urgent{}, Config{Recorder: rec})
		if err != nil {
			t.Fatal(err)
		}
		if got := policies.Explains(e); got != (rec != nil) {
			t.Errorf("recorder %v: Explains %v", rec, got)
		}
	}
}

type startLog struct {
	attemptLog
	starts []string
}

func (l *startLog) Started(a *Attempt) {
	l.starts = append(l.starts, fmt.Sprintf("job=%d stage=%d task=%d ready=%d start=%d why=%q", a.Job, a.Stage, a.Task, a.Ready, a.Start, a.Why.String()))
}

// TestStartRecorderSeesEachStart: a StartRecorder is told of every start, with the attempt's
// readiness and reason, before the attempt ends.
func TestStartRecorderSeesEachStart(t *testing.T) {
	w := &traces.Workload{Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 0),
		Jobs: []traces.Job{{ID: 1, Stages: []traces.Stage{
			{Name: "a", Tasks: 2, Demand: traces.VecOf(1), Duration: 5, Estimate: 5},
			{Name: "b", Tasks: 1, Demand: traces.VecOf(1), Duration: 5, Estimate: 5, Parents: []int32{0}},
		}}}}
	log := &startLog{}
	e, err := New(w, urgent{}, Config{Recorder: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	want := `job=0 stage=0 task=0 ready=0 start=0 why="greedy 1"
job=0 stage=0 task=1 ready=0 start=5 why="greedy 1"
job=0 stage=1 task=0 ready=10 start=10 why="greedy 1"`
	if got := strings.Join(log.starts, "\n"); got != want || len(log.rows) != 3 {
		t.Errorf("starts:\n%s\nwant:\n%s\n(%d attempts)", got, want, len(log.rows))
	}
}
