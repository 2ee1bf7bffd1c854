package canonical

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/traces"
)

// decoder turns record batches back into jobs. A job's rows may span batches (the Parquet
// reader batches by row count, not by job); the job in progress is carried over.
type decoder struct {
	idx map[string]int // column name -> index in the schema
	row int64          // rows decoded so far (0-based index of the next row)

	open   bool // a job is in progress
	cur    traces.Job
	filled int
	want   int   // the open job's num_stages
	start  int64 // the open job's first row
	jobs   int   // jobs completed
	tasks  int64 // tasks in the stage rows decoded

	limits traces.Limits   // checked row by row, before the rows' stages are allocated
	check  *traces.Checker // validates each job as it completes; nil: no validation

	strs     [9]strReader
	slab     []traces.Stage
	i64Buf   []int64
	i32Buf   []int32
	histSlab []traces.TaskHistory
}

// column kinds for type checking
type kind int

const (
	kI64 kind = iota
	kI32
	kF64
	kStr
	kListI64
	kListI32
	kBool
)

var columnKinds = map[string]kind{
	ColJobID: kI64, ColName: kStr, ColSubmit: kI64, ColQueue: kStr, ColClass: kStr, ColPriority: kI64,
	ColWeight: kF64, ColUser: kStr, ColJobName: kStr, ColLogicalJobName: kStr, ColDeadline: kI64,
	ColUtilityKind: kStr, ColUtilityPriority: kF64, ColUtilityDecay: kF64, ColUtilitySlope: kF64,
	ColUtilityTarget: kI64, ColPlacementKind: kStr, ColPlacementHard: kBool, ColPlacementSlowdown: kF64,
	ColNumStages: kI32, ColStage: kI32, ColStageName: kStr, ColTasks: kI32,
	ColDuration: kI64, ColEstimate: kI64, ColTaskDurations: kListI64, ColParents: kListI32,
	ColTaskAttempts: kListI32, ColTaskEvictions: kListI32, ColTaskOutcomes: kListI32,
}

func init() {
	for d := 0; d < traces.MaxDims; d++ {
		columnKinds[ColDemand(d)] = kI64
	}
}

func isString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING:
		return true
	case arrow.DICTIONARY:
		return t.(*arrow.DictionaryType).ValueType.ID() == arrow.STRING
	}
	return false
}

func kindOK(k kind, t arrow.DataType) bool {
	switch k {
	case kI64:
		return t.ID() == arrow.INT64
	case kI32:
		return t.ID() == arrow.INT32
	case kF64:
		return t.ID() == arrow.FLOAT64
	case kStr:
		return isString(t)
	case kBool:
		return t.ID() == arrow.BOOL
	case kListI64, kListI32:
		lt, ok := t.(*arrow.ListType)
		if !ok {
			return false
		}
		if k == kListI64 {
			return lt.Elem().ID() == arrow.INT64
		}
		return lt.Elem().ID() == arrow.INT32
	}
	return false
}

// init checks that schema has every canonical column of the file's layout version with a
// compatible type. The columns added in later versions get index -1 in an older file (which has
// no such columns, and whose columns of those names, if any, are not schedlab's).
func (d *decoder) init(schema *arrow.Schema, version string) error {
	d.idx = make(map[string]int, len(columnKinds))
	for _, f := range Schema.Fields() {
		if !hasColumn(version, f.Name) {
			d.idx[f.Name] = -1
			continue
		}
		is := schema.FieldIndices(f.Name)
		if len(is) != 1 {
			return fmt.Errorf("column %q: %d columns of that name, want 1", f.Name, len(is))
		}
		got := schema.Field(is[0]).Type
		if !kindOK(columnKinds[f.Name], got) {
			return fmt.Errorf("column %q: type %s, want %s", f.Name, got, f.Type)
		}
		d.idx[f.Name] = is[0]
	}
	return nil
}

// validate checks the completed job j (the next job of the file) when the decoder validates.
func (d *decoder) validate(j *traces.Job) error {
	if d.check != nil {
		if err := d.check.Job(d.jobs, j); err != nil {
			return fmt.Errorf("row %d: %w", d.start, err)
		}
	}
	d.jobs++
	return nil
}

