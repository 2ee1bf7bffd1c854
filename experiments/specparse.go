package experiments

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/policies/builtin"
)

// fsys. display prefixes file names in messages.
func ParseSpec(fsys fs.FS, name, display, id string) (*Spec, error) {
	return parseSpec(fsys, name, display, id)
}

func parseSpec(fsys fs.FS, name, display, id string) (*Spec, error) {
	p := &specParser{fsys: fsys, display: display, files: map[*yaml.Node]string{}}
	root, err := p.load(name, nil)
	if err != nil {
		return nil, err
	}
	// The paper directory's names (NamesFile) apply under the spec's own.
	if nf := path.Join(path.Dir(name), NamesFile); nf != name {
		if _, err := fs.Stat(fsys, nf); err == nil {
			nroot, err := p.load(nf, nil)
			if err != nil {
				return nil, err
			}
			if _, _, ok := p.fields(nroot, NamesFile, []string{"names"}, "names"); ok {
				mergeInto(root, nroot)
			}
		}
	}
	s := &Spec{ID: id, File: display + name}
	p.spec(s, root)
	if len(p.errs) > 0 {
		var msgs []string
		for i, e := range p.errs {
			if i == 10 {
				msgs = append(msgs, fmt.Sprintf("… and %d more errors", len(p.errs)-10))
				break
			}
			msgs = append(msgs, strings.TrimPrefix(e.Error(), ErrConfig.Error()+": "))
		}
		return nil, fmt.Errorf("%w: %s", ErrConfig, strings.Join(msgs, "\n"))
	}
	return s, nil
}

// specParser walks yaml.v3 nodes, remembering which file each node came from.
type specParser struct {
	fsys    fs.FS
	display string
	files   map[*yaml.Node]string
	errs    []error
}

func (p *specParser) pos(n *yaml.Node) Pos { return Pos{p.files[n], n.Line} }

func (p *specParser) errf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, p.pos(n).Errorf(format, args...))
}

// load parses a file and merges its includes under it.
func (p *specParser) load(name string, stack []string) (*yaml.Node, error) {
	if slices.Contains(stack, name) {
		return nil, fmt.Errorf("%w: %s: include cycle: %s", ErrConfig, p.display+stack[0], strings.Join(append(stack, name), " → "))
	}
	data, err := readSpecFile(p.fsys, name)
	if err != nil {
		where := "spec"
		if len(stack) > 0 {
			where = "include from " + p.display + stack[len(stack)-1]
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, where, err)
	}
	doc, err := DecodeYAML(data, p.display+name, "a spec file")
	if err != nil {
		return nil, err
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		p.files[n] = p.display + name
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(doc)
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%w: %s: empty spec", ErrConfig, p.display+name)
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, p.pos(root).Errorf("a spec is a mapping of keys (include, title, description, base, axes, seeds, labels, figures)")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "include" {
			continue
		}
		inc := deref(root.Content[i+1])
		var names []*yaml.Node
		switch inc.Kind {
		case yaml.ScalarNode:
			names = []*yaml.Node{inc}
		case yaml.SequenceNode:
			names = inc.Content
		default:
			return nil, p.pos(inc).Errorf("include: want a file name or a list of file names")
		}
		// Remove the include key; later includes win over earlier ones, the file over all.
		root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
		var subs []*yaml.Node
		for _, nn := range names {
			nn = deref(nn)
			if nn.Kind != yaml.ScalarNode || nn.Value == "" {
				return nil, p.pos(nn).Errorf("include: want a file name")
			}
			incName := path.Clean(path.Join(path.Dir(name), nn.Value))
			sub, err := p.load(incName, append(stack, name))
			if err != nil {
				return nil, err
			}
			subs = append(subs, sub)
		}
		if len(subs) > 0 {
			// The last include wins, so it takes the earlier ones in, latest first; one merger
			// indexes each mapping once however many includes merge into it.
			m := merger{}
			merged := subs[len(subs)-1]
			for i := len(subs) - 2; i >= 0; i-- {
				m.into(merged, subs[i])
			}
			m.into(root, merged)
		}
		break
	}
	return root, nil
}

