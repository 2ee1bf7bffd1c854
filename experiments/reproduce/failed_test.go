package reproduce

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

// smallSpec is a spec of two cells of a 120-s window of the embedded workload (a fraction of a
// second to run), with one figure and one claim.
const smallSpec = `title: %s
base:
  workload: {name: %s, window_end_s: 120, machines: 10}
axes:
  - key: policy.name
    values: [fifo, srpt]
seeds: [1]
labels: {quick: {}, paper: {}}
figures:
  - id: jct
    kind: bars
    x: policy
    y: avg_jct_s
    title: Average JCT
    claims:
      - {text: positive, check: "policy=fifo avg_jct_s > 0"}
`

// writeSpecs writes small specs into dir: name → (title, workload name; "" for tpch-fb).
func writeSpecs(t *testing.T, dir string, specs map[string][2]string) {
	t.Helper()
	for name, s := range specs {
		w := s[1]
		if w == "" {
			w = "tpch-fb"
		}
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(fmt.Sprintf(smallSpec, s[0], w)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "garbage.txt"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFailedSpecKeepsTheOthers: a spec whose cell fails (a workload file that does not parse)
// and a spec whose sweep fails (an injected failure) get a section with their error; the
// report is written for the specs that finished, replacing the earlier report whole, and Run
// returns a SectionsError naming the failed ones.
func TestFailedSpecKeepsTheOthers(t *testing.T) {
	dir := t.TempDir()
	writeSpecs(t, dir, map[string][2]string{
		"good":     {"The good spec", ""},
		"earlier":  {"Only in the earlier run", ""},
		"badcell":  {"A cell that fails", filepath.Join(dir, "garbage.txt")},
		"badsweep": {"A sweep that fails", ""},
	})
	out := filepath.Join(dir, "out")
	run := func(names ...string) (*Report, error, string) {
		t.Helper()
		var args []string
		for _, n := range names {
			args = append(args, filepath.Join(dir, n+".yaml"))
		}
		targets, err := Resolve(args)
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		rep, err := RunTargets(context.Background(), targets, Options{Out: out, Label: "quick", Parallel: 1, Formats: []string{"svg"}, Log: &log})
		return rep, err, log.String()
	}
	if _, err, _ := run("good", "earlier"); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(out, ReportFile))
	if !strings.Contains(string(md), "Only in the earlier run") {
		t.Fatalf("the first report lacks its second section:\n%s", md)
	}

	injected := errors.New("injected failure of cell 2")
	runSweep = func(ctx context.Context, p *sweep.Plan, o sweep.Options) (*sweep.Result, error) {
		if strings.HasSuffix(p.Spec.ID, "badsweep") {
			return nil, injected
		}
		return sweep.Run(ctx, p, o)
	}
	t.Cleanup(func() { runSweep = sweep.Run })
	rep, err, log := run("badcell", "good", "badsweep")
	var se *SectionsError
	if !errors.As(err, &se) || se.Total != 3 || len(se.Failed) != 2 {
		t.Fatalf("err = %v, want a SectionsError for 2 of 3", err)
	}
	if errors.Is(err, experiments.ErrConfig) {
		t.Errorf("a data error reads as a configuration error: %v", err)
	}
	if len(rep.Sections) != 3 || rep.Sections[1].Spec == nil || len(rep.Failed()) != 2 {
		t.Fatalf("sections = %+v", rep.Sections)
	}
	if f := rep.Sections[1].Spec.Figures; len(f) != 1 || len(f[0].Claims) != 1 || !f[0].Claims[0].Held() {
		t.Errorf("the good spec's section = %+v", f)
	}
	md, err = os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"report.md": string(md), "index.html": string(page)} {
		for _, want := range []string{"The good spec", "badcell.yaml: cell policy.name=fifo seed=1", "garbage.txt:1", "injected failure of cell 2", "2 of 3 reproductions failed"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(doc, "Only in the earlier run") {
			t.Errorf("%s keeps a section of the earlier run", name)
		}
	}
	// One progress line per figure drawn, and one per failure.
	for _, want := range []string{"good: drawing jct (1 of 1)", "badsweep failed: ", "badcell failed: "} {
		if !strings.Contains(log, want) {
			t.Errorf("progress log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(string(md), "## `"+rep.Sections[2].ID+"`: failed") {
		t.Errorf("report.md has no failed section for %s:\n%s", rep.Sections[2].ID, md)
	}
	if !slices.Equal(se.Failed, []string{rep.Sections[0].ID, rep.Sections[2].ID}) {
		t.Errorf("failed = %v", se.Failed)
	}
	// claims.json, replaced whole too: the failed targets with their errors, the good one's claim.
	doc := decodeClaims(t, checkClaimsFile(t, out, rep))
	if k := []string{doc.Targets[0].Kind, doc.Targets[1].Kind, doc.Targets[2].Kind}; !slices.Equal(k, []string{KindFailed, KindSpec, KindFailed}) ||
		!strings.Contains(doc.Targets[2].Error, "injected failure of cell 2") || !strings.Contains(doc.Targets[0].Error, "garbage.txt:1") ||
		len(doc.Targets[1].Figures) != 1 || doc.Targets[1].Figures[0].Claims[0].Verdict != "held" {
		t.Errorf("claims.json targets = %+v", doc.Targets)
	}
}

// TestInterruptedRunWritesTheReport: a cancelled context still writes the report, the targets
// not reached shown as not run.
func TestInterruptedRunWritesTheReport(t *testing.T) {
	dir := t.TempDir()
	writeSpecs(t, dir, map[string][2]string{"good": {"The good spec", ""}})
	targets, err := Resolve([]string{filepath.Join(dir, "good.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out")
	_, err = RunTargets(ctx, targets, Options{Out: out, Label: "quick", Formats: []string{"svg"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	md, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil || !strings.Contains(string(md), "not run: context canceled") {
		t.Errorf("report.md = %q, %v", md, err)
	}
}
