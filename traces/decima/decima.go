// Package decima reads the TPC-H job profiles of Decima (Mao et al., SIGCOMM'19,
// github.com/hongzimao/decima-sim): 22 TPC-H query DAGs measured on a real Spark cluster, one
// JSON file per input size (tpch_2g.json .. tpch_100g.json, converted losslessly from the
// simulator's .npy files).
//
// # Format
//
//	{ "q<N>": { "query": N, "num_nodes": S,
//	            "edges_parent_child": [[parent, child], ...],
//	            "stage_id_to_node_idx": {"<spark stage id>": node, ...},
//	            "nodes": [ { "node": k, "num_tasks": T,
//	                         "first_wave":      {"<executors>": [ms, ...]},
//	                         "rest_wave":       {"<executors>": [ms, ...]},
//	                         "fresh_durations": {"<executors>": [ms, ...]} }, ... ] }, ... }
//
// A node is a Spark stage; edge [i, j] means stage j consumes the output of stage i. Durations
// are task durations in milliseconds measured with <executors> executors: first_wave are the
// tasks of an executor's first wave, rest_wave the later waves, fresh_durations the first task
// on a fresh executor (with JVM warm-up).
//
// # Mapping
//
// Each query becomes one traces.Job: ID = size in GB × 1000 + N (tpch_2g.json query 6 → 2006,
// so jobs of different input sizes never collide; N when the file name carries no size), Name
// "TPC-H query<N> <size>" (size from the file name, e.g. "2g"), Features.JobName = Name and
// Features.LogicalJobName = "TPC-H query<N>" (the same query at every input size). Jobs are
// ordered by query number; all are submitted at 0 unless Options.Rand is set, which draws
// Poisson arrivals (exponential gaps with mean Options.MeanInterarrival, Decima's default 25 s)
// in query order. Stream draws decima-sim's own arrival process (InitJobs at time 0, then Poisson
// arrivals of uniformly drawn queries and input sizes) from the files of several sizes.
//
// Node k becomes stage k ("stage<id>" after its Spark stage id when stage_id_to_node_idx names
// it, else "node<k>"), with Tasks = num_tasks and Parents from edges_parent_child.
//
// # Durations (decima-sim's rules, made deterministic)
//
// decima-sim draws each task's duration when the task starts, from the measurement taken with
// about as many executors as the task's job holds at that moment. The reader fixes that number
// per stage: a job holds up to Options.JobExecutors executors (its executor cap; default
// Options.Executors, a job alone on the cluster), gathers one per task it can run and keeps them
// (idle executors stay in the job's pool), so stage s runs with held(s) = min(JobExecutors, the
// most tasks of any stage on a path ending at s). With Options.Key = KeyDecima (the default) the
// measurement is decima-sim's for held(s) executors: its data point (DataPoints; between two,
// the one decima-sim draws more often), or the stage's largest measured key when the stage was
// never run with that many; KeyFixed uses the largest key ≤ JobExecutors (else the smallest) for
// every stage, the reader's former rule.
//
// The measured lists are first_wave (an executor's first task of the stage), rest_wave (later
// tasks) and fresh_durations (an executor's first task of the job, with JVM warm-up, which the
// data also lists in first_wave). As decima-sim does, fresh durations are removed from the
// first wave (a key left empty takes the nearest smaller key's list) and replayed only as
// warm-up: of the held(s) − held(parents) executors that join the job for stage s, each runs one
// fresh task, lengthened by decima-sim's moving delay (MovingDelay, 2 s: the executor moves to
// the job first; Options.NoMovingDelay drops it); the other executors' first tasks of the stage are first-wave tasks and the tasks
// beyond held(s) are rest-wave tasks (with decima-sim's fallbacks when a list is empty: a
// first-wave duration plus WarmupDelay for a missing warm-up, a warm-up duration for a missing
// first wave, a first-wave one for a missing rest). Options.NoWarmUp replays no warm-up at all.
// Each group's durations are spread evenly over its measured list, in measured order, so
// Stage.TaskDurations (ms → µs) always has num_tasks entries; Duration and Estimate are their
// mean. What the reader cannot model: executors moving between running jobs (decima-sim moves
// them, paying the moving delay again, when its scheduler repartitions) and executor counts
// changing while a stage runs. Durations are rounded to µs
// and raised to at least MinTaskDuration; negative or non-finite values are errors.
//
// Resources: every task holds one executor, modelled as one cpu core (Dims = ["cpu"], Demand =
// 1 core). The cluster has Options.Machines machines of Options.CoresPerMachine cores each;
// by default CoresPerMachine = 1 and Machines = Executors, so the cluster runs exactly that many
// tasks at once, as Decima's simulator does (it has no machines, only executors).
//
// Errors name the file, the line:column and byte offset of the JSON value at fault (or of the
// query holding it), its JSON path (e.g. q3.nodes[2].first_wave.100[4]) and the reason.
package decima

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Defaults used when Options fields are zero.
const (
	DefaultExecutors        = 100
	DefaultCoresPerMachine  = 1
	DefaultMeanInterarrival = 25 * traces.Second
)

