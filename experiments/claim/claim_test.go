package claim

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseCheck(t *testing.T) {
	tests := []struct {
		name, src, want, err string
	}{
		{"the issue's example parses", "policy=drf avg_jct_s > policy=fifo avg_jct_s", "policy=drf avg_jct_s > policy=fifo avg_jct_s", ""},
		{"ratios against thresholds parse", "policy=srpt p95_jct_s / policy=fifo p95_jct_s <= 0.8", "(policy=srpt p95_jct_s / policy=fifo p95_jct_s) <= 0.8", ""},
		{"percentages scale", "a_s < 80% * b_s", "a_s < (80% * b_s)", ""},
		{"precedence is arithmetic", "a - b * c >= (a - b) * c", "(a - (b * c)) >= ((a - b) * c)", ""},
		{"aggregates wrap operands", "median(machines=25 utilization.cpu) > max(machines=50 utilization.cpu)", "median(machines=25 utilization.cpu) > max(machines=50 utilization.cpu)", ""},
		{"percentile aggregates", "p99(table.cycles.wall_ms) < 5000", "p99(table.cycles.wall_ms) < 5000", ""},
		{"for each takes several keys", "for each policy, machines: x < y", "for each policy, machines: x < y", ""},
		{"quoted and dashed selector values parse", `workload.name="my trace" policy=best-effort x_s < -1`, `workload.name="my trace" policy=best-effort x_s < -1`, ""},
		{"class names with dashes stay one metric", "by_class.best-effort.avg_jct_s < 5", "by_class.best-effort.avg_jct_s < 5", ""},
		{"a missing comparison is an error", "a < b < c", "", "unexpected"},
		{"no comparison is an error", "a + b", "", "want a comparison"},
		{"numbers alone are an error", "1 < 2", "", "name a metric"},
		{"a selector without a metric is an error", "policy=drf < x", "", "want a metric name"},
		{"an unclosed paren is an error", "(a < b", "", "want \")\""},
		{"a stray character is an error", "a ! b", "", "unexpected '!'"},
		{"an empty selector value is an error", "policy= x < y", "", "has no value"},
		{"for without each is an error", "for policy: a < b", "", "for each"},
		{"a quoted number with a relative tolerance parses", "a_s / b_s = 3.05 ± 25%", "(a_s / b_s) = 3.05 ± 25%", ""},
		{"+/- is ± and an absolute tolerance parses", "a_s >= b_s +/- 0.5", "a_s >= b_s ± 0.5", ""},
		{"an equality needs a tolerance", "a_s = 3", "", "needs a tolerance"},
		{"a tolerance needs a number", "a_s = 3 ± x", "", "want a tolerance"},
		{"a selector is not an equality", "a_s=3", "", "want a metric name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCheck(tt.src)
			if errorWanted(t, err, tt.err) {
				return
			}
			if got := c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			// Canonical form round-trips.
			c2, err := ParseCheck(c.String())
			if err != nil || c2.String() != c.String() {
				t.Errorf("round trip of %q: %v, %v", c.String(), c2, err)
			}
		})
	}
}

func TestCheckEval(t *testing.T) {
	vals := map[string]float64{"policy=drf avg_jct_s": 80, "policy=fifo avg_jct_s": 100}
	env := func(o *Operand) (float64, error) {
		key := o.Metric
		if len(o.Where) > 0 {
			key = o.Where[0].Key + "=" + o.Where[0].Value + " " + o.Metric
		}
		v, ok := vals[key]
		if !ok {
			return 0, errors.New("no " + key)
		}
		return v, nil
	}
	tests := []struct {
		src  string
		held bool
		lhs  float64
	}{
		{"policy=drf avg_jct_s < policy=fifo avg_jct_s", true, 80},
		{"policy=drf avg_jct_s < 80% * policy=fifo avg_jct_s", false, 80},
		{"policy=drf avg_jct_s <= 80% * policy=fifo avg_jct_s", true, 80},
		{"policy=drf avg_jct_s / policy=fifo avg_jct_s >= 0.8", true, 0.8},
		{"-policy=drf avg_jct_s + 100 > 19", true, 20},
		{"policy=drf avg_jct_s / (policy=fifo avg_jct_s - 100) > 0", false, math.NaN()},
		{"policy=drf avg_jct_s = 85 ± 5", true, 80},
		{"policy=drf avg_jct_s = 85 ± 5%", false, 80},
		{"policy=drf avg_jct_s > policy=fifo avg_jct_s ± 20%", false, 80},
		{"policy=drf avg_jct_s >= policy=fifo avg_jct_s ± 20%", true, 80},
	}
	for _, tt := range tests {
		c, err := ParseCheck(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		lhs, _, held, err := c.Eval(env)
		if err != nil {
			t.Fatal(err)
		}
		if held != tt.held || !(lhs == tt.lhs || math.IsNaN(lhs) && math.IsNaN(tt.lhs)) {
			t.Errorf("%s: lhs %v held %v, want %v %v", tt.src, lhs, held, tt.lhs, tt.held)
		}
	}
	c, _ := ParseCheck("policy=sp avg_jct_s < 1")
	if _, _, _, err := c.Eval(env); err == nil {
		t.Errorf("missing operand: no error")
	}
}

func TestNormalize(t *testing.T) {
	norm := func(k string) (string, error) {
		switch k {
		case "policy", "policy.name":
			return "policy.name", nil
		case "seed":
			return "seed", nil
		}
		return "", errors.New("no axis " + k)
	}
	tests := []struct {
		name, src, want, err string
	}{
		{"short keys are rewritten in for each and selectors", "for each policy: policy=drf a_s < policy=fifo b_s", "for each policy.name: policy.name=drf a_s < policy.name=fifo b_s", ""},
		{"selectors inside aggregates are rewritten", "median(policy=drf a_s) < 1", "median(policy.name=drf a_s) < 1", ""},
		{"for each seed is an error", "for each seed: a_s < b_s", "", "claims aggregate over seeds"},
		{"an unknown selector key is an error", "nope=1 a_s < b_s", "", "no axis nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCheck(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if errorWanted(t, c.Normalize(norm), tt.err) {
				return
			}
			if c.String() != tt.want {
				t.Errorf("Normalize: %q, want %q", c.String(), tt.want)
			}
		})
	}
}

// errorWanted reports whether a case expects an error (want is a part of its message), failing
// the test when err does not match: an error where none is wanted, or none or another where one
// is.
func errorWanted(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want one containing %q", err, want)
	}
	return true
}

func TestAggregatePercentiles(t *testing.T) {
	vals := make([]float64, 101)
	for i := range vals {
		vals[100-i] = float64(i)
	}
	for agg, want := range map[string]float64{"p90": 90, "p99": 99, "median": 50, "min": 0, "max": 100, "mean": 50} {
		if got := Aggregate(agg, vals); got != want {
			t.Errorf("%s = %v, want %v", agg, got, want)
		}
	}
}
