package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/replay"
)

func TestRunMetricsNestPolicyMetricsAndReadThemBack(t *testing.T) {
	m := RunMetrics{Summary: replay.Summary{Group: replay.Group{Jobs: 3}}, Policy: map[string]float64{
		"admissions.H": 1, "admissions.S": 0, "solver.fallbacks": 2, "events": 7,
	}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"admissions":{"H":1,"S":0}`, `"solver":{"fallbacks":2}`, `"events":7`, `"jobs":3`} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %s", s, want)
		}
	}
	if strings.Index(s, `"jobs"`) > strings.Index(s, `"admissions"`) {
		t.Errorf("policy metrics precede the summary's own fields: %s", s)
	}
	var back RunMetrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Jobs != 3 || len(back.Policy) != len(m.Policy) {
		t.Fatalf("read back %+v, policy %v", back.Group, back.Policy)
	}
	for k, v := range m.Policy {
		if back.Policy[k] != v {
			t.Errorf("%s = %g, want %g", k, back.Policy[k], v)
		}
	}
}

func TestRunMetricsRefuseClashes(t *testing.T) {
	for name, metrics := range map[string]map[string]float64{
		"shadows a summary field":  {"avg_jct_s": 1},
		"shadows a summary map":    {"utilization.cpu": 1},
		"value and prefix at once": {"solver": 1, "solver.time": 2},
	} {
		t.Run(name, func(t *testing.T) {
			if b, err := json.Marshal(RunMetrics{Policy: metrics}); err == nil {
				t.Errorf("marshalled %v as %s", metrics, b)
			}
		})
	}
}

func TestPolicyReportTablesAndDocsAreWritten(t *testing.T) {
	rep := &policies.Report{
		Tables: []policies.Table{{Name: "events", Columns: []policies.Column{
			{Name: "t_s", Float64: []float64{0, 1.5}},
			{Name: "jobs", Int64: []int64{3, 4}},
			{Name: "status", String: []string{"optimal", "fallback"}},
			{Name: "timeout", Bool: []bool{false, true}},
		}}},
		Docs: []policies.Doc{{Name: "notes", Value: map[string]int{"a": 1}}},
	}
	if err := rep.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writePolicyReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	tbl, _ := testutil.ReadParquet(t, filepath.Join(dir, "events.parquet"))
	defer tbl.Release()
	if tbl.NumRows() != 2 || tbl.NumCols() != 4 {
		t.Fatalf("events.parquet has %d rows × %d columns", tbl.NumRows(), tbl.NumCols())
	}
	if got := tbl.Column(2).Data().Chunk(0).(*array.String).Value(1); got != "fallback" {
		t.Errorf("status[1] = %q", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil || strings.TrimSpace(string(b)) != "{\n  \"a\": 1\n}" {
		t.Errorf("notes.json = %q, %v", b, err)
	}
}