// mergeInto adds src's mapping entries to dst where dst lacks them, recursing into mappings
// present in both. dst wins for scalars and sequences.
func mergeInto(dst, src *yaml.Node) { merger{}.into(dst, src) }

// merger merges mappings in time linear in their sizes: it keeps an index of the keys of every
// mapping merged into, so that merging many includes into one spec does not rescan it (ten
// included fragments of 20,000 names each merged in quadratic time never ended).
type merger map[*yaml.Node]map[string]int

// index returns the position of each key of the mapping n (the first of duplicates, as
// fields reports them).
func (m merger) index(n *yaml.Node) map[string]int {
	if idx, ok := m[n]; ok {
		return idx
	}
	idx := make(map[string]int, len(n.Content)/2)
	for j := 0; j+1 < len(n.Content); j += 2 {
		if _, dup := idx[n.Content[j].Value]; !dup {
			idx[n.Content[j].Value] = j
		}
	}
	m[n] = idx
	return idx
}

// into is mergeInto, keeping the indexes up to date.
func (m merger) into(dst, src *yaml.Node) {
	idx := m.index(dst)
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, sv := src.Content[i], deref(src.Content[i+1])
		if j, found := idx[k.Value]; found {
			if dv := deref(dst.Content[j+1]); dv.Kind == yaml.MappingNode && sv.Kind == yaml.MappingNode {
				m.into(dv, sv)
			}
			continue
		}
		idx[k.Value] = len(dst.Content)
		dst.Content = append(dst.Content, k, sv)
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields checks that n is a mapping with only allowed keys (each at most once) and returns the
// key and value nodes by name. Required keys missing are errors.
func (p *specParser) fields(n *yaml.Node, what string, allowed []string, required ...string) (vals, keys map[string]*yaml.Node, ok bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errf(n, "%s: want a mapping with keys %s", what, strings.Join(allowed, ", "))
		return nil, nil, false
	}
	vals, keys = map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch {
		case !slices.Contains(allowed, k.Value):
			p.errf(k, "%s: unknown key %q (valid: %s)", what, k.Value, strings.Join(allowed, ", "))
		case keys[k.Value] != nil:
			p.errf(k, "%s: duplicate key %q", what, k.Value)
		default:
			vals[k.Value], keys[k.Value] = v, k
		}
	}
	for _, r := range required {
		if vals[r] == nil {
			p.errf(n, "%s: missing %q", what, r)
			ok = false
			return vals, keys, false
		}
	}
	return vals, keys, true
}

func (p *specParser) str(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n, "%s: want a string", what)
		return ""
	}
	return n.Value
}

func (p *specParser) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		p.errf(n, "%s: want true or false, got %q", what, n.Value)
	}
	return b
}

func (p *specParser) integer(n *yaml.Node, what string, min int64) int64 {
	var x int64
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&x) != nil {
		p.errf(n, "%s: want an integer, got %q", what, n.Value)
		return 0
	}
	if x < min {
		p.errf(n, "%s: want an integer ≥ %d, got %d", what, min, x)
	}
	return x
}

// scalar decodes a scalar value of a configuration key (string, int, float or bool).
func (p *specParser) scalar(n *yaml.Node, what string) (any, bool) {
	n = deref(n)
	if n.Kind == yaml.SequenceNode {
		// A list value (policy.class_order).
		var out []any
		for _, c := range n.Content {
			v, ok := p.scalar(c, what)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		if out == nil {
			out = []any{}
		}
		return out, true
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n, "%s: want a value (string, number or boolean)", what)
		return nil, false
	}
	var v any
	if err := n.Decode(&v); err != nil {
		p.errf(n, "%s: %v", what, err)
		return nil, false
	}
	switch x := v.(type) {
	case int:
		return int64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			p.errf(n, "%s: want a finite number", what)
			return nil, false
		}
	}
	return v, true
}

