package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

const validSpec = `
title: T
base:
  workload: {name: tpch-fb}
  engine.cycle_s: 0
axes:
  - key: policy.name
    values: [fifo, drf]
  - zip:
      - {key: workload.machines, values: [25, 50]}
      - {key: engine.horizon_s, values: [100, 200.5]}
seeds: {base: 7, count: 2}
labels:
  quick:
    seeds: [1]
    set: {metrics.usage_window_s: 0}
    axes: {policy.name: [fifo]}
  paper: {}
figures:
  - id: f1
    kind: bars
    x: policy
    y: avg_jct_s
    series: machines
    where: {horizon_s: [100]}
    reference:
      paper: P
      figure: Fig. 1
      numbers:
        - {name: ratio, paper: "0.5", ours: "policy=drf avg_jct_s / policy=fifo avg_jct_s"}
    claims:
      - text: drf is faster
        check: "for each machines: policy=drf avg_jct_s < 90% * policy=fifo avg_jct_s"
  - id: t1
    kind: table
    x: policy
    y: [avg_jct_s, utilization.cpu]
`

func parse(t *testing.T, files map[string]string) (*Spec, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return ParseSpec(fsys, "spec.yaml", "", "test/spec")
}

func TestParseSpecReadsEveryField(t *testing.T) {
	s, err := parse(t, map[string]string{"spec.yaml": validSpec})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "T" || s.ID != "test/spec" || s.File != "spec.yaml" {
		t.Errorf("title/id/file = %q %q %q", s.Title, s.ID, s.File)
	}
	if got := s.AxisKeys(); !slices.Equal(got, []string{"policy.name", "workload.machines", "engine.horizon_s"}) {
		t.Errorf("axis keys = %v", got)
	}
	if len(s.Axes) != 2 || len(s.Axes[1].Axes) != 2 || s.Axes[1].Len() != 2 {
		t.Fatalf("axes = %+v", s.Axes)
	}
	if v := s.Axes[1].Axes[0].Values[1]; v != int64(50) {
		t.Errorf("machines value = %#v, want int64(50)", v)
	}
	if v := s.Axes[1].Axes[1].Values[1]; v != 200.5 {
		t.Errorf("horizon value = %#v", v)
	}
	if got := s.Seeds.Values(); !slices.Equal(got, []int64{7, 8}) {
		t.Errorf("seeds = %v", got)
	}
	if s.Base["workload.name"] != "tpch-fb" || s.Base["engine.cycle_s"] != int64(0) {
		t.Errorf("base = %v", s.Base)
	}
	f := s.Figures[0]
	if f.X != "policy.name" || f.Series != "workload.machines" || !slices.Equal(f.Where["engine.horizon_s"], []string{"100"}) {
		t.Errorf("figure keys not normalized: x=%q series=%q where=%v", f.X, f.Series, f.Where)
	}
	if f.Reference == nil || f.Reference.Numbers[0].Ours == nil || len(f.Claims) != 1 {
		t.Fatalf("reference/claims = %+v %+v", f.Reference, f.Claims)
	}
	if got, want := f.Claims[0].Check.String(), "for each workload.machines: policy.name=drf avg_jct_s < (90% * policy.name=fifo avg_jct_s)"; got != want {
		t.Errorf("claim = %q, want %q", got, want)
	}
	if f.Claims[0].Pos.Line != 33 {
		t.Errorf("claim line = %d, want 33", f.Claims[0].Pos.Line)
	}
	if got := s.Figures[1].Y; !slices.Equal(got, []string{"avg_jct_s", "utilization.cpu"}) {
		t.Errorf("table y = %v", got)
	}
}

func TestWithLabelAppliesOverrides(t *testing.T) {
	s, err := parse(t, map[string]string{"spec.yaml": validSpec})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.WithLabel("quick")
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Seeds.Values(); !slices.Equal(got, []int64{1}) {
		t.Errorf("quick seeds = %v", got)
	}
	if got := q.Axes[0].Axes[0].Values; len(got) != 1 || got[0] != "fifo" {
		t.Errorf("quick policy axis = %v", got)
	}
	if q.Base["metrics.usage_window_s"] != int64(0) {
		t.Errorf("quick base = %v", q.Base)
	}
	// The original is untouched.
	if len(s.Axes[0].Axes[0].Values) != 2 || s.Base["metrics.usage_window_s"] != nil {
		t.Errorf("WithLabel modified the spec")
	}
	if _, err := s.WithLabel("nope"); err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "paper, quick") {
		t.Errorf("unknown label error = %v", err)
	}
}

