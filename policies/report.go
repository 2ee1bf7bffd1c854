package policies

import (
	"fmt"
	"regexp"
)

// Reporter is an optional ability of a policy: after a run it contributes results of its own
// beside the engine's — scalar metrics, tables and JSON documents (BPF's admission records, a
// solver-backed policy's per-event solve records). The experiments layer type-asserts a policy
// to it once the run has ended and writes what it returns with the run's outputs; a policy with
// nothing to add does not implement it.
type Reporter interface {
	// Report returns the policy's results for the run that just ended. It is called once,
	// after the last Schedule call.
	Report(c ReportContext) (*Report, error)
}

// ReportContext tells a Reporter about the run it reports on.
type ReportContext struct {
	// Dims names the workload's resource dimensions (traces.Vec index i is Dims[i]).
	Dims []string
}

// Report is what a Reporter contributes.
type Report struct {
	// Metrics are added to summary.json's metrics. A dotted key nests ("admissions.H" is
	// written {"admissions": {"H": …}}); sweeps flatten them back into cell metrics of the same
	// name, so claims and figures can use them. Values must be deterministic: wall-clock
	// figures belong in Tables, never here.
	Metrics map[string]float64
	// Tables are written as <Name>.parquet beside jobs.parquet, one row per index.
	Tables []Table
	// Docs are written as <Name>.json (two-space indented).
	Docs []Doc
}

// Table is a columnar table of a Report. All columns have the same length.
type Table struct {
	Name    string
	Columns []Column
}

// Column is one column of a Table: exactly one of the value slices is non-nil.
type Column struct {
	Name    string
	Int64   []int64
	Float64 []float64
	String  []string
	Bool    []bool
}

// Len returns the column's length.
func (c *Column) Len() int {
	switch {
	case c.Int64 != nil:
		return len(c.Int64)
	case c.Float64 != nil:
		return len(c.Float64)
	case c.String != nil:
		return len(c.String)
	}
	return len(c.Bool)
}

// Doc is a JSON document of a Report.
type Doc struct {
	Name  string
	Value any
}

// reservedOutputs are the run outputs a Report may not overwrite (file stems).
var reservedOutputs = map[string]bool{"jobs": true, "summary": true, "config": true, "usage": true}

var outputName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// Validate checks that the report's names are usable file stems, distinct and not those of the
// engine's own outputs, that every column has exactly one value slice and that a table's
// columns have equal lengths.
func (r *Report) Validate() error {
	seen := map[string]bool{}
	name := func(kind, n string) error {
		if !outputName.MatchString(n) {
			return fmt.Errorf("policies: report %s name %q: want lower-case letters, digits, '_' or '-', starting with a letter", kind, n)
		}
		if reservedOutputs[n] || seen[n] {
			return fmt.Errorf("policies: report %s name %q is taken", kind, n)
		}
		seen[n] = true
		return nil
	}
	for _, t := range r.Tables {
		if err := name("table", t.Name); err != nil {
			return err
		}
		cols := map[string]bool{}
		for i := range t.Columns {
			c := &t.Columns[i]
			set := 0
			for _, ok := range []bool{c.Int64 != nil, c.Float64 != nil, c.String != nil, c.Bool != nil} {
				if ok {
					set++
				}
			}
			if set != 1 {
				return fmt.Errorf("policies: report table %s column %q: %d value slices set, want 1", t.Name, c.Name, set)
			}
			if c.Name == "" || cols[c.Name] {
				return fmt.Errorf("policies: report table %s: column name %q empty or repeated", t.Name, c.Name)
			}
			cols[c.Name] = true
			if c.Len() != t.Columns[0].Len() {
				return fmt.Errorf("policies: report table %s column %q has %d rows, column %q has %d", t.Name, c.Name, c.Len(), t.Columns[0].Name, t.Columns[0].Len())
			}
		}
	}
	for _, d := range r.Docs {
		if err := name("doc", d.Name); err != nil {
			return err
		}
	}
	for k := range r.Metrics {
		if k == "" {
			return fmt.Errorf("policies: report metric with an empty name")
		}
	}
	return nil
}