// MinTaskDuration is the smallest task duration the reader produces.
const MinTaskDuration = traces.Millisecond

// MaxMillis bounds every duration in the input (1e12 ms ≈ 31.7 years).
const MaxMillis = 1e12

// Options control the mapping.
type Options struct {
	// Executors is the cluster's executor count; 0 means DefaultExecutors.
	Executors int
	// JobExecutors is the most executors one job holds (its executor cap); 0 means Executors,
	// a job alone on the cluster. Under fair sharing between n jobs decima-sim caps each at
	// ceil(Executors/n).
	JobExecutors int
	// Key is the rule that picks each stage's measurement: KeyDecima ("", the default) or
	// KeyFixed.
	Key string
	// NoWarmUp replays no fresh (JVM warm-up) durations: a fresh executor's first task takes a
	// first-wave duration instead.
	NoWarmUp bool
	// NoMovingDelay drops decima-sim's moving delay (MovingDelay, 2 s) from the first task of
	// each executor that joins a job.
	NoMovingDelay bool
	// CoresPerMachine is the size of a machine in cores (= executors); 0 means 1.
	CoresPerMachine int
	// Machines is the cluster size; 0 means ceil(Executors / CoresPerMachine).
	Machines int
	// Rand, when set, draws Poisson job arrivals; nil submits every job at time 0.
	Rand *rand.Rand
	// MeanInterarrival is the mean gap between arrivals when Rand is set; 0 means 25 s.
	MeanInterarrival traces.Time
}

func (o Options) normalize() (Options, error) {
	if o.Executors == 0 {
		o.Executors = DefaultExecutors
	}
	if o.CoresPerMachine == 0 {
		o.CoresPerMachine = DefaultCoresPerMachine
	}
	if o.JobExecutors == 0 {
		o.JobExecutors = o.Executors
	}
	if o.JobExecutors < 1 || o.JobExecutors > 1_000_000 {
		return o, fmt.Errorf("decima: Options.JobExecutors must be 1..1000000, got %d", o.JobExecutors)
	}
	switch o.Key {
	case "":
		o.Key = KeyDecima
	case KeyDecima, KeyFixed:
	default:
		return o, fmt.Errorf("decima: Options.Key: unknown rule %q (valid: %s, %s)", o.Key, KeyDecima, KeyFixed)
	}
	if o.Executors < 1 || o.Executors > 1_000_000 {
		return o, fmt.Errorf("decima: Options.Executors must be 1..1000000, got %d", o.Executors)
	}
	if o.CoresPerMachine < 1 || o.CoresPerMachine > 1_000_000 {
		return o, fmt.Errorf("decima: Options.CoresPerMachine must be 1..1000000, got %d", o.CoresPerMachine)
	}
	if o.Machines == 0 {
		o.Machines = (o.Executors + o.CoresPerMachine - 1) / o.CoresPerMachine
	}
	if o.Machines < 1 || o.Machines > 1_000_000 {
		return o, fmt.Errorf("decima: Options.Machines must be 1..1000000, got %d", o.Machines)
	}
	if o.MeanInterarrival == 0 {
		o.MeanInterarrival = DefaultMeanInterarrival
	}
	if o.MeanInterarrival < 0 || o.MeanInterarrival > 1e6*traces.Second {
		return o, fmt.Errorf("decima: Options.MeanInterarrival must be in (0, 1e6 s], got %d µs", o.MeanInterarrival)
	}
	return o, nil
}

// SyntaxError locates a problem in an input file.
type SyntaxError struct {
	File   string
	Line   int   // 1-based line of the value at fault (or of the query holding it)
	Col    int   // 1-based column
	Offset int64 // byte offset
	Field  string
	Msg    string
}

// Error formats the error as "decima: ..." with its location.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("decima: %s:%d:%d (byte %d): %s: %s", e.File, e.Line, e.Col, e.Offset, e.Field, e.Msg)
}