// checkConfig validates one configuration key and value through Resolve, reporting at n.
func (p *specParser) checkConfig(n *yaml.Node, key string, val any, what string) {
	if !p.checkKey(n, key, what) {
		return
	}
	if err := CheckValue(key, val); err != nil {
		p.errf(n, "%s: %v", what, strings.TrimPrefix(err.Error(), ErrConfig.Error()+": "))
	}
}

// checkKey reports an unknown configuration key at n, suggesting near names.
func (p *specParser) checkKey(n *yaml.Node, key, what string) bool {
	if CheckKeys([]string{key}, "spec") == nil {
		return true
	}
	p.errf(n, "%s: unknown config key %q%s (see `schedlab config keys`)", what, key, suggest(key, append(KeyNames(), "policy.params.*")))
	return false
}

// suggest returns ", did you mean a or b?" for the names closest to key, or "".
func suggest(key string, names []string) string {
	best, bestD := []string(nil), 4
	for _, n := range names {
		d := editDistance(key, n)
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD:
			best = append(best, n)
		}
	}
	if len(best) == 0 || len(best) > 3 {
		return ""
	}
	return ", did you mean " + strings.Join(best, " or ") + "?"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// CheckValue validates one configuration key and value as Resolve would, and checks that a
// policy.name names a registered policy.
func CheckValue(key string, val any) error {
	if strings.HasPrefix(key, "policy.params.") {
		return nil // free-form, checked by the policy: resolving them checks nothing
	}
	if strings.HasPrefix(key, ParamsForPrefix) {
		return checkScopedKey(key) // the scope must name a policy; the parameter is the policy's
	}
	v := NewViper()
	v.Set(key, val)
	c, err := Resolve(v)
	if err != nil && !combinationErr(err) { // a combination of keys is the whole configuration's business
		return err
	}
	if key == "policy.name" && !builtin.Registry().Has(c.Policy.Name) {
		return configErr("policy.name: unknown policy %q (valid: %s)", c.Policy.Name, strings.Join(builtin.Registry().Names(), ", "))
	}
	return nil
}

// configBlock flattens a nested mapping of configuration keys into dotted keys, validating each.
func (p *specParser) configBlock(n *yaml.Node, what string) map[string]any {
	out := map[string]any{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		n = deref(n)
		if n.Kind != yaml.MappingNode {
			p.errf(n, "%s: want a mapping of configuration keys", what)
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], deref(n.Content[i+1])
			key := prefix + k.Value
			if v.Kind == yaml.MappingNode {
				walk(v, key+".")
				continue
			}
			if _, dup := out[key]; dup {
				p.errf(k, "%s: duplicate key %q", what, key)
				continue
			}
			val, ok := p.scalar(v, what+"."+key)
			if !ok {
				continue
			}
			p.checkConfig(k, key, val, what)
			out[key] = val
		}
	}
	walk(n, "")
	return out
}

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

func (p *specParser) spec(s *Spec, root *yaml.Node) {
	top := []string{"title", "description", "base", "axes", "sensitivity", "seeds", "labels", "figures", "names"}
	f, _, ok := p.fields(root, "spec", top, "axes", "seeds", "labels")
	if !ok {
		return
	}
	s.Title = p.str(f["title"], "title")
	s.Description = p.str(f["description"], "description")
	s.Base = map[string]any{}
	if f["base"] != nil {
		s.Base = p.configBlock(f["base"], "base")
	}
	p.axes(s, f["axes"])
	if f["sensitivity"] != nil {
		p.sensitivity(s, f["sensitivity"])
	}
	s.Seeds = p.seeds(f["seeds"], "seeds")
	p.labels(s, f["labels"])
	if f["figures"] != nil {
		p.figures(s, f["figures"])
	}
	if f["names"] != nil {
		s.Names = p.names(f["names"])
	}
}

