// Package tpcdag reads the Carbyne/BoPF stage-DAG text format: the TPC-H, TPC-DS and BigBench
// query DAGs of the Carbyne simulator (queries_*.txt), the same DAGs with Facebook-trace arrivals
// (queries_*_FB_distr*.txt), BoPF's generated experiment inputs (jobs_input_*.txt, with queue
// names) and BoPF's queue descriptions (queue_input*.txt, see ReadQueues).
//
// # Format
//
// The file is whitespace separated, one DAG after another. Blank lines, trailing whitespace and
// CRLF line ends are ignored. Quotes mean nothing: a token holding one is text where the format
// has names and an error where it wants a number. Each DAG is
//
//	# 0: TPC-H query10                                  optional comment: the DAG's name
//	<numStages> <dagId> [arrival_s] [queue] [sessionId]  header
//	<name> <taskDuration_s> <r1> .. <rk> [@t] <numTasks> numStages stage lines, 1 ≤ k ≤ 6
//	<numEdges>
//	<src> <dst> ata|scg                                  numEdges edge lines: dst waits for src
//
// r1..rk are the per-task demands as fractions of one machine in the order cpu, mem, disk_read,
// disk_write, net_in, net_out (the Carbyne/Tetris convention; BoPF's jobs_input files carry only
// cpu and mem). The optional "@t" token before numTasks is a stage arrival time in seconds.
//
// # Mapping
//
// Each DAG becomes one traces.Job:
//
//   - ID = dagId (dagIds must be unique within a file); Name = the comment text after an optional
//     "<n>:" prefix ("# 0: TPC-H query10" gives "TPC-H query10", "# 7" gives ""); the name is also
//     used as Features.JobName and Features.LogicalJobName, so runtime predictors can group
//     instances of the same query.
//   - Submit = arrival seconds in µs, 0 when the field is absent.
//   - Queue = the queue field or "default"; Class is derived from the queue name (see ClassOf):
//     "lq" for bursty*/interactive* queues, "tq" for batch* queues, "" otherwise.
//   - One traces.Stage per stage line, in file order (a repeated stage name is an error unless
//     Options.LastStageWins is set): Tasks = numTasks, Demand =
//     traces.VecOf(r1..r_Dims), Duration = Estimate = taskDuration in µs. Durations of zero (or
//     below MinTaskDuration after rounding) are raised to MinTaskDuration, since the engine needs
//     positive task durations; negative durations are errors.
//   - Parents come from the edge lines: "src dst" makes src a parent of dst. A repeated edge is
//     kept once (as in the Carbyne simulator); edges to unknown stages, self edges and cycles are
//     errors.
//   - The "@t" stage arrival is parsed and checked (a non-negative number of seconds) but not
//     represented: traces.Stage has no release time, and stages become runnable when their
//     parents finish. No file in the Carbyne/BoPF data uses it. The sessionId header field is
//     likewise checked (an integer) and dropped.
//
// The workload's Dims are the first Options.Dims of cpu, mem, disk_read, disk_write, net_in,
// net_out, and its cluster is traces.Uniform(Options.Machines, one unit of every dimension, 0):
// the demands are fractions of one such machine. Jobs are sorted by submit time and the workload
// is validated before it is returned.
//
// Every problem in the input is reported as a *SyntaxError naming the file, line, field and
// reason; the reader never panics. Files are read line by line with a bounded line buffer.
package tpcdag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// DimNames are the names of the six resource dimensions of the format, in file order.
var DimNames = []string{"cpu", "mem", "disk_read", "disk_write", "net_in", "net_out"}

// Defaults used when Options fields are zero.
const (
	// DefaultDims keeps cpu and mem, as BoPF does (NUM_DIMENSIONS = 2).
	DefaultDims = 2
	// DefaultMachines is the size of the cluster the Carbyne/BoPF traces were profiled on
	// (BoPF's TRACE_CLUSTER_SIZE).
	DefaultMachines = 25
)

// MinTaskDuration is the duration given to stages whose task duration is zero in the file (or
// rounds to less than this): the engine requires positive durations.
const MinTaskDuration = traces.Millisecond