func TestSpecErrorsNameFileAndLine(t *testing.T) {
	head := "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	tests := []struct {
		name string
		body string
		want string
	}{
		{"an unknown top-level key is an error", head + "figurez: []\n", "spec.yaml:5: spec: unknown key \"figurez\""},
		{"an unknown base key is an error", "base: {engine: {cycle: 1}}\n" + head, "spec.yaml:1: base: unknown config key \"engine.cycle\", did you mean engine.cycle_s?"},
		{"a misspelt axis key is an error at its line", "axes:\n  - key: policy.nme\n    values: [fifo]\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:2: axes[0].key: unknown config key \"policy.nme\", did you mean policy.name?"},
		{"a base value of the wrong type is an error", "base: {engine: {cycle_s: fast}}\n" + head, "spec.yaml:1: base: engine.cycle_s: want a number ≥ 0"},
		{"an unknown policy is an error", "axes:\n  - key: policy.name\n    values: [fifo, nosuch]\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:3: axes[0].values[1]: policy.name: unknown policy \"nosuch\""},
		{"a negative machine count is an error", "axes:\n  - {key: workload.machines, values: [-1]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:2: axes[0].values[0]: workload.machines: want an integer ≥ 0"},
		{"zipped axes of unequal length are an error", "axes:\n  - zip:\n      - {key: policy.name, values: [fifo, drf]}\n      - {key: workload.machines, values: [1]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:4: axes[0].zip[1]: 1 values, but policy.name has 2"},
		{"seeds must be positive in count", "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 0}\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:3: seeds.count: want an integer ≥ 1"},
		{"a seed list with a string is an error", "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: [1, x]\nlabels: {quick: {}, paper: {}}\n", "spec.yaml:3: seeds[1]: want an integer"},
		{"labels quick and paper are required", "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels: {quick: {}}\n", "labels: missing \"paper\""},
		{"a label may only replace axes", head + "", ""},
		{"a label replacing a non-axis is an error", "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels:\n  quick: {axes: {workload.machines: [1]}}\n  paper: {}\n", "spec.yaml:5: labels.quick.axes: \"workload.machines\" is not an axis"},
		{"a label setting an axis key is an error", "axes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels:\n  quick: {set: {policy.name: drf}}\n  paper: {}\n", "labels.quick.set: \"policy.name\" is an axis"},
		{"a bad figure kind is an error", head + "figures:\n  - {id: a, kind: pie, y: avg_jct_s}\n", "spec.yaml:6: figure a.kind: \"pie\" (valid: line, bars"},
		{"an unknown figure key is an error", head + "figures:\n  - {id: a, kind: bars, x: policy, y: avg_jct_s, colour: red}\n", "spec.yaml:6: figures[0]: unknown key \"colour\""},
		{"a figure x that is not an axis is an error", head + "figures:\n  - {id: a, kind: bars, x: machines, y: avg_jct_s}\n", "figure a.x: \"machines\" is not an axis"},
		{"a job metric in a bar chart is an error", head + "figures:\n  - {id: a, kind: bars, x: policy, y: job.jct_s}\n", "per-job job.jct_s only in box, cdf and ccdf"},
		{"a claim with a syntax error is an error", head + "figures:\n  - id: a\n    kind: bars\n    x: policy\n    y: avg_jct_s\n    claims:\n      - {text: t, check: \"policy=fifo avg_jct_s <\"}\n", "spec.yaml:11: figure a.claims[0].check: want a number"},
		{"a claim on an unknown axis is an error", head + "figures:\n  - id: a\n    kind: bars\n    x: policy\n    y: avg_jct_s\n    claims:\n      - {text: t, check: \"color=red avg_jct_s < 1\"}\n", "\"color\" is not an axis"},
		{"duplicate figure ids are an error", head + "figures:\n  - {id: a, kind: table, x: policy, y: avg_jct_s}\n  - {id: a, kind: table, x: policy, y: avg_jct_s}\n", "spec.yaml:7: figures[1].id: duplicate figure id \"a\""},
		{"a key both in base and swept is an error", "base: {policy: {name: fifo}}\n" + head, "\"policy.name\" is both in base and swept"},
		{"invalid YAML is an error", "axes: [\n", "spec.yaml: "},
		{"a boolean flag must be a boolean", head + "figures:\n  - {id: a, kind: cdf, y: avg_jct_s, log_x: yes please}\n", "figure a.log_x: want true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, map[string]string{"spec.yaml": tt.body})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error does not wrap ErrConfig: %v", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
		})
	}
}

