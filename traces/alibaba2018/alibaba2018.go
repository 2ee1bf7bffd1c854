// Package alibaba2018 reads the batch_task table of the Alibaba cluster-trace-v2018, whose task
// names encode each job's DAG.
//
// # Format
//
// CSV, nine columns (the official files have no header; an exact header row
// "task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem", as in
// the shared data subsets, is skipped):
//
//	task_name    DAG position: "M1" is task 1 with no parents, "R4_1_2_3" is task 4 waiting for
//	             tasks 1, 2 and 3 of the same job, "J3_1" task 3 waiting for 1. Only the numbers
//	             matter, the letter prefix does not. Some names carry a "_Stg<k>" suffix
//	             ("R4_2_Stg9"), ignored here; some end in "_" because the trace cut long names (the
//	             listed parents are kept, Stats.TruncatedNames counts them); "task_<id>" names an
//	             independent task outside any DAG.
//	instance_num number of instances (parallel tasks)
//	job_name     "j_<n>"
//	task_type    ignored (empty in the shared subsets)
//	status       Terminated, Failed, Running, Waiting, ...
//	start_time, end_time   seconds since the trace start; 0 = outside the 8-day window
//	plan_cpu     cpu per instance, 100 = one core
//	plan_mem     memory per instance, normalised so that one machine has 100
//
// # Mapping
//
// One job per job_name, one stage per task row: ID = n of "j_<n>", Name = job_name, Queue =
// "default", Submit = the smallest start_time of the job's tasks, in µs (times stay relative to
// the trace start, not to the first job). Stage Name = task_name, Tasks = instance_num,
// Duration = Estimate = end_time - start_time (a 0 s task, shorter than the trace's 1 s
// resolution, gets MinTaskDuration; Stats.ZeroDurations counts them), Demand = (plan_cpu/100
// cores, plan_mem) on Dims ["cpu", "mem"], Parents from the task name. The cluster is
// Options.Machines machines of Options.CoresPerMachine cores and 100 memory units (defaults: the
// trace's 4034 machines of 96 cores).
//
// Rows of one job are contiguous in every file we have (the shared subsets), so the reader
// streams: it collects a job's rows and builds the job when the job_name changes. A job whose
// rows appear in two separate blocks is an error (sort the file by job_name first).
//
// A job is skipped, and counted in Stats.Skipped under the first reason met, when it cannot be
// replayed as the trace ran it: a task not Terminated, a missing ("nan" or empty) instance_num,
// time, plan_cpu or plan_mem, start_time 0, end_time before start_time, zero instances, a zero
// demand, a demand larger than one machine, or a parent task number that no row of the job
// carries (the subsets were cut from the trace and lost some tasks). Skipping whole jobs keeps
// every replayed DAG complete; a file none of whose jobs can be replayed is an error listing the
// reasons. Malformed input — wrong field counts, a stray quote, a quote left open at the end of
// its line (no field of the trace spans lines; reported at once, at its field), a line over 64
// KiB, non-numbers, negative
// or overflowing values, bad job or task names, a task number used twice in a job, a dependency
// cycle, an unexpected header — is an error naming the file, line, field and reason.
package alibaba2018

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Header is the column order of batch_task.csv.
var Header = []string{"task_name", "instance_num", "job_name", "task_type", "status", "start_time", "end_time", "plan_cpu", "plan_mem"}

// Defaults used when Options fields are zero.
const (
	DefaultMachines        = 4034 // machines in cluster-trace-v2018
	DefaultCoresPerMachine = 96   // cores per machine in cluster-trace-v2018
)

// MemPerMachine is one machine's memory in the trace's normalised units.
const MemPerMachine = 100

// MinTaskDuration is the duration given to tasks whose end_time equals their start_time.
const MinTaskDuration = traces.Millisecond

// MaxSeconds bounds every time in the input (about 31.7 years).
const MaxSeconds = 1e9

// Reasons for skipping a job, the keys of Stats.Skipped.
const (
	ReasonStatus         = "status not Terminated"
	ReasonMissing        = "missing value (nan or empty)"
	ReasonOutsideWindow  = "start_time 0 (outside the trace window)"
	ReasonEndBeforeStart = "end_time before start_time"
	ReasonNoInstances    = "instance_num 0"
	ReasonZeroDemand     = "plan_cpu and plan_mem both 0"
	ReasonTooBig         = "demand larger than one machine"
	ReasonMissingParent  = "parent task not in the job"
)

// Options control the mapping.
type Options struct {
	// Machines is the cluster size; 0 means DefaultMachines.
	Machines int
	// CoresPerMachine is each machine's cpu capacity in cores; 0 means DefaultCoresPerMachine.
	CoresPerMachine int
}