// ReadFile opens path and parses it with Parse.
func ReadFile(path string, o Options) (*traces.Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("decima: %w", err)
	}
	defer f.Close()
	return Parse(f, path, o)
}

// Parse reads one Decima TPC-H JSON file from r, query by query; name is used in error messages
// and for the input size in job names ("tpch_2g.json" → "2g").
func Parse(r io.Reader, name string, o Options) (*traces.Workload, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	lr := &lineIndex{r: r}
	p := &parser{file: name, lines: lr, dec: newDecoder(lr), o: o}
	p.size = sizeOf(name)
	jobs, err := p.parse()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(jobs, func(a, b traces.Job) int { return cmp.Compare(a.ID, b.ID) })
	if o.Rand != nil {
		var t traces.Time
		for i := range jobs {
			if i > 0 {
				t += max(1, traces.Time(math.Round(o.Rand.ExpFloat64()*float64(o.MeanInterarrival))))
			}
			jobs[i].Submit = t
		}
	}
	w := &traces.Workload{
		Name:    strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)),
		Source:  name,
		Dims:    []string{"cpu"},
		Cluster: traces.Uniform(o.Machines, traces.VecOf(float64(o.CoresPerMachine)), 0),
		Jobs:    jobs,
	}
	w.SortJobs()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("decima: %s: %w", name, err)
	}
	return w, nil
}

func newDecoder(r io.Reader) *json.Decoder { return json.NewDecoder(r) }

// sizeOf is the input size a file's name carries ("tpch_2g.json" → "2g").
func sizeOf(name string) string {
	return strings.TrimPrefix(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), "tpch_")
}

// lineIndex passes reads through and remembers where lines start, to turn byte offsets into
// line:column positions.
type lineIndex struct {
	r     io.Reader
	n     int64
	nl    []int64 // offsets of '\n' bytes
	total int64
}

// MaxFileBytes bounds the size of a Decima file; the published ones are under 1.5 MB. The JSON
// decoder holds a query's value whole (and, in an unterminated string, the rest of the file).
const MaxFileBytes = 64 << 20

// errTooLarge is lineIndex's error past MaxFileBytes.
var errTooLarge = fmt.Errorf("larger than %d bytes; the Decima TPC-H files are about 1 MB", MaxFileBytes)

func (l *lineIndex) Read(b []byte) (int, error) {
	if l.n >= MaxFileBytes {
		return 0, errTooLarge
	}
	b = b[:min(int64(len(b)), MaxFileBytes-l.n)]
	n, err := l.r.Read(b)
	for i, c := range b[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.n+int64(i))
		}
	}
	l.n += int64(n)
	return n, err
}

func (l *lineIndex) pos(off int64) (line, col int) {
	i := sort.Search(len(l.nl), func(i int) bool { return l.nl[i] >= off })
	start := int64(0)
	if i > 0 {
		start = l.nl[i-1] + 1
	}
	return i + 1, int(off-start) + 1
}

type parser struct {
	file  string
	size  string
	lines *lineIndex
	dec   *json.Decoder
	o     Options
	// profiles, when set, receives each job's measurements (ReadProfiles).
	profiles map[string]*Profile
}

func (p *parser) errAt(off int64, field, format string, args ...any) error {
	line, col := p.lines.pos(off)
	return &SyntaxError{File: p.file, Line: line, Col: col, Offset: off, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// jsonErr converts an encoding/json error into a located SyntaxError.
func (p *parser) jsonErr(err error, field string, off int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(p.lines.n, field, "unexpected end of file (truncated JSON)")
	case errors.As(err, &se):
		return p.errAt(se.Offset, field, "invalid JSON: %v", se)
	case errors.As(err, &te):
		f := field
		if te.Field != "" {
			f += "." + te.Field
		}
		return p.errAt(te.Offset, f, "want %v, got JSON %s", te.Type, te.Value)
	}
	return p.errAt(off, field, "%s", strings.TrimPrefix(err.Error(), "json: "))
}

// relocate shifts the offset of a JSON error found inside a query's value by the value's start.
func relocate(err error, start int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		c := *se
		c.Offset += start
		return &c
	case errors.As(err, &te):
		c := *te
		c.Offset += start
		return &c
	}
	return err
}

type nodeJSON struct {
	Node     *int                 `json:"node"`
	NumTasks *int64               `json:"num_tasks"`
	First    map[string][]float64 `json:"first_wave"`
	Rest     map[string][]float64 `json:"rest_wave"`
	Fresh    map[string][]float64 `json:"fresh_durations"`
}