// MaxSeconds bounds every time and duration in the input (about 31.7 years), so that sums of
// simulated times can never overflow int64 microseconds.
const MaxSeconds = 1e9

// MaxLineBytes is the longest line the reader accepts.
const MaxLineBytes = 1 << 20

// Options control how a file is mapped onto the workload model.
type Options struct {
	// Dims is the number of resource dimensions kept, 2..6 (cpu, mem, disk_read, disk_write,
	// net_in, net_out). 0 means DefaultDims (2). Every stage line must carry at least Dims
	// demands; extra demands are dropped.
	Dims int
	// Machines is the cluster size; 0 means DefaultMachines (25).
	Machines int
	// LastStageWins resolves a stage name repeated within one DAG the way the Carbyne/BoPF
	// simulator does (it stores stages in a map by name): the later stage line replaces the
	// earlier one, which keeps its position. Without it a repeated name is an error. The
	// BigBench query7 DAG in queries_bb.txt repeats Map1, Reducer2 and Reducer3; the simulator's
	// own re-export of it in queries_bb_FB_distr.txt has 11 stages, the later definitions.
	LastStageWins bool
}

func (o Options) normalize() (Options, error) {
	if o.Dims == 0 {
		o.Dims = DefaultDims
	}
	if o.Dims < 2 || o.Dims > traces.MaxDims {
		return o, fmt.Errorf("tpcdag: Options.Dims must be 2..%d (or 0 for %d), got %d", traces.MaxDims, DefaultDims, o.Dims)
	}
	if o.Machines == 0 {
		o.Machines = DefaultMachines
	}
	if o.Machines < 0 || o.Machines > 1_000_000 {
		return o, fmt.Errorf("tpcdag: Options.Machines must be 1..1000000 (or 0 for %d), got %d", DefaultMachines, o.Machines)
	}
	return o, nil
}

// SyntaxError locates a problem in an input file.
type SyntaxError struct {
	File  string // the name passed to Parse, or the path given to ReadFile
	Line  int    // 1-based line number
	Field string // the field (or construct) at fault, e.g. "numTasks", "edge"
	Msg   string // what is wrong
}

// Error formats the error as "tpcdag: ..." with its location.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("tpcdag: %s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// ClassOf returns the job class BoPF gives jobs of a queue: "lq" (latency-sensitive queue) for
// names starting with "bursty" or "interactive", "tq" (throughput queue) for names starting with
// "batch", and "" for anything else (e.g. "default").
func ClassOf(queue string) string {
	switch {
	case strings.HasPrefix(queue, "bursty"), strings.HasPrefix(queue, "interactive"):
		return "lq"
	case strings.HasPrefix(queue, "batch"):
		return "tq"
	}
	return ""
}

// ReadFile opens path and parses it with Parse, naming errors after path.
func ReadFile(path string, o Options) (*traces.Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tpcdag: %w", err)
	}
	defer f.Close()
	return Parse(f, path, o)
}

// Parse reads Carbyne/BoPF stage-DAG text (queries_*.txt incl. *_FB_distr* and jobs_input_*
// files) from r; name is used in error messages (file name).
func Parse(r io.Reader, name string, o Options) (*traces.Workload, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	p := &parser{
		lines: newLineReader(r, name),
		file:  name,
		dims:  o.Dims,
		ids:   make(map[int64]int),

		lastWins: o.LastStageWins,
	}
	jobs, err := p.parse()
	if err != nil {
		return nil, err
	}
	var capacity traces.Vec
	for d := 0; d < o.Dims; d++ {
		capacity[d] = traces.Unit
	}
	w := &traces.Workload{
		Name:    strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)),
		Source:  name,
		Dims:    append([]string(nil), DimNames[:o.Dims]...),
		Cluster: traces.Uniform(o.Machines, capacity, 0),
		Jobs:    jobs,
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("tpcdag: %s: %w", name, err)
	}
	return w, nil
}

// lineReader yields the non-blank lines of a file, split into fields, with their line numbers.
type lineReader struct {
	sc     *bufio.Scanner
	file   string
	n      int // number of the line last returned
	err    error
	peeked bool
	line   string
}