func (o Options) normalize() (Options, error) {
	if o.Machines == 0 {
		o.Machines = DefaultMachines
	}
	if o.CoresPerMachine == 0 {
		o.CoresPerMachine = DefaultCoresPerMachine
	}
	if o.Machines < 1 || o.Machines > 1_000_000 {
		return o, fmt.Errorf("alibaba2018: Options.Machines must be 1..1000000, got %d", o.Machines)
	}
	if o.CoresPerMachine < 1 || o.CoresPerMachine > 1_000_000 {
		return o, fmt.Errorf("alibaba2018: Options.CoresPerMachine must be 1..1000000, got %d", o.CoresPerMachine)
	}
	return o, nil
}

// Stats describes what the reader did with the rows it read.
type Stats struct {
	Rows           int64          // data rows read (header excluded)
	Jobs           int            // jobs in the workload
	Tasks          int64          // task rows in the workload's jobs
	SkippedJobs    int            // jobs left out
	SkippedRows    int64          // rows of the jobs left out
	Skipped        map[string]int // jobs left out, by the first reason found (see the Reason constants)
	ZeroDurations  int64          // tasks with end_time == start_time, given MinTaskDuration
	TruncatedNames int64          // task names ending in "_" (cut in the trace)
	Independent    int64          // "task_<id>" rows: tasks outside any DAG
}

// SyntaxError locates a problem in an input file.
type SyntaxError struct {
	File  string
	Line  int // 1-based line of the row
	Field string
	Msg   string
}

// Error formats the error as "alibaba2018: ..." with its location.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("alibaba2018: %s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// ReadFile reads a batch_task CSV file; see ReadFileStats for what was skipped.
func ReadFile(path string, o Options) (*traces.Workload, error) {
	w, _, err := ReadFileStats(path, o)
	return w, err
}

// ReadFileStats reads a batch_task CSV file and reports what it kept and skipped.
func ReadFileStats(path string, o Options) (*traces.Workload, *Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("alibaba2018: %w", err)
	}
	defer f.Close()
	return Parse(f, path, o)
}

// Parse reads batch_task CSV rows from r; name is used in error messages.
func Parse(r io.Reader, name string, o Options) (*traces.Workload, *Stats, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, nil, err
	}
	p := &parser{
		file:  name,
		o:     o,
		stats: &Stats{Skipped: map[string]int{}},
		done:  map[string]int{},
	}
	cr := csv.NewReader(&quoteGuard{r: r})
	cr.FieldsPerRecord = len(Header)
	cr.ReuseRecord = true
	jobs, err := p.parse(cr)
	if err != nil {
		return nil, p.stats, err
	}
	w := &traces.Workload{
		Name:    strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)),
		Source:  name,
		Dims:    []string{"cpu", "mem"},
		Cluster: traces.Uniform(o.Machines, traces.VecOf(float64(o.CoresPerMachine), MemPerMachine), 0),
		Jobs:    jobs,
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, p.stats, fmt.Errorf("alibaba2018: %s: %w", name, err)
	}
	return w, p.stats, nil
}

// row is one parsed task row.
type row struct {
	line   int
	task   string
	inst   int64
	start  int64 // seconds
	end    int64
	cpu    float64 // cores
	mem    float64
	reason string // why the row cannot be replayed, "" if it can
}

type parser struct {
	file  string
	o     Options
	stats *Stats
	done  map[string]int // finished job names -> line of their first row

	job     string
	jobLine int
	rows    []row
}

func (p *parser) errf(line int, field, format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse(cr *csv.Reader) ([]traces.Job, error) {
	var jobs []traces.Job
	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					return nil, p.errf(pe.Line, "row", "want %d fields (%s), got %d", len(Header), strings.Join(Header, ","), len(rec))
				}
				return nil, p.errf(pe.Line, "row", "column %d: %v", pe.Column, pe.Err)
			}
			var le *lineError
			if errors.As(err, &le) {
				field := "row"
				if le.field >= 0 && le.field < len(Header) {
					field = Header[le.field]
				}
				return nil, p.errf(le.line, field, "%s", le.msg)
			}
			return nil, p.errf(0, "file", "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if first {
			first = false
			if rec[0] == Header[0] {
				for i, h := range Header {
					if strings.TrimSpace(rec[i]) != h {
						return nil, p.errf(line, "header", "column %d is %q, want %q (expected header %s)", i+1, rec[i], h, strings.Join(Header, ","))
					}
				}
				continue
			}
		}
		p.stats.Rows++
		r, job, err := p.row(rec, line)
		if err != nil {
			return nil, err
		}
		if job != p.job {
			if p.job != "" {
				if j, ok, err := p.flush(); err != nil {
					return nil, err
				} else if ok {
					jobs = append(jobs, j)
				}
			}
			if prev, seen := p.done[job]; seen {
				return nil, p.errf(line, "job_name", "rows of job %s are not contiguous (its first block started on line %d); sort the file by job_name", job, prev)
			}
			p.job, p.jobLine = job, line
		}
		p.rows = append(p.rows, r)
	}
	if p.job != "" {
		if j, ok, err := p.flush(); err != nil {
			return nil, err
		} else if ok {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		msg := "no rows"
		if p.stats.Rows > 0 {
			msg = fmt.Sprintf("no usable jobs: %d skipped (%s)", p.stats.SkippedJobs, p.reasons())
		}
		return nil, p.errf(1, "file", "%s", msg)
	}
	return jobs, nil
}

