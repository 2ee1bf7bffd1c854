package google2011

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/klauspost/compress/gzip"

	"github.com/schedlab/schedlab/traces"
)

// maxLine bounds a line's length; real lines are under 300 bytes.
const maxLine = 64 << 10

// lineReader yields the fields of each line of a sequence of CSV or gzip-compressed CSV files,
// without allocating per line. Gzip is detected from the content (magic 1f 8b), not the name.
//
// Reading and decompressing run ahead on a goroutine of their own, a few chunks ahead of the
// parser, so on a machine with a second core decompression overlaps with everything else.
type lineReader struct {
	table  string
	names  []string // field names, len = expected field count
	files  []string
	opener func(name string) (io.ReadCloser, error) // os.Open, or a test hook

	started bool
	chunks  chan chunk
	free    chan []byte
	done    chan struct{}
	pipe    pipe
	carry   []byte // the start of a line split across chunks

	fi     int // index of the current file, -1 before the first
	name   string
	line   int64 // line number of the last line returned
	rows   int64 // non-blank lines in the current file
	fields [][]byte

	gzBytes  int64 // bytes of gzip files read, for throughput figures
	allLines int64
	lastTime traces.Time
	// timed is 0 before the first time is parsed, then 2 if the input's first event is at time
	// 0 (the input begins at the trace's beginning, see fromStart), else 1.
	timed int8
}

// fromStart reports whether the table's input begins at the beginning of the trace: its first
// event is at time 0 (BeforeWindow), as part 0 of every table begins. Such an input holds every
// job's and task's whole history, SUBMIT first.
func (r *lineReader) fromStart() bool { return r.timed == 2 }

// chunkSize is the unit of decompressed data handed from the reading goroutine to the parser;
// chunksAhead chunks may be in flight.
const (
	chunkSize   = 256 << 10
	chunksAhead = 4
)

// chunk is a piece of a file's decompressed content, or the end of a file, or an error.
type chunk struct {
	data    []byte
	eof     bool
	gzBytes int64 // the file's compressed size if it was gzip, with its first chunk (or eof)
	err     string
	opening bool // err happened opening the file (not at a line)
}

func newLineReader(table string, names []string, files []string) *lineReader {
	return &lineReader{table: table, names: names, files: files, fields: make([][]byte, 0, len(names)+1), fi: -1,
		opener: func(name string) (io.ReadCloser, error) { return os.Open(name) }}
}

// errf builds a ParseError at the current line; field is an index into names, or -1.
func (r *lineReader) errf(field int, format string, args ...any) error {
	e := &ParseError{File: r.name, Line: r.line, Msg: fmt.Sprintf(format, args...)}
	if field >= 0 {
		e.Field = r.names[field]
	}
	return e
}

// close stops the reading goroutine. It must be called once the reader is no longer needed.
func (r *lineReader) close() {
	if r.started && r.done != nil {
		close(r.done)
		r.done = nil
	}
}

func (r *lineReader) start() {
	r.started = true
	r.chunks = make(chan chunk, chunksAhead)
	r.free = make(chan []byte, chunksAhead+2)
	for range chunksAhead + 2 {
		r.free <- make([]byte, chunkSize)
	}
	r.done = make(chan struct{})
	r.pipe.r = r
	go produce(r.files, r.opener, r.chunks, r.free, r.done)
}

