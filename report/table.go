package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Align is the horizontal alignment of a table column.
type Align int

// Column alignments.
const (
	// AlignDefault is left for the first column and right for the others,
	// which suits a label column followed by numbers.
	AlignDefault Align = iota
	// AlignLeft left-aligns the column.
	AlignLeft
	// AlignCenter centres the column.
	AlignCenter
	// AlignRight right-aligns the column.
	AlignRight
)

// DefaultTableFormats are the formats Table.Save writes when given none.
var DefaultTableFormats = []string{"md", "csv", "tex"}

// Table is a small results table that can be written as Markdown, CSV or
// LaTeX. Cells are preformatted strings; use FormatNumber, FormatMeanCI and
// FormatRelChange for consistent numbers.
type Table struct {
	// ID identifies the table in error messages and, in LaTeX output,
	// in the label "tab:<ID>".
	ID string
	// Title is the Markdown heading line and the LaTeX caption.
	Title string
	// Columns are the header cells.
	Columns []string
	// Rows are the body rows; each must have len(Columns) cells.
	Rows [][]string
	// Align gives per-column alignment; missing entries are AlignDefault.
	Align []Align
}

// NewTable returns an empty table with the given header.
func NewTable(id, title string, columns ...string) *Table {
	return &Table{ID: id, Title: title, Columns: columns}
}

// AddRow appends a body row.
func (t *Table) AddRow(cells ...string) {
	t.Rows = append(t.Rows, cells)
}

// Validate returns an error wrapping ErrInvalid that names the table ID
// if the table has no columns, a row of the wrong length, a cell with a
// line break, or more alignments than columns.
func (t *Table) Validate() error {
	if t == nil {
		return fmt.Errorf("report: %w: nil table", ErrInvalid)
	}
	if len(t.Columns) == 0 {
		return fmt.Errorf("report: table %q: %w: no columns", t.ID, ErrInvalid)
	}
	if len(t.Align) > len(t.Columns) {
		return fmt.Errorf("report: table %q: %w: %d alignments for %d columns", t.ID, ErrInvalid, len(t.Align), len(t.Columns))
	}
	check := func(where, cell string) error {
		if strings.ContainsAny(cell, "\r\n") {
			return fmt.Errorf("report: table %q: %w: %s %q contains a line break", t.ID, ErrInvalid, where, cell)
		}
		return nil
	}
	for j, c := range t.Columns {
		if err := check(fmt.Sprintf("column %d", j), c); err != nil {
			return err
		}
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("report: table %q: %w: row %d has %d cells, want %d", t.ID, ErrInvalid, i, len(r), len(t.Columns))
		}
		for j, c := range r {
			if err := check(fmt.Sprintf("row %d cell %d", i, j), c); err != nil {
				return err
			}
		}
	}
	return nil
}

// align returns the effective alignment of column j.
func (t *Table) align(j int) Align {
	a := AlignDefault
	if j < len(t.Align) {
		a = t.Align[j]
	}
	if a == AlignDefault {
		if j == 0 {
			return AlignLeft
		}
		return AlignRight
	}
	return a
}

// WriteMarkdown writes the table as a GitHub-flavoured Markdown pipe
// table, preceded by the title in bold if there is one. Columns are padded
// to equal width for readability and '|' in cells is escaped.
func (t *Table) WriteMarkdown(w io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	width := make([]int, len(t.Columns))
	for j, c := range t.Columns {
		width[j] = max(3, utf8.RuneCountInString(esc(c)))
	}
	for _, r := range t.Rows {
		for j, c := range r {
			width[j] = max(width[j], utf8.RuneCountInString(esc(c)))
		}
	}
	bw := bufio.NewWriter(w)
	if t.Title != "" {
		fmt.Fprintf(bw, "**%s**\n\n", t.Title)
	}
	line := func(cells []string) {
		bw.WriteString("|")
		for j, c := range cells {
			c = esc(c)
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(c))
			switch t.align(j) {
			case AlignRight:
				c = pad + c
			case AlignCenter:
				l := len(pad) / 2
				c = pad[:l] + c + pad[l:]
			default:
				c += pad
			}
			bw.WriteString(" " + c + " |")
		}
		bw.WriteString("\n")
	}
	line(t.Columns)
	bw.WriteString("|")
	for j := range t.Columns {
		d := strings.Repeat("-", width[j]-1)
		switch t.align(j) {
		case AlignRight:
			d = d[1:] + "-:"
		case AlignCenter:
			d = ":" + d[1:] + ":"
		default:
			d = ":" + d
		}
		bw.WriteString(" " + d + " |")
	}
	bw.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
	return bw.Flush()
}

