package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
)

// RunMetrics are summary.json's metrics: the replay summary and the metrics a policy that
// implements policies.Reporter added (dotted keys, written nested beside the summary's own
// fields, e.g. BPF's admissions.H). Sweeps flatten both into cell metrics.
type RunMetrics struct {
	replay.Summary
	Policy map[string]float64
}

// summaryFields are the JSON names of replay.Summary's fields (including the embedded Group's),
// which policy metrics may not shadow.
var summaryFields = func() map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				out[name] = true
			}
		}
	}
	walk(reflect.TypeFor[replay.Summary]())
	return out
}()

// nestMetrics turns dotted keys into nested maps ({"a.b": 1} → {"a": {"b": 1}}); a key that is
// both a value and a prefix of another is an error.
func nestMetrics(flat map[string]float64) (map[string]any, error) {
	out := map[string]any{}
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts := strings.Split(k, ".")
		m := out
		for i, p := range parts {
			if i == len(parts)-1 {
				if _, ok := m[p]; ok {
					return nil, fmt.Errorf("policy metric %q clashes with another metric's prefix", k)
				}
				m[p] = flat[k]
				break
			}
			next, ok := m[p]
			if !ok {
				nm := map[string]any{}
				m[p] = nm
				m = nm
				continue
			}
			nm, ok := next.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("policy metric %q clashes with metric %q", k, strings.Join(parts[:i+1], "."))
			}
			m = nm
		}
	}
	return out, nil
}

// MarshalJSON writes the summary's fields in their declared order, then the policy's metrics
// nested by their dotted keys (sorted).
func (m RunMetrics) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(m.Summary)
	if err != nil || len(m.Policy) == 0 {
		return b, err
	}
	nested, err := nestMetrics(m.Policy)
	if err != nil {
		return nil, err
	}
	for k := range nested {
		if summaryFields[k] {
			return nil, fmt.Errorf("policy metric %q shadows the summary's own %q", k, k)
		}
	}
	extra, err := json.Marshal(nested)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	if len(b) > 1 {
		b = append(b, ',')
	}
	return append(b, extra[1:]...), nil
}

// UnmarshalJSON reads the summary's fields and collects every other numeric leaf as a policy
// metric under its dotted path.
func (m *RunMetrics) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &m.Summary); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	m.Policy = nil
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(prefix+"."+k, e)
			}
		case float64:
			if m.Policy == nil {
				m.Policy = map[string]float64{}
			}
			m.Policy[prefix] = x
		}
	}
	for k, v := range all {
		if !summaryFields[k] {
			walk(k, v)
		}
	}
	return nil
}

// policyReport asks a policy that implements policies.Reporter for its results.
func policyReport(p policies.Policy, dims []string) (*policies.Report, error) {
	r, ok := p.(policies.Reporter)
	if !ok {
		return nil, nil
	}
	rep, err := r.Report(policies.ReportContext{Dims: dims})
	if err != nil {
		return nil, fmt.Errorf("policy %q: report: %w", p.Name(), err)
	}
	if rep == nil {
		return nil, nil
	}
	if err := rep.Validate(); err != nil {
		return nil, fmt.Errorf("policy %q: %w", p.Name(), err)
	}
	if _, err := (RunMetrics{Policy: rep.Metrics}).MarshalJSON(); err != nil {
		return nil, fmt.Errorf("policy %q: %w", p.Name(), err)
	}
	return rep, nil
}

// writePolicyReport writes a report's tables (<name>.parquet) and documents (<name>.json) into
// dir, each atomically.
func writePolicyReport(dir string, rep *policies.Report) error {
	for i := range rep.Tables {
		t := &rep.Tables[i]
		if err := atomicWrite(filepath.Join(dir, t.Name+".parquet"), func(f io.Writer) error { return writeReportTable(f, t) }); err != nil {
			return err
		}
	}
	for _, d := range rep.Docs {
		if err := atomicWrite(filepath.Join(dir, d.Name+".json"), func(f io.Writer) error {
			enc := json.NewEncoder(f)
			enc.SetIndent("", "  ")
			return enc.Encode(d.Value)
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeReportTable writes a policy's table as Parquet with schedlab's conventions: a NaN of a
// float column is written as null, and the file's key-value metadata describes each column
// (ColumnKeyPrefix).
func writeReportTable(w io.Writer, t *policies.Table) error {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		var typ arrow.DataType
		switch {
		case c.Int64 != nil:
			typ = arrow.PrimitiveTypes.Int64
		case c.Float64 != nil:
			typ = arrow.PrimitiveTypes.Float64
		case c.String != nil:
			typ = arrow.BinaryTypes.String
		default:
			typ = arrow.FixedWidthTypes.Boolean
		}
		// A float column is nullable: NaN, "no value", is written as null.
		fields[i] = arrow.Field{Name: c.Name, Type: typ, Nullable: c.Float64 != nil}
	}
	schema := withColumnDocs(fields, func(name string) ColumnDoc { return tableDoc(t.Name, name) })
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for i, c := range t.Columns {
		switch {
		case c.Int64 != nil:
			b.Field(i).(*array.Int64Builder).AppendValues(c.Int64, nil)
		case c.Float64 != nil:
			fb := b.Field(i).(*array.Float64Builder)
			for _, v := range c.Float64 {
				appendOpt(fb, !math.IsNaN(v), v)
			}
		case c.String != nil:
			b.Field(i).(*array.StringBuilder).AppendValues(c.String, nil)
		default:
			b.Field(i).(*array.BooleanBuilder).AppendValues(c.Bool, nil)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	return writeParquet(w, schema, rec)
}