// produce reads and decompresses files in order, sending their content to chunks. It stops at
// the first error or when done is closed.
func produce(files []string, opener func(string) (io.ReadCloser, error), chunks chan<- chunk, free chan []byte, done <-chan struct{}) {
	defer close(chunks)
	send := func(c chunk) bool {
		select {
		case chunks <- c:
			return true
		case <-done:
			return false
		}
	}
	raw := bufio.NewReaderSize(nil, 256<<10)
	var gz *gzip.Reader
	for _, name := range files {
		f, err := opener(name)
		if err != nil {
			send(chunk{err: err.Error(), opening: true})
			return
		}
		ok := func() bool {
			defer f.Close()
			raw.Reset(f)
			var src io.Reader = raw
			var gzBytes int64
			if head, _ := raw.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
				switch fi := f.(type) {
				case *os.File:
					if st, err := fi.Stat(); err == nil {
						gzBytes = st.Size()
					}
				case interface{ Size() int64 }: // in-memory content (tests, fuzzing)
					gzBytes = fi.Size()
				}
				// Streamed from raw: klauspost/compress reads a *bufio.Reader without another
				// buffer in between. Reading a part whole into memory first would save only
				// 2-3% of the inflating CPU time (BenchmarkGunzip).
				var err error
				if gz == nil {
					gz, err = gzip.NewReader(raw)
				} else {
					err = gz.Reset(raw)
				}
				if err != nil {
					send(chunk{err: "gzip: " + gzipMsg(err), opening: true})
					return false
				}
				src = gz
			}
			for {
				var buf []byte
				select {
				case buf = <-free:
				case <-done:
					return false
				}
				n, err := fill(src, buf)
				if n > 0 && !send(chunk{data: buf[:n], gzBytes: gzBytes}) {
					return false
				}
				if n > 0 {
					gzBytes = 0 // counted once, with the file's first chunk
				}
				if n == 0 {
					free <- buf
				}
				switch {
				case err == nil:
				case err == io.EOF:
					return send(chunk{eof: true, gzBytes: gzBytes})
				case src == io.Reader(raw):
					send(chunk{err: err.Error()})
					return false
				default:
					send(chunk{err: "gzip: " + gzipMsg(err)})
					return false
				}
			}
		}()
		if !ok {
			return
		}
	}
}

// fill reads into buf until it is full or src returns an error (io.EOF at a clean end).
func fill(src io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := src.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// pipe is the io.Reader of one file's content, fed by the reading goroutine.
type pipe struct {
	r       *lineReader
	cur     []byte
	buf     []byte
	eof     bool
	err     string
	opening bool
}

// errPipe signals that the reading goroutine reported an error (in pipe.err).
var errPipe = errors.New("input error")

// fetch releases the current chunk and waits for the next piece of the current file. It reports
// false at the end of the file (p.eof) or on an error (p.err).
func (p *pipe) fetch() bool {
	if p.buf != nil {
		p.r.free <- p.buf[:cap(p.buf)]
		p.buf, p.cur = nil, nil
	}
	if p.eof || p.err != "" {
		return false
	}
	c, ok := <-p.r.chunks
	switch {
	case !ok:
		p.err = "input ended unexpectedly"
	case c.err != "":
		p.err, p.opening = c.err, c.opening
	case c.eof:
		p.eof = true
		p.r.gzBytes += c.gzBytes
	default:
		p.buf, p.cur = c.data, c.data
		p.r.gzBytes += c.gzBytes
		return true
	}
	return false
}

// open moves to the next file.
func (r *lineReader) open() {
	if !r.started {
		r.start()
	}
	r.fi++
	r.name = r.files[r.fi]
	r.line, r.rows = 0, 0
	r.pipe.eof, r.pipe.err, r.pipe.opening = false, "", false
	r.carry = r.carry[:0]
}

func gzipMsg(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of compressed data (truncated file?)"
	case errors.Is(err, gzip.ErrChecksum):
		return "checksum mismatch (corrupt file)"
	case errors.Is(err, gzip.ErrHeader):
		return "invalid header (not a gzip file?)"
	}
	return err.Error()
}

