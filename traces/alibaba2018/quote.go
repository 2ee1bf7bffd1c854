package alibaba2018

import (
	"bytes"
	"io"
)

// quoteGuard passes a batch_task stream through and fails at the end of the first line that
// leaves a quote open. No field of the trace spans lines, so such a quote never closes, and
// encoding/csv would read (and hold) the rest of the file looking for its close.
type quoteGuard struct {
	r     io.Reader
	line  int  // the current line, 1-based
	open  bool // a quote is open on the current line
	field int  // the current field's index on the line, counting commas outside quotes
	at    int  // the field whose quote is open
	err   error
}

// openQuote is quoteGuard's error: line's field (0-based) opened a quote the line never closed.
type openQuote struct{ line, field int }

func (e *openQuote) Error() string { return "unterminated quote" }

func (g *quoteGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if !g.open && bytes.IndexByte(p[:n], '"') < 0 { // the trace's own data: no quote at all
		if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
			g.line += bytes.Count(p[:n], []byte{'\n'})
			g.field = bytes.Count(p[i+1:n], []byte{','})
		} else {
			g.field += bytes.Count(p[:n], []byte{','})
		}
		return n, err
	}
	for i, b := range p[:n] {
		switch {
		case b == '"':
			if g.open = !g.open; g.open {
				g.at = g.field
			}
		case b == ',' && !g.open:
			g.field++
		case b == '\n':
			if g.open {
				g.err = &openQuote{line: g.line + 1, field: g.at}
				return i + 1, g.err
			}
			g.line++
			g.field = 0
		}
	}
	if err == io.EOF && g.open {
		g.err = &openQuote{line: g.line + 1, field: g.at}
		return n, g.err
	}
	return n, err
}