func newLineReader(r io.Reader, file string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLineBytes)
	return &lineReader{sc: sc, file: file}
}

// next returns the next non-blank line (trimmed) and true, or "" and false at the end of input
// or on a read error (see failure).
func (l *lineReader) next() (string, bool) {
	if l.peeked {
		l.peeked = false
		return l.line, true
	}
	for l.sc.Scan() {
		l.n++
		s := strings.TrimSpace(l.sc.Text())
		if s != "" {
			l.line = s
			return s, true
		}
	}
	if err := l.sc.Err(); err != nil {
		msg := err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("line longer than %d bytes", MaxLineBytes)
		}
		l.err = &SyntaxError{File: l.file, Line: l.n + 1, Field: "line", Msg: msg}
	}
	return "", false
}

// unread makes the line last returned by next be returned again.
func (l *lineReader) unread() { l.peeked = true }

type parser struct {
	lines *lineReader
	file  string
	dims  int
	ids   map[int64]int // dagId -> header line

	lastWins bool
}

func (p *parser) errf(line int, field, format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// eof reports a DAG cut short by the end of the input.
func (p *parser) eof(field, want string) error {
	if p.lines.err != nil {
		return p.lines.err
	}
	return p.errf(p.lines.n+1, field, "unexpected end of file: expected %s", want)
}

func (p *parser) parse() ([]traces.Job, error) {
	var jobs []traces.Job
	name := ""
	for {
		line, ok := p.lines.next()
		if !ok {
			break
		}
		if strings.HasPrefix(line, "#") {
			name = dagName(line) // of consecutive comments, the last names the DAG
			continue
		}
		j, err := p.job(line, name)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
		name = ""
	}
	if p.lines.err != nil {
		return nil, p.lines.err
	}
	if len(jobs) == 0 {
		return nil, p.errf(max(p.lines.n, 1), "file", "no DAGs found (empty file or only comments)")
	}
	return jobs, nil
}

// dagName extracts the name from a "# 0: TPC-H query10" comment: the text after "#" and after an
// optional "<integer>:" prefix; a comment that is only an integer ("# 7") names nothing.
func dagName(line string) string {
	s := strings.TrimSpace(strings.TrimPrefix(line, "#"))
	if i := strings.IndexByte(s, ':'); i > 0 {
		if _, err := strconv.ParseInt(strings.TrimSpace(s[:i]), 10, 64); err == nil {
			s = strings.TrimSpace(s[i+1:])
		}
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ""
	}
	return s
}

// job parses one DAG whose header line has just been read.
func (p *parser) job(header, name string) (traces.Job, error) {
	hl := p.lines.n
	f := strings.Fields(header)
	if len(f) < 2 || len(f) > 5 {
		return traces.Job{}, p.errf(hl, "header", "want \"numStages dagId [arrival] [queue] [sessionId]\" (2-5 fields), got %d fields", len(f))
	}
	numStages, err := parseCount(f[0], 1<<20)
	if err != nil {
		return traces.Job{}, p.errf(hl, "numStages", "%v", err)
	}
	if numStages == 0 {
		return traces.Job{}, p.errf(hl, "numStages", "must be at least 1")
	}
	id, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || id < 0 {
		return traces.Job{}, p.errf(hl, "dagId", "want a non-negative integer, got %q", f[1])
	}
	if prev, dup := p.ids[id]; dup {
		return traces.Job{}, p.errf(hl, "dagId", "duplicate dagId %d (first used on line %d)", id, prev)
	}
	p.ids[id] = hl
	j := traces.Job{ID: id, Name: name, Queue: "default"}
	j.Features.JobName, j.Features.LogicalJobName = name, name
	if len(f) > 2 {
		if j.Submit, err = seconds(f[2]); err != nil {
			return traces.Job{}, p.errf(hl, "arrival", "%v", err)
		}
	}
	if len(f) > 3 {
		j.Queue = f[3]
	}
	j.Class = ClassOf(j.Queue)
	if len(f) > 4 {
		if _, err := strconv.ParseInt(f[4], 10, 64); err != nil {
			return traces.Job{}, p.errf(hl, "sessionId", "want an integer, got %q", f[4])
		}
	}

	// The count comes from the input: do not let it size allocations beyond a small bound.
	hint := min(numStages, 256)
	j.Stages = make([]traces.Stage, 0, hint)
	index := make(map[string]int32, hint)
	stageLine := make([]int, 0, hint)
	for range numStages {
		line, ok := p.lines.next()
		if !ok {
			return traces.Job{}, p.eof("stage", fmt.Sprintf("%d stage lines for dag %d (header on line %d), got %d", numStages, id, hl, len(j.Stages)))
		}
		if strings.HasPrefix(line, "#") {
			return traces.Job{}, p.errf(p.lines.n, "stage", "comment inside dag %d: expected %d stage lines (header on line %d), got %d", id, numStages, hl, len(j.Stages))
		}
		s, err := p.stage(line)
		if err != nil {
			return traces.Job{}, err
		}
		if prev, dup := index[s.Name]; dup && p.lastWins {
			j.Stages[prev], stageLine[prev] = s, p.lines.n
			continue
		} else if dup {
			return traces.Job{}, p.errf(p.lines.n, "stageName", "duplicate stage %q in dag %d (first on line %d)", s.Name, id, stageLine[prev])
		}
		index[s.Name] = int32(len(j.Stages))
		stageLine = append(stageLine, p.lines.n)
		j.Stages = append(j.Stages, s)
	}

	line, ok := p.lines.next()
	if !ok {
		return traces.Job{}, p.eof("numEdges", fmt.Sprintf("the edge count of dag %d (header on line %d)", id, hl))
	}
	el := p.lines.n
	ef := strings.Fields(line)
	if len(ef) != 1 {
		return traces.Job{}, p.errf(el, "numEdges", "want a single edge count after %d stage lines of dag %d, got %d fields (more stage lines than numStages?)", numStages, id, len(ef))
	}
	numEdges, err := parseCount(ef[0], 1<<24)
	if err != nil {
		return traces.Job{}, p.errf(el, "numEdges", "%v", err)
	}
	for k := range numEdges {
		line, ok := p.lines.next()
		if !ok {
			return traces.Job{}, p.eof("edge", fmt.Sprintf("%d edge lines for dag %d (count on line %d), got %d", numEdges, id, el, k))
		}
		if strings.HasPrefix(line, "#") {
			return traces.Job{}, p.errf(p.lines.n, "edge", "comment inside dag %d: expected %d edge lines (count on line %d), got %d", id, numEdges, el, k)
		}
		ln := p.lines.n
		e := strings.Fields(line)
		if len(e) != 3 {
			return traces.Job{}, p.errf(ln, "edge", "want \"src dst ata|scg\" (3 fields), got %d fields", len(e))
		}
		if e[2] != "ata" && e[2] != "scg" {
			return traces.Job{}, p.errf(ln, "commPattern", "want ata or scg, got %q", e[2])
		}
		src, ok := index[e[0]]
		if !ok {
			return traces.Job{}, p.errf(ln, "src", "edge from unknown stage %q in dag %d", e[0], id)
		}
		dst, ok := index[e[1]]
		if !ok {
			return traces.Job{}, p.errf(ln, "dst", "edge to unknown stage %q in dag %d", e[1], id)
		}
		if src == dst {
			return traces.Job{}, p.errf(ln, "edge", "stage %q depends on itself", e[0])
		}
		s := &j.Stages[dst]
		dupEdge := false
		for _, q := range s.Parents {
			if q == src {
				dupEdge = true
				break
			}
		}
		if !dupEdge {
			s.Parents = append(s.Parents, src)
		}
	}
	if c := cycleStage(j.Stages); c >= 0 {
		return traces.Job{}, p.errf(hl, "edges", "dependency cycle through stage %q in dag %d (stage on line %d)", j.Stages[c].Name, id, stageLine[c])
	}
	return j, nil
}

// stage parses one stage line.
func (p *parser) stage(line string) (traces.Stage, error) {
	ln := p.lines.n
	f := strings.Fields(line)
	if len(f) < 4 {
		return traces.Stage{}, p.errf(ln, "stage", "want \"name taskDuration r1..rk [@t] numTasks\" (at least 4 fields), got %d fields", len(f))
	}
	s := traces.Stage{Name: f[0]}
	d, err := seconds(f[1])
	if err != nil {
		return traces.Stage{}, p.errf(ln, "taskDuration", "%v", err)
	}
	s.Duration = max(d, MinTaskDuration)
	s.Estimate = s.Duration

	last := len(f) - 1
	n, err := parseCount(f[last], math.MaxInt32)
	if err != nil {
		return traces.Stage{}, p.errf(ln, "numTasks", "%v", err)
	}
	if n == 0 {
		return traces.Stage{}, p.errf(ln, "numTasks", "must be at least 1")
	}
	s.Tasks = int32(n)
	res := f[2:last]
	if k := len(res); k > 0 && strings.HasPrefix(res[k-1], "@") {
		if _, err := seconds(res[k-1][1:]); err != nil {
			return traces.Stage{}, p.errf(ln, "stageArrival", "%v", err)
		}
		res = res[:k-1]
	}
	if len(res) > traces.MaxDims {
		return traces.Stage{}, p.errf(ln, "demand", "%d fields between taskDuration and numTasks, at most %d resource demands expected", len(res), traces.MaxDims)
	}
	if len(res) < p.dims {
		return traces.Stage{}, p.errf(ln, "demand", "%d resource demands, but Options.Dims = %d needs %d", len(res), p.dims, p.dims)
	}
	zero := true
	for i, tok := range res {
		x, err := strconv.ParseFloat(tok, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return traces.Stage{}, p.errf(ln, "r"+strconv.Itoa(i+1), "want a number, got %q", tok)
		}
		if x < 0 || x > 1 {
			return traces.Stage{}, p.errf(ln, "r"+strconv.Itoa(i+1), "demand %v outside [0, 1] (a fraction of one machine)", x)
		}
		if i < p.dims {
			s.Demand[i] = traces.VecOf(x)[0]
			if s.Demand[i] != 0 {
				zero = false
			}
		}
	}
	if zero {
		return traces.Stage{}, p.errf(ln, "demand", "all %d kept dimensions (%s) are zero", p.dims, strings.Join(DimNames[:p.dims], ", "))
	}
	return s, nil
}

// parseCount parses a non-negative integer no larger than limit.
func parseCount(tok string, limit int64) (int64, error) {
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a non-negative integer, got %q", tok)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative: %d", n)
	}
	if n > limit {
		return 0, fmt.Errorf("%d is larger than %d", n, limit)
	}
	return n, nil
}