func TestIncludeMergesUnderTheIncludingFile(t *testing.T) {
	files := map[string]string{
		"spec.yaml": "include: [common/_base.yaml]\nbase: {engine: {cycle_s: 5}}\naxes:\n  - {key: policy.name, values: [fifo]}\n",
		"common/_base.yaml": "include: _more.yaml\nbase:\n  workload: {name: tpch-fb}\n  engine: {cycle_s: 1, horizon_s: 9}\n" +
			"seeds: {count: 2}\n",
		"common/_more.yaml": "labels: {quick: {}, paper: {}}\nseeds: {count: 3}\n",
	}
	s, err := parse(t, files)
	if err != nil {
		t.Fatal(err)
	}
	if s.Base["engine.cycle_s"] != int64(5) || s.Base["engine.horizon_s"] != int64(9) || s.Base["workload.name"] != "tpch-fb" {
		t.Errorf("base = %v", s.Base)
	}
	if s.Seeds.Count != 2 {
		t.Errorf("seeds = %+v, want the nearer include's count 2", s.Seeds)
	}
	// Errors in included files name the included file.
	files["common/_more.yaml"] = "labels: {quick: {}, paper: {}}\nseeds: {count: -3}\n"
	files["common/_base.yaml"] = "include: _more.yaml\n"
	_, err = parse(t, files)
	if err == nil || !strings.Contains(err.Error(), "common/_more.yaml:2: seeds.count") {
		t.Errorf("error = %v, want it to name common/_more.yaml:2", err)
	}
	// Cycles are errors.
	files["common/_more.yaml"] = "include: ../spec.yaml\n"
	_, err = parse(t, files)
	if err == nil || !strings.Contains(err.Error(), "include cycle") {
		t.Errorf("error = %v, want an include cycle", err)
	}
	files["common/_more.yaml"] = "include: missing.yaml\n"
	_, err = parse(t, files)
	if err == nil || !strings.Contains(err.Error(), "common/missing.yaml") {
		t.Errorf("error = %v, want the missing include named", err)
	}
}

func TestEmbeddedSpecsParseWithEveryLabel(t *testing.T) {
	ids := SpecIDs()
	if !slices.Contains(ids, "demo/policies") {
		t.Fatalf("embedded specs = %v, want demo/policies", ids)
	}
	for _, id := range ids {
		s, err := LoadSpec(id)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if !strings.HasPrefix(s.File, "experiments/"+id) {
			t.Errorf("%s: file = %q", id, s.File)
		}
		for _, l := range []string{"quick", "paper"} {
			if _, err := s.WithLabel(l); err != nil {
				t.Errorf("%s: label %s: %v", id, l, err)
			}
		}
	}
	if strings.HasPrefix(strings.Join(ids, " "), "_") {
		t.Errorf("fragments listed as specs: %v", ids)
	}
}

func TestMatchSpecs(t *testing.T) {
	got, err := MatchSpecs("demo")
	if err != nil || !slices.Contains(got, "demo/policies") {
		t.Errorf("MatchSpecs(demo) = %v, %v", got, err)
	}
	got, err = MatchSpecs("demo/policies")
	if err != nil || !slices.Equal(got, []string{"demo/policies"}) {
		t.Errorf("MatchSpecs(demo/policies) = %v, %v", got, err)
	}
	if _, err := MatchSpecs("no/such"); !errors.Is(err, ErrNoSpec) || !errors.Is(err, ErrConfig) {
		t.Errorf("MatchSpecs(no/such) error = %v", err)
	}
}