// names reads a names block: a mapping of internal names (at most one * each) to human names.
func (p *specParser) names(n *yaml.Node) Names {
	if n.Kind != yaml.MappingNode {
		p.errf(n, "names: want a mapping of names to human names (policy.name: Policy, bursty*: LQ-*)")
		return nil
	}
	out := Names{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		name := p.str(v, "names."+k.Value)
		switch {
		case k.Value == "" || strings.Count(k.Value, "*") > 1:
			p.errf(k, "names: bad name %q (one * at most, matching any text)", k.Value)
		case strings.TrimSpace(name) == "":
			p.errf(v, "names.%s: empty human name", k.Value)
		case strings.Count(name, "*") > 0 && !strings.Contains(k.Value, "*"):
			p.errf(v, "names.%s: %q has a * but the name it gives has none to fill it", k.Value, name)
		default:
			if _, dup := out[k.Value]; dup {
				p.errf(k, "names: %q named twice", k.Value)
			}
			out[k.Value] = name
		}
	}
	return out
}

func (p *specParser) axis(n *yaml.Node, what string, seen map[string]bool, zipped bool) (Axis, bool) {
	f, keys, ok := p.fields(n, what, []string{"key", "values"}, "key", "values")
	if !ok {
		return Axis{}, false
	}
	a := Axis{Key: p.str(f["key"], what+".key"), Pos: p.pos(keys["key"])}
	if a.Key == "seed" {
		p.errf(f["key"], "%s: seed is not an axis; use seeds", what)
		return a, false
	}
	if seen[a.Key] {
		p.errf(f["key"], "%s: %q is swept twice", what, a.Key)
		return a, false
	}
	if !p.checkKey(f["key"], a.Key, what+".key") {
		return a, false
	}
	seen[a.Key] = true
	a.Values, a.nodes = p.axisValues(f["values"], a.Key, what+".values", !zipped)
	return a, len(a.Values) > 0
}

// isNull reports whether n is a YAML null (null, ~ or empty).
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// axisValues reads an axis's values; null is nil (key unset). With unique, a repeated value is
// an error (a single axis); zipped axes may repeat values, their tuples are checked instead.
func (p *specParser) axisValues(n *yaml.Node, key, what string, unique bool) ([]any, []*yaml.Node) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.errf(n, "%s: want a non-empty list of values", what)
		return nil, nil
	}
	var out []any
	var nodes []*yaml.Node
	seen := map[string]bool{}
	for i, c := range n.Content {
		c = deref(c)
		w := fmt.Sprintf("%s[%d]", what, i)
		var v any
		if !isNull(c) {
			var ok bool
			if v, ok = p.scalar(c, w); !ok {
				continue
			}
			p.checkConfig(c, key, v, w)
		}
		if f := FormatAxisValue(v); unique && seen[f] {
			p.errf(c, "%s: duplicate value %s", w, f)
		} else {
			seen[f] = true
		}
		out = append(out, v)
		nodes = append(nodes, c)
	}
	return out, nodes
}

// distinctTuples reports the first step of a zipped group whose tuple of values repeats an
// earlier step's, at that step's value of the first axis; vals[j] and nodes[j] are the j-th
// axis's values and their YAML nodes.
func (p *specParser) distinctTuples(what string, keys []string, vals [][]any, nodes [][]*yaml.Node) {
	if len(vals) == 0 {
		return
	}
	first := map[string]int{}
	for i := range vals[0] {
		parts := make([]string, len(vals))
		for j := range vals {
			parts[j] = keys[j] + "=" + FormatAxisValue(vals[j][i])
		}
		t := strings.Join(parts, " ")
		if prev, dup := first[t]; dup {
			n := nodes[0][i]
			p.errf(n, "%s: step %d (%s) repeats step %d; the tuples of a zipped group must be distinct", what, i, t, prev)
			continue
		}
		first[t] = i
	}
}