type queryJSON struct {
	Query    *int64           `json:"query"`
	NumNodes *int             `json:"num_nodes"`
	Edges    [][]int64        `json:"edges_parent_child"`
	StageIDs map[string]int64 `json:"stage_id_to_node_idx"`
	Nodes    []nodeJSON       `json:"nodes"`
}

func (p *parser) parse() ([]traces.Job, error) {
	tok, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, p.errAt(0, "file", "empty file: want a JSON object of queries")
		}
		return nil, p.jsonErr(err, "file", 0)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errAt(0, "file", "want a JSON object of queries (\"q1\": {...}), got %v", tok)
	}
	var jobs []traces.Job
	seen := map[string]bool{}
	ids := map[int64]string{}
	for p.dec.More() {
		off := p.dec.InputOffset()
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.jsonErr(err, "file", off)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, p.errAt(off, "key", "duplicate query key %q", key)
		}
		seen[key] = true
		n, err := strconv.ParseInt(strings.TrimPrefix(key, "q"), 10, 64)
		if !strings.HasPrefix(key, "q") || err != nil || n < 0 {
			return nil, p.errAt(off, "key", "want a query key q<N>, got %q", key)
		}
		if prev, dup := ids[n]; dup {
			return nil, p.errAt(off, "key", "%q: query %d already given as %q", key, n, prev)
		}
		ids[n] = key
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return nil, p.jsonErr(err, key, off)
		}
		voff := p.dec.InputOffset() - int64(len(raw)) // where the query's value starts
		var q queryJSON
		qd := json.NewDecoder(bytes.NewReader(raw))
		qd.DisallowUnknownFields()
		if err := qd.Decode(&q); err != nil {
			return nil, p.jsonErr(relocate(err, voff), key, voff)
		}
		j, err := p.job(key, n, &q, voff)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	off := p.dec.InputOffset()
	if _, err := p.dec.Token(); err != nil { // the closing '}'
		return nil, p.jsonErr(err, "file", off)
	}
	off = p.dec.InputOffset()
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, p.errAt(off, "file", "data after the top-level JSON object")
	}
	if len(jobs) == 0 {
		return nil, p.errAt(0, "file", "no queries in file")
	}
	return jobs, nil
}