// TestSpecNamesWinOverPaths: an embedded spec's ID, alias or paper names it whatever the working
// directory holds; ./NAME, NAME.yaml and names of no embedded spec are paths.
func TestSpecNamesWinOverPaths(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, d := range []string{"cora-solver", "demo", "bpf"} {
		if err := os.MkdirAll(filepath.Join(d, "fig5"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"bpf-fig5", "bpf/fig9", "cora-solver.yaml", "mine"} {
		if err := os.WriteFile(f, []byte("title: a file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		arg  string
		want []string // nil: ErrNoSpec
	}{
		{"cora-solver", []string{"cora/solver"}},
		{"demo", []string{"demo/policies"}},
		{"demo/", []string{"demo/policies"}},
		{"bpf-fig5", []string{"bpf/fig5"}},
		{"bpf/fig9", []string{"bpf/fig9"}},
		{"./bpf-fig5", []string{"./bpf-fig5"}},
		{"cora-solver.yaml", []string{"cora-solver.yaml"}},
		{"mine", []string{"mine"}},
		{"./cora-solver", nil},
		{"bpf/fig5", []string{"bpf/fig5"}},
		{"bpf/fig5/", nil},
		{"nosuch.yml", nil},
	} {
		got, err := MatchSpecs(tt.arg)
		if tt.want == nil {
			if !errors.Is(err, ErrNoSpec) || !errors.Is(err, ErrConfig) {
				t.Errorf("MatchSpecs(%q) = %v, %v; want ErrNoSpec", tt.arg, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("MatchSpecs(%q) = %v, %v; want %v", tt.arg, got, err, tt.want)
		}
	}
	if s, err := LoadSpec("cora-solver"); err != nil || s.ID != "cora/solver" {
		t.Errorf("LoadSpec(cora-solver) = %v, %v; want the embedded cora/solver", s, err)
	}
	if _, err := LoadSpec("./bpf-fig5"); err == nil || !strings.Contains(err.Error(), `bpf-fig5:1: spec: missing "axes"`) {
		t.Errorf("LoadSpec(./bpf-fig5) = %v; want the file read (and refused: it is no spec)", err)
	}
	if _, err := LoadSpec("demo"); !errors.Is(err, ErrNoSpec) || !strings.Contains(err.Error(), "a paper, not one spec: name one of demo/policies") {
		t.Errorf("LoadSpec(demo) = %v; want ErrNoSpec naming demo's specs", err)
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{int64(25), "25"}, {25, "25"}, {2.5, "2.5"}, {100.0, "100"}, {1e20, "1e+20"}, {true, "true"},
		{"drf", "drf"}, {[]any{"a", int64(1)}, "a,1"}, {nil, ""},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestNormalizeKey(t *testing.T) {
	s, err := parse(t, map[string]string{"spec.yaml": validSpec})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"policy": "policy.name", "machines": "workload.machines", "seed": "seed", "engine.horizon_s": "engine.horizon_s"} {
		if got, err := s.NormalizeKey(in); err != nil || got != want {
			t.Errorf("NormalizeKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := s.NormalizeKey("cycle_s"); err == nil {
		t.Errorf("NormalizeKey(cycle_s): no error")
	}
}

// TestNullAxisValuesAndRepeatsInZips covers null axis values (key unset in that cell) and
// repeated values inside a zipped group, whose tuples must still be distinct.
func TestNullAxisValuesAndRepeatsInZips(t *testing.T) {
	tail := "seeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n"
	zip := func(names, periods string) string {
		return "axes:\n  - zip:\n      - {key: policy.name, values: " + names + "}\n      - {key: policy.params.period_s, values: " + periods + "}\n"
	}
	tests := []struct {
		name string
		body string
		want string // error substring; "" for a valid spec
		axes [][]any
	}{
		{"null leaves a key unset beside values", zip("[drf, bpf]", "[null, 300]") + tail, "", [][]any{{"drf", "bpf"}, {nil, int64(300)}}},
		{"a zip may repeat values when its tuples differ", zip("[drf, sp, bpf, bpf]", "[null, null, 300, 600]") + tail, "", [][]any{{"drf", "sp", "bpf", "bpf"}, {nil, nil, int64(300), int64(600)}}},
		{"~ is null too", "axes:\n  - {key: workload.machines, values: [~, 5]}\n" + tail, "", [][]any{{nil, int64(5)}}},
		{"a single axis may hold null once", "axes:\n  - {key: policy.params.period_s, values: [null, 60]}\n" + tail, "", [][]any{{nil, int64(60)}}},
		{"a repeated zipped tuple is an error at its line", "axes:\n  - zip:\n      - key: policy.name\n        values:\n          - drf\n          - bpf\n          - drf\n      - {key: policy.params.period_s, values: [null, 300, null]}\n" + tail,
			"spec.yaml:7: axes[0].zip: step 2 (policy.name=drf policy.params.period_s=null) repeats step 0; the tuples of a zipped group must be distinct", nil},
		{"a repeated tuple of numbers is an error", zip("[bpf, bpf]", "[300, 300.0]") + tail, "spec.yaml:3: axes[0].zip: step 1 (policy.name=bpf policy.params.period_s=300) repeats step 0", nil},
		{"a repeated value of a single axis is still an error", "axes:\n  - {key: policy.name, values: [drf, bpf, drf]}\n" + tail, "spec.yaml:2: axes[0].values[2]: duplicate value drf", nil},
		{"null twice in a single axis is an error", "axes:\n  - {key: policy.params.period_s, values: [null, 1, null]}\n" + tail, "spec.yaml:2: axes[0].values[2]: duplicate value null", nil},
		{"a label's zipped tuples must be distinct", zip("[drf, bpf]", "[null, 300]") + "seeds: {count: 1}\nlabels:\n  quick:\n    axes:\n      policy.name: [bpf, bpf]\n      policy.params.period_s: [300, 300]\n  paper: {}\n",
			"spec.yaml:9: labels.quick.axes: step 1 (policy.name=bpf policy.params.period_s=300) repeats step 0", nil},
		{"a label may repeat values in a zip", zip("[drf, bpf]", "[null, 300]") + "seeds: {count: 1}\nlabels:\n  quick:\n    axes:\n      policy.name: [bpf, bpf]\n      policy.params.period_s: [300, 600]\n  paper: {}\n", "", nil},
		{"a null value still needs a known key", "axes:\n  - {key: policy.params, values: [null]}\n" + tail, "spec.yaml:2: axes[0].key: unknown config key", nil},
		{"null is not a value of base", "base: {engine: {cycle_s: null}}\n" + zip("[drf, bpf]", "[null, 300]") + tail, "spec.yaml:1: base.engine.cycle_s: want a value", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parse(t, map[string]string{"spec.yaml": tt.body})
			if tt.want != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var got [][]any
			for _, g := range s.Axes {
				for _, a := range g.Axes {
					got = append(got, a.Values)
				}
			}
			if tt.axes != nil && !slicesEqualAny(got, tt.axes) {
				t.Errorf("axis values = %#v, want %#v", got, tt.axes)
			}
		})
	}
}

func slicesEqualAny(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestNullInFiltersAndSelectors checks that null is matched as "null" in where and in claim
// selectors, and that FormatAxisValue writes nil so.
func TestNullInFiltersAndSelectors(t *testing.T) {
	body := "axes:\n  - zip:\n      - {key: policy.name, values: [drf, bpf]}\n      - {key: policy.params.period_s, values: [null, 300]}\n" +
		"seeds: {count: 1}\nlabels: {quick: {}, paper: {}}\nfigures:\n  - id: a\n    kind: table\n    x: policy\n    y: avg_jct_s\n    where: {period_s: [null, 300]}\n" +
		"    claims:\n      - {text: t, check: \"period_s=null avg_jct_s > period_s=300 avg_jct_s\"}\n"
	s, err := parse(t, map[string]string{"spec.yaml": body})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Figures[0].Where["policy.params.period_s"]; !slices.Equal(got, []string{"null", "300"}) {
		t.Errorf("where = %v, want [null 300]", got)
	}
	if got := s.Figures[0].Claims[0].Check.String(); got != "policy.params.period_s=null avg_jct_s > policy.params.period_s=300 avg_jct_s" {
		t.Errorf("claim = %q", got)
	}
	if FormatAxisValue(nil) != NullValue || FormatAxisValue(int64(3)) != "3" {
		t.Errorf("FormatAxisValue: %q %q", FormatAxisValue(nil), FormatAxisValue(int64(3)))
	}
}

func TestSpecAliases(t *testing.T) {
	for _, id := range SpecIDs() {
		alias := SpecAlias(id)
		if strings.Contains(alias, "/") {
			t.Errorf("alias of %s = %q", id, alias)
		}
		got, err := MatchSpecs(alias)
		if err != nil || !slices.Equal(got, []string{id}) {
			t.Errorf("MatchSpecs(%q) = %v, %v; want [%s]", alias, got, err, id)
		}
		s, err := LoadSpec(alias)
		if err != nil || s.ID != id {
			t.Errorf("LoadSpec(%q) = %v, %v; want spec %s", alias, s, err, id)
		}
	}
	if got, err := MatchSpecs("bpf-table4"); err != nil || !slices.Equal(got, []string{"bpf/table4"}) {
		t.Errorf("MatchSpecs(bpf-table4) = %v, %v", got, err)
	}
	if got, err := MatchSpecs("bpf-table4-tpch"); err != nil || !slices.Equal(got, []string{"bpf/table4-tpch"}) {
		t.Errorf("MatchSpecs(bpf-table4-tpch) = %v, %v", got, err)
	}
	if _, err := MatchSpecs("bpf-nosuch"); !errors.Is(err, ErrNoSpec) {
		t.Errorf("MatchSpecs(bpf-nosuch) error = %v", err)
	}
}

// TestClaimMarginNoteAndSimulator checks the keys of claims and reference numbers beyond the
// check: a claim's margin (percentage or fraction) and note, a number's simulator value.
func TestClaimMarginNoteAndSimulator(t *testing.T) {
	head := "axes:\n  - {key: policy.name, values: [fifo, drf]}\nseeds: {count: 2}\nlabels: {quick: {}, paper: {}}\nfigures:\n  - id: f\n    kind: bars\n    x: policy\n    y: avg_jct_s\n"
	s, err := parse(t, map[string]string{"spec.yaml": head + `    reference:
      paper: P
      figure: Fig. 7
      numbers: [{name: r, paper: "3.05", simulator: "2.9", ours: "policy=drf avg_jct_s / policy=fifo avg_jct_s"}]
    claims:
      - {text: a, check: "policy=drf avg_jct_s < policy=fifo avg_jct_s", margin: 10%, note: the paper's cluster is larger}
      - {text: b, check: "policy=drf avg_jct_s / policy=fifo avg_jct_s = 3.05 ± 25%", margin: 0}
      - {text: c, check: "policy=drf avg_jct_s < policy=fifo avg_jct_s"}
`})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Figures[0]
	if n := f.Reference.Numbers[0]; n.Simulator != "2.9" || n.Paper != "3.05" {
		t.Errorf("number = %+v", n)
	}
	c := f.Claims
	if len(c) != 3 || c[0].Margin == nil || *c[0].Margin != 0.1 || c[0].Note != "the paper's cluster is larger" || c[1].Margin == nil || *c[1].Margin != 0 || c[2].Margin != nil {
		t.Fatalf("claims = %+v", c)
	}
	if c[1].Check.Tol == nil || c[1].Check.Tol.Value != 0.25 || !c[1].Check.Tol.Relative || c[1].Check.Op != "=" {
		t.Errorf("tolerance = %+v", c[1].Check)
	}
	for _, tt := range []struct{ margin, want string }{
		{"5", "want a percentage such as 10% or a fraction in [0, 1)"},
		{"-1%", "got \"-1%\""},
		{"fast", "got \"fast\""},
		{"[1]", "want a percentage"},
	} {
		_, err := parse(t, map[string]string{"spec.yaml": head + "    claims:\n      - {text: a, check: \"policy=drf avg_jct_s < 1\", margin: " + tt.margin + "}\n"})
		if err == nil || !strings.Contains(err.Error(), "spec.yaml:11: figure f.claims[0].margin: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("margin %s: error %v, want %q", tt.margin, err, tt.want)
		}
	}
}

// TestNoSuchSpecSuggests: a spec ID that names nothing is a configuration error with a "did
// you mean" by edit distance among IDs, aliases and papers, never the list of every spec.
func TestNoSuchSpecSuggests(t *testing.T) {
	for _, tt := range []struct {
		arg, want string
	}{
		{"demo/polices", "did you mean demo/policies?"},
		{"demo-polices", "did you mean demo-policies?"},
		{"dem", "did you mean demo?"},
		{"zzzzzzzzzzzz", "(`schedlab reproduce --list` lists them)"},
	} {
		for name, load := range map[string]func(string) error{
			"MatchSpecs": func(a string) error { _, err := MatchSpecs(a); return err },
			"LoadSpec":   func(a string) error { _, err := LoadSpec(a); return err },
		} {
			err := load(tt.arg)
			if err == nil || !errors.Is(err, ErrNoSpec) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s(%q) = %v, want ErrNoSpec with %q", name, tt.arg, err, tt.want)
				continue
			}
			if strings.Contains(err.Error(), "bpf/table4") {
				t.Errorf("%s(%q) lists the specs: %v", name, tt.arg, err)
			}
		}
	}
}