// next returns the fields of the next non-blank line, or io.EOF after the last file.
func (r *lineReader) next() ([][]byte, error) {
	for {
		if r.fi < 0 || r.pipe.eof && len(r.pipe.cur) == 0 && len(r.carry) == 0 {
			if r.fi >= 0 && r.rows == 0 {
				return nil, &ParseError{File: r.name, Msg: "empty file (no rows)"}
			}
			if r.fi+1 >= len(r.files) {
				return nil, io.EOF
			}
			r.open()
		}
		// The lines are parsed in place in the decompressed chunks; only a line split across
		// two chunks is assembled in carry.
		var b []byte
		if i := bytes.IndexByte(r.pipe.cur, '\n'); i >= 0 && len(r.carry) == 0 {
			b = r.pipe.cur[:i]
			r.pipe.cur = r.pipe.cur[i+1:]
			if i >= maxLine {
				return nil, &ParseError{File: r.name, Line: r.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
			}
		} else {
			r.carry = r.carry[:0]
			for {
				if i := bytes.IndexByte(r.pipe.cur, '\n'); i >= 0 {
					r.carry = append(r.carry, r.pipe.cur[:i]...)
					r.pipe.cur = r.pipe.cur[i+1:]
					if len(r.carry) >= maxLine {
						return nil, &ParseError{File: r.name, Line: r.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
					}
					break
				}
				r.carry = append(r.carry, r.pipe.cur...)
				r.pipe.cur = nil
				if len(r.carry) >= maxLine {
					return nil, &ParseError{File: r.name, Line: r.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
				}
				if !r.pipe.fetch() {
					if r.pipe.err != "" {
						switch {
						case r.pipe.opening:
							return nil, &ParseError{File: r.name, Msg: r.pipe.err}
						default:
							return nil, &ParseError{File: r.name, Line: r.line + 1, Msg: r.pipe.err}
						}
					}
					break // end of file: the last line has no newline
				}
			}
			b = r.carry
			r.carry = r.carry[:0] // b stays valid until the next call
			if len(b) == 0 && r.pipe.eof && len(r.pipe.cur) == 0 {
				continue // end of file: handled at the top of the loop
			}
		}
		r.line++
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		if len(b) == 0 {
			continue
		}
		r.rows++
		r.allLines++
		f := r.fields[:0]
		if bytes.IndexByte(b, '"') >= 0 {
			var err error
			if f, err = r.splitQuoted(f, b); err != nil {
				return nil, err
			}
		} else {
			for {
				i := bytes.IndexByte(b, ',')
				if i < 0 {
					f = append(f, b)
					break
				}
				f = append(f, b[:i])
				b = b[i+1:]
			}
		}
		r.fields = f
		if r.rows == 1 && looksLikeHeader(f[0]) {
			return nil, r.errf(-1, "unexpected header line %q (%s files have no header)", clip(f), r.table)
		}
		if len(f) != len(r.names) {
			return nil, r.errf(-1, "%d fields, want %d (%s)", len(f), len(r.names), r.table)
		}
		return f, nil
	}
}

// splitQuoted splits a line holding a quote into fields as CSV (RFC 4180) quotes them: a field
// that starts with a quote ends at the next lone quote, and a doubled quote inside it stands for
// one. The trace itself quotes nothing (its strings are base64 hashes), so this serves CSV files
// that went through other tools. A quoted field spanning lines is not supported: the line's end
// inside quotes is an unterminated quote. Fields are unquoted in place in b.
func (r *lineReader) splitQuoted(f [][]byte, b []byte) ([][]byte, error) {
	for {
		i := len(f)
		if len(b) == 0 || b[0] != '"' {
			field, rest, more := bytes.Cut(b, []byte{','})
			if bytes.IndexByte(field, '"') >= 0 {
				return nil, r.fieldErr(i, "quote inside an unquoted field %q (quote the whole field and double the quotes in it)", field)
			}
			f = append(f, field)
			if !more {
				return f, nil
			}
			b = rest
			continue
		}
		w, k := 0, 1 // the content is copied down over the opening quote
		for {
			j := bytes.IndexByte(b[k:], '"')
			if j < 0 {
				return nil, r.fieldErr(i, "unterminated quote: the field opened with a quote has no closing quote on this line")
			}
			w += copy(b[w:], b[k:k+j])
			k += j + 1
			if k < len(b) && b[k] == '"' { // a doubled quote
				b[w] = '"'
				w, k = w+1, k+1
				continue
			}
			break
		}
		f = append(f, b[:w])
		switch {
		case k == len(b):
			return f, nil
		case b[k] != ',':
			return nil, r.fieldErr(i, "text after the closing quote of a quoted field")
		}
		b = b[k+1:]
	}
}

// fieldErr is errf for a field index that may lie beyond the table's fields (a line with too
// many).
func (r *lineReader) fieldErr(i int, format string, args ...any) error {
	if i < len(r.names) {
		return r.errf(i, format, args...)
	}
	return r.errf(-1, "field %d (of %d): %s", i+1, len(r.names), fmt.Sprintf(format, args...))
}

// clip renders the start of a line for an error message.
func clip(f [][]byte) string {
	s := string(bytes.Join(f, []byte{','}))
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

// looksLikeHeader reports whether a first field is a column name rather than a time: non-empty
// and without any digit.
func looksLikeHeader(b []byte) bool {
	return len(b) > 0 && bytes.IndexAny(b, "0123456789") < 0
}

// time parses a mandatory time field, checking that times never go backwards within the table.
func (r *lineReader) time(f [][]byte, i int) (traces.Time, error) {
	t, err := r.uint(f, i, true)
	if err != nil {
		return 0, err
	}
	if t < r.lastTime {
		return 0, r.errf(i, "%d is earlier than the previous event's %d (give the parts of a table in order)", t, r.lastTime)
	}
	if r.timed == 0 {
		r.timed = 1
		if t == BeforeWindow {
			r.timed = 2
		}
	}
	r.lastTime = t
	return t, nil
}

// uint parses a non-negative int64 field; an empty optional field gives -1.
func (r *lineReader) uint(f [][]byte, i int, mandatory bool) (int64, error) {
	b := f[i]
	if len(b) == 0 {
		if mandatory {
			return 0, r.errf(i, "missing (mandatory field)")
		}
		return -1, nil
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return r.badUint(i, b)
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, r.errf(i, "%s overflows a 64-bit integer", b)
		}
		n = n*10 + d
	}
	return n, nil
}

// badUint explains why field i, b, is not a non-negative integer.
func (r *lineReader) badUint(i int, b []byte) (int64, error) {
	if len(b) > 1 && b[0] == '-' && isDigits(b[1:]) {
		return 0, r.errf(i, "negative value %s", b)
	}
	return 0, r.errf(i, "not an integer: %q", b)
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// small parses an optional small integer field in [lo, hi]; empty gives -1.
func (r *lineReader) small(f [][]byte, i int, lo, hi int64, mandatory bool) (int64, error) {
	v, err := r.uint(f, i, mandatory)
	if err != nil || v == -1 && !mandatory {
		return v, err
	}
	if v < lo || v > hi {
		return 0, r.errf(i, "%d outside %d..%d", v, lo, hi)
	}
	return v, nil
}

func (r *lineReader) eventType(f [][]byte, i int) (EventType, error) {
	v, err := r.uint(f, i, true)
	if err != nil {
		return 0, err
	}
	if v > int64(UpdateRunning) {
		return 0, r.errf(i, "unknown event type %d (0-8 in the 2011 trace)", v)
	}
	return EventType(v), nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// float parses an optional non-negative float field; empty gives NaN. Short decimals such as
// "0.0625" or "3.815e-06" take an exact fast path (mantissa < 2^53 and one multiplication or
// division by an exact power of ten is correctly rounded); anything else goes to strconv.
func (r *lineReader) float(f [][]byte, i int) (float64, error) {
	b := f[i]
	if len(b) == 0 {
		return math.NaN(), nil
	}
	if v, ok := fastFloat(b); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err != nil:
		return 0, r.errf(i, "not a number: %q", b)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, r.errf(i, "not a finite number: %q", b)
	case v < 0:
		return 0, r.errf(i, "negative value %s", b)
	}
	return v, nil
}

// amount parses an optional non-negative resource amount (a request or a capacity, a fraction of
// the largest machine), checking that it converts to fixed point (traces.CheckedAmount): a value
// too large for that is an error wrapping traces.ErrRange, not a clamp. Empty gives NaN.
func (r *lineReader) amount(f [][]byte, i int) (float64, error) {
	v, err := r.float(f, i)
	if err != nil || math.IsNaN(v) {
		return v, err
	}
	if _, err := traces.CheckedAmount(v); err != nil {
		e := r.errf(i, "%v (amounts are fractions of the largest machine)", err).(*ParseError)
		e.Err = err
		return 0, e
	}
	return v, nil
}

func fastFloat(b []byte) (float64, bool) {
	var mant uint64
	digits, exp, k := 0, 0, 0
	for ; k < len(b) && b[k] >= '0' && b[k] <= '9'; k++ {
		mant = mant*10 + uint64(b[k]-'0')
		digits++
	}
	if k < len(b) && b[k] == '.' {
		k++
		for ; k < len(b) && b[k] >= '0' && b[k] <= '9'; k++ {
			mant = mant*10 + uint64(b[k]-'0')
			digits++
			exp--
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	if k < len(b) && (b[k] == 'e' || b[k] == 'E') {
		k++
		neg := false
		if k < len(b) && (b[k] == '-' || b[k] == '+') {
			neg = b[k] == '-'
			k++
		}
		e, n := 0, 0
		for ; k < len(b) && b[k] >= '0' && b[k] <= '9' && n < 4; k++ {
			e = e*10 + int(b[k]-'0')
			n++
		}
		if n == 0 {
			return 0, false
		}
		if neg {
			e = -e
		}
		exp += e
	}
	if k != len(b) || mant >= 1<<53 {
		return 0, false
	}
	switch {
	case exp == 0:
		return float64(mant), true
	case exp > 0 && exp < len(pow10):
		return float64(mant) * pow10[exp], true
	case exp < 0 && -exp < len(pow10):
		return float64(mant) / pow10[-exp], true
	}
	return 0, false
}
