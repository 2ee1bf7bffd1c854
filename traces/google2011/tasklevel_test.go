package google2011

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// tm is a task event on a machine (te leaves the machine empty).
func tm(t int64, id int64, idx int, typ EventType, prio int, cpu, mem string, machine int) string {
	return fmt.Sprintf("%d,,%d,%d,%d,%d,user%d,1,%d,%s,%s,,", t, id, idx, machine, typ, id%2, prio, cpu, mem)
}

// fmtTaskJob renders what a task-level import makes of a job.
func fmtTaskJob(j *traces.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "job %d submit %d class %s prio %d queue %s", j.ID, j.Submit, j.Class, j.Priority, j.Queue)
	for i := range j.Stages {
		s := &j.Stages[i]
		fmt.Fprintf(&b, " | %s x%d %s", s.Name, s.Tasks, s.Demand.Format(2))
		for k := range s.Tasks {
			h := s.History[k]
			fmt.Fprintf(&b, " %d/%d/%d/%s", s.TaskDuration(k)/traces.Millisecond, h.Attempts, h.Evictions, h.Outcome)
		}
	}
	return b.String()
}

// taskLevel imports in-memory job and task events at the task level.
func taskLevel(t *testing.T, jobs, tasks []byte) ([]string, Stats, error) {
	t.Helper()
	dir := t.TempDir()
	src := Source{JobEvents: []string{writeFile(t, dir, "job_events.csv", jobs)}, TaskEvents: []string{writeFile(t, dir, "task_events.csv", tasks)}}
	w, st, err := WorkloadStats(src, Options{Level: LevelTask, Machines: 10})
	if err != nil {
		return nil, st, err
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range w.Jobs {
		got = append(got, fmtTaskJob(&w.Jobs[i]))
	}
	return got, st, nil
}

// TestTaskLevelSemantics pins the task-level import's definitions: a task's duration is its last
// run (last SCHEDULE to the event that ended it, or to the end of the input), its demand the
// request that run was scheduled with, and tasks with different requests go to different stages.
func TestTaskLevelSemantics(t *testing.T) {
	cases := []struct {
		name        string
		jobs, tasks []byte
		want        []string
		check       func(t *testing.T, st *TaskStats)
	}{
		{"finished", lines(je(700*s1, 1, Submit), je(701*s1, 1, Schedule), je(800*s1, 1, Finish)),
			lines(te(700*s1, 1, 0, Submit, 2, "0.1", "0.01"), te(701*s1, 1, 0, Schedule, 2, "0.1", "0.01"), te(800*s1, 1, 0, Finish, 2, "0.1", "0.01")),
			[]string{"job 1 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.1 0.01] 99000/1/0/finished"}, nil},
		{"evicted, then finished", lines(je(700*s1, 2, Submit)),
			lines(te(700*s1, 2, 0, Submit, 9, "0.1", "0.01"), te(701*s1, 2, 0, Schedule, 9, "0.1", "0.01"), te(710*s1, 2, 0, Evict, 9, "0.1", "0.01"),
				te(711*s1, 2, 0, Submit, 9, "0.1", "0.01"), te(720*s1, 2, 0, Schedule, 9, "0.1", "0.01"), te(750*s1, 2, 0, Finish, 9, "0.1", "0.01")),
			[]string{"job 2 submit 700000000 class sc1 prio 9 queue production | tasks x1 [0.1 0.01] 30000/2/1/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.Attempts != 2 || st.Evictions != 1 {
					t.Errorf("attempts %d evictions %d", st.Attempts, st.Evictions)
				}
			}},
		{"a finished task resubmitted runs again; a pending one may be evicted", lines(je(700*s1, 14, Submit)),
			lines(te(700*s1, 14, 0, Submit, 2, "0.1", "0.01"), te(701*s1, 14, 0, Schedule, 2, "0.1", "0.01"), te(710*s1, 14, 0, Finish, 2, "0.1", "0.01"),
				te(711*s1, 14, 0, Submit, 2, "0.1", "0.01"), te(712*s1, 14, 0, Evict, 2, "0.1", "0.01"),
				te(713*s1, 14, 0, Submit, 2, "0.1", "0.01"), te(714*s1, 14, 0, Schedule, 2, "0.1", "0.01"), te(750*s1, 14, 0, Finish, 2, "0.1", "0.01")),
			[]string{"job 14 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.1 0.01] 36000/2/1/finished"}, nil},
		{"killed, evicted and lost runs keep what they ran", lines(je(700*s1, 3, Submit)),
			lines(te(700*s1, 3, 0, Submit, 0, "0.1", "0.01"), te(700*s1, 3, 1, Submit, 0, "0.1", "0.01"), te(700*s1, 3, 2, Submit, 0, "0.1", "0.01"),
				te(701*s1, 3, 0, Schedule, 0, "0.1", "0.01"), te(702*s1, 3, 1, Schedule, 0, "0.1", "0.01"), te(703*s1, 3, 2, Schedule, 0, "0.1", "0.01"),
				te(801*s1, 3, 0, Kill, 0, "0.1", "0.01"), te(802*s1, 3, 1, Evict, 0, "0.1", "0.01"), te(903*s1, 3, 2, Lost, 0, "0.1", "0.01")),
			[]string{"job 3 submit 700000000 class sc1 prio 0 queue free | tasks x3 [0.1 0.01] 100000/1/0/killed 100000/1/1/evicted 200000/1/0/lost"}, nil},
		{"still running at the end of the input", lines(je(700*s1, 4, Submit), je(700*s1, 5, Submit)),
			lines(te(700*s1, 4, 0, Submit, 2, "0.1", "0.01"), te(701*s1, 4, 0, Schedule, 2, "0.1", "0.01"),
				te(702*s1, 5, 0, Submit, 2, "0.1", "0.01"), te(1001*s1, 5, 0, Schedule, 2, "0.1", "0.01")),
			[]string{
				"job 4 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.1 0.01] 300000/1/0/running",
				"job 5 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.1 0.01] 0/1/0/running",
			},
			func(t *testing.T, st *TaskStats) {
				if st.End != 1001*s1 || st.Outcomes[traces.TaskRunning] != 2 {
					t.Errorf("end %d, running %d", st.End, st.Outcomes[traces.TaskRunning])
				}
			}},
		{"started before the window", lines(je(0, 6, Submit), je(0, 6, Schedule)),
			lines(te(0, 6, 0, Submit, 10, "0.5", "0.25"), te(0, 6, 0, Schedule, 10, "0.5", "0.25"), te(1200*s1, 6, 0, Finish, 10, "0.5", "0.25")),
			[]string{"job 6 submit 0 class sc1 prio 10 queue production | tasks x1 [0.5 0.25] 1200000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.StartedBefore != 1 {
					t.Errorf("started before %d", st.StartedBefore)
				}
			}},
		{"never scheduled tasks and jobs are left out", lines(je(700*s1, 7, Submit), je(700*s1, 8, Submit)),
			lines(te(700*s1, 7, 0, Submit, 2, "0.1", "0.01"), te(700*s1, 7, 1, Submit, 2, "0.1", "0.01"), te(701*s1, 7, 0, Schedule, 2, "0.1", "0.01"),
				te(702*s1, 7, 0, Finish, 2, "0.1", "0.01"), te(703*s1, 8, 0, Submit, 2, "0.1", "0.01"), te(704*s1, 8, 0, Kill, 2, "0.1", "0.01")),
			[]string{"job 7 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.1 0.01] 1000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.NeverScheduled != 2 || st.NoRunJobs != 1 || st.Seen != 3 || st.Imported != 1 {
					t.Errorf("stats %+v", *st)
				}
			}},
		{"one stage per request, in task index order", lines(je(700*s1, 9, Submit)),
			lines(te(700*s1, 9, 0, Submit, 2, "0.1", "0.01"), te(700*s1, 9, 1, Submit, 2, "0.2", "0.02"), te(700*s1, 9, 2, Submit, 2, "0.1", "0.01"),
				te(701*s1, 9, 2, Schedule, 2, "0.1", "0.01"), te(702*s1, 9, 1, Schedule, 2, "0.2", "0.02"), te(703*s1, 9, 0, Schedule, 2, "0.1", "0.01"),
				te(710*s1, 9, 0, Finish, 2, "0.1", "0.01"), te(720*s1, 9, 1, Finish, 2, "0.2", "0.02"), te(730*s1, 9, 2, Finish, 2, "0.1", "0.01")),
			[]string{"job 9 submit 700000000 class sc1 prio 2 queue middle | tasks x2 [0.1 0.01] 7000/1/0/finished 29000/1/0/finished | tasks.1 x1 [0.2 0.02] 18000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.MultiStageJobs != 1 {
					t.Errorf("multi-stage jobs %d", st.MultiStageJobs)
				}
			}},
		{"the request the last run was scheduled with", lines(je(700*s1, 10, Submit)),
			lines(te(700*s1, 10, 0, Submit, 2, "0.1", "0.01"), te(701*s1, 10, 0, Schedule, 2, "", ""), te(702*s1, 10, 0, UpdateRunning, 2, "0.3", "0.03"),
				te(703*s1, 10, 0, Fail, 2, "", ""), te(704*s1, 10, 0, Submit, 2, "", ""), te(705*s1, 10, 0, Schedule, 2, "", ""), te(706*s1, 10, 0, Finish, 2, "", "")),
			[]string{"job 10 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.3 0.03] 1000/2/0/finished"}, nil},
		{"missing and zero requests", lines(je(700*s1, 11, Submit)),
			lines(te(700*s1, 11, 0, Schedule, 2, "", ""), te(700*s1, 11, 1, Schedule, 2, "0", "0"), te(700*s1, 11, 2, Schedule, 2, "0.5", ""),
				te(701*s1, 11, 0, Finish, 2, "", ""), te(701*s1, 11, 1, Finish, 2, "", ""), te(701*s1, 11, 2, Finish, 2, "", "")),
			[]string{"job 11 submit 700000000 class sc1 prio 2 queue middle | tasks x1 [0.03125 0.02545] 1000/1/0/finished | tasks.1 x1 [1e-06 0] 1000/1/0/finished | tasks.2 x1 [0.5 0.02545] 1000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.DefaultRequest != 2 || st.ZeroRequest != 1 {
					t.Errorf("default %d zero %d", st.DefaultRequest, st.ZeroRequest)
				}
			}},
		{"mixed priorities: the job takes the highest", lines(je(700*s1, 12, Submit)),
			lines(te(700*s1, 12, 0, Schedule, 0, "0.1", "0.1"), te(700*s1, 12, 1, Schedule, 9, "0.1", "0.1"), te(701*s1, 12, 0, Finish, 0, "", ""), te(702*s1, 12, 1, Finish, 9, "", "")),
			[]string{"job 12 submit 700000000 class sc1 prio 9 queue production | tasks x2 [0.1 0.1] 1000/1/0/finished 2000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.MixedPriorityJobs != 1 {
					t.Errorf("mixed %d", st.MixedPriorityJobs)
				}
			}},
		{"machines and late tasks", lines(je(700*s1, 13, Submit)),
			lines(tm(700*s1, 13, 0, Schedule, 2, "0.1", "0.1", 5), tm(800*s1, 13, 1, Schedule, 2, "0.1", "0.1", 6), tm(801*s1, 13, 0, Finish, 2, "", "", 5), tm(802*s1, 13, 1, Finish, 2, "", "", 6)),
			[]string{"job 13 submit 700000000 class sc1 prio 2 queue middle | tasks x2 [0.1 0.1] 101000/1/0/finished 2000/1/0/finished"},
			func(t *testing.T, st *TaskStats) {
				if st.Machines != 2 || st.LateTasks != 1 {
					t.Errorf("machines %d late %d", st.Machines, st.LateTasks)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, st, err := taskLevel(t, c.jobs, c.tasks)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("jobs:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(c.want, "\n     "))
			}
			if st.Level != LevelTask {
				t.Errorf("level %q", st.Level)
			}
			if c.check != nil {
				c.check(t, &st.Tasks)
			}
		})
	}
}

