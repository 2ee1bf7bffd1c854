package canonical

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/schedlab/schedlab/traces"
)

// Columns are accumulated in plain Go slices and wrapped as Arrow buffers without copying when a
// batch is flushed; the slices are reused for the next batch once the sink has consumed it (both
// the IPC and the Parquet writer serialize a record before Write returns).

type i64Col struct{ v []int64 }

func (c *i64Col) array() arrow.Array {
	return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, len(c.v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.v))}, nil, 0, 0))
}

type i32Col struct{ v []int32 }

func (c *i32Col) array() arrow.Array {
	return array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(c.v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.v))}, nil, 0, 0))
}

type f64Col struct{ v []float64 }

func (c *f64Col) array() arrow.Array {
	return array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, len(c.v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.v))}, nil, 0, 0))
}

// boolCol is a non-nullable bool column: an Arrow bitmap.
type boolCol struct {
	bits []byte
	n    int
}

func (c *boolCol) append(b bool) {
	if c.n%8 == 0 {
		c.bits = append(c.bits, 0)
	}
	if b {
		bitutil.SetBit(c.bits, c.n)
	}
	c.n++
}

func (c *boolCol) reset() { c.bits, c.n = c.bits[:0], 0 }

func (c *boolCol) array() arrow.Array {
	return array.NewBooleanData(array.NewData(arrow.FixedWidthTypes.Boolean, c.n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(c.bits)}, nil, 0, 0))
}

// validity is an Arrow validity bitmap under construction.
type validity struct {
	bits  []byte
	n     int
	nulls int
}

func (v *validity) append(valid bool) {
	if v.n%8 == 0 {
		v.bits = append(v.bits, 0)
	}
	if valid {
		bitutil.SetBit(v.bits, v.n)
	} else {
		v.nulls++
	}
	v.n++
}

func (v *validity) reset() { v.bits, v.n, v.nulls = v.bits[:0], 0, 0 }

// buffer returns the bitmap, or nil when no value is null (Arrow's convention).
func (v *validity) buffer() *memory.Buffer {
	if v.nulls == 0 {
		return nil
	}
	return memory.NewBufferBytes(v.bits)
}

type strCol struct {
	offsets  []int32
	data     []byte
	nullable bool
	valid    validity
}

func (c *strCol) append(s string) {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	c.data = append(c.data, s...)
	c.offsets = append(c.offsets, int32(len(c.data)))
	if c.nullable {
		c.valid.append(true)
	}
}

func (c *strCol) appendNull() {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	c.offsets = append(c.offsets, int32(len(c.data)))
	c.valid.append(false)
}

func (c *strCol) reset() {
	c.offsets, c.data = c.offsets[:0], c.data[:0]
	c.valid.reset()
}

func (c *strCol) array() arrow.Array {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
	n := len(c.offsets) - 1
	return array.NewStringData(array.NewData(arrow.BinaryTypes.String, n,
		[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offsets)), memory.NewBufferBytes(c.data)},
		nil, c.valid.nulls, 0))
}

// listCol is a nullable list<int64> or list<int32> column.
type listCol struct {
	typ     *arrow.ListType
	offsets []int32
	i64     []int64
	i32     []int32
	valid   validity
}

func (c *listCol) start() {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
}

func (c *listCol) appendI64(xs []int64) {
	c.start()
	c.i64 = append(c.i64, xs...)
	c.offsets = append(c.offsets, int32(len(c.i64)))
	c.valid.append(xs != nil)
}

func (c *listCol) appendI32(xs []int32) {
	c.start()
	c.i32 = append(c.i32, xs...)
	c.offsets = append(c.offsets, int32(len(c.i32)))
	c.valid.append(xs != nil)
}

func (c *listCol) reset() {
	c.offsets, c.i64, c.i32 = c.offsets[:0], c.i64[:0], c.i32[:0]
	c.valid.reset()
}

func (c *listCol) array() arrow.Array {
	c.start()
	n := len(c.offsets) - 1
	var child arrow.ArrayData
	if c.typ.Elem().ID() == arrow.INT64 {
		child = array.NewData(arrow.PrimitiveTypes.Int64, len(c.i64),
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.i64))}, nil, 0, 0)
	} else {
		child = array.NewData(arrow.PrimitiveTypes.Int32, len(c.i32),
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.i32))}, nil, 0, 0)
	}
	defer child.Release()
	return array.NewListData(array.NewData(c.typ, n,
		[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offsets))},
		[]arrow.ArrayData{child}, c.valid.nulls, 0))
}

// encoder turns jobs into record batches of the canonical schema.
type encoder struct {
	schema *arrow.Schema
	rows   int

	jobID, submit, priority, deadline, uTarget, duration, estimate i64Col
	demand                                                         [traces.MaxDims]i64Col
	weight, uPriority, uDecay, uSlope, pSlowdown                   f64Col
	numStages, stage, tasks                                        i32Col
	name, queue, class, user, jobName, logical, uKind, stageName   strCol
	pKind                                                          strCol
	pHard                                                          boolCol
	taskDurations, parents                                         listCol
}

func newEncoder(schema *arrow.Schema) *encoder {
	e := &encoder{schema: schema}
	e.uKind.nullable = true
	e.taskDurations.typ = schema.Field(schema.FieldIndices(ColTaskDurations)[0]).Type.(*arrow.ListType)
	e.parents.typ = schema.Field(schema.FieldIndices(ColParents)[0]).Type.(*arrow.ListType)
	return e
}