// WriteCSV writes the header and rows as RFC 4180 CSV (the title is not
// included).
func (t *Table) WriteCSV(w io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// latexReplacer escapes LaTeX special characters and maps a few common
// symbols to math mode so that the output compiles with pdflatex.
var latexReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`&`, `\&`,
	`%`, `\%`,
	`$`, `\$`,
	`#`, `\#`,
	`_`, `\_`,
	`{`, `\{`,
	`}`, `\}`,
	`~`, `\textasciitilde{}`,
	`^`, `\textasciicircum{}`,
	`±`, `$\pm$`,
	`×`, `$\times$`,
	`≤`, `$\leq$`,
	`≥`, `$\geq$`,
	`µ`, `$\mu$`,
	`μ`, `$\mu$`,
)

// EscapeLaTeX escapes the LaTeX special characters & % $ # _ { } ~ ^ \ in
// s, and rewrites ± × ≤ ≥ µ as math-mode commands.
func EscapeLaTeX(s string) string { return latexReplacer.Replace(s) }

// WriteLaTeX writes the table as a booktabs table environment with the
// title as caption and "tab:<ID>" as label. All cell text is escaped with
// EscapeLaTeX. The document needs \usepackage{booktabs}.
func (t *Table) WriteLaTeX(w io.Writer) error {
	if err := t.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var spec strings.Builder
	for j := range t.Columns {
		switch t.align(j) {
		case AlignRight:
			spec.WriteByte('r')
		case AlignCenter:
			spec.WriteByte('c')
		default:
			spec.WriteByte('l')
		}
	}
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for j, c := range cells {
			esc[j] = EscapeLaTeX(c)
		}
		fmt.Fprintf(bw, "    %s \\\\\n", strings.Join(esc, " & "))
	}
	bw.WriteString("\\begin{table}[t]\n  \\centering\n")
	if t.Title != "" {
		fmt.Fprintf(bw, "  \\caption{%s}\n", EscapeLaTeX(t.Title))
	}
	if t.ID != "" {
		fmt.Fprintf(bw, "  \\label{tab:%s}\n", EscapeLaTeX(t.ID))
	}
	fmt.Fprintf(bw, "  \\begin{tabular}{%s}\n    \\toprule\n", spec.String())
	row(t.Columns)
	bw.WriteString("    \\midrule\n")
	for _, r := range t.Rows {
		row(r)
	}
	bw.WriteString("    \\bottomrule\n  \\end{tabular}\n\\end{table}\n")
	return bw.Flush()
}

// Save writes the table as dir/basename.<format> for each format ("md",
// "csv" or "tex"; DefaultTableFormats if none are given) and returns the
// paths written. Each file is written atomically: the data go to a
// temporary file in dir that is renamed into place only when complete.
func (t *Table) Save(dir, basename string, formats ...string) ([]string, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if basename == "" || strings.ContainsAny(basename, `/\`) {
		return nil, fmt.Errorf("report: table %q: %w: bad base name %q", t.ID, ErrInvalid, basename)
	}
	if len(formats) == 0 {
		formats = DefaultTableFormats
	}
	var paths []string
	for _, format := range formats {
		var write func(io.Writer) error
		switch f := normFormat(format); f {
		case "md", "markdown":
			write = t.WriteMarkdown
		case "csv":
			write = t.WriteCSV
		case "tex", "latex":
			write = t.WriteLaTeX
		default:
			return paths, fmt.Errorf("report: table %q: %w: unsupported format %q (want md, csv or tex)", t.ID, ErrInvalid, format)
		}
		ext := map[string]string{"markdown": "md", "latex": "tex"}[normFormat(format)]
		if ext == "" {
			ext = normFormat(format)
		}
		p := filepath.Join(dir, basename+"."+ext)
		if err := writeFileAtomic(p, write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
