package experiments

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/policies/builtin"
)

// The experiment specs compiled into schedlab: experiments/<paper>/<figure>.yaml. Files whose
// names start with "_" are fragments for include, not specs.
//
//go:embed */*.yaml
var specFS embed.FS

// Spec is an experiment specification (experiments/<paper>/<figure>.yaml): a base run
// configuration, the axes whose Cartesian product is the sweep, the seeds, the labels that pick
// sizes (quick for CI, paper for the published scale), and the figures and tables to draw with
// the paper's reference numbers and checkable claims.
//
// The format, with every key:
//
//	include: [_cluster.yaml]        # fragments merged under this file (this file wins)
//	title: Built-in policies on two cluster sizes
//	description: free text for the report
//	base:                           # run configuration: any key of Keys, nested or dotted
//	  workload: {name: tpch-fb}
//	  engine.cycle_s: 0
//	axes:                           # the sweep is the Cartesian product of these
//	  - key: policy.name
//	    values: [fifo, drf, srpt]
//	  - zip:                        # a zipped group: its axes advance together
//	      - {key: workload.machines, values: [25, 50]}
//	      - {key: engine.horizon_s, values: [3600, 7200]}
//	  - zip:                        # null leaves the key unset in that cell (base/default);
//	      - {key: policy.name, values: [drf, bpf, bpf]}       # values may repeat in a
//	      - {key: policy.params.period_s, values: [null, 300, 600]}  # zip: tuples may not
//	seeds: {base: 1, count: 3}      # or a list: seeds: [1, 7, 42]
//	labels:                         # quick and paper are required
//	  quick:
//	    seeds: {count: 2}           # replaces the seeds
//	    set: {engine.horizon_s: 600}  # overrides base keys
//	    axes: {workload.machines: [25]}  # replaces an axis's values
//	  paper: {}
//	figures:
//	  - id: avg-jct
//	    kind: bars                  # line|bars|box|cdf|ccdf|stacked|scatter|table
//	    x: policy                   # axis key (short names: policy = policy.name)
//	    y: avg_jct_s                # a cell metric, or job.<column> for box/cdf/ccdf
//	    series: machines            # one series per value of this axis key
//	    where: {policy: [fifo, srpt]}  # keep only these cells
//	    title: Average JCT
//	    caption: Mean over seeds with 95% CIs.
//	    reference:
//	      paper: CORA
//	      figure: Fig. 5
//	      caption: the paper's caption
//	      numbers:
//	        - {name: SRPT/FIFO avg JCT, paper: 0.6, ours: "policy=srpt avg_jct_s / policy=fifo avg_jct_s"}
//	    claims:
//	      - text: SRPT beats FIFO on average JCT at every size
//	        check: "for each machines: policy=srpt avg_jct_s < policy=fifo avg_jct_s"
//
// Unknown keys and type errors are reported with file:line. A null axis value is written null
// wherever values are matched (where, claim selectors such as period_s=null, --set) and is an
// empty (null) cell of its column in cells.parquet.
type Spec struct {
	// ID names the spec: "<paper>/<name>" for embedded specs, the file's name without .yaml
	// otherwise.
	ID string
	// File is where the spec was read from, for messages.
	File        string
	Title       string
	Description string
	// Base holds the base run configuration as dotted keys.
	Base map[string]any
	// Axes are the sweep's dimensions: a single axis or a zipped group each.
	Axes []AxisGroup
	// Seeds are the seeds every cell is run with.
	Seeds Seeds
	// Labels are the named size overrides.
	Labels map[string]Label
	// Figures are the figures and tables to draw.
	Figures []Figure
	// Label is the label applied by WithLabel ("" for the spec as written).
	Label string
}

// Pos is a position in a spec file.
type Pos struct {
	File string
	Line int
}

// String formats the position as file:line.
func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Errorf returns a configuration error (wrapping ErrConfig) that starts with the position.
func (p Pos) Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrConfig, p, fmt.Sprintf(format, args...))
}

// Axis is one swept configuration key with its values. A nil value leaves the key unset in the
// cell (the base configuration or the default applies).
type Axis struct {
	Key    string
	Values []any
	Pos    Pos
	nodes  []*yaml.Node // the values' YAML nodes, for messages while parsing
}

// AxisGroup is one dimension of the sweep: a single axis, or several zipped axes of equal
// length whose i-th values go together.
type AxisGroup struct {
	Axes []Axis
}

// Len returns the number of steps of the group.
func (g AxisGroup) Len() int {
	if len(g.Axes) == 0 {
		return 0
	}
	return len(g.Axes[0].Values)
}

// Seeds lists the seeds of a sweep: List if set, else Count seeds Base, Base+1, ...
type Seeds struct {
	Base  int64
	Count int
	List  []int64
}

// Values returns the seeds.
func (s Seeds) Values() []int64 {
	if s.List != nil {
		return slices.Clone(s.List)
	}
	out := make([]int64, s.Count)
	for i := range out {
		out[i] = s.Base + int64(i)
	}
	return out
}

