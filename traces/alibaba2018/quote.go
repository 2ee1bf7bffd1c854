package alibaba2018

import (
	"bytes"
	"fmt"
	"io"
)

// maxLine bounds a line's length; the trace's lines are under 200 bytes.
const maxLine = 64 << 10

// quoteGuard passes a batch_task stream through and fails at the end of the first line that
// leaves a quote open, or past maxLine bytes of one line. No field of the trace spans lines, so
// such a quote never closes, and encoding/csv would read (and hold) the rest of the file looking
// for its close, as it would hold a line of any length.
type quoteGuard struct {
	r     io.Reader
	line  int  // the current line, 1-based once started
	col   int  // bytes of the current line so far
	open  bool // a quote is open on the current line
	field int  // the current field's index on the line, counting commas outside quotes
	at    int  // the field whose quote is open
	err   error
}

// lineError is quoteGuard's error at a line; field is the 0-based index of the field whose
// quote is open, or -1.
type lineError struct {
	line, field int
	msg         string
}

func (e *lineError) Error() string { return e.msg }

func (g *quoteGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	chunk := p[:n]
	// The trace's own data: no quote, and lines short enough for this check.
	if !g.open && n <= maxLine && bytes.IndexByte(chunk, '"') < 0 {
		first := bytes.IndexByte(chunk, '\n')
		if first < 0 {
			first = n
		}
		if g.col+first <= maxLine {
			if last := bytes.LastIndexByte(chunk, '\n'); last >= 0 {
				g.line += bytes.Count(chunk, []byte{'\n'})
				g.col, g.field = n-last-1, bytes.Count(chunk[last+1:], []byte{','})
			} else {
				g.col += n
				g.field += bytes.Count(chunk, []byte{','})
			}
			return n, err
		}
	}
	for i, b := range chunk {
		switch {
		case b == '\n':
			if g.open {
				g.err = &lineError{g.line + 1, g.at, "unterminated quote (no field of the trace spans lines)"}
				return i + 1, g.err
			}
			g.line++
			g.col, g.field = 0, 0
			continue
		case b == '"':
			if g.open = !g.open; g.open {
				g.at = g.field
			}
		case b == ',' && !g.open:
			g.field++
		}
		if g.col++; g.col > maxLine {
			g.err = &lineError{g.line + 1, -1, fmt.Sprintf("line longer than %d bytes", maxLine)}
			return i, g.err
		}
	}
	if err == io.EOF && g.open {
		g.err = &lineError{g.line + 1, g.at, "unterminated quote (no field of the trace spans lines)"}
		return n, g.err
	}
	return n, err
}