// limitError locates a *traces.LimitError at a row and column, wrapping it.
func (d *decoder) limitError(row int, col string, le *traces.LimitError) error {
	return fmt.Errorf("row %d: column %s: %w", d.row+int64(row), col, le)
}

// rowError locates a problem at a row and column.
func (d *decoder) rowError(row int, col, format string, args ...any) error {
	return fmt.Errorf("row %d: column %s: %s", d.row+int64(row), col, fmt.Sprintf(format, args...))
}

func (d *decoder) i64(rec arrow.RecordBatch, name string) ([]int64, error) {
	a := rec.Column(d.idx[name]).(*array.Int64)
	if a.NullN() > 0 {
		return nil, d.nullError(a, name)
	}
	return a.Int64Values(), nil
}

func (d *decoder) i32(rec arrow.RecordBatch, name string) ([]int32, error) {
	a := rec.Column(d.idx[name]).(*array.Int32)
	if a.NullN() > 0 {
		return nil, d.nullError(a, name)
	}
	return a.Int32Values(), nil
}

func (d *decoder) f64(rec arrow.RecordBatch, name string) ([]float64, error) {
	a := rec.Column(d.idx[name]).(*array.Float64)
	if a.NullN() > 0 {
		return nil, d.nullError(a, name)
	}
	return a.Float64Values(), nil
}

// boolean returns the named bool column, or nil when the file lacks it (version 1).
func (d *decoder) boolean(rec arrow.RecordBatch, name string) (*array.Boolean, error) {
	if d.idx[name] < 0 {
		return nil, nil
	}
	a := rec.Column(d.idx[name]).(*array.Boolean)
	if a.NullN() > 0 {
		return nil, d.nullError(a, name)
	}
	return a, nil
}

func (d *decoder) nullError(a arrow.Array, name string) error {
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			return d.rowError(i, name, "unexpected null")
		}
	}
	return d.rowError(0, name, "unexpected null")
}

// strReader reads a utf8 or dictionary<utf8> column.
type strReader struct {
	name     string
	col      arrow.Array
	s        *array.String
	dict     *array.Dictionary
	idx32    []int32 // the dictionary's indices when they are int32 (Parquet's), for speed
	dictVals []string

	// copied is set when the batch's buffers do not outlive it (they are slices of a mapped
	// file, unmapped at Close): a utf8 column's string bytes are then copied into data, one Go
	// string per batch, and its values are substrings of data at offsets offs[i]-base. Otherwise
	// values are the library's own strings, which view the batch's Go-allocated buffers.
	copied bool
	data   string
	offs   []int32
	base   int32
}

// copyStrings copies a's string bytes into r.data (see strReader.copied).
func (r *strReader) copyStrings(a *array.String) {
	r.offs = a.ValueOffsets()
	r.data, r.base = "", 0
	if len(r.offs) > 0 {
		r.base = r.offs[0]
		r.data = string(a.ValueBytes())
	}
}

func (r *strReader) set(col arrow.Array) error {
	r.col, r.s, r.dict, r.idx32, r.dictVals = col, nil, nil, nil, r.dictVals[:0]
	r.offs, r.data, r.base = nil, "", 0
	switch a := col.(type) {
	case *array.String:
		r.s = a
		if r.copied {
			r.copyStrings(a)
		}
	case *array.Dictionary:
		vals, ok := a.Dictionary().(*array.String)
		if !ok {
			return fmt.Errorf("column %s: dictionary of %s, want utf8", r.name, a.Dictionary().DataType())
		}
		r.dict = a
		if ix, ok := a.Indices().(*array.Int32); ok {
			r.idx32 = ix.Int32Values()
			for i, k := range r.idx32 {
				if (k < 0 || int(k) >= vals.Len()) && a.IsValid(i) {
					return fmt.Errorf("column %s: dictionary index %d outside %d values", r.name, k, vals.Len())
				}
			}
		}
		if r.copied {
			r.copyStrings(vals)
			for i := 0; i < vals.Len(); i++ {
				r.dictVals = append(r.dictVals, r.data[r.offs[i]-r.base:r.offs[i+1]-r.base])
			}
		} else {
			for i := 0; i < vals.Len(); i++ {
				r.dictVals = append(r.dictVals, vals.Value(i))
			}
		}
	default:
		return fmt.Errorf("column %s: unexpected array type %T", r.name, col)
	}
	return nil
}

