package canonical

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/schedlab/schedlab/traces"
)

// Columns are accumulated in plain Go slices and wrapped as Arrow buffers without copying when a
// batch is flushed; the slices are reused for the next batch once the sink has consumed it (both
// the IPC and the Parquet writer serialize a record before Write returns).

// push appends x to s, doubling s's capacity when it is full. A batch's columns grow to tens of
// thousands of values each; append grows large slices by only 1.25x, and the repeated copying and
// zeroing of fresh memory cost about a tenth of the Writer's time before this.
func push[T any](s []T, x T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 256))
	}
	return append(s, x)
}

// pushBytes appends b to s, doubling s's capacity when b does not fit.
func pushBytes(s, b []byte) []byte {
	if cap(s)-len(s) < len(b) {
		s = slices.Grow(s, max(len(s), len(b), 4096))
	}
	return append(s, b...)
}

// Numeric columns accumulate their values in v. In dictionary mode (d != nil, for Parquet's
// dictionary-encoded columns) array indexes them when the batch is flushed: d.keys gets the bits
// of the distinct values in order of first appearance and d.idx each row's index, for the same
// reason as strCol's: pqarrow then hashes each distinct value once per row group instead of every
// value. Building the dictionary in one tight loop per batch keeps add a plain (inlined) append.
// Values are told apart by their bits (a NaN payload or -0 that Parquet's own dictionary would
// merge makes pqarrow fall back to plain encoding, which is still exact).

type i64Col struct {
	v []int64
	d *numDict
}

func (c *i64Col) add(x int64) { c.v = append(c.v, x) }

func (c *i64Col) reset() { c.v = c.v[:0]; c.d.reset() }

func (c *i64Col) array() arrow.Array {
	v := c.v
	if c.d != nil {
		c.d.build(len(v), func(i int) uint64 { return uint64(v[i]) })
		v = arrow.Int64Traits.CastFromBytes(arrow.Uint64Traits.CastToBytes(c.d.keys))
	}
	return c.d.wrap(array.NewData(arrow.PrimitiveTypes.Int64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v))}, nil, 0, 0))
}

type i32Col struct {
	v []int32
	d *numDict
}

func (c *i32Col) add(x int32) { c.v = append(c.v, x) }

func (c *i32Col) reset() { c.v = c.v[:0]; c.d.reset() }

func (c *i32Col) array() arrow.Array {
	v := c.v
	if c.d != nil {
		c.d.build(len(v), func(i int) uint64 { return uint64(uint32(v[i])) })
		v = c.d.i32[:0]
		for _, k := range c.d.keys {
			v = append(v, int32(uint32(k)))
		}
		c.d.i32 = v
	}
	return c.d.wrap(array.NewData(arrow.PrimitiveTypes.Int32, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(v))}, nil, 0, 0))
}

type f64Col struct {
	v []float64
	d *numDict
}

func (c *f64Col) add(x float64) { c.v = append(c.v, x) }

func (c *f64Col) reset() { c.v = c.v[:0]; c.d.reset() }

func (c *f64Col) array() arrow.Array {
	v := c.v
	if c.d != nil {
		c.d.build(len(v), func(i int) uint64 { return math.Float64bits(v[i]) })
		v = arrow.Float64Traits.CastFromBytes(arrow.Uint64Traits.CastToBytes(c.d.keys))
	}
	return c.d.wrap(array.NewData(arrow.PrimitiveTypes.Float64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(v))}, nil, 0, 0))
}

// numDict maps a numeric column's values (as bits) to dictionary indices: an open-addressing
// table with Fibonacci hashing, behind a check for the previous row's value, which is the common
// case (constant or slowly varying columns).
type numDict struct {
	idx   []int32 // each row's index
	keys  []uint64
	slots []int32 // 1 + index; 0: empty
	shift uint
	i32   []int32 // an int32 column's dictionary values, from keys
}