func (p *specParser) axes(s *Spec, n *yaml.Node) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "axes: want a list of {key, values} or {zip: [...]}")
		return
	}
	seen := map[string]bool{}
	for i, c := range n.Content {
		what := fmt.Sprintf("axes[%d]", i)
		c = deref(c)
		if c.Kind == yaml.MappingNode && len(c.Content) >= 2 && c.Content[0].Value == "zip" {
			f, _, ok := p.fields(c, what, []string{"zip"}, "zip")
			if !ok {
				continue
			}
			z := f["zip"]
			if z.Kind != yaml.SequenceNode || len(z.Content) < 2 {
				p.errf(z, "%s.zip: want a list of at least two {key, values}", what)
				continue
			}
			var g AxisGroup
			for j, zc := range z.Content {
				if a, ok := p.axis(zc, fmt.Sprintf("%s.zip[%d]", what, j), seen, true); ok {
					if len(g.Axes) > 0 && len(a.Values) != g.Len() {
						p.errf(zc, "%s.zip[%d]: %d values, but %s has %d (zipped axes advance together)", what, j, len(a.Values), g.Axes[0].Key, g.Len())
						continue
					}
					g.Axes = append(g.Axes, a)
				}
			}
			if len(g.Axes) > 0 {
				var keys []string
				var vals [][]any
				var nodes [][]*yaml.Node
				for _, a := range g.Axes {
					keys, vals, nodes = append(keys, a.Key), append(vals, a.Values), append(nodes, a.nodes)
				}
				p.distinctTuples(what+".zip", keys, vals, nodes)
				s.Axes = append(s.Axes, g)
			}
			continue
		}
		if a, ok := p.axis(c, what, seen, false); ok {
			s.Axes = append(s.Axes, AxisGroup{Axes: []Axis{a}})
		}
	}
	for _, k := range s.AxisKeys() {
		if _, clash := s.Base[k]; clash {
			p.errf(n, "axes: %q is both in base and swept; remove it from base", k)
		}
	}
}

func (p *specParser) seeds(n *yaml.Node, what string) Seeds {
	n = deref(n)
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			p.errf(n, "%s: want a non-empty list of seeds", what)
		}
		var s Seeds
		seen := map[int64]bool{}
		for i, c := range n.Content {
			x := p.integer(deref(c), fmt.Sprintf("%s[%d]", what, i), math.MinInt64)
			if seen[x] {
				p.errf(c, "%s[%d]: duplicate seed %d", what, i, x)
			}
			seen[x] = true
			s.List = append(s.List, x)
		}
		return s
	}
	f, _, ok := p.fields(n, what, []string{"base", "count"}, "count")
	if !ok {
		return Seeds{}
	}
	s := Seeds{Base: 1, Count: int(p.integer(f["count"], what+".count", 1))}
	if f["base"] != nil {
		s.Base = p.integer(f["base"], what+".base", math.MinInt64)
	}
	return s
}