// seconds parses a non-negative number of seconds no larger than MaxSeconds into µs.
func seconds(tok string) (traces.Time, error) {
	x, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a number of seconds, got %q", tok)
	}
	if x < 0 {
		return 0, fmt.Errorf("negative: %v s", x)
	}
	if x > MaxSeconds {
		return 0, fmt.Errorf("%v s is larger than %g s", x, MaxSeconds)
	}
	return traces.FromSeconds(x), nil
}

// cycleStage returns a stage on a dependency cycle, or -1 if the stages form a DAG. It uses
// Kahn's algorithm, so deep chains cannot overflow the stack.
func cycleStage(stages []traces.Stage) int {
	indeg := make([]int, len(stages))
	children := make([][]int32, len(stages))
	for i := range stages {
		for _, p := range stages[i].Parents {
			indeg[i]++
			children[p] = append(children[p], int32(i))
		}
	}
	queue := make([]int32, 0, len(stages))
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
	// Every stage left with indeg > 0 has a parent also left over; following such parents
	// len(stages) times must end on a cycle.
	cur := -1
	for i, d := range indeg {
		if d > 0 {
			cur = i
			break
		}
	}
	for range stages {
		for _, p := range stages[cur].Parents {
			if indeg[p] > 0 {
				cur = int(p)
				break
			}
		}
	}
	return cur
}
