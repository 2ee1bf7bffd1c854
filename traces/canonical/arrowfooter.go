package canonical

import (
	"encoding/binary"
	"fmt"
	"io"

	flatbuffers "github.com/google/flatbuffers/go"
)

// checkArrowFooter checks the sizes in an Arrow IPC file's footer against the file before the
// Arrow library reads it: the library allocates a slice per vector of the footer (the schema's
// fields, their children, the metadata) by the length the vector states, so one flipped byte
// there asks for gigabytes, a fatal out-of-memory no recover catches. Every vector must fit in
// the footer, and every record batch and dictionary block in the file. Reading out of bounds
// panics instead, which the reader turns into an error.
//
// The footer is a flatbuffer (Arrow's File.fbs): Footer{version, schema, dictionaries: [Block],
// recordBatches: [Block], custom_metadata}, Schema{endianness, fields, custom_metadata,
// features}, Field{name, nullable, type_type, type, dictionary, children, custom_metadata}.
func checkArrowFooter(ra io.ReaderAt, size int64) error {
	const tail = 4 + 6 // footer length, "ARROW1"
	if size < 8+tail {
		return fmt.Errorf("arrow footer: file of %d bytes", size)
	}
	var t [4]byte
	if _, err := ra.ReadAt(t[:], size-tail); err != nil {
		return fmt.Errorf("arrow footer: %w", err)
	}
	n := int64(int32(binary.LittleEndian.Uint32(t[:])))
	if n <= 0 || n > size-tail-8 {
		return fmt.Errorf("arrow footer: length %d in a file of %d bytes", n, size)
	}
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-tail-n); err != nil {
		return fmt.Errorf("arrow footer: %w", err)
	}
	root := flatbuffers.GetUOffsetT(buf)
	footer := &flatbuffers.Table{Bytes: buf, Pos: root}
	vec := func(t *flatbuffers.Table, field int, elem int64, what string) (flatbuffers.UOffsetT, int, error) {
		o := flatbuffers.UOffsetT(t.Offset(flatbuffers.VOffsetT(4 + 2*field)))
		if o == 0 {
			return 0, 0, nil
		}
		start := t.Vector(o)
		n := t.VectorLen(o)
		if int64(start) > int64(len(buf)) || int64(n)*elem > int64(len(buf))-int64(start) {
			return 0, 0, fmt.Errorf("arrow footer: %s: %d entries do not fit in a footer of %d bytes", what, n, len(buf))
		}
		return start, n, nil
	}
	table := func(t *flatbuffers.Table, field int) *flatbuffers.Table {
		o := flatbuffers.UOffsetT(t.Offset(flatbuffers.VOffsetT(4 + 2*field)))
		if o == 0 {
			return nil
		}
		return &flatbuffers.Table{Bytes: buf, Pos: t.Indirect(o + t.Pos)}
	}
	for _, f := range []struct {
		field int
		what  string
	}{{2, "dictionaries"}, {3, "record batches"}} {
		start, n, err := vec(footer, f.field, 24, f.what)
		if err != nil {
			return err
		}
		for i := range n {
			b := buf[int(start)+24*i:]
			off, meta, body := int64(binary.LittleEndian.Uint64(b)), int64(int32(binary.LittleEndian.Uint32(b[8:]))), int64(binary.LittleEndian.Uint64(b[16:]))
			if off < 0 || meta < 0 || body < 0 || off > size || meta > size-off || body > size-off-meta {
				return fmt.Errorf("arrow footer: %s %d: block at %d of %d+%d bytes outside the file of %d bytes", f.what, i, off, meta, body, size)
			}
		}
	}
	if _, _, err := vec(footer, 4, 4, "custom metadata"); err != nil {
		return err
	}
	schema := table(footer, 1)
	if schema == nil {
		return nil // the library reports the missing schema
	}
	if _, _, err := vec(schema, 2, 4, "schema metadata"); err != nil {
		return err
	}
	if _, _, err := vec(schema, 3, 8, "schema features"); err != nil {
		return err
	}
	var fields func(t *flatbuffers.Table, field int, depth int) error
	fields = func(t *flatbuffers.Table, field int, depth int) error {
		if depth > 64 {
			return fmt.Errorf("arrow footer: fields nested more than 64 deep")
		}
		start, n, err := vec(t, field, 4, "fields")
		if err != nil {
			return err
		}
		for i := range n {
			pos := start + flatbuffers.UOffsetT(4*i)
			f := &flatbuffers.Table{Bytes: buf, Pos: pos + flatbuffers.GetUOffsetT(buf[pos:])}
			if _, _, err := vec(f, 6, 4, "field metadata"); err != nil {
				return err
			}
			if err := fields(f, 5, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fields(schema, 1, 0)
}