func (p *parser) job(key string, n int64, q *queryJSON, off int64) (traces.Job, error) {
	bad := func(field, format string, args ...any) error {
		return p.errAt(off, key+"."+field, format, args...)
	}
	if q.Query == nil || *q.Query != n {
		return traces.Job{}, bad("query", "missing or different from the key's number %d", n)
	}
	if q.NumNodes == nil || *q.NumNodes != len(q.Nodes) {
		return traces.Job{}, bad("num_nodes", "missing or different from the %d nodes listed", len(q.Nodes))
	}
	if len(q.Nodes) == 0 {
		return traces.Job{}, bad("nodes", "query has no stages")
	}
	name := fmt.Sprintf("TPC-H query%d", n)
	j := traces.Job{ID: jobID(p.size, n), Name: name + " " + p.size, Queue: "default"}
	j.Features.JobName, j.Features.LogicalJobName = j.Name, name

	names := make([]string, len(q.Nodes))
	for id, k := range q.StageIDs {
		if k < 0 || k >= int64(len(q.Nodes)) {
			return traces.Job{}, bad("stage_id_to_node_idx."+id, "node %d out of range (query has %d nodes)", k, len(q.Nodes))
		}
		if _, err := strconv.ParseInt(id, 10, 64); err != nil {
			return traces.Job{}, bad("stage_id_to_node_idx."+id, "spark stage id is not an integer")
		}
		if names[k] != "" {
			return traces.Job{}, bad("stage_id_to_node_idx."+id, "node %d already has stage id %s", k, strings.TrimPrefix(names[k], "stage"))
		}
		names[k] = "stage" + id
	}
	j.Stages = make([]traces.Stage, len(q.Nodes))
	meas := make([]measurements, len(q.Nodes))
	for i := range q.Nodes {
		nd := &q.Nodes[i]
		field := fmt.Sprintf("nodes[%d]", i)
		if nd.Node == nil || *nd.Node != i {
			return traces.Job{}, bad(field+".node", "missing or not equal to its position %d", i)
		}
		if nd.NumTasks == nil || *nd.NumTasks < 1 || *nd.NumTasks > math.MaxInt32 {
			return traces.Job{}, bad(field+".num_tasks", "want 1..%d tasks", math.MaxInt32)
		}
		s := &j.Stages[i]
		s.Name = names[i]
		if s.Name == "" {
			s.Name = fmt.Sprintf("node%d", i)
		}
		s.Tasks = int32(*nd.NumTasks)
		s.Demand = traces.VecOf(1)
		for _, m := range []struct {
			name string
			v    map[string][]float64
		}{{"first_wave", nd.First}, {"rest_wave", nd.Rest}, {"fresh_durations", nd.Fresh}} {
			for e, ds := range m.v {
				if x, err := strconv.Atoi(e); err != nil || x < 1 {
					return traces.Job{}, bad(field+"."+m.name+"."+e, "executor count is not a positive integer")
				}
				for t, d := range ds {
					if d < 0 || d > MaxMillis || math.IsNaN(d) {
						return traces.Job{}, bad(fmt.Sprintf("%s.%s.%s[%d]", field, m.name, e, t), "duration %v ms outside [0, %g]", d, MaxMillis)
					}
				}
			}
		}
		meas[i] = newMeasurements(nd.First, nd.Rest, nd.Fresh)
		if len(meas[i].keys) == 0 {
			return traces.Job{}, bad(field+".first_wave", "no measurements")
		}
	}
	for e, edge := range q.Edges {
		field := fmt.Sprintf("edges_parent_child[%d]", e)
		if len(edge) != 2 {
			return traces.Job{}, bad(field, "want [parent, child], got %d numbers", len(edge))
		}
		par, ch := edge[0], edge[1]
		if par < 0 || par >= int64(len(j.Stages)) || ch < 0 || ch >= int64(len(j.Stages)) {
			return traces.Job{}, bad(field, "edge [%d, %d] names an unknown node (query has %d nodes)", par, ch, len(j.Stages))
		}
		if par == ch {
			return traces.Job{}, bad(field, "node %d depends on itself", par)
		}
		s := &j.Stages[ch]
		if !slices.Contains(s.Parents, int32(par)) {
			s.Parents = append(s.Parents, int32(par))
		}
	}
	if c := cycleStage(j.Stages); c >= 0 {
		return traces.Job{}, bad("edges_parent_child", "dependency cycle through node %d", c)
	}
	held := heldExecutors(j.Stages, p.o.JobExecutors)
	for i := range j.Stages {
		s, m := &j.Stages[i], meas[i]
		k := m.decimaKey(held[i])
		if p.o.Key == KeyFixed {
			k = m.fixedKey(p.o.JobExecutors)
		}
		join, first, rest := waves(int(s.Tasks), held[i], held[i]-parentHeld(s, held))
		move := MovingDelay
		if p.o.NoMovingDelay {
			move = 0
		}
		ms, ok := m.durations(k, join, first, rest, p.o.NoWarmUp, move)
		if !ok {
			return traces.Job{}, bad(fmt.Sprintf("nodes[%d].first_wave.%d", i, k), "no task durations for %d executors", k)
		}
		s.TaskDurations, s.Duration = toTimes(ms)
		s.Estimate = s.Duration
	}
	p.keepProfile(j.Name, meas)
	return j, nil
}

// jobID numbers query n of an input size so that sizes never collide: size in GB × 1000 + n
// ("2g" query 6 → 2006, "100g" query 6 → 100006; the size is the leading "<GB>g" of the file
// name's size part, so "2g_cut" counts as 2g); n itself when the name carries no size.
func jobID(size string, n int64) int64 {
	digits := strings.IndexFunc(size, func(r rune) bool { return r < '0' || r > '9' })
	if digits <= 0 || (size[digits] != 'g' && size[digits] != 'G') || n >= 1000 {
		return n
	}
	gb, err := strconv.ParseInt(size[:digits], 10, 64)
	if err != nil || gb < 1 || gb > 1_000_000 {
		return n
	}
	return gb*1000 + n
}

// cycleStage returns a stage on a dependency cycle, or -1 if the stages form a DAG.
func cycleStage(stages []traces.Stage) int {
	indeg := make([]int, len(stages))
	children := make([][]int32, len(stages))
	for i := range stages {
		for _, p := range stages[i].Parents {
			indeg[i]++
			children[p] = append(children[p], int32(i))
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
	cur := slices.IndexFunc(indeg, func(d int) bool { return d > 0 })
	for range stages { // walk left-over parents until certainly on the cycle
		for _, p := range stages[cur].Parents {
			if indeg[p] > 0 {
				cur = int(p)
				break
			}
		}
	}
	return cur
}