// build indexes the n values whose bits key returns.
func (d *numDict) build(n int, key func(i int) uint64) {
	d.idx, d.keys = d.idx[:0], d.keys[:0]
	clear(d.slots)
	last, lastK := uint64(0), int32(-1)
	for i := range n {
		k := key(i)
		if k == last && lastK >= 0 { // the common case: the previous row's value
			d.idx = append(d.idx, lastK)
			continue
		}
		d.index(k)
		last, lastK = k, d.idx[len(d.idx)-1]
	}
}

// index appends key's index to d.idx, adding key to the dictionary if it is new, and reports
// whether it was.
func (d *numDict) index(key uint64) bool {
	if n := len(d.idx); n > 0 {
		if k := d.idx[n-1]; d.keys[k] == key {
			d.idx = push(d.idx, k)
			return false
		}
	}
	if 2*(len(d.keys)+1) > len(d.slots) {
		d.grow()
	}
	mask := uint64(len(d.slots) - 1)
	for i := (key * 0x9e3779b97f4a7c15) >> d.shift; ; i = (i + 1) & mask {
		e := d.slots[i]
		if e == 0 {
			k := int32(len(d.keys))
			d.slots[i] = k + 1
			d.keys = append(d.keys, key)
			d.idx = push(d.idx, k)
			return true
		}
		if d.keys[e-1] == key {
			d.idx = push(d.idx, e-1)
			return false
		}
	}
}

func (d *numDict) grow() {
	n := max(256, 2*len(d.slots))
	d.slots = make([]int32, n)
	d.shift = uint(64 - bits.Len(uint(n-1)))
	mask := uint64(n - 1)
	for k, key := range d.keys {
		i := (key * 0x9e3779b97f4a7c15) >> d.shift
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = int32(k) + 1
	}
}

func (d *numDict) reset() {
	if d != nil {
		d.idx, d.keys = d.idx[:0], d.keys[:0]
		clear(d.slots)
	}
}

// wrap returns values as an array, or in dictionary mode the dictionary array of d's indices
// into values.
func (d *numDict) wrap(values *array.Data) arrow.Array {
	if d == nil {
		defer values.Release()
		return array.MakeFromData(values)
	}
	return dictArray(values, d.idx, nil, 0)
}

// dictArray returns the int32-indexed dictionary array of idx into values, with validity bitmap
// valid (nil: no nulls) holding nulls nulls. It releases values.
func dictArray(values *array.Data, idx []int32, valid *memory.Buffer, nulls int) arrow.Array {
	defer values.Release()
	data := array.NewData(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: values.DataType()}, len(idx),
		[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nil, nulls, 0)
	data.SetDictionary(values)
	defer data.Release()
	return array.NewDictionaryData(data)
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

// strCol is a utf8 column. In dictionary mode (dict != nil, for Parquet) offsets and data hold the
// batch's distinct values in order of first appearance and idx each row's value, so the column
// is handed to pqarrow as a dictionary array: pqarrow then hashes each distinct value once per
// row group (PutDictionary) instead of every value, and only copies the indices. The resulting
// file is the same as if pqarrow had built the dictionary itself, which also numbers values by
// first appearance.
type strCol struct {
	offsets  []int32
	data     []byte
	nullable bool
	valid    validity
	dict     *strDict
	idx      []int32
}

func (c *strCol) start() {
	if len(c.offsets) == 0 {
		c.offsets = append(c.offsets, 0)
	}
}

// appendBytes appends the string b (which the column does not keep).
func (c *strCol) appendBytes(b []byte) {
	c.start()
	if c.dict != nil {
		c.idx = push(c.idx, c.dict.index(c, b))
	} else {
		c.data = pushBytes(c.data, b)
		c.offsets = push(c.offsets, int32(len(c.data)))
	}
	if c.nullable {
		c.valid.append(true)
	}
}

func (c *strCol) appendNull() {
	c.start()
	if c.dict != nil {
		c.idx = push(c.idx, 0)
	} else {
		c.offsets = push(c.offsets, int32(len(c.data)))
	}
	c.valid.append(false)
}

func (c *strCol) reset() {
	c.offsets, c.data, c.idx = c.offsets[:0], c.data[:0], c.idx[:0]
	c.valid.reset()
	if c.dict != nil {
		c.dict.reset()
	}
}

func (c *strCol) array() arrow.Array {
	c.start()
	if c.dict == nil {
		n := len(c.offsets) - 1
		return array.NewStringData(array.NewData(arrow.BinaryTypes.String, n,
			[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offsets)), memory.NewBufferBytes(c.data)},
			nil, c.valid.nulls, 0))
	}
	values := array.NewData(arrow.BinaryTypes.String, len(c.offsets)-1,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offsets)), memory.NewBufferBytes(c.data)},
		nil, 0, 0)
	return dictArray(values, c.idx, c.valid.buffer(), c.valid.nulls)
}