// value returns row i's string: a dictionary value, or the batch's (see strReader.copied), which
// a kept string keeps alive.
func (r *strReader) value(i int) string {
	if r.idx32 != nil {
		if k := r.idx32[i]; k >= 0 && int(k) < len(r.dictVals) {
			return r.dictVals[k]
		}
		return "" // a null slot
	}
	if r.dict != nil {
		return r.dictVals[r.dict.GetValueIndex(i)]
	}
	if !r.copied {
		return r.s.Value(i)
	}
	a, b := r.offs[i]-r.base, r.offs[i+1]-r.base
	if a == b {
		return "" // without a pointer into the data, for the collector to skip
	}
	return r.data[a:b]
}

// setStr stores s in *p unless it is empty (see decoder.decode).
func setStr(p *string, s string) {
	if s != "" {
		*p = s
	}
}

const (
	sName = iota
	sQueue
	sClass
	sUser
	sJobName
	sLogical
	sUKind
	sStageName
	sPKind
)

var strCols = [9]string{ColName, ColQueue, ColClass, ColUser, ColJobName, ColLogicalJobName, ColUtilityKind, ColStageName, ColPlacementKind}

// listReader reads a list<int64>/list<int32> column into one slab per batch.
type listReader[T int64 | int32] struct {
	l       *array.List
	allNull bool // the common case of a batch without any list (task_durations, parents)
	vals    []T
	slab    []T
}

func newListReader[T int64 | int32](l *array.List, vals []T) listReader[T] {
	return listReader[T]{l: l, vals: vals, allNull: l.Len() > 0 && l.NullN() == l.Len()}
}

// view returns row i's list as a view of the batch's values (valid until the next batch), and
// whether it is not null.
func (r *listReader[T]) view(i int) ([]T, bool, error) {
	if r.allNull || r.l.IsNull(i) {
		return nil, false, nil
	}
	a, b := r.l.ValueOffsets(i)
	if a < 0 || b < a || b > int64(len(r.vals)) {
		return nil, false, fmt.Errorf("list offsets [%d, %d) outside %d values", a, b, len(r.vals))
	}
	return r.vals[a:b], true, nil
}

// at returns row i's list: nil when null, a non-nil slice (possibly empty) otherwise.
func (r *listReader[T]) at(i int) ([]T, error) {
	if r.allNull || r.l.IsNull(i) {
		return nil, nil
	}
	a, b := r.l.ValueOffsets(i)
	if a < 0 || b < a || b > int64(len(r.vals)) {
		return nil, fmt.Errorf("list offsets [%d, %d) outside %d values", a, b, len(r.vals))
	}
	if b == a {
		return []T{}, nil
	}
	if len(r.slab) < int(b-a) {
		r.slab = make([]T, max(int(b-a), len(r.vals)))
	}
	out := r.slab[: b-a : b-a]
	r.slab = r.slab[b-a:]
	copy(out, r.vals[a:b])
	return out, nil
}

func listValues[T int64 | int32](rec arrow.RecordBatch, idx int) (*array.List, []T, error) {
	l := rec.Column(idx).(*array.List)
	var zero T
	switch v := l.ListValues().(type) {
	case *array.Int64:
		if _, ok := any(zero).(int64); ok {
			return l, any(v.Int64Values()).([]T), nil
		}
	case *array.Int32:
		if _, ok := any(zero).(int32); ok {
			return l, any(v.Int32Values()).([]T), nil
		}
	}
	return nil, nil, fmt.Errorf("list column of %s", l.ListValues().DataType())
}