// Label overrides a spec's size.
type Label struct {
	// Seeds, when non-nil, replaces the spec's seeds.
	Seeds *Seeds
	// Set overrides base configuration keys (dotted).
	Set map[string]any
	// Axes replaces the values of axes, by key.
	Axes map[string][]any
	Pos  Pos
}

// Figure kinds of a spec.
const (
	KindLine    = "line"
	KindBars    = "bars"
	KindBox     = "box"
	KindCDF     = "cdf"
	KindCCDF    = "ccdf"
	KindStacked = "stacked"
	KindScatter = "scatter"
	KindTable   = "table"
)

// FigureKinds lists the valid figure kinds.
var FigureKinds = []string{KindLine, KindBars, KindBox, KindCDF, KindCCDF, KindStacked, KindScatter, KindTable}

// JobMetricPrefix marks a per-job column of jobs.parquet used as a figure's y ("job.jct_s").
const JobMetricPrefix = "job."

// UsageMetricPrefix marks a resource dimension of a cell's usage.parquet used as a figure's y
// ("usage.mem"): a stacked or line figure of one configuration's usage over time, one layer or
// line per queue.
const UsageMetricPrefix = "usage."

// JobFilterColumns are the string columns of jobs.parquet a figure's job_where can filter on.
var JobFilterColumns = []string{"class", "queue", "name"}

// IsUsage reports whether the figure plots a usage series (y usage.<dim>).
func (f *Figure) IsUsage() bool {
	return len(f.Y) == 1 && strings.HasPrefix(f.Y[0], UsageMetricPrefix)
}

// Figure is a figure or table to draw from a sweep's cells.
type Figure struct {
	ID   string
	Kind string
	// X is the x-axis: an axis key (line, bars, box, stacked, table rows), or an axis key or
	// cell metric (scatter); unused by cdf and ccdf.
	X string
	// Y are the metrics: one, except for tables (one column each).
	Y []string
	// Series is the axis key whose values make the series ("" for one series).
	Series string
	// Where keeps only cells whose axis values are among the listed ones (formatted values).
	Where map[string][]string
	// JobWhere keeps only jobs.parquet rows whose string column (class, queue, name) has one of
	// the listed values (job.* figures only).
	JobWhere map[string][]string
	// XRange, when set, limits a usage figure to windows starting in [XRange[0], XRange[1]] s.
	XRange         []float64
	Title, Caption string
	XLabel, YLabel string
	LogX, LogY     bool
	Reference      *Reference
	Claims         []Claim
	Pos            Pos
	// YPos is the position of the y key, for errors about unknown metrics.
	YPos Pos
}

// Reference is what the paper shows for a figure.
type Reference struct {
	Paper, Figure, Caption string
	Numbers                []RefNumber
}

// RefNumber is a number the paper reports next to the expression that computes ours.
type RefNumber struct {
	Name  string
	Paper string
	Ours  Expr
	Pos   Pos
}

// Claim is a qualitative claim of the paper with a machine check (see ParseCheck).
type Claim struct {
	Text  string
	Check *Check
	Pos   Pos
}

// ErrNoSpec is wrapped when a spec ID is neither embedded nor a readable file.
var ErrNoSpec = errors.New("no such spec")

// SpecIDs lists the embedded specs' IDs ("<paper>/<name>"), sorted.
func SpecIDs() []string {
	var ids []string
	matches, _ := fs.Glob(specFS, "*/*.yaml")
	for _, m := range matches {
		if strings.HasPrefix(path.Base(m), "_") {
			continue
		}
		ids = append(ids, strings.TrimSuffix(m, ".yaml"))
	}
	slices.Sort(ids)
	return ids
}

// SpecAlias returns the alias of an embedded spec ID: "<paper>-<name>" for "<paper>/<name>"
// (bpf-table4 for bpf/table4).
func SpecAlias(id string) string { return strings.Replace(id, "/", "-", 1) }

// specByAlias returns the embedded spec ID whose alias is arg, or "".
func specByAlias(arg string) string {
	if strings.Contains(arg, "/") {
		return ""
	}
	for _, id := range SpecIDs() {
		if SpecAlias(id) == arg {
			return id
		}
	}
	return ""
}

// MatchSpecs resolves a reproduce argument to spec IDs: an exact embedded ID ("demo/policies")
// or its alias ("demo-policies", see SpecAlias), every embedded spec of a paper directory
// ("demo"), or a path to a spec file on disk (returned as given).
func MatchSpecs(arg string) ([]string, error) {
	ids := SpecIDs()
	if slices.Contains(ids, arg) {
		return []string{arg}, nil
	}
	if id := specByAlias(arg); id != "" {
		if _, err := os.Stat(arg); err != nil { // a file of that name wins
			return []string{id}, nil
		}
	}
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, strings.TrimSuffix(arg, "/")+"/") {
			out = append(out, id)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return []string{arg}, nil
	}
	return nil, fmt.Errorf("%w: %w %q (embedded: %s; or a path to a .yaml file)", ErrConfig, ErrNoSpec, arg, strings.Join(ids, ", "))
}