// strDict is an open-addressing hash table from a dictionary-mode column's values to their
// indices. It stores 32 bits of each value's hash, which choose the slot and rule out most
// mismatches before the bytes are compared. Only the table layout depends on maphash's random
// seed, never the indices, so output stays deterministic.
type strDict struct {
	seed   maphash.Seed
	slots  []int32  // 1 + value index; 0: empty
	hashes []uint32 // by value index
}

func newStrDict() *strDict { return &strDict{seed: maphash.MakeSeed()} }

func (d *strDict) reset() {
	clear(d.slots)
	d.hashes = d.hashes[:0]
}

// index returns b's index among c's values, adding it if new.
func (d *strDict) index(c *strCol, b []byte) int32 {
	if 2*(len(d.hashes)+1) > len(d.slots) {
		d.grow()
	}
	h := uint32(maphash.Bytes(d.seed, b))
	mask := uint32(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := d.slots[i]
		if e == 0 {
			k := int32(len(d.hashes))
			d.slots[i] = k + 1
			d.hashes = append(d.hashes, h)
			c.data = pushBytes(c.data, b)
			c.offsets = push(c.offsets, int32(len(c.data)))
			return k
		}
		k := e - 1
		if d.hashes[k] == h && string(c.data[c.offsets[k]:c.offsets[k+1]]) == string(b) {
			return k
		}
	}
}