func (p *parser) reasons() string {
	var rs []string
	for r, n := range p.stats.Skipped {
		rs = append(rs, fmt.Sprintf("%s: %d", r, n))
	}
	sort.Strings(rs)
	return strings.Join(rs, "; ")
}

// missing reports whether a numeric field is absent in the trace's sense.
func missing(s string) bool { return s == "" || strings.EqualFold(s, "nan") }

func (p *parser) row(rec []string, line int) (row, string, error) {
	r := row{line: line, task: strings.TrimSpace(rec[0])}
	if r.task == "" {
		return r, "", p.errf(line, "task_name", "empty")
	}
	job := strings.TrimSpace(rec[2])
	if n, err := strconv.ParseInt(strings.TrimPrefix(job, "j_"), 10, 64); !strings.HasPrefix(job, "j_") || err != nil || n < 0 {
		return r, "", p.errf(line, "job_name", "want j_<n>, got %q", job)
	}
	if st := strings.TrimSpace(rec[4]); st != "Terminated" {
		if st == "" {
			return r, "", p.errf(line, "status", "empty")
		}
		r.reason = ReasonStatus
	}
	setReason := func(reason string) {
		if r.reason == "" {
			r.reason = reason
		}
	}
	// instance_num: an integer, sometimes written as a float ("12846.0").
	if s := strings.TrimSpace(rec[1]); missing(s) {
		setReason(ReasonMissing)
	} else {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) || x != math.Trunc(x) || x < 0 || x > math.MaxInt32 {
			return r, "", p.errf(line, "instance_num", "want an integer 0..%d, got %q", math.MaxInt32, s)
		}
		r.inst = int64(x)
		if r.inst == 0 {
			setReason(ReasonNoInstances)
		}
	}
	for i, dst := range []*int64{&r.start, &r.end} {
		s := strings.TrimSpace(rec[5+i])
		if missing(s) {
			setReason(ReasonMissing)
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) || x != math.Trunc(x) {
			return r, "", p.errf(line, Header[5+i], "want whole seconds, got %q", s)
		}
		if x < 0 || x > MaxSeconds {
			return r, "", p.errf(line, Header[5+i], "%v s outside [0, %g]", x, MaxSeconds)
		}
		*dst = int64(x)
	}
	if r.reason == "" && r.start == 0 {
		setReason(ReasonOutsideWindow)
	}
	if r.reason == "" && r.end < r.start {
		setReason(ReasonEndBeforeStart)
	}
	for i, dst := range []*float64{&r.cpu, &r.mem} {
		s := strings.TrimSpace(rec[7+i])
		if missing(s) {
			setReason(ReasonMissing)
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return r, "", p.errf(line, Header[7+i], "want a number, got %q", s)
		}
		if x < 0 || x > 1e9 {
			return r, "", p.errf(line, Header[7+i], "%v outside [0, 1e9]", x)
		}
		*dst = x
	}
	r.cpu /= 100 // plan_cpu 100 = one core
	if r.reason == "" && r.cpu == 0 && r.mem == 0 {
		setReason(ReasonZeroDemand)
	}
	if r.reason == "" && (r.cpu > float64(p.o.CoresPerMachine) || r.mem > MemPerMachine) {
		setReason(ReasonTooBig)
	}
	return r, job, nil
}

// taskName is a parsed task_name.
type taskName struct {
	num       int64   // the task's number; -1 for independent "task_<id>" tasks
	parents   []int64 // numbers of the tasks it waits for
	truncated bool    // the name ended in "_"
}