// LoadSpec reads an embedded spec by ID or alias (SpecAlias), or else a spec file on disk.
func LoadSpec(idOrPath string) (*Spec, error) {
	if slices.Contains(SpecIDs(), idOrPath) {
		return parseSpec(specFS, idOrPath+".yaml", "experiments/", idOrPath)
	}
	if id := specByAlias(idOrPath); id != "" {
		if _, err := os.Stat(idOrPath); err != nil {
			return parseSpec(specFS, id+".yaml", "experiments/", id)
		}
	}
	if _, err := os.Stat(idOrPath); err != nil {
		return nil, fmt.Errorf("%w: %w %q: not embedded (%s) and not a readable file: %v", ErrConfig, ErrNoSpec, idOrPath, strings.Join(SpecIDs(), ", "), err)
	}
	abs, err := filepath.Abs(idOrPath)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return parseSpec(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), filepath.Dir(idOrPath)+string(filepath.Separator), id)
}

// ParseSpec reads the spec file name from fsys; includes are resolved relative to it within
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
	data, err := fs.ReadFile(p.fsys, name)
	if err != nil {
		where := "spec"
		if len(stack) > 0 {
			where = "include from " + p.display + stack[len(stack)-1]
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, where, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrConfig, p.display+name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		p.files[n] = p.display + name
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
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
		var merged *yaml.Node
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
			if merged == nil {
				merged = sub
			} else {
				mergeInto(sub, merged)
				merged = sub
			}
		}
		if merged != nil {
			mergeInto(root, merged)
		}
		break
	}
	return root, nil
}