func (d *strDict) grow() {
	d.slots = make([]int32, max(1024, 2*len(d.slots)))
	mask := uint32(len(d.slots) - 1)
	for k, h := range d.hashes {
		i := h & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = int32(k) + 1
	}
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

func (c *listCol) appendNull() {
	c.start()
	c.offsets = append(c.offsets, int32(len(c.i64)+len(c.i32)))
	c.valid.append(false)
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
	attempts, evictions, outcomes                                  listCol // task histories

	scratch []byte // add's record of the job
}

// newEncoder returns an encoder for schema, whose string columns are dictionaries when they are
// so in schema (see sinkSchema).
func newEncoder(schema *arrow.Schema) *encoder {
	e := &encoder{schema: schema}
	e.uKind.nullable = true
	e.taskDurations.typ = schema.Field(schema.FieldIndices(ColTaskDurations)[0]).Type.(*arrow.ListType)
	e.parents.typ = schema.Field(schema.FieldIndices(ColParents)[0]).Type.(*arrow.ListType)
	for c, name := range map[*listCol]string{&e.attempts: ColTaskAttempts, &e.evictions: ColTaskEvictions, &e.outcomes: ColTaskOutcomes} {
		c.typ = schema.Field(schema.FieldIndices(name)[0]).Type.(*arrow.ListType)
	}
	isDict := func(name string) bool {
		return schema.Field(schema.FieldIndices(name)[0]).Type.ID() == arrow.DICTIONARY
	}
	for name, c := range map[string]*strCol{ColName: &e.name, ColQueue: &e.queue, ColClass: &e.class, ColUser: &e.user,
		ColJobName: &e.jobName, ColLogicalJobName: &e.logical, ColUtilityKind: &e.uKind, ColStageName: &e.stageName,
		ColPlacementKind: &e.pKind} {
		if isDict(name) {
			c.dict = newStrDict()
		}
	}
	i64s := map[string]*i64Col{ColJobID: &e.jobID, ColSubmit: &e.submit, ColPriority: &e.priority, ColDeadline: &e.deadline,
		ColUtilityTarget: &e.uTarget, ColDuration: &e.duration, ColEstimate: &e.estimate}
	for d := range e.demand {
		i64s[ColDemand(d)] = &e.demand[d]
	}
	for name, c := range i64s {
		if isDict(name) {
			c.d = new(numDict)
		}
	}
	for name, c := range map[string]*f64Col{ColWeight: &e.weight, ColUtilityPriority: &e.uPriority, ColUtilityDecay: &e.uDecay,
		ColUtilitySlope: &e.uSlope, ColPlacementSlowdown: &e.pSlowdown} {
		if isDict(name) {
			c.d = new(numDict)
		}
	}
	for name, c := range map[string]*i32Col{ColNumStages: &e.numStages, ColStage: &e.stage, ColTasks: &e.tasks} {
		if isDict(name) {
			c.d = new(numDict)
		}
	}
	return e
}

// byteBudget bounds the string and list payload of one batch, far below the 2 GiB that 32-bit
// Arrow offsets can address.
const byteBudget = 1 << 28

// dictBudget bounds a dictionary-mode column's distinct values per batch, like the Parquet
// dictionary page size limit the dense path respects.
const dictBudget = 8 << 20

// full reports whether the batch should be flushed before adding more rows.
func (e *encoder) full(batchRows int) bool {
	if e.rows >= batchRows {
		return true
	}
	for _, c := range [...]*strCol{&e.name, &e.queue, &e.class, &e.user, &e.jobName, &e.logical, &e.uKind, &e.stageName, &e.pKind} {
		if len(c.data) > byteBudget || (c.dict != nil && len(c.data) > dictBudget) {
			return true
		}
	}
	return len(e.taskDurations.i64) > byteBudget/8 || len(e.parents.i32) > byteBudget/4 || len(e.attempts.i32) > byteBudget/4
}

// add appends j's rows (one per stage, or one row for a job without stages).
func (e *encoder) add(j *traces.Job) error {
	if n := len(j.Stages); n > math.MaxInt32 {
		return fmt.Errorf("job %d: %d stages do not fit an int32", j.ID, n)
	}
	e.scratch = appendRecord(e.scratch[:0], j)
	return e.addRecord(e.scratch)
}

// addRecord appends the rows of the job serialized in rec (see appendRecord), decoding it
// straight into the columns.
func (e *encoder) addRecord(rec []byte) error {
	r := recReader{b: rec}
	submit, id := int64(r.fixed64()), int64(r.fixed64())
	name, queue, class := r.str(), r.str(), r.str()
	priority := r.i64()
	weight := r.f64()
	user, jobName, logical := r.str(), r.str(), r.str()
	deadline := r.i64()
	hasUtility := r.byte() == 1
	var (
		uKind                     []byte
		uPriority, uDecay, uSlope float64
		uTarget                   int64
		pKind                     []byte
		pHard                     bool
		pSlowdown                 float64
	)
	if hasUtility {
		uKind = r.str()
		uPriority, uDecay, uSlope = r.f64(), r.f64(), r.f64()
		uTarget = r.i64()
	}
	if r.byte() == 1 {
		pKind = r.str()
		pHard = r.byte() == 1
		pSlowdown = r.f64()
	}
	n, _ := r.optLen()
	if r.err != nil {
		return fmt.Errorf("job %d: sort record: %w", id, r.err)
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("job %d: %d stages do not fit an int32", id, n)
	}
	rows := max(n, 1)
	for s := 0; s < rows; s++ {
		e.jobID.add(id)
		e.name.appendBytes(name)
		e.submit.add(submit)
		e.queue.appendBytes(queue)
		e.class.appendBytes(class)
		e.priority.add(priority)
		e.weight.add(weight)
		e.user.appendBytes(user)
		e.jobName.appendBytes(jobName)
		e.logical.appendBytes(logical)
		e.deadline.add(deadline)
		if hasUtility {
			e.uKind.appendBytes(uKind)
		} else {
			e.uKind.appendNull()
		}
		e.uPriority.add(uPriority)
		e.uDecay.add(uDecay)
		e.uSlope.add(uSlope)
		e.uTarget.add(uTarget)
		e.pKind.appendBytes(pKind)
		e.pHard.append(pHard)
		e.pSlowdown.add(pSlowdown)
		e.numStages.add(int32(n))
		e.stage.add(int32(s))
		e.rows++
		if n == 0 {
			e.stageName.appendBytes(nil)
			e.tasks.add(0)
			for d := range e.demand {
				e.demand[d].add(0)
			}
			e.duration.add(0)
			e.estimate.add(0)
			e.taskDurations.appendNull()
			e.parents.appendNull()
			e.attempts.appendNull()
			e.evictions.appendNull()
			e.outcomes.appendNull()
			continue
		}
		e.stageName.appendBytes(r.str())
		e.tasks.add(int32(r.i64()))
		for d := range e.demand {
			e.demand[d].add(r.i64())
		}
		e.duration.add(r.i64())
		e.estimate.add(r.i64())
		c := &e.taskDurations
		c.start()
		k, ok := r.optLen()
		for range k {
			c.i64 = append(c.i64, r.i64())
		}
		c.offsets = push(c.offsets, int32(len(c.i64)))
		c.valid.append(ok)
		c = &e.parents
		c.start()
		k, ok = r.optLen()
		for range k {
			c.i32 = append(c.i32, int32(r.i64()))
		}
		c.offsets = push(c.offsets, int32(len(c.i32)))
		c.valid.append(ok)
		k, ok = r.optLen()
		hs := [3]*listCol{&e.attempts, &e.evictions, &e.outcomes}
		for _, c := range hs {
			c.start()
		}
		for range k {
			for _, c := range hs {
				c.i32 = append(c.i32, int32(r.i64()))
			}
		}
		for _, c := range hs {
			c.offsets = push(c.offsets, int32(len(c.i32)))
			c.valid.append(ok)
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes left over", len(r.b))
	}
	if r.err != nil {
		return fmt.Errorf("job %d: sort record: %w", id, r.err)
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
	cols = append(cols, e.duration.array(), e.estimate.array(), e.taskDurations.array(), e.parents.array(),
		e.attempts.array(), e.evictions.array(), e.outcomes.array())
	rec := array.NewRecord(e.schema, cols, int64(e.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func (e *encoder) reset() {
	e.rows = 0
	for _, c := range []*i64Col{&e.jobID, &e.submit, &e.priority, &e.deadline, &e.uTarget, &e.duration, &e.estimate} {
		c.reset()
	}
	for d := range e.demand {
		e.demand[d].reset()
	}
	for _, c := range []*f64Col{&e.weight, &e.uPriority, &e.uDecay, &e.uSlope, &e.pSlowdown} {
		c.reset()
	}
	for _, c := range []*i32Col{&e.numStages, &e.stage, &e.tasks} {
		c.reset()
	}
	for _, c := range []*strCol{&e.name, &e.queue, &e.class, &e.user, &e.jobName, &e.logical, &e.uKind, &e.stageName, &e.pKind} {
		c.reset()
	}
	e.pHard.reset()
	for _, c := range []*listCol{&e.taskDurations, &e.parents, &e.attempts, &e.evictions, &e.outcomes} {
		c.reset()
	}
}
