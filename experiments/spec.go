package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

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
//	names:                          # human names in figures and tables (optional; see Names)
//	  policy.name: Policy           # an axis key: column header, x label
//	  srpt: SRPT                    # an axis value, queue or class
//	  bursty*: LQ-*                 # * matches any text and fills the name's *
//	  by_queue.batch0.avg_jct_s: TQ-0 JCT (s)   # a whole metric
//	figures:
//	  - id: avg-jct
//	    kind: bars                  # line|bars|box|cdf|ccdf|stacked|scatter|table
//	    x: policy                   # axis key (short names: policy = policy.name)
//	    y: avg_jct_s                # a cell metric, or job.<column> for box/cdf/ccdf; a list
//	                                #   for table (columns) and cdf/ccdf (curves)
//	    legend: [FIFO, DRF]         # cdf/ccdf: the curves' names, one per y (optional)
//	    series: machines            # one series per value of this axis key
//	    where: {policy: [fifo, srpt]}  # keep only these cells
//	    title: Average JCT
//	    caption: Mean over seeds with 95% CIs.
//	    reference:
//	      paper: CORA
//	      figure: Fig. 5
//	      caption: the paper's caption
//	      numbers:                  # simulator: the authors' own simulator's number (optional)
//	        - {name: SRPT/FIFO avg JCT, paper: 0.6, simulator: 0.62, ours: "policy=srpt avg_jct_s / policy=fifo avg_jct_s"}
//	    claims:                     # judged over seeds (package claim)
//	      - text: SRPT beats FIFO on average JCT at every size
//	        check: "for each machines: policy=srpt avg_jct_s < policy=fifo avg_jct_s"
//	        margin: 10%             # practical margin (default: 5%, or none for a stated threshold)
//	        note: why ours may differ from the paper, for the report
//	      - text: SRPT's JCT is 60% of FIFO's, as the paper reports
//	        check: "policy=srpt avg_jct_s / policy=fifo avg_jct_s = 0.6 ± 20%"
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
	// Names are the human names figures and tables show for axis keys and values, queues,
	// classes and metrics: the spec's names block over its directory's NamesFile.
	Names Names
	// Label is the label applied by WithLabel ("" for the spec as written).
	Label string
	// Sensitivity are the one-at-a-time axes around the base point (sensitivity.go); WithLabel
	// adds them to Axes as one group.
	Sensitivity  []Axis
	sensExpanded bool
	// SensitivityWith are the keys set together with a sensitivity key (its entry's with:), by
	// that key; their values go step by step with its values.
	SensitivityWith map[string][]Axis
}

// NamesFile holds names (a names block alone) that apply to every spec of its directory, under
// each spec's own: experiments/<paper>/_names.yaml.
const NamesFile = "_names.yaml"

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
	// Sensitivity replaces the values of sensitivity keys ([] drops a key).
	Sensitivity map[string][]any
	Pos         Pos
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

// WithLabel returns the spec with a label's overrides applied ("" returns a copy as written).
func (s *Spec) WithLabel(label string) (*Spec, error) {
	out := *s
	out.Base = cloneMap(s.Base)
	out.Axes = make([]AxisGroup, len(s.Axes))
	for i, g := range s.Axes {
		out.Axes[i] = AxisGroup{Axes: slices.Clone(g.Axes)}
	}
	out.Sensitivity = slices.Clone(s.Sensitivity)
	expand := func() *Spec {
		if !out.sensExpanded {
			out.expandSensitivity()
			out.sensExpanded = true
		}
		return &out
	}
	if label == "" {
		return expand(), nil
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
	if !out.sensExpanded {
		out.applySensitivityLabel(l)
	}
	return expand(), nil
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