// mergeInto adds src's mapping entries to dst where dst lacks them, recursing into mappings
// present in both. dst wins for scalars and sequences.
func mergeInto(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, sv := src.Content[i], deref(src.Content[i+1])
		found := false
		for j := 0; j+1 < len(dst.Content); j += 2 {
			if dst.Content[j].Value == k.Value {
				found = true
				if dv := deref(dst.Content[j+1]); dv.Kind == yaml.MappingNode && sv.Kind == yaml.MappingNode {
					mergeInto(dv, sv)
				}
				break
			}
		}
		if !found {
			dst.Content = append(dst.Content, k, sv)
		}
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
	v := NewViper()
	v.Set(key, val)
	c, err := Resolve(v)
	if err != nil {
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
	top := []string{"title", "description", "base", "axes", "seeds", "labels", "figures"}
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
	s.Seeds = p.seeds(f["seeds"], "seeds")
	p.labels(s, f["labels"])
	if f["figures"] != nil {
		p.figures(s, f["figures"])
	}
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

// NullValue is how a null axis value (key unset) is written in where filters, claim selectors
// and --set, and in messages.
const NullValue = "null"

// FormatAxisValue formats an axis value as filters and selectors match it: FormatValue, and
// NullValue for nil (key unset).
func FormatAxisValue(v any) string {
	if v == nil {
		return NullValue
	}
	return FormatValue(v)
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
		f, _, ok := p.fields(v, what, []string{"seeds", "set", "axes"})
		if !ok {
			continue
		}
		if f["seeds"] != nil {
			sd := p.seeds(f["seeds"], what+".seeds")
			l.Seeds = &sd
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

// AxisKeys returns the spec's axis keys in order.
func (s *Spec) AxisKeys() []string {
	var keys []string
	for _, g := range s.Axes {
		for _, a := range g.Axes {
			keys = append(keys, a.Key)
		}
	}
	return keys
}

// NormalizeKey resolves a short axis name used in figures and claims: an axis key itself,
// "seed", the axis whose key is name+".name" (policy → policy.name), or the unique axis whose
// last dotted part is name (machines → workload.machines).
func (s *Spec) NormalizeKey(name string) (string, error) {
	keys := s.AxisKeys()
	if name == "seed" || slices.Contains(keys, name) {
		return name, nil
	}
	if slices.Contains(keys, name+".name") {
		return name + ".name", nil
	}
	var hits []string
	for _, k := range keys {
		if strings.HasSuffix(k, "."+name) {
			hits = append(hits, k)
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	if len(hits) > 1 {
		return "", fmt.Errorf("%q is ambiguous (%s)", name, strings.Join(hits, ", "))
	}
	return "", fmt.Errorf("%q is not an axis (axes: %s)", name, strings.Join(append(keys, "seed"), ", "))
}

var metricRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

func (p *specParser) figures(s *Spec, n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "figures: want a list of figures")
		return
	}
	ids := map[string]bool{}
	allowed := []string{"id", "kind", "x", "y", "series", "where", "title", "caption", "x_label", "y_label", "log_x", "log_y", "reference", "claims", "job_where", "x_range"}
	for i, c := range n.Content {
		what := fmt.Sprintf("figures[%d]", i)
		f, keys, ok := p.fields(c, what, allowed, "id", "kind", "y")
		if !ok {
			continue
		}
		fig := Figure{Pos: p.pos(deref(c)), YPos: p.pos(keys["y"])}
		fig.ID = p.str(f["id"], what+".id")
		if !idRE.MatchString(fig.ID) {
			p.errf(f["id"], "%s.id: bad id %q (lower-case letters, digits, - and _)", what, fig.ID)
		} else if ids[fig.ID] {
			p.errf(f["id"], "%s.id: duplicate figure id %q", what, fig.ID)
		}
		ids[fig.ID] = true
		what = "figure " + fig.ID
		fig.Kind = p.str(f["kind"], what+".kind")
		if !slices.Contains(FigureKinds, fig.Kind) {
			p.errf(f["kind"], "%s.kind: %q (valid: %s)", what, fig.Kind, strings.Join(FigureKinds, ", "))
			continue
		}
		// y: a metric, or a list for tables.
		yn := f["y"]
		if yn.Kind == yaml.SequenceNode && fig.Kind == KindTable {
			for j, yc := range yn.Content {
				fig.Y = append(fig.Y, p.str(deref(yc), fmt.Sprintf("%s.y[%d]", what, j)))
			}
		} else {
			fig.Y = []string{p.str(yn, what+".y")}
		}
		for _, y := range fig.Y {
			if !metricRE.MatchString(y) {
				p.errf(yn, "%s.y: bad metric name %q", what, y)
			}
			if strings.HasPrefix(y, JobMetricPrefix) && !slices.Contains([]string{KindBox, KindCDF, KindCCDF}, fig.Kind) {
				p.errf(yn, "%s.y: per-job %s only in box, cdf and ccdf figures (a %s plots one value per cell)", what, y, fig.Kind)
			}
			if dim, ok := strings.CutPrefix(y, UsageMetricPrefix); ok {
				switch {
				case fig.Kind != KindStacked && fig.Kind != KindLine:
					p.errf(yn, "%s.y: usage series %s only in stacked and line figures", what, y)
				case dim == "" || strings.Contains(dim, "."):
					p.errf(yn, "%s.y: %q: want usage.<resource dimension> (e.g. usage.mem)", what, y)
				}
			}
		}
		usage := fig.IsUsage()
		if usage {
			for _, k := range []string{"x", "series"} {
				if f[k] != nil {
					p.errf(f[k], "%s.%s: a usage figure's x is time and its %s are the queues; select one configuration with where", what, k, map[string]string{"x": "x axis", "series": "layers"}[k])
					delete(f, k)
				}
			}
		}
		axisKey := func(field string) string {
			if f[field] == nil {
				return ""
			}
			name := p.str(f[field], what+"."+field)
			k, err := s.NormalizeKey(name)
			if err != nil || k == "seed" {
				if fig.Kind == KindScatter && field == "x" && metricRE.MatchString(name) {
					return name // a metric on the x axis
				}
				if err == nil {
					err = fmt.Errorf("seed cannot be a figure axis (figures aggregate over seeds)")
				}
				p.errf(f[field], "%s.%s: %v", what, field, err)
				return ""
			}
			return k
		}
		fig.X = axisKey("x")
		fig.Series = axisKey("series")
		switch fig.Kind {
		case KindLine, KindBars, KindStacked, KindTable, KindScatter:
			if f["x"] == nil && !usage {
				p.errf(c, "%s: a %s figure needs x", what, fig.Kind)
			}
		case KindCDF, KindCCDF:
			if f["x"] != nil {
				p.errf(f["x"], "%s.x: a %s figure's x axis is the value of y; use series", what, fig.Kind)
			}
		}
		if fig.X != "" && fig.X == fig.Series {
			p.errf(f["series"], "%s.series: same key as x", what)
		}
		if fig.Kind == KindLine || fig.Kind == KindStacked {
			if g := s.axisByKey(fig.X); g != nil {
				for _, v := range g.Values {
					if _, ok := toFloat(v); !ok {
						p.errf(f["x"], "%s.x: a %s figure needs a numeric x axis; %s has value %s", what, fig.Kind, fig.X, FormatValue(v))
						break
					}
				}
			}
		}
		if w := f["where"]; w != nil {
			fig.Where = p.where(s, w, what+".where")
		}
		if jw := f["job_where"]; jw != nil {
			fig.JobWhere = p.jobWhere(jw, what+".job_where")
			if !strings.HasPrefix(fig.Y[0], JobMetricPrefix) {
				p.errf(jw, "%s.job_where: only for per-job (job.*) figures", what)
			}
		}
		if xr := f["x_range"]; xr != nil {
			if !usage {
				p.errf(xr, "%s.x_range: only for usage (usage.*) figures", what)
			} else if xr.Kind != yaml.SequenceNode || len(xr.Content) != 2 {
				p.errf(xr, "%s.x_range: want [from, to] in seconds", what)
			} else {
				for j, it := range xr.Content {
					x, ok := p.scalar(it, fmt.Sprintf("%s.x_range[%d]", what, j))
					if !ok {
						continue
					}
					v, ok := toFloat(x)
					if !ok {
						p.errf(it, "%s.x_range[%d]: want a number", what, j)
						continue
					}
					fig.XRange = append(fig.XRange, v)
				}
				if len(fig.XRange) == 2 && !(fig.XRange[0] < fig.XRange[1]) {
					p.errf(xr, "%s.x_range: want from < to", what)
				}
			}
		}
		fig.Title = p.str(f["title"], what+".title")
		fig.Caption = p.str(f["caption"], what+".caption")
		fig.XLabel = p.str(f["x_label"], what+".x_label")
		fig.YLabel = p.str(f["y_label"], what+".y_label")
		fig.LogX = p.boolean(f["log_x"], what+".log_x")
		fig.LogY = p.boolean(f["log_y"], what+".log_y")
		if r := f["reference"]; r != nil {
			fig.Reference = p.reference(s, r, what+".reference")
		}
		if cl := f["claims"]; cl != nil {
			if cl.Kind != yaml.SequenceNode {
				p.errf(cl, "%s.claims: want a list of {text, check}", what)
			} else {
				for j, cc := range cl.Content {
					cw := fmt.Sprintf("%s.claims[%d]", what, j)
					cf, _, ok := p.fields(cc, cw, []string{"text", "check"}, "text", "check")
					if !ok {
						continue
					}
					cm := Claim{Text: p.str(cf["text"], cw+".text"), Pos: p.pos(cf["check"])}
					chk, err := ParseCheck(p.str(cf["check"], cw+".check"))
					if err == nil {
						err = chk.normalize(s)
					}
					if err != nil {
						p.errf(cf["check"], "%s.check: %v", cw, err)
						continue
					}
					cm.Check = chk
					fig.Claims = append(fig.Claims, cm)
				}
			}
		}
		s.Figures = append(s.Figures, fig)
	}
}

func (s *Spec) axisByKey(key string) *Axis {
	for gi := range s.Axes {
		for ai := range s.Axes[gi].Axes {
			if s.Axes[gi].Axes[ai].Key == key {
				return &s.Axes[gi].Axes[ai]
			}
		}
	}
	return nil
}

func (p *specParser) where(s *Spec, n *yaml.Node, what string) map[string][]string {
	if n.Kind != yaml.MappingNode {
		p.errf(n, "%s: want a mapping of axis key → value or list of values", what)
		return nil
	}
	out := map[string][]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		key, err := s.NormalizeKey(k.Value)
		if err != nil {
			p.errf(k, "%s: %v", what, err)
			continue
		}
		out[key] = p.values(v, what+"."+key, true)
	}
	return out
}

// values parses a scalar or a list of scalars (null allowed as NullValue when nulls is set) into
// formatted values, reporting an empty result.
func (p *specParser) values(v *yaml.Node, what string, nulls bool) []string {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var vals []string
	for _, it := range items {
		if nulls && isNull(deref(it)) {
			vals = append(vals, NullValue)
			continue
		}
		x, ok := p.scalar(it, what)
		if !ok {
			continue
		}
		vals = append(vals, FormatValue(x))
	}
	if len(vals) == 0 {
		p.errf(v, "%s: want at least one value", what)
	}
	return vals
}

// jobWhere parses a figure's job_where: a mapping of a string column of jobs.parquet to a value
// or list of values.
func (p *specParser) jobWhere(n *yaml.Node, what string) map[string][]string {
	if n.Kind != yaml.MappingNode {
		p.errf(n, "%s: want a mapping of jobs.parquet column (%s) → value or list of values", what, strings.Join(JobFilterColumns, ", "))
		return nil
	}
	out := map[string][]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		col := strings.TrimPrefix(k.Value, JobMetricPrefix)
		if !slices.Contains(JobFilterColumns, col) {
			p.errf(k, "%s: %q is not a string column of jobs.parquet (%s)", what, k.Value, strings.Join(JobFilterColumns, ", "))
			continue
		}
		out[col] = p.values(v, what+"."+col, false)
	}
	return out
}

func (p *specParser) reference(s *Spec, n *yaml.Node, what string) *Reference {
	f, _, ok := p.fields(n, what, []string{"paper", "figure", "caption", "numbers"}, "paper", "figure")
	if !ok {
		return nil
	}
	r := &Reference{Paper: p.str(f["paper"], what+".paper"), Figure: p.str(f["figure"], what+".figure"), Caption: p.str(f["caption"], what+".caption")}
	if nn := f["numbers"]; nn != nil {
		if nn.Kind != yaml.SequenceNode {
			p.errf(nn, "%s.numbers: want a list of {name, paper, ours}", what)
			return r
		}
		for j, c := range nn.Content {
			nw := fmt.Sprintf("%s.numbers[%d]", what, j)
			nf, _, ok := p.fields(c, nw, []string{"name", "paper", "ours"}, "name", "paper")
			if !ok {
				continue
			}
			rn := RefNumber{Name: p.str(nf["name"], nw+".name"), Paper: p.str(nf["paper"], nw+".paper"), Pos: p.pos(deref(c))}
			if o := nf["ours"]; o != nil {
				e, err := ParseExpr(p.str(o, nw+".ours"))
				if err == nil {
					err = normalizeExpr(e, s)
				}
				if err != nil {
					p.errf(o, "%s.ours: %v", nw, err)
					continue
				}
				rn.Ours = e
			}
			r.Numbers = append(r.Numbers, rn)
		}
	}
	return r
}

// WithLabel returns the spec with a label's overrides applied ("" returns a copy as written).
func (s *Spec) WithLabel(label string) (*Spec, error) {
	out := *s
	out.Base = cloneMap(s.Base)
	out.Axes = make([]AxisGroup, len(s.Axes))
	for i, g := range s.Axes {
		out.Axes[i] = AxisGroup{Axes: slices.Clone(g.Axes)}
	}
	if label == "" {
		return &out, nil
	}
	l, ok := s.Labels[label]
	if !ok {
		return nil, fmt.Errorf("%w: %s: no label %q (labels: %s)", ErrConfig, s.File, label, strings.Join(s.LabelNames(), ", "))
	}
	out.Label = label
	if l.Seeds != nil {
		out.Seeds = *l.Seeds
	}
	for k, v := range l.Set {
		out.Base[k] = v
	}
	for gi := range out.Axes {
		for ai := range out.Axes[gi].Axes {
			if vals, ok := l.Axes[out.Axes[gi].Axes[ai].Key]; ok {
				out.Axes[gi].Axes[ai].Values = vals
			}
		}
	}
	return &out, nil
}

// LabelNames returns the spec's label names, sorted.
func (s *Spec) LabelNames() []string {
	var names []string
	for n := range s.Labels {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// FormatValue renders a configuration value canonically, the form selectors and filters match
// against: integers in decimal, floats in the shortest form that round-trips, booleans as
// true/false, lists comma-separated.
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = FormatValue(e)
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// ---------------------------------------------------------------------------------------------
// The claim language.
//
// A check compares two arithmetic expressions over the sweep's cell metrics:
//
//	check    = [ "for each" key { "," key } ":" ] expr cmp expr
//	cmp      = "<" | "<=" | ">" | ">="
//	expr     = term { ("+" | "-") term }
//	term     = unary { ("*" | "/") unary }
//	unary    = [ "-" ] primary
//	primary  = number [ "%" ] | "(" expr ")" | agg "(" operand ")" | operand
//	agg      = "mean" | "median" | "min" | "max"
//	operand  = { selector } metric
//	selector = key "=" value        (value: up to the next space, or "double quoted")
//
// An operand is the aggregate (mean by default) of a metric over the cells — every seed — whose
// axis values match its selectors, within the figure's where filter and the current for-each
// group. Keys may be short (policy = policy.name, machines = workload.machines). Examples:
//
//	policy=srpt avg_jct_s < policy=fifo avg_jct_s
//	for each machines: policy=srpt avg_jct_s <= 80% * policy=fifo avg_jct_s
//	policy=drf p95_jct_s / policy=fifo p95_jct_s > 1.1
//	machines=50 utilization.cpu < machines=25 utilization.cpu
//
// With "for each", the check must hold in every group of the listed keys' values.

// Check is a parsed claim check.
type Check struct {
	ForEach  []string
	LHS, RHS Expr
	Op       string
	Src      string
}

// Expr is a parsed arithmetic expression of the claim language.
type Expr interface {
	// Eval computes the expression, resolving operands with env.
	Eval(env Env) (float64, error)
	// Operands calls f for every operand of the expression, in order.
	Operands(f func(*Operand))
	// String renders the expression canonically.
	String() string
}

// Env resolves an operand to a number (the aggregate of its metric over its matching cells).
type Env func(o *Operand) (float64, error)

// Selector restricts an operand to cells whose Key has the formatted Value.
type Selector struct {
	Key, Value string
}

// Operand is an aggregate of a metric over the cells its selectors match.
type Operand struct {
	Where  []Selector
	Metric string
	// Agg is mean, median, min or max.
	Agg string
}

// Eval resolves the operand with env.
func (o *Operand) Eval(env Env) (float64, error) { return env(o) }

// Operands calls f with o.
func (o *Operand) Operands(f func(*Operand)) { f(o) }

// String renders the operand, e.g. "median(policy.name=drf avg_jct_s)".
func (o *Operand) String() string {
	var b strings.Builder
	for _, s := range o.Where {
		v := s.Value
		if strings.ContainsAny(v, " \t()\",") || v == "" {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "%s=%s ", s.Key, v)
	}
	b.WriteString(o.Metric)
	if o.Agg != "mean" {
		return o.Agg + "(" + b.String() + ")"
	}
	return b.String()
}

type numExpr struct {
	v   float64
	src string
}

func (n numExpr) Eval(Env) (float64, error) { return n.v, nil }
func (n numExpr) Operands(func(*Operand))   {}
func (n numExpr) String() string            { return n.src }

type binExpr struct {
	op   byte
	l, r Expr
}

func (b binExpr) Eval(env Env) (float64, error) {
	l, err := b.l.Eval(env)
	if err != nil {
		return 0, err
	}
	r, err := b.r.Eval(env)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	}
	if r == 0 {
		return math.NaN(), nil
	}
	return l / r, nil
}

func (b binExpr) Operands(f func(*Operand)) { b.l.Operands(f); b.r.Operands(f) }
func (b binExpr) String() string {
	return "(" + b.l.String() + " " + string(b.op) + " " + b.r.String() + ")"
}

type negExpr struct{ e Expr }

func (n negExpr) Eval(env Env) (float64, error) {
	v, err := n.e.Eval(env)
	return -v, err
}
func (n negExpr) Operands(f func(*Operand)) { n.e.Operands(f) }
func (n negExpr) String() string            { return "-" + n.e.String() }

// Eval evaluates both sides and the comparison.
func (c *Check) Eval(env Env) (lhs, rhs float64, held bool, err error) {
	if lhs, err = c.LHS.Eval(env); err != nil {
		return
	}
	if rhs, err = c.RHS.Eval(env); err != nil {
		return
	}
	switch c.Op {
	case "<":
		held = lhs < rhs
	case "<=":
		held = lhs <= rhs
	case ">":
		held = lhs > rhs
	case ">=":
		held = lhs >= rhs
	}
	return
}

// Operands calls f for every operand of both sides.
func (c *Check) Operands(f func(*Operand)) { c.LHS.Operands(f); c.RHS.Operands(f) }

// String renders the check canonically.
func (c *Check) String() string {
	s := c.LHS.String() + " " + c.Op + " " + c.RHS.String()
	if len(c.ForEach) > 0 {
		s = "for each " + strings.Join(c.ForEach, ", ") + ": " + s
	}
	return s
}

func (c *Check) normalize(s *Spec) error {
	for i, k := range c.ForEach {
		nk, err := s.NormalizeKey(k)
		if err != nil {
			return err
		}
		if nk == "seed" {
			return fmt.Errorf("for each seed: claims aggregate over seeds")
		}
		c.ForEach[i] = nk
	}
	if err := normalizeExpr(c.LHS, s); err != nil {
		return err
	}
	return normalizeExpr(c.RHS, s)
}

func normalizeExpr(e Expr, s *Spec) error {
	var err error
	e.Operands(func(o *Operand) {
		for i := range o.Where {
			k, e := s.NormalizeKey(o.Where[i].Key)
			if e != nil && err == nil {
				err = e
			}
			o.Where[i].Key = k
		}
	})
	return err
}

type token struct {
	kind byte // 'w' word, 's' selector, 'n' number, 'o' operator/punctuation, 0 end
	text string
	val  string // selector value
	pos  int
}

func lexClaim(src string) ([]token, error) {
	var toks []token
	isWord := func(c byte) bool {
		return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				(src[j] == '-' || src[j] == '+') && j > i && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{kind: 'n', text: src[i:j], pos: i})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (isWord(src[j]) || src[j] == '-' && j+1 < len(src) && isWord(src[j+1]) && inMetric(src[i:j])) {
				j++
			}
			word := src[i:j]
			if j < len(src) && src[j] == '=' && (j+1 >= len(src) || src[j+1] != '=') {
				// key=value
				k := j + 1
				var val string
				if k < len(src) && src[k] == '"' {
					end := strings.IndexByte(src[k+1:], '"')
					if end < 0 {
						return nil, fmt.Errorf("unterminated quote at column %d", k+1)
					}
					val = src[k+1 : k+1+end]
					k += end + 2
				} else {
					e := k
					for e < len(src) && !strings.ContainsRune(" \t\n(),", rune(src[e])) {
						e++
					}
					val = src[k:e]
					k = e
				}
				if val == "" {
					return nil, fmt.Errorf("selector %s= has no value (column %d)", word, i+1)
				}
				toks = append(toks, token{kind: 's', text: word, val: val, pos: i})
				i = k
				continue
			}
			toks = append(toks, token{kind: 'w', text: word, pos: i})
			i = j
		default:
			for _, op := range []string{"<=", ">=", "<", ">", "+", "-", "*", "/", "(", ")", ",", ":", "%"} {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, token{kind: 'o', text: op, pos: i})
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("unexpected %q at column %d", c, i+1)
		next:
		}
	}
	return append(toks, token{pos: len(src)}), nil
}

// inMetric allows "-" inside names only after a by_class./by_queue. prefix (class names like
// "best-effort"); elsewhere "-" is subtraction.
func inMetric(prefix string) bool {
	return strings.HasPrefix(prefix, "by_class.") || strings.HasPrefix(prefix, "by_queue.") || strings.HasPrefix(prefix, "queue_dominant_share.")
}

type claimParser struct {
	toks []token
	i    int
}

func (p *claimParser) peek() token { return p.toks[p.i] }
func (p *claimParser) next() token { t := p.toks[p.i]; p.i++; return t }
func (p *claimParser) errf(format string, args ...any) error {
	t := p.peek()
	at := "end"
	if t.kind != 0 {
		at = fmt.Sprintf("%q (column %d)", t.text, t.pos+1)
	}
	return fmt.Errorf("%s at %s", fmt.Sprintf(format, args...), at)
}
func (p *claimParser) isOp(s string) bool { t := p.peek(); return t.kind == 'o' && t.text == s }

// ParseCheck parses a claim check (see the claim language above).
func ParseCheck(src string) (*Check, error) {
	toks, err := lexClaim(src)
	if err != nil {
		return nil, err
	}
	p := &claimParser{toks: toks}
	c := &Check{Src: src}
	if t := p.peek(); t.kind == 'w' && t.text == "for" {
		p.next()
		if t := p.next(); t.kind != 'w' || t.text != "each" {
			p.i--
			return nil, p.errf("want \"for each KEY:\"")
		}
		for {
			t := p.next()
			if t.kind != 'w' {
				p.i--
				return nil, p.errf("want an axis key after \"for each\"")
			}
			c.ForEach = append(c.ForEach, t.text)
			if p.isOp(",") {
				p.next()
				continue
			}
			if !p.isOp(":") {
				return nil, p.errf("want \",\" or \":\"")
			}
			p.next()
			break
		}
	}
	if c.LHS, err = p.expr(); err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != 'o' || !slices.Contains([]string{"<", "<=", ">", ">="}, t.text) {
		return nil, p.errf("want a comparison (<, <=, >, >=)")
	}
	c.Op = p.next().text
	if c.RHS, err = p.expr(); err != nil {
		return nil, err
	}
	if p.peek().kind != 0 {
		return nil, p.errf("unexpected")
	}
	nOps := 0
	c.Operands(func(*Operand) { nOps++ })
	if nOps == 0 {
		return nil, fmt.Errorf("compares only numbers; name a metric")
	}
	return c, nil
}

// ParseExpr parses an expression of the claim language without a comparison (a reference
// number's "ours").
func ParseExpr(src string) (Expr, error) {
	toks, err := lexClaim(src)
	if err != nil {
		return nil, err
	}
	p := &claimParser{toks: toks}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != 0 {
		return nil, p.errf("unexpected")
	}
	return e, nil
}

func (p *claimParser) expr() (Expr, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.next().text[0]
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = binExpr{op, l, r}
	}
	return l, nil
}

