package report

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/report/stats"
)

func sampleTable() *Table {
	t := NewTable("lq_ct", "Avg. LQ completion time [s]", "Scheduler", "4 TQs", "8 TQs")
	t.AddRow("DRF", FormatMeanCI(112.345, 4.567), FormatMeanCI(162.1, 12.25))
	t.AddRow("BPF_v2", "41.2 ± 1.3", "n/a")
	return t
}

func TestTableMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleTable().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	want := "**Avg. LQ completion time [s]**\n\n" +
		"| Scheduler |       4 TQs |    8 TQs |\n" +
		"| :-------- | ----------: | -------: |\n" +
		"| DRF       | 112.3 ± 4.6 | 162 ± 12 |\n" +
		"| BPF_v2    |  41.2 ± 1.3 |      n/a |\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	tb := &Table{ID: "x", Columns: []string{"a|b", "c"}, Rows: [][]string{{"1", "2"}}, Align: []Align{AlignCenter, AlignLeft}}
	buf.Reset()
	if err := tb.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	want = "| a\\|b | c   |\n" +
		"| :--: | :-- |\n" +
		"|  1   | 2   |\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableCSV(t *testing.T) {
	tb := NewTable("t", "ignored", "name", "value")
	tb.AddRow("a,b", `say "hi"`)
	tb.AddRow("plain", "1.5")
	var buf bytes.Buffer
	if err := tb.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "name,value\n\"a,b\",\"say \"\"hi\"\"\"\nplain,1.5\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTableLaTeX(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleTable().WriteLaTeX(&buf); err != nil {
		t.Fatal(err)
	}
	want := `\begin{table}[t]
  \centering
  \caption{Avg. LQ completion time [s]}
  \label{tab:lq\_ct}
  \begin{tabular}{lrr}
    \toprule
    Scheduler & 4 TQs & 8 TQs \\
    \midrule
    DRF & 112.3 $\pm$ 4.6 & 162 $\pm$ 12 \\
    BPF\_v2 & 41.2 $\pm$ 1.3 & n/a \\
    \bottomrule
  \end{tabular}
\end{table}
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEscapeLaTeX(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{`a & b`, `a \& b`},
		{`50%`, `50\%`},
		{`$5`, `\$5`},
		{`#1`, `\#1`},
		{`snake_case`, `snake\_case`},
		{`{x}`, `\{x\}`},
		{`~`, `\textasciitilde{}`},
		{`x^2`, `x\textasciicircum{}2`},
		{`a\b`, `a\textbackslash{}b`},
		{`\&`, `\textbackslash{}\&`},
		{`3 ± 1`, `3 $\pm$ 1`},
		{`2×`, `2$\times$`},
		{`5 µs`, `5 $\mu$s`},
	}
	for _, tc := range tests {
		if got := EscapeLaTeX(tc.in); got != tc.want {
			t.Errorf("EscapeLaTeX(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTableValidate(t *testing.T) {
	tests := []struct {
		name string
		tb   *Table
		want string
	}{
		{"nil", nil, "nil table"},
		{"no-columns", &Table{ID: "t1"}, "no columns"},
		{"short-row", &Table{ID: "t2", Columns: []string{"a", "b"}, Rows: [][]string{{"1"}}}, "row 0 has 1 cells"},
		{"newline", &Table{ID: "t3", Columns: []string{"a"}, Rows: [][]string{{"x\ny"}}}, "line break"},
		{"align", &Table{ID: "t4", Columns: []string{"a"}, Align: []Align{AlignLeft, AlignLeft}}, "alignments"},
	}
	for _, tc := range tests {
		err := tc.tb.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %q", tc.name, err, tc.want)
		}
		if tc.tb != nil && tc.tb.ID != "" && !strings.Contains(err.Error(), tc.tb.ID) {
			t.Errorf("%s: err %v does not name the table", tc.name, err)
		}
		var buf bytes.Buffer
		if tc.tb.WriteMarkdown(&buf) == nil || tc.tb.WriteCSV(&buf) == nil || tc.tb.WriteLaTeX(&buf) == nil {
			t.Errorf("%s: a writer accepted an invalid table", tc.name)
		}
	}
}

func TestTableSave(t *testing.T) {
	dir := t.TempDir()
	paths, err := sampleTable().Save(dir, "lq")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "lq.md"), filepath.Join(dir, "lq.csv"), filepath.Join(dir, "lq.tex")}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := sampleTable().Save(dir, "lq", "xlsx"); !errors.Is(err, ErrInvalid) {
		t.Errorf("xlsx: err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("dir has %d entries, want 3", len(entries))
	}
}

func TestFormatSig(t *testing.T) {
	tests := []struct {
		v    float64
		sig  int
		want string
	}{
		{0, 3, "0"},
		{3.14159, 3, "3.14"},
		{-3.14159, 3, "-3.14"},
		{0.012345, 3, "0.0123"},
		{12345, 3, "12345"},
		{999.6, 3, "1000"},
		{99.96, 3, "100.0"},
		{1.5, 3, "1.50"},
		{1234567, 3, "1.23e6"},
		{0.00004567, 2, "4.6e-5"},
		{-0.0004, 1, "-0.0004"},
		{-0.00001, 3, "-1e-5"},
		{-0.0000001, 3, "-1e-7"},
		{42, 0, "42"},
		{math.NaN(), 3, "n/a"},
		{math.Inf(1), 3, "inf"},
		{math.Inf(-1), 3, "-inf"},
	}
	for _, tc := range tests {
		if got := FormatSig(tc.v, tc.sig); got != tc.want {
			t.Errorf("FormatSig(%v, %d) = %q, want %q", tc.v, tc.sig, got, tc.want)
		}
	}
	if got := FormatNumber(2.71828); got != "2.72" {
		t.Errorf("FormatNumber = %q", got)
	}
}

func TestFormatMeanCI(t *testing.T) {
	tests := []struct {
		mean, half float64
		want       string
	}{
		{123.456, 1.234, "123.5 ± 1.2"},
		{123.456, 12.34, "123 ± 12"},
		{0.5123, 0.0456, "0.512 ± 0.046"},
		{12345, 234, "12345 ± 234"},
		{-0.001, 0.5, "0.00 ± 0.50"},
		{7, math.NaN(), "7.00"},
		{7, 0, "7.00"},
		{math.NaN(), 1, "n/a"},
		{2e6, 1e5, "2e6 ± 1e5"},
	}
	for _, tc := range tests {
		if got := FormatMeanCI(tc.mean, tc.half); got != tc.want {
			t.Errorf("FormatMeanCI(%v, %v) = %q, want %q", tc.mean, tc.half, got, tc.want)
		}
	}
	ci, err := stats.MeanCI95([]float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatCI(ci); got != "3.0 ± 2.0" {
		t.Errorf("FormatCI = %q, want %q", got, "3.0 ± 2.0")
	}
}

func TestFormatRelChange(t *testing.T) {
	tests := []struct {
		rel  float64
		want string
	}{
		{0.123, "+12.3%"},
		{-0.0405, "-4.05%"},
		{0, "0%"},
		{2.5, "+250%"},
		{math.NaN(), "n/a"},
	}
	for _, tc := range tests {
		if got := FormatRelChange(tc.rel); got != tc.want {
			t.Errorf("FormatRelChange(%v) = %q, want %q", tc.rel, got, tc.want)
		}
	}
}