// byteBudget bounds the string and list payload of one batch, far below the 2 GiB that 32-bit
// Arrow offsets can address.
const byteBudget = 1 << 28

// full reports whether the batch should be flushed before adding more rows.
func (e *encoder) full(batchRows int) bool {
	if e.rows >= batchRows {
		return true
	}
	n := 0
	for _, c := range []*strCol{&e.name, &e.queue, &e.class, &e.user, &e.jobName, &e.logical, &e.uKind, &e.stageName, &e.pKind} {
		n = max(n, len(c.data))
	}
	return n > byteBudget || len(e.taskDurations.i64) > byteBudget/8 || len(e.parents.i32) > byteBudget/4
}

// add appends j's rows (one per stage, or one row for a job without stages).
func (e *encoder) add(j *traces.Job) error {
	n := len(j.Stages)
	if n > math.MaxInt32 {
		return fmt.Errorf("job %d: %d stages do not fit an int32", j.ID, n)
	}
	rows := max(n, 1)
	for s := 0; s < rows; s++ {
		e.jobID.v = append(e.jobID.v, j.ID)
		e.name.append(j.Name)
		e.submit.v = append(e.submit.v, j.Submit)
		e.queue.append(j.Queue)
		e.class.append(j.Class)
		e.priority.v = append(e.priority.v, int64(j.Priority))
		e.weight.v = append(e.weight.v, j.Weight)
		e.user.append(j.Features.User)
		e.jobName.append(j.Features.JobName)
		e.logical.append(j.Features.LogicalJobName)
		e.deadline.v = append(e.deadline.v, j.Deadline)
		if u := j.Utility; u != nil {
			e.uKind.append(string(u.Kind))
			e.uPriority.v = append(e.uPriority.v, u.Priority)
			e.uDecay.v = append(e.uDecay.v, u.Decay)
			e.uSlope.v = append(e.uSlope.v, u.Slope)
			e.uTarget.v = append(e.uTarget.v, u.Target)
		} else {
			e.uKind.appendNull()
			e.uPriority.v = append(e.uPriority.v, 0)
			e.uDecay.v = append(e.uDecay.v, 0)
			e.uSlope.v = append(e.uSlope.v, 0)
			e.uTarget.v = append(e.uTarget.v, 0)
		}
		e.pKind.append(j.Placement.Kind)
		e.pHard.append(j.Placement.Hard)
		e.pSlowdown.v = append(e.pSlowdown.v, j.Placement.Slowdown)
		e.numStages.v = append(e.numStages.v, int32(n))
		e.stage.v = append(e.stage.v, int32(s))
		if n == 0 {
			e.stageName.append("")
			e.tasks.v = append(e.tasks.v, 0)
			for d := range e.demand {
				e.demand[d].v = append(e.demand[d].v, 0)
			}
			e.duration.v = append(e.duration.v, 0)
			e.estimate.v = append(e.estimate.v, 0)
			e.taskDurations.appendI64(nil)
			e.parents.appendI32(nil)
			e.rows++
			continue
		}
		st := &j.Stages[s]
		e.stageName.append(st.Name)
		e.tasks.v = append(e.tasks.v, st.Tasks)
		for d := range e.demand {
			e.demand[d].v = append(e.demand[d].v, st.Demand[d])
		}
		e.duration.v = append(e.duration.v, st.Duration)
		e.estimate.v = append(e.estimate.v, st.Estimate)
		e.taskDurations.appendI64(st.TaskDurations)
		e.parents.appendI32(st.Parents)
		e.rows++
	}
	return nil
}

// record wraps the accumulated columns as a record batch. The caller must release it and call
// reset once the record has been consumed.
func (e *encoder) record() arrow.Record {
	cols := make([]arrow.Array, 0, e.schema.NumFields())
	cols = append(cols,
		e.jobID.array(), e.name.array(), e.submit.array(), e.queue.array(), e.class.array(),
		e.priority.array(), e.weight.array(), e.user.array(), e.jobName.array(), e.logical.array(),
		e.deadline.array(), e.uKind.array(), e.uPriority.array(), e.uDecay.array(), e.uSlope.array(),
		e.uTarget.array(), e.pKind.array(), e.pHard.array(), e.pSlowdown.array(), e.numStages.array(), e.stage.array(), e.stageName.array(), e.tasks.array())
	for d := range e.demand {
		cols = append(cols, e.demand[d].array())
	}
	cols = append(cols, e.duration.array(), e.estimate.array(), e.taskDurations.array(), e.parents.array())
	rec := array.NewRecord(e.schema, cols, int64(e.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func (e *encoder) reset() {
	e.rows = 0
	for _, c := range []*i64Col{&e.jobID, &e.submit, &e.priority, &e.deadline, &e.uTarget, &e.duration, &e.estimate} {
		c.v = c.v[:0]
	}
	for d := range e.demand {
		e.demand[d].v = e.demand[d].v[:0]
	}
	for _, c := range []*f64Col{&e.weight, &e.uPriority, &e.uDecay, &e.uSlope, &e.pSlowdown} {
		c.v = c.v[:0]
	}
	for _, c := range []*i32Col{&e.numStages, &e.stage, &e.tasks} {
		c.v = c.v[:0]
	}
	for _, c := range []*strCol{&e.name, &e.queue, &e.class, &e.user, &e.jobName, &e.logical, &e.uKind, &e.stageName, &e.pKind} {
		c.reset()
	}
	e.pHard.reset()
	e.taskDurations.reset()
	e.parents.reset()
}