// parseTaskName parses a DAG task name (see the package doc).
func parseTaskName(s string) (taskName, error) {
	tok := strings.Split(s, "_")
	if tok[0] == "task" {
		return taskName{num: -1}, nil
	}
	head := strings.TrimLeft(tok[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
	if head == tok[0] || head == "" {
		return taskName{}, fmt.Errorf("want <letters><number>[_<parent>...] or task_<id>, got %q", s)
	}
	var t taskName
	var err error
	if t.num, err = strconv.ParseInt(head, 10, 32); err != nil || t.num < 0 {
		return taskName{}, fmt.Errorf("task number %q in %q is not a non-negative integer", head, s)
	}
	for i, x := range tok[1:] {
		switch {
		case x == "" && i == len(tok)-2:
			t.truncated = true
		case strings.HasPrefix(x, "Stg"):
			if _, err := strconv.ParseInt(x[3:], 10, 32); err != nil {
				return taskName{}, fmt.Errorf("bad stage tag %q in %q", x, s)
			}
		default:
			n, err := strconv.ParseInt(x, 10, 32)
			if err != nil || n < 0 {
				return taskName{}, fmt.Errorf("parent %q in %q is not a task number", x, s)
			}
			t.parents = append(t.parents, n)
		}
	}
	return t, nil
}

// flush turns the collected rows of the current job into a job (ok == false when it is skipped).
func (p *parser) flush() (traces.Job, bool, error) {
	rows := p.rows
	p.rows = p.rows[:0]
	p.done[p.job] = p.jobLine
	id, _ := strconv.ParseInt(strings.TrimPrefix(p.job, "j_"), 10, 64)
	skip := func(reason string) (traces.Job, bool, error) {
		p.stats.SkippedJobs++
		p.stats.SkippedRows += int64(len(rows))
		p.stats.Skipped[reason]++
		return traces.Job{}, false, nil
	}
	names := make([]taskName, len(rows))
	index := make(map[int64]int32, len(rows))
	for i, r := range rows {
		t, err := parseTaskName(r.task)
		if err != nil {
			return traces.Job{}, false, p.errf(r.line, "task_name", "%v", err)
		}
		if t.num >= 0 {
			if prev, dup := index[t.num]; dup {
				return traces.Job{}, false, p.errf(r.line, "task_name", "task number %d used twice in job %s (also %q on line %d)", t.num, p.job, rows[prev].task, rows[prev].line)
			}
			index[t.num] = int32(i)
		}
		names[i] = t
	}
	for _, r := range rows {
		if r.reason != "" {
			return skip(r.reason)
		}
	}
	for _, t := range names {
		for _, q := range t.parents {
			if _, ok := index[q]; !ok {
				return skip(ReasonMissingParent)
			}
		}
	}
	j := traces.Job{ID: id, Name: p.job, Queue: "default", Submit: math.MaxInt64}
	j.Features.JobName = p.job
	j.Stages = make([]traces.Stage, len(rows))
	for i, r := range rows {
		t := names[i]
		s := &j.Stages[i]
		s.Name = r.task
		s.Tasks = int32(r.inst)
		s.Duration = traces.Time(r.end-r.start) * traces.Second
		if s.Duration == 0 {
			s.Duration = MinTaskDuration
			p.stats.ZeroDurations++
		}
		s.Estimate = s.Duration
		s.Demand = traces.VecOf(r.cpu, r.mem)
		for _, q := range t.parents {
			par := index[q]
			if par == int32(i) {
				return traces.Job{}, false, p.errf(r.line, "task_name", "task %q depends on itself", r.task)
			}
			dup := false
			for _, x := range s.Parents {
				dup = dup || x == par
			}
			if !dup {
				s.Parents = append(s.Parents, par)
			}
		}
		if t.truncated {
			p.stats.TruncatedNames++
		}
		if t.num < 0 {
			p.stats.Independent++
		}
		j.Submit = min(j.Submit, r.start*traces.Second)
	}
	if c := cycleStage(j.Stages); c >= 0 {
		return traces.Job{}, false, p.errf(rows[c].line, "task_name", "dependency cycle in job %s through task %q", p.job, rows[c].task)
	}
	p.stats.Jobs++
	p.stats.Tasks += int64(len(rows))
	return j, true, nil
}

// cycleStage returns a stage on a dependency cycle, or -1 if the stages form a DAG.
func cycleStage(stages []traces.Stage) int {
	indeg := make([]int, len(stages))
	children := make([][]int32, len(stages))
	for i := range stages {
		for _, q := range stages[i].Parents {
			indeg[i]++
			children[q] = append(children[q], int32(i))
		}
	}
	var queue []int32
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, int32(i))
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, c := range children[queue[k]] {
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if len(queue) == len(stages) {
		return -1
	}
	cur := -1
	for i, d := range indeg {
		if d > 0 {
			cur = i
			break
		}
	}
	for range stages { // walk left-over parents until certainly on the cycle
		for _, q := range stages[cur].Parents {
			if indeg[q] > 0 {
				cur = int(q)
				break
			}
		}
	}
	return cur
}