func (p *claimParser) term() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		op := p.next().text[0]
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = binExpr{op, l, r}
	}
	return l, nil
}

func (p *claimParser) unary() (Expr, error) {
	if p.isOp("-") {
		p.next()
		e, err := p.primary()
		if err != nil {
			return nil, err
		}
		return negExpr{e}, nil
	}
	return p.primary()
}

var aggs = []string{"mean", "median", "min", "max"}

func (p *claimParser) primary() (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == 'n':
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q at column %d", t.text, t.pos+1)
		}
		if p.isOp("%") {
			p.next()
			return numExpr{v / 100, t.text + "%"}, nil
		}
		return numExpr{v, t.text}, nil
	case t.kind == 'o' && t.text == "(":
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errf("want \")\"")
		}
		p.next()
		return e, nil
	case t.kind == 'w' && slices.Contains(aggs, t.text) && p.toks[p.i+1].kind == 'o' && p.toks[p.i+1].text == "(":
		p.i += 2
		o, err := p.operand()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errf("want \")\" closing %s(", t.text)
		}
		p.next()
		o.Agg = t.text
		return o, nil
	case t.kind == 's' || t.kind == 'w':
		return p.operand()
	}
	return nil, p.errf("want a number, \"(\" or an operand (selectors and a metric)")
}

func (p *claimParser) operand() (*Operand, error) {
	o := &Operand{Agg: "mean"}
	for p.peek().kind == 's' {
		t := p.next()
		o.Where = append(o.Where, Selector{Key: t.text, Value: t.val})
	}
	t := p.peek()
	if t.kind != 'w' {
		return nil, p.errf("want a metric name after the selectors")
	}
	p.next()
	o.Metric = t.text
	return o, nil
}