// historyCols are the task history columns, in traces.TaskHistory field order.
var historyCols = [3]string{ColTaskAttempts, ColTaskEvictions, ColTaskOutcomes}

// historyReader reads the task history columns of a batch.
type historyReader struct {
	present bool // the file has the columns (version 3 and later)
	cols    [3]listReader[int32]
}

func (d *decoder) historyReader(rec arrow.RecordBatch) (historyReader, error) {
	var h historyReader
	if d.idx[ColTaskAttempts] < 0 {
		return h, nil
	}
	h.present = true
	for k, c := range historyCols {
		l, vals, err := listValues[int32](rec, d.idx[c])
		if err != nil {
			return h, d.rowError(0, c, "%v", err)
		}
		h.cols[k] = newListReader(l, vals)
	}
	return h, nil
}

// at returns row i's task histories, nil when the stage has none (all three lists null).
func (d *decoder) historyAt(h *historyReader, i int) ([]traces.TaskHistory, error) {
	if !h.present {
		return nil, nil
	}
	var v [3][]int32
	var ok [3]bool
	for k := range h.cols {
		var err error
		if v[k], ok[k], err = h.cols[k].view(i); err != nil {
			return nil, d.rowError(i, historyCols[k], "%v", err)
		}
	}
	if !ok[0] && !ok[1] && !ok[2] {
		return nil, nil
	}
	for k := range v {
		if !ok[k] || len(v[k]) != len(v[0]) {
			return nil, d.rowError(i, historyCols[k], "%s, %s and %s must be all null or lists of one length", historyCols[0], historyCols[1], historyCols[2])
		}
	}
	n := len(v[0])
	if len(d.histSlab) < n {
		d.histSlab = make([]traces.TaskHistory, max(n, 4096))
	}
	out := d.histSlab[:n:n]
	d.histSlab = d.histSlab[n:]
	for t := range out {
		o := v[2][t]
		if o < 0 || o >= traces.NumTaskOutcomes {
			return nil, d.rowError(i, ColTaskOutcomes, "task %d: unknown outcome %d", t, o)
		}
		out[t] = traces.TaskHistory{Attempts: v[0][t], Evictions: v[1][t], Outcome: traces.TaskOutcome(o)}
	}
	return out, nil
}