func (p *specParser) labels(s *Spec, n *yaml.Node) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errf(n, "labels: want a mapping of label names (quick, paper, ...)")
		return
	}
	s.Labels = map[string]Label{}
	labelNodes := map[string]map[string][]*yaml.Node{} // label → axis key → replaced values' nodes
	axisLen := map[string]*AxisGroup{}
	for gi := range s.Axes {
		for _, a := range s.Axes[gi].Axes {
			axisLen[a.Key] = &s.Axes[gi]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		name := k.Value
		what := "labels." + name
		if !idRE.MatchString(name) {
			p.errf(k, "labels: bad label name %q (lower-case letters, digits, - and _)", name)
			continue
		}
		l := Label{Pos: p.pos(k)}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			s.Labels[name] = l
			continue
		}
		f, _, ok := p.fields(v, what, []string{"seeds", "set", "axes", "sensitivity"})
		if !ok {
			continue
		}
		if f["seeds"] != nil {
			sd := p.seeds(f["seeds"], what+".seeds")
			l.Seeds = &sd
		}
		if f["sensitivity"] != nil {
			l.Sensitivity = p.labelSensitivity(s, f["sensitivity"], what+".sensitivity")
		}
		if f["set"] != nil {
			l.Set = p.configBlock(f["set"], what+".set")
			for key := range l.Set {
				if axisLen[key] != nil {
					p.errf(f["set"], "%s.set: %q is an axis; replace its values under %s.axes", what, key, what)
				}
			}
		}
		if f["axes"] != nil {
			an := f["axes"]
			if an.Kind != yaml.MappingNode {
				p.errf(an, "%s.axes: want a mapping of axis key → values", what)
			} else {
				l.Axes = map[string][]any{}
				for j := 0; j+1 < len(an.Content); j += 2 {
					ak, av := an.Content[j], deref(an.Content[j+1])
					g := axisLen[ak.Value]
					if g == nil {
						p.errf(ak, "%s.axes: %q is not an axis of this spec", what, ak.Value)
						continue
					}
					vals, nodes := p.axisValues(av, ak.Value, what+".axes."+ak.Value, len(g.Axes) == 1)
					if labelNodes[name] == nil {
						labelNodes[name] = map[string][]*yaml.Node{}
					}
					labelNodes[name][ak.Value] = nodes
					if len(g.Axes) > 1 && len(vals) != g.Len() {
						p.errf(av, "%s.axes.%s: %d values, but it is zipped with %d-value axes; give a value per step", what, ak.Value, len(vals), g.Len())
					}
					l.Axes[ak.Value] = vals
				}
			}
		}
		s.Labels[name] = l
	}
	for _, req := range []string{"quick", "paper"} {
		if _, ok := s.Labels[req]; !ok {
			p.errf(n, "labels: missing %q (every spec defines quick, for CI, and paper, the published scale; {} keeps the spec as written)", req)
		}
	}
	// A label that replaces part of a zipped group must replace all of it consistently.
	for _, name := range s.LabelNames() {
		l := s.Labels[name]
		for _, g := range s.Axes {
			if len(g.Axes) < 2 {
				continue
			}
			var n0 = -1
			for _, a := range g.Axes {
				if vals, ok := l.Axes[a.Key]; ok {
					if n0 >= 0 && len(vals) != n0 {
						p.errs = append(p.errs, l.Pos.Errorf("labels.%s.axes: zipped axes %s replaced with different lengths", name, a.Key))
					}
					n0 = len(vals)
				}
			}
			if n0 >= 0 {
				consistent := true
				for _, a := range g.Axes {
					if vals, ok := l.Axes[a.Key]; (!ok && n0 != g.Len()) || (ok && len(vals) != n0) {
						consistent = false
					}
					if _, ok := l.Axes[a.Key]; !ok && n0 != g.Len() {
						p.errs = append(p.errs, l.Pos.Errorf("labels.%s.axes: replaces part of the zipped group of %s with %d values; replace %s too", name, g.Axes[0].Key, n0, a.Key))
					}
				}
				if consistent {
					// The label's tuples must be distinct too; report at a replaced axis's value.
					var keys []string
					var vals [][]any
					var nodes [][]*yaml.Node
					var at []*yaml.Node
					for _, a := range g.Axes {
						v, ns := a.Values, a.nodes
						if lv, ok := l.Axes[a.Key]; ok {
							v, ns = lv, labelNodes[name][a.Key]
							if at == nil {
								at = ns
							}
						}
						keys, vals, nodes = append(keys, a.Key), append(vals, v), append(nodes, ns)
					}
					nodes[0] = at
					p.distinctTuples("labels."+name+".axes", keys, vals, nodes)
				}
			}
		}
	}
}
