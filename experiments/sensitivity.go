package experiments

import (
	"fmt"
	"strings"

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
//
// An entry may move further keys with its own (with:), one value per step, for a mechanism
// that has several parameters — stragglers are a probability and a factor:
//
//	  - {key: engine.straggler_p, values: [0.05, 0.02], with: {engine.straggler_factor: [2, 8]}}
//
// Its points set every key of the entry at once; a label can only drop such an entry.

// SensitivityPoint is one point of a spec's one-at-a-time sensitivity: the base point (Key "")
// or one key at one value.
type SensitivityPoint struct {
	Key   string
	Value any
	// With are the keys set together with Key at this point (its entry's with:).
	With []KeyValue
}

// KeyValue is a configuration key with a value.
type KeyValue struct {
	Key   string
	Value any
}

// Name renders the point: "base" or "key=value".
func (p SensitivityPoint) Name() string {
	if p.Key == "" {
		return "base"
	}
	s := p.Key + "=" + FormatAxisValue(p.Value)
	for _, w := range p.With {
		s += "," + w.Key + "=" + FormatAxisValue(w.Value)
	}
	return s
}

// withValue returns the point's value of key: Value for Key, a With value, or nil (unset).
func (p SensitivityPoint) withValue(key string) any {
	if key == p.Key {
		return p.Value
	}
	for _, w := range p.With {
		if w.Key == key {
			return w.Value
		}
	}
	return nil
}

// SensitivityPoints returns the base point followed by every key's values, in spec order.
func (s *Spec) SensitivityPoints() []SensitivityPoint {
	if len(s.Sensitivity) == 0 {
		return nil
	}
	out := []SensitivityPoint{{}}
	for _, a := range s.Sensitivity {
		for i, v := range a.Values {
			pt := SensitivityPoint{Key: a.Key, Value: v}
			for _, w := range s.SensitivityWith[a.Key] {
				pt.With = append(pt.With, KeyValue{w.Key, w.Values[i]})
			}
			out = append(out, pt)
		}
	}
	return out
}

// Selects reports whether a cell with the given axis values (key → FormatAxisValue, "null" when
// unset) lies at the point: the point's key at its value, every other sensitivity key unset.
func (s *Spec) SensitivitySelects(p SensitivityPoint, value func(key string) string) bool {
	for _, key := range s.sensitivityKeys() {
		want := "null"
		if v := p.withValue(key); v != nil {
			want = FormatAxisValue(v)
		}
		if value(key) != want {
			return false
		}
	}
	return true
}

// sensitivityKeys lists every key the sensitivity block sets: each entry's key, then its
// with: keys.
func (s *Spec) sensitivityKeys() []string {
	var out []string
	for _, a := range s.Sensitivity {
		out = append(out, a.Key)
		for _, w := range s.SensitivityWith[a.Key] {
			out = append(out, w.Key)
		}
	}
	return out
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
		axes := []Axis{{Key: a.Key, Pos: a.Pos}}
		for _, w := range s.SensitivityWith[a.Key] {
			axes = append(axes, Axis{Key: w.Key, Pos: w.Pos})
		}
		for _, ax := range axes {
			ax.Values = make([]any, len(pts))
			for i, p := range pts {
				if p.Key == a.Key {
					ax.Values[i] = p.withValue(ax.Key)
				}
			}
			g.Axes = append(g.Axes, ax)
		}
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
		c, with := splitWith(deref(c))
		a, ok := p.axis(c, what, seen, with != nil)
		if !ok {
			continue
		}
		if with != nil && !p.sensitivityWith(s, &a, with, what, seen) {
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
		if len(s.SensitivityWith[k.Value]) > 0 {
			p.errf(k, "%s: %q moves with %s (with:); a label can only drop it ([])", what, k.Value, s.SensitivityWith[k.Value][0].Key)
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

// splitWith returns an entry's mapping without its with: pair, and that pair's value (nil
// without one).
func splitWith(n *yaml.Node) (*yaml.Node, *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return n, nil
	}
	out := *n
	out.Content = nil
	var with *yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "with" && with == nil {
			with = deref(n.Content[j+1])
			continue
		}
		out.Content = append(out.Content, n.Content[j], n.Content[j+1])
	}
	return &out, with
}

// sensitivityWith parses an entry's with: block — key → one value per value of a — into
// s.SensitivityWith[a.Key], and checks that the entry's steps are distinct.
func (p *specParser) sensitivityWith(s *Spec, a *Axis, n *yaml.Node, what string, seen map[string]bool) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.errf(n, "%s.with: want a mapping of key → values, one per value of %s", what, a.Key)
		return false
	}
	keys, vals, nodes := []string{a.Key}, [][]any{a.Values}, [][]*yaml.Node{a.nodes}
	var ws []Axis
	ok := true
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], deref(n.Content[j+1])
		w := what + ".with." + k.Value
		switch {
		case seen[k.Value]:
			p.errf(k, "%s: %q is swept twice", w, k.Value)
			ok = false
			continue
		case !p.checkKey(k, k.Value, w):
			ok = false
			continue
		}
		seen[k.Value] = true
		wa := Axis{Key: k.Value, Pos: p.pos(k)}
		wa.Values, wa.nodes = p.withValues(v, w)
		if wa.Values == nil {
			ok = false
			continue
		}
		if len(wa.Values) != len(a.Values) {
			p.errf(v, "%s: %d values, want one per value of %s (%d)", w, len(wa.Values), a.Key, len(a.Values))
			ok = false
			continue
		}
		for i, x := range wa.Values {
			if x == nil {
				p.errf(wa.nodes[i], "%s[%d]: null is the base point; list other values", w, i)
				ok = false
			}
		}
		ws = append(ws, wa)
		keys, vals, nodes = append(keys, wa.Key), append(vals, wa.Values), append(nodes, wa.nodes)
	}
	if !ok {
		return false
	}
	for i := range a.Values {
		v := NewViper()
		for j, k := range keys {
			if !strings.HasPrefix(k, "policy.params.") {
				v.Set(k, vals[j][i])
			}
		}
		if _, err := Resolve(v); err != nil && !combinationErr(err) {
			p.errf(a.nodes[i], "%s: step %d: %v", what, i, strings.TrimPrefix(err.Error(), ErrConfig.Error()+": "))
			ok = false
		}
	}
	if !ok {
		return false
	}
	p.distinctTuples(what, keys, vals, nodes)
	if s.SensitivityWith == nil {
		s.SensitivityWith = map[string][]Axis{}
	}
	s.SensitivityWith[a.Key] = ws
	return true
}

// withValues reads a with: key's values; they are checked together with their entry's key,
// step by step (a with: key may have no effect alone, as a contention slope without its model).
func (p *specParser) withValues(n *yaml.Node, what string) ([]any, []*yaml.Node) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errf(n, "%s: want a non-empty list of values", what)
		return nil, nil
	}
	var out []any
	var nodes []*yaml.Node
	for i, c := range n.Content {
		c = deref(c)
		var v any
		if !isNull(c) {
			var ok bool
			if v, ok = p.scalar(c, fmt.Sprintf("%s[%d]", what, i)); !ok {
				return nil, nil
			}
		}
		out = append(out, v)
		nodes = append(nodes, c)
	}
	return out, nodes
}
