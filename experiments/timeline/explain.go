package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/internal/pqfile"
	"github.com/schedlab/schedlab/traces"
)

// JobsFile is the per-job table of a run (experiments.JobsFile).
const JobsFile = "jobs.parquet"

// ErrNoJob reports a job ID the run does not have.
var ErrNoJob = errors.New("no such job")

// jobLine is what explain reads of a job from jobs.parquet.
type jobLine struct {
	index             int32
	id                int64
	queue, class      string
	submit            traces.Time
	finish            traces.Time
	completed         bool
	tasks             int64
	firstStart        traces.Time
	started, finished bool
}

// Explain writes job id's story in run directory dir (its jobs.parquet and tasks.parquet) to w:
// its arrival, start and completion; each task attempt with its wait, machine, outcome and the
// policy's reason; and, for its waits, which other jobs held resources where its tasks then ran
// (the machine, or the pool), ranked by how long they overlapped its waits (task-seconds), with
// their most frequent reason. The most waited-on attempts and holders are listed first, up to
// limit lines each (0: no limit).
func Explain(w io.Writer, dir string, id int64, limit int) error {
	job, err := findJob(filepath.Join(dir, JobsFile), id)
	if err != nil {
		return err
	}
	tasksPath := filepath.Join(dir, TasksFile)
	if _, err := os.Stat(tasksPath); err != nil {
		return fmt.Errorf("%s: %w (record it: schedlab run --record tasks)", tasksPath, err)
	}
	var meta Meta
	var mine []Row
	err = Scan(tasksPath, func(m Meta) error { meta = m; return nil }, func(r *Row) error {
		if r.Job == job.index {
			mine = append(mine, *r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Other jobs' attempts that overlap a wait of this job where its task then ran.
	type holder struct {
		job     int32
		id      int64
		queue   string
		overlap traces.Time
		reasons map[string]int
	}
	held := map[int32]*holder{}
	waits := map[int32][]*Row{} // by machine: this job's attempts that waited
	for i := range mine {
		if m := &mine[i]; m.Start > m.Ready {
			waits[m.Machine] = append(waits[m.Machine], m)
		}
	}
	err = Scan(tasksPath, nil, func(r *Row) error {
		if r.Job == job.index {
			return nil
		}
		for _, m := range waits[r.Machine] {
			lo, hi := max(m.Ready, r.Start), min(m.Start, r.End)
			if hi <= lo {
				continue
			}
			h := held[r.Job]
			if h == nil {
				h = &holder{job: r.Job, id: r.JobID, queue: r.Queue, reasons: map[string]int{}}
				held[r.Job] = h
			}
			h.overlap += hi - lo
			h.reasons[r.Reason]++
		}
		return nil
	})
	if err != nil {
		return err
	}

	sec := func(t traces.Time) string { return strconv.FormatFloat(traces.Seconds(t), 'f', 1, 64) + " s" }
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("job %d (index %d, queue %s", job.id, job.index, job.queue)
	if job.class != "" {
		p(", class %s", job.class)
	}
	p(", %d tasks)\n", job.tasks)
	p("  submitted   %s\n", sec(job.submit))
	if job.started {
		p("  first start %s (waited %s)\n", sec(job.firstStart), sec(job.firstStart-job.submit))
	} else {
		p("  never started\n")
	}
	if job.completed {
		p("  finished    %s (completion time %s)\n", sec(job.finish), sec(job.finish-job.submit))
	} else {
		p("  unfinished when the run stopped\n")
	}
	var wait, lost traces.Time
	outcomes := map[string]int{}
	tasks := map[[2]int32]bool{}
	for i := range mine {
		wait += mine[i].Start - mine[i].Ready
		lost += mine[i].WorkLost
		outcomes[mine[i].Outcome]++
		tasks[[2]int32{mine[i].Stage, mine[i].Task}] = true
	}
	p("attempts: %d", len(mine))
	for _, o := range []string{"finished", "preempted", "killed", "unfinished"} {
		if outcomes[o] > 0 {
			p(", %d %s", outcomes[o], o)
		}
	}
	if n := job.tasks - int64(len(tasks)); n > 0 {
		p("; %d task(s) never started", n)
	}
	p("; waits total %s", sec(wait))
	if lost > 0 {
		p("; work lost %s", sec(lost))
	}
	p("\n")
	where := "machine"
	if meta.Pooled {
		where = "pool"
	}
	order := slices.Clone(mine)
	slices.SortStableFunc(order, func(a, b Row) int {
		return cmp.Or(cmp.Compare(b.Start-b.Ready, a.Start-a.Ready), cmp.Compare(a.Start, b.Start))
	})
	p("attempts, longest wait first:\n")
	for i := range order {
		if limit > 0 && i == limit {
			p("  … %d more\n", len(order)-limit)
			break
		}
		r := &order[i]
		p("  stage %d task %d: ready %s, started %s (waited %s) on %s, %s at %s", r.Stage, r.Task, sec(r.Ready), sec(r.Start), sec(r.Start-r.Ready), placeName(meta, r.Machine), r.Outcome, sec(r.End))
		if r.Slowed {
			p(", slowed")
		}
		if r.Reason != "" {
			p("; started because: %s", r.Reason)
		}
		if r.EndWhy != "" {
			p("; preempted because: %s", r.EndWhy)
		}
		p("\n")
	}
	hs := make([]*holder, 0, len(held))
	for _, h := range held {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b *holder) int { return cmp.Or(cmp.Compare(b.overlap, a.overlap), cmp.Compare(a.job, b.job)) })
	if len(hs) == 0 {
		p("while it waited: no other job held the %s its tasks ran on\n", where)
		return nil
	}
	p("while it waited, these jobs held the %s its tasks then ran on (task-s overlapping its waits):\n", where)
	for i, h := range hs {
		if limit > 0 && i == limit {
			p("  … %d more\n", len(hs)-limit)
			break
		}
		p("  job %d (queue %s): %s task-s", h.id, h.queue, strconv.FormatFloat(traces.Seconds(h.overlap), 'f', 1, 64))
		if why := topReason(h.reasons); why != "" {
			p("; started because: %s", why)
		}
		p("\n")
	}
	return nil
}

func placeName(meta Meta, m int32) string {
	if meta.Pooled {
		return "the pool"
	}
	if int(m) < len(meta.Machines) {
		return "machine " + strconv.Itoa(int(m)) + " (" + meta.Machines[m] + ")"
	}
	return "machine " + strconv.Itoa(int(m))
}

// topReason is the most frequent non-empty reason (ties: the first in byte order).
func topReason(rs map[string]int) string {
	best, n := "", 0
	for r, c := range rs {
		if r != "" && (c > n || c == n && r < best) {
			best, n = r, c
		}
	}
	return best
}

// findJob reads job id's line of jobs.parquet.
func findJob(path string, id int64) (*jobLine, error) {
	tbl, err := pqfile.ReadTable(path)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	col := func(name string) (arrow.Array, error) {
		a, err := pqfile.Column(tbl, name)
		if err != nil {
			return nil, fmt.Errorf("%s: no column %s (not a run's jobs.parquet)", path, name)
		}
		return a, nil
	}
	names := []string{"index", "job_id", "queue", "class", "submit_s", "start_s", "finish_s", "completed", "tasks"}
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		if cols[i], err = col(n); err != nil {
			return nil, err
		}
		defer cols[i].Release()
	}
	ids, ok := cols[1].(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%s: column job_id is not int64", path)
	}
	for i := 0; i < ids.Len(); i++ {
		if ids.Value(i) != id {
			continue
		}
		idx, ok1 := cols[0].(*array.Int32)
		q, ok2 := cols[2].(*array.String)
		cl, ok3 := cols[3].(*array.String)
		sub, ok4 := cols[4].(*array.Float64)
		st, ok5 := cols[5].(*array.Float64)
		fin, ok6 := cols[6].(*array.Float64)
		done, ok7 := cols[7].(*array.Boolean)
		n, ok8 := cols[8].(*array.Int64)
		if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8) {
			return nil, fmt.Errorf("%s: unexpected column types (not a run's jobs.parquet)", path)
		}
		j := &jobLine{index: idx.Value(i), id: id, queue: q.Value(i), class: cl.Value(i), submit: traces.FromSeconds(sub.Value(i)),
			completed: done.Value(i), tasks: n.Value(i)}
		if st.IsValid(i) {
			j.started, j.firstStart = true, traces.FromSeconds(st.Value(i))
		}
		if fin.IsValid(i) {
			j.finish = traces.FromSeconds(fin.Value(i))
		}
		return j, nil
	}
	return nil, fmt.Errorf("%s: %w %d", path, ErrNoJob, id)
}