// TestTaskLevelBadInput extends the corrupt-input table to a task-level import: every bad
// task_events row ends the import with a *ParseError naming the file, line and field.
func TestTaskLevelBadInput(t *testing.T) {
	good := je(700*s1, 1, Submit)
	ok := te(700*s1, 1, 0, Submit, 2, "0.1", "0.1")
	cases := []struct {
		name, tasks string
		line        int64
		field, msg  string
	}{
		{"few fields", ok + "\n700000001,,1,0,,1,u,1,2,0.1,0.1,", 2, "", "12 fields, want 13"},
		{"missing job ID", "700000000,,,0,,0,u,1,2,0.1,0.1,,", 1, "job ID", "missing"},
		{"missing task index", "700000000,,1,,,0,u,1,2,0.1,0.1,,", 1, "task index", "missing"},
		{"task index too large", "700000000,,1,2147483648,,0,u,1,2,0.1,0.1,,", 1, "task index", "outside 0..2147483647"},
		{"machine ID not a number", "700000000,,1,0,m7,1,u,1,2,0.1,0.1,,", 1, "machine ID", `not an integer: "m7"`},
		{"unknown event type", "700000000,,1,0,,12,u,1,2,0.1,0.1,,", 1, "event type", "unknown event type 12"},
		{"bad scheduling class", "700000000,,1,0,,0,u,4,2,0.1,0.1,,", 1, "scheduling class", "outside 0..3"},
		{"priority out of range", "700000000,,1,0,,0,u,1,128,0.1,0.1,,", 1, "priority", "outside 0..127"},
		{"cpu request not a number", "700000000,,1,0,,0,u,1,2,0.1x,0.1,,", 1, "CPU request", "not a number"},
		{"disk request negative", "700000000,,1,0,,0,u,1,2,0.1,0.1,-1,", 1, "disk space request", "negative"},
		{"time backwards", ok + "\n" + te(699*s1, 1, 0, Schedule, 2, "0.1", "0.1"), 2, "time", "earlier than the previous"},
		{"header", "time,missing info,job ID,task index,machine ID,event type,user,scheduling class,priority,CPU request,memory request,disk space request,different machines restriction\n" + ok, 1, "", "unexpected header line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := Source{JobEvents: []string{writeFile(t, dir, "job_events.csv", lines(good))}, TaskEvents: []string{writeFile(t, dir, "task_events.csv", lines(c.tasks))}}
			_, _, err := WorkloadStats(src, Options{Level: LevelTask})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *ParseError", err, err)
			}
			if pe.Line != c.line || pe.Field != c.field || !strings.Contains(pe.Msg, c.msg) || !strings.HasSuffix(pe.File, "task_events.csv") {
				t.Errorf("error %q: want line %d, field %q, message containing %q", err, c.line, c.field, c.msg)
			}
		})
	}
	// Options that cannot work are refused before reading anything.
	for _, o := range []Options{{Level: "tasks"}, {Cluster: "machines"}, {Cluster: ClusterMachineEvents}, {Machines: -1}, {Level: LevelTask, Cluster: ClusterMachineEvents}} {
		src := miniSource()
		if _, err := Workload(src, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	src := miniSource()
	src.TaskEvents = nil
	if _, err := Workload(src, Options{Level: LevelTask}); err == nil || !strings.Contains(err.Error(), "needs task_events") {
		t.Errorf("task level without task_events: %v", err)
	}
}
