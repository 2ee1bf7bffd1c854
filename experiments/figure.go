package experiments

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/experiments/claim"
)

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
	// KindGantt draws one cell's schedule from its tasks.parquet (y: tasks; the spec's base
	// must set metrics.tasks: true).
	KindGantt = "gantt"
)

// TasksMetric is a gantt figure's y: the cell's recorded task attempts.
const TasksMetric = "tasks"

// FigureKinds lists the valid figure kinds.
var FigureKinds = []string{KindLine, KindBars, KindBox, KindCDF, KindCCDF, KindStacked, KindScatter, KindTable, KindGantt}

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
	// Y are the metrics: one, except for tables (one column each) and cdf and ccdf figures
	// (one curve each, times the series).
	Y []string
	// Legend names the curves of a cdf or ccdf figure, one entry per metric of Y (nil: the
	// metric's name, or the series value when there is one metric).
	Legend []string
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
	// Simulator is the number the paper's authors' own simulator gives (e.g. the BPF
	// authors' IRFsim), "" when not known.
	Simulator string
	Ours      claim.Expr
	Pos       Pos
}

// Claim is a claim of the paper with a machine check (see package claim): judged with
// statistics over seeds against its threshold and margin or tolerance.
type Claim struct {
	Text  string
	Check *claim.Check
	// Margin is the practical margin (a fraction) given by the spec's margin key; nil applies
	// the default rule (claim.Options.Margin).
	Margin *float64
	// Note says, for the report, why ours may differ from the paper (a modelling difference).
	Note string
	Pos  Pos
}

var metricRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`)

func (p *specParser) figures(s *Spec, n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "figures: want a list of figures")
		return
	}
	ids := map[string]bool{}
	allowed := []string{"id", "kind", "x", "y", "series", "where", "title", "caption", "x_label", "y_label", "log_x", "log_y", "reference", "claims", "job_where", "x_range", "legend"}
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
		// y: a metric, or a list for tables (columns) and cdf/ccdf figures (curves).
		yn := f["y"]
		distribution := fig.Kind == KindCDF || fig.Kind == KindCCDF
		switch {
		case yn.Kind == yaml.SequenceNode && fig.Kind != KindTable && !distribution:
			p.errf(yn, "%s.y: a list of metrics only in table, cdf and ccdf figures (a %s figure plots one)", what, fig.Kind)
		case yn.Kind == yaml.SequenceNode:
			if len(yn.Content) == 0 {
				p.errf(yn, "%s.y: want at least one metric", what)
			}
			for j, yc := range yn.Content {
				y := p.str(deref(yc), fmt.Sprintf("%s.y[%d]", what, j))
				if slices.Contains(fig.Y, y) {
					p.errf(yc, "%s.y[%d]: %s is listed twice", what, j, y)
				}
				fig.Y = append(fig.Y, y)
			}
		default:
			fig.Y = []string{p.str(yn, what+".y")}
		}
		if ln := f["legend"]; ln != nil {
			switch {
			case !distribution:
				p.errf(ln, "%s.legend: only for cdf and ccdf figures (it names their curves)", what)
			case ln.Kind != yaml.SequenceNode || len(ln.Content) != len(fig.Y):
				p.errf(ln, "%s.legend: want a list of %d curve names, one per y", what, len(fig.Y))
			default:
				for j, lc := range ln.Content {
					fig.Legend = append(fig.Legend, p.str(deref(lc), fmt.Sprintf("%s.legend[%d]", what, j)))
				}
			}
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
		if (fig.Kind == KindGantt) != (len(fig.Y) == 1 && fig.Y[0] == TasksMetric) {
			p.errf(yn, "%s.y: y %s goes with kind %s, and a %s figure's y is %s", what, TasksMetric, KindGantt, KindGantt, TasksMetric)
		}
		usage := fig.IsUsage() || fig.Kind == KindGantt
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
			for _, y := range fig.Y {
				if !strings.HasPrefix(y, JobMetricPrefix) {
					p.errf(jw, "%s.job_where: only for per-job (job.*) figures; %s is not one", what, y)
					break
				}
			}
		}
		if xr := f["x_range"]; xr != nil {
			if !usage {
				p.errf(xr, "%s.x_range: only for usage (usage.*) and gantt figures", what)
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
			fig.Claims = p.claims(s, cl, what)
		}
		s.Figures = append(s.Figures, fig)
	}
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
			p.errf(nn, "%s.numbers: want a list of {name, paper, simulator, ours}", what)
			return r
		}
		for j, c := range nn.Content {
			nw := fmt.Sprintf("%s.numbers[%d]", what, j)
			nf, _, ok := p.fields(c, nw, []string{"name", "paper", "simulator", "ours"}, "name", "paper")
			if !ok {
				continue
			}
			rn := RefNumber{Name: p.str(nf["name"], nw+".name"), Paper: p.str(nf["paper"], nw+".paper"),
				Simulator: p.str(nf["simulator"], nw+".simulator"), Pos: p.pos(deref(c))}
			if o := nf["ours"]; o != nil {
				e, err := claim.ParseExpr(p.str(o, nw+".ours"))
				if err == nil {
					err = claim.NormalizeExpr(e, s.NormalizeKey)
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

// claims parses a figure's claims: a list of {text, check, margin, note}.
func (p *specParser) claims(s *Spec, cl *yaml.Node, what string) []Claim {
	if cl.Kind != yaml.SequenceNode {
		p.errf(cl, "%s.claims: want a list of {text, check}", what)
		return nil
	}
	var out []Claim
	for j, cc := range cl.Content {
		cw := fmt.Sprintf("%s.claims[%d]", what, j)
		cf, _, ok := p.fields(cc, cw, []string{"text", "check", "margin", "note"}, "text", "check")
		if !ok {
			continue
		}
		cm := Claim{Text: p.str(cf["text"], cw+".text"), Note: p.str(cf["note"], cw+".note"), Pos: p.pos(cf["check"])}
		if m := cf["margin"]; m != nil {
			cm.Margin = p.margin(m, cw+".margin")
		}
		chk, err := claim.ParseCheck(p.str(cf["check"], cw+".check"))
		if err == nil {
			err = chk.Normalize(s.NormalizeKey)
		}
		if err != nil {
			p.errf(cf["check"], "%s.check: %v", cw, err)
			continue
		}
		cm.Check = chk
		out = append(out, cm)
	}
	return out
}

// margin parses a claim's practical margin: a percentage ("10%") or a fraction (0.1), at least
// 0 and below 1.
func (p *specParser) margin(n *yaml.Node, what string) *float64 {
	bad := func() *float64 {
		p.errf(n, "%s: want a percentage such as 10%% or a fraction in [0, 1), got %q", what, n.Value)
		return nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return bad()
	}
	var m float64
	if pct, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "%"); ok && n.Tag == "!!str" {
		v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil {
			return bad()
		}
		m = v / 100
	} else if n.Tag != "!!int" && n.Tag != "!!float" || n.Decode(&m) != nil {
		return bad()
	}
	if !(m >= 0 && m < 1) {
		return bad()
	}
	return &m
}