// decode appends the jobs completed by rec's rows to dst.
func (d *decoder) decode(rec arrow.RecordBatch, dst []traces.Job) ([]traces.Job, error) {
	n := int(rec.NumRows())
	dst = slices.Grow(dst, n) // at most one job per row
	for c := 0; c < int(rec.NumCols()); c++ {
		if rec.Column(c).Len() != n {
			return dst, fmt.Errorf("row %d: column %s has %d rows, batch has %d", d.row, rec.ColumnName(c), rec.Column(c).Len(), n)
		}
	}
	var err error
	get64 := func(name string) []int64 {
		if err != nil {
			return nil
		}
		var v []int64
		v, err = d.i64(rec, name)
		return v
	}
	get32 := func(name string) []int32 {
		if err != nil {
			return nil
		}
		var v []int32
		v, err = d.i32(rec, name)
		return v
	}
	getF := func(name string) []float64 {
		if err != nil || d.idx[name] < 0 {
			return nil
		}
		var v []float64
		v, err = d.f64(rec, name)
		return v
	}
	ids, submit, prio, deadline := get64(ColJobID), get64(ColSubmit), get64(ColPriority), get64(ColDeadline)
	uTarget, duration, estimate := get64(ColUtilityTarget), get64(ColDuration), get64(ColEstimate)
	var demand [traces.MaxDims][]int64
	for k := range demand {
		demand[k] = get64(ColDemand(k))
	}
	weight, uPrio, uDecay, uSlope := getF(ColWeight), getF(ColUtilityPriority), getF(ColUtilityDecay), getF(ColUtilitySlope)
	numStages, stage, tasks := get32(ColNumStages), get32(ColStage), get32(ColTasks)
	pSlowdown := getF(ColPlacementSlowdown)
	if err != nil {
		return dst, err
	}
	pHard, err := d.boolean(rec, ColPlacementHard)
	if err != nil {
		return dst, err
	}
	placed := d.idx[ColPlacementKind] >= 0 // false for version 1 files
	for k := range d.strs {
		if d.idx[strCols[k]] < 0 {
			continue
		}
		d.strs[k].name = strCols[k]
		if err := d.strs[k].set(rec.Column(d.idx[strCols[k]])); err != nil {
			return dst, fmt.Errorf("row %d: %w", d.row, err)
		}
		if k != sUKind && d.strs[k].col.NullN() > 0 {
			return dst, d.nullError(d.strs[k].col, strCols[k])
		}
	}
	tdList, tdVals, err := listValues[int64](rec, d.idx[ColTaskDurations])
	if err != nil {
		return dst, d.rowError(0, ColTaskDurations, "%v", err)
	}
	pList, pVals, err := listValues[int32](rec, d.idx[ColParents])
	if err != nil {
		return dst, d.rowError(0, ColParents, "%v", err)
	}
	tdr := newListReader(tdList, tdVals)
	pr := newListReader(pList, pVals)
	hr, err := d.historyReader(rec)
	if err != nil {
		return dst, err
	}
	tdr.slab, pr.slab = d.i64Buf, d.i32Buf

	// Jobs are built in place in dst's spare capacity (at most one job per row was reserved). A
	// job still incomplete at the end of the batch is moved to d.cur and continues from there.
	var j *traces.Job // the open job: d.cur, or dst's last element
	if d.open {
		j = &d.cur
	}
	// fail returns dst without the open job if it was built in dst.
	fail := func(err error) ([]traces.Job, error) {
		if d.open && j != &d.cur {
			dst[len(dst)-1] = traces.Job{} // spare capacity stays zero (see below)
			dst = dst[:len(dst)-1]
			d.open = false
		}
		return dst, err
	}
	for i := 0; i < n; i++ {
		ns, st := int(numStages[i]), int(stage[i])
		if !d.open {
			if ns < 0 {
				return dst, d.rowError(i, ColNumStages, "negative: %d", ns)
			}
			if st != 0 {
				return dst, d.rowError(i, ColStage, "job id %d starts at stage %d, want 0", ids[i], st)
			}
			dst = dst[:len(dst)+1]
			j = &dst[len(dst)-1]
			// Field by field rather than as one composite literal: a whole-struct copy runs a bulk
			// write barrier over the struct whenever the collector is marking. dst's spare
			// capacity is all zeros (fresh memory; fail and the carry-over below clear what they
			// leave behind), so zero values are not stored at all: storing even a nil pointer
			// costs a write barrier while the collector marks.
			j.ID, j.Submit, j.Priority, j.Weight, j.Deadline = ids[i], submit[i], int(prio[i]), weight[i], deadline[i]
			setStr(&j.Name, d.strs[sName].value(i))
			setStr(&j.Queue, d.strs[sQueue].value(i))
			setStr(&j.Class, d.strs[sClass].value(i))
			setStr(&j.Features.User, d.strs[sUser].value(i))
			setStr(&j.Features.JobName, d.strs[sJobName].value(i))
			setStr(&j.Features.LogicalJobName, d.strs[sLogical].value(i))
			if !d.strs[sUKind].col.IsNull(i) {
				j.Utility = &traces.Utility{Kind: traces.UtilityKind(d.strs[sUKind].value(i)), Priority: uPrio[i], Decay: uDecay[i], Slope: uSlope[i], Target: uTarget[i]}
			}
			if placed {
				setStr(&j.Placement.Kind, d.strs[sPKind].value(i))
				j.Placement.Hard, j.Placement.Slowdown = pHard.Value(i), pSlowdown[i]
			}
			d.start = d.row + int64(i)
			if err := d.limits.CheckMemory(int64(d.jobs)+1, d.tasks); err != nil {
				dst[len(dst)-1] = traces.Job{}
				return dst[:len(dst)-1], fmt.Errorf("row %d: %w", d.start, err)
			}
			if ns == 0 {
				if err := d.validate(j); err != nil {
					dst[len(dst)-1] = traces.Job{}
					return dst[:len(dst)-1], err
				}
				continue
			}
			// Each stage is a row and has at least one task: num_stages is checked against the
			// limits, and stages are allocated only for rows at hand, so a num_stages of 2³¹−1
			// in a small file allocates nothing it does not hold.
			if l := d.limits.JobTasks; l > 0 && int64(ns) > l {
				return fail(d.limitError(i, ColNumStages, &traces.LimitError{Limit: traces.LimitJobTasks, Job: d.jobs, JobID: ids[i], Stage: -1, Value: int64(ns), Max: l}))
			}
			if ns <= n-i {
				if len(d.slab) < ns {
					d.slab = make([]traces.Stage, n-i)
				}
				j.Stages = d.slab[:ns:ns]
				d.slab = d.slab[ns:]
			} else {
				// The job goes on past this batch: its stages grow as its rows arrive.
				j.Stages = make([]traces.Stage, 0, n-i)
			}
			d.open, d.filled, d.want = true, 0, ns
		} else {
			if ids[i] != j.ID {
				return fail(d.rowError(i, ColJobID, "job id %d before job id %d has all %d stage rows (has %d)", ids[i], j.ID, d.want, d.filled))
			}
			if ns != d.want {
				return fail(d.rowError(i, ColNumStages, "%d, earlier rows of job id %d say %d", ns, ids[i], d.want))
			}
			if st != d.filled {
				return fail(d.rowError(i, ColStage, "%d, want %d", st, d.filled))
			}
		}
		if l := d.limits.StageTasks; l > 0 && int64(tasks[i]) > l {
			return fail(d.limitError(i, ColTasks, &traces.LimitError{Limit: traces.LimitStageTasks, Job: d.jobs, JobID: j.ID, Stage: d.filled, Value: int64(tasks[i]), Max: l}))
		}
		if tasks[i] > 0 {
			d.tasks += int64(tasks[i])
		}
		if l := d.limits.Tasks; l > 0 && d.tasks > l {
			return fail(d.limitError(i, ColTasks, &traces.LimitError{Limit: traces.LimitTasks, Job: -1, Stage: -1, Value: d.tasks, Max: l}))
		}
		if err := d.limits.CheckMemory(int64(d.jobs)+1, d.tasks); err != nil {
			return fail(fmt.Errorf("row %d: %w", d.row+int64(i), err))
		}
		if d.filled == len(j.Stages) {
			j.Stages = append(j.Stages, traces.Stage{})
		}
		s := &j.Stages[d.filled]
		td, err := tdr.at(i)
		if err != nil {
			return fail(d.rowError(i, ColTaskDurations, "%v", err))
		}
		ps, err := pr.at(i)
		if err != nil {
			return fail(d.rowError(i, ColParents, "%v", err))
		}
		hist, err := d.historyAt(&hr, i)
		if err != nil {
			return fail(err)
		}
		// The stage slab is fresh zeroed memory too: zero values are not stored.
		setStr(&s.Name, d.strs[sStageName].value(i))
		s.Tasks = tasks[i]
		s.Demand = traces.Vec{demand[0][i], demand[1][i], demand[2][i], demand[3][i], demand[4][i], demand[5][i]}
		s.Duration, s.Estimate = duration[i], estimate[i]
		if td != nil {
			s.TaskDurations = td
		}
		if ps != nil {
			s.Parents = ps
		}
		if hist != nil {
			s.History = hist
		}
		d.filled++
		if d.filled == d.want {
			if err := d.validate(j); err != nil {
				return fail(err)
			}
			if j == &d.cur {
				dst = append(dst, d.cur)
				d.cur = traces.Job{}
			}
			d.open = false
		}
	}
	if d.open && j != &d.cur {
		// Carry the incomplete job over to the next batch.
		d.cur = *j
		*j = traces.Job{}
		dst = dst[:len(dst)-1]
	}
	d.i64Buf, d.i32Buf = tdr.slab, pr.slab
	d.row += int64(n)
	return dst, nil
}
