package experiments

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Sensitivity, a spec's sensitivity: block, declares one-at-a-time axes around the base point:
//
//	sensitivity:                       # each key varied alone, the others at the base point
//	  - {key: workload.jamaisvu.load, values: [0.7, 1.2, 1.5]}
//	  - {key: policy.params.late_slo, values: [drop]}
//
// The base point is the spec's base configuration (or the default) for every key listed.
// Running the spec adds one zipped axis group over the keys: the base point (every key null,
// i.e. unset) and one step per listed value with only that key set, so the cost is
// (1 + Σ values) × the spec's cells — linear in the axes, never a factorial. Figures and the
// claims' main verdicts use the base point's cells; the report then judges every claim again
// at each point (SensitivityPoints), so a claim reads "held at the base and at load 0.7; not
// held at load 1.5" instead of one verdict. A label may replace a key's values
// (labels.<l>.sensitivity: {key: [values]}, [] drops the key at that label).

// SensitivityPoint is one point of a spec's one-at-a-time sensitivity: the base point (Key "")
// or one key at one value.
type SensitivityPoint struct {
	Key   string
	Value any
}

// Name renders the point: "base" or "key=value".
func (p SensitivityPoint) Name() string {
	if p.Key == "" {
		return "base"
	}
	return p.Key + "=" + FormatAxisValue(p.Value)
}

// SensitivityPoints returns the base point followed by every key's values, in spec order.
func (s *Spec) SensitivityPoints() []SensitivityPoint {
	if len(s.Sensitivity) == 0 {
		return nil
	}
	out := []SensitivityPoint{{}}
	for _, a := range s.Sensitivity {
		for _, v := range a.Values {
			out = append(out, SensitivityPoint{Key: a.Key, Value: v})
		}
	}
	return out
}

// Selects reports whether a cell with the given axis values (key → FormatAxisValue, "null" when
// unset) lies at the point: the point's key at its value, every other sensitivity key unset.
func (s *Spec) SensitivitySelects(p SensitivityPoint, value func(key string) string) bool {
	for _, a := range s.Sensitivity {
		want := "null"
		if a.Key == p.Key {
			want = FormatAxisValue(p.Value)
		}
		if value(a.Key) != want {
			return false
		}
	}
	return true
}

// expandSensitivity appends the sensitivity block as one axis group (a zip over its keys, or a
// single axis for one key): step 0 leaves every key unset, then one step per value.
func (s *Spec) expandSensitivity() {
	pts := s.SensitivityPoints()
	if len(pts) < 2 {
		return
	}
	var g AxisGroup
	for _, a := range s.Sensitivity {
		ax := Axis{Key: a.Key, Pos: a.Pos, Values: make([]any, len(pts))}
		for i, p := range pts {
			if p.Key == a.Key {
				ax.Values[i] = p.Value
			}
		}
		g.Axes = append(g.Axes, ax)
	}
	s.Axes = append(s.Axes, g)
}

// sensitivity parses a spec's sensitivity block: a list of {key, values} whose keys are
// configuration keys not swept by axes, with distinct non-null values.
func (p *specParser) sensitivity(s *Spec, n *yaml.Node) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errf(n, "sensitivity: want a non-empty list of {key, values}")
		return
	}
	seen := map[string]bool{}
	for _, k := range s.AxisKeys() {
		seen[k] = true
	}
	for i, c := range n.Content {
		what := fmt.Sprintf("sensitivity[%d]", i)
		a, ok := p.axis(deref(c), what, seen, false)
		if !ok {
			continue
		}
		for j, v := range a.Values {
			if v == nil {
				p.errf(a.nodes[j], "%s.values[%d]: null is the base point, always included; list other values", what, j)
			}
		}
		s.Sensitivity = append(s.Sensitivity, a)
	}
}

// labelSensitivity parses labels.<l>.sensitivity: key → values replacing a sensitivity key's
// values ([] drops the key at that label).
func (p *specParser) labelSensitivity(s *Spec, n *yaml.Node, what string) map[string][]any {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errf(n, "%s: want a mapping of sensitivity key → values", what)
		return nil
	}
	out := map[string][]any{}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], deref(n.Content[j+1])
		known := false
		for _, a := range s.Sensitivity {
			known = known || a.Key == k.Value
		}
		if !known {
			p.errf(k, "%s: %q is not a key of this spec's sensitivity block", what, k.Value)
			continue
		}
		if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			out[k.Value] = []any{}
			continue
		}
		vals, _ := p.axisValues(v, k.Value, what+"."+k.Value, true)
		out[k.Value] = vals
	}
	return out
}

// applySensitivityLabel replaces the sensitivity values a label gives, dropping emptied keys.
func (s *Spec) applySensitivityLabel(l Label) {
	if l.Sensitivity == nil {
		return
	}
	var out []Axis
	for _, a := range s.Sensitivity {
		if vals, ok := l.Sensitivity[a.Key]; ok {
			if len(vals) == 0 {
				continue
			}
			a.Values = vals
		}
		out = append(out, a)
	}
	s.Sensitivity = out
}
