package alibaba2018

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCraftedBadInput reads the crafted files under testdata/bad: each is a *SyntaxError naming
// the file, the line where the problem is, the field and the reason — an unterminated quote at
// the row and field that opened it, a file none of whose jobs can be replayed, values out of
// range.
func TestCraftedBadInput(t *testing.T) {
	cases := []struct {
		file  string
		line  int
		field string
		msg   string
	}{
		{"unterminated-quote.csv", 2, "end_time", "unterminated quote"},
		{"quote-inside-field.csv", 2, "row", `bare " in non-quoted-field`},
		{"no-usable-job.csv", 1, "file", "no usable jobs: 3 skipped (parent task not in the job: 1; start_time 0 (outside the trace window): 1; status not Terminated: 1)"},
		{"plan-cpu-1e308.csv", 2, "plan_cpu", "1e+308 outside [0, 1e9]"},
		{"end-time-1e300.csv", 2, "end_time", "1e+300 s outside [0, 1e+09]"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", c.file)
			w, err := ReadFile(path, Options{})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v (%T), want a *SyntaxError (workload %v)", err, err, w != nil)
			}
			if se.File != path || se.Line != c.line || se.Field != c.field || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("error %q: want %s:%d: %s: ...%s...", err, path, c.line, c.field, c.msg)
			}
		})
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !covered[e.Name()] {
			t.Errorf("testdata/bad/%s has no case", e.Name())
		}
	}
}

// endless repeats a good row forever, counting the bytes read.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	const row = "M1,1,j_9,,Terminated,100,200,50,1.0\n"
	n := 0
	for n+len(row) <= len(p) {
		n += copy(p[n:], row)
	}
	e.read += int64(n)
	return n, nil
}

// TestOpenQuoteStopsReading: a quote left open is an error at its line as soon as the line
// ends — encoding/csv alone would read (and hold) the rest of a multi-gigabyte file looking for
// the close; here the rest never ends.
func TestOpenQuoteStopsReading(t *testing.T) {
	rest := &endless{}
	in := io.MultiReader(strings.NewReader("M1,1,j_1,,Terminated,100,200,50,1.0\nM1,1,j_2,,Terminated,100,\"200,50,1.0\n"), rest)
	_, _, err := Parse(in, "endless.csv", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Field != "end_time" || !strings.Contains(se.Msg, "unterminated quote") {
		t.Fatalf("err = %v, want endless.csv:2: end_time: unterminated quote", err)
	}
	if rest.read > 1<<20 {
		t.Errorf("read %d bytes past the open quote", rest.read)
	}
}

// TestLongLineStopsReading: a line that never ends is an error past maxLine bytes, not a line
// held whole.
func TestLongLineStopsReading(t *testing.T) {
	for _, tc := range []struct {
		name string
		fill byte
	}{{"commas", ','}, {"quotes", '"'}, {"text", 'x'}} {
		rest := &repeat{b: tc.fill}
		in := io.MultiReader(strings.NewReader("M1,1,j_1,,Terminated,100,200,50,1.0\nM1,1,j_2,"), rest)
		_, _, err := Parse(in, "long.csv", Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != 2 || se.Field != "row" || !strings.Contains(se.Msg, "line longer than 65536 bytes") {
			t.Errorf("%s: err = %v, want long.csv:2: row: line longer than 65536 bytes", tc.name, err)
		}
		if rest.read > 1<<20 {
			t.Errorf("%s: read %d bytes of one line", tc.name, rest.read)
		}
	}
}

// repeat is an endless run of one byte, counting the bytes read.
type repeat struct {
	b    byte
	read int64
}

func (r *repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b
	}
	r.read += int64(len(p))
	return len(p), nil
}

// BenchmarkQuoteGuard: the cost of the open-quote check, as encoding/csv reading the 50-DAG
// sample repeated to 1 MiB with (guard=on) and without (guard=off) it.
func BenchmarkQuoteGuard(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "alibaba_random_50_dags.csv"))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, (1<<20)/len(one)+1)
	for _, guard := range []bool{false, true} {
		b.Run("guard="+map[bool]string{false: "off", true: "on"}[guard], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var r io.Reader = bytes.NewReader(data)
				if guard {
					r = &quoteGuard{r: r}
				}
				cr := csv.NewReader(r)
				cr.ReuseRecord = true
				for {
					if _, err := cr.Read(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
