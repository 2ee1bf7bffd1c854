package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
)

// sensSpec runs the sweep tests' eight-job TPC-H slice (%s: its path), whose replay takes
// milliseconds even under -race, and does not depend on the seed.
const sensSpec = `
title: Sensitivity
base:
  workload: {name: %q, machines: 10}
  engine.cycle_s: 0
axes:
  - key: policy.name
    values: [fifo, srpt]
sensitivity:
  - {key: workload.machines, values: [25, 50]}
seeds: [1, 2]
labels:
  quick:
    sensitivity: {workload.machines: [25]}
  paper: {}
figures:
  - id: jct
    kind: bars
    x: policy
    y: avg_jct_s
    claims:
      - {text: srpt beats fifo, check: "policy=srpt avg_jct_s < policy=fifo avg_jct_s"}
      - {text: fifo is under 1500 s, check: "policy=fifo avg_jct_s < 1500"}
`

// TestSensitivityReport runs a spec with a sensitivity block: the base point and each value
// become cells (linear, not factorial), figures and verdicts use the base point, and the
// report judges every claim again at each point.
func TestSensitivityReport(t *testing.T) {
	tiny, err := filepath.Abs(filepath.Join("..", "sweep", "testdata", "tiny-tpch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := experiments.ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(fmt.Sprintf(sensSpec, tiny))}}, "s.yaml", "", "sens")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := RunTargets(context.Background(), []Target{{Spec: spec}}, Options{Out: dir, Label: "quick", Parallel: 2, Formats: []string{"svg"}})
	if err != nil {
		t.Fatal(err)
	}
	sr := rep.Specs()[0]
	// quick keeps machines=25 only: 2 points × 2 policies × 2 seeds.
	if sr.Cells != 8 {
		t.Errorf("%d cells, want 8", sr.Cells)
	}
	s := sr.Sensitivity
	if s == nil || len(s.Points) != 2 || s.Points[0] != "base" || s.Points[1] != "workload.machines=25" || len(s.Claims) != 2 {
		t.Fatalf("sensitivity %+v", s)
	}
	// FIFO's mean JCT is 2,361 s on the base point's 10 machines and 1,032 s on 25: the
	// claim fails at the base point — so its cells ran with base's 10,
	// not the default — and holds at 25 (its main verdict is the base point's).
	fifo := s.Claims[1]
	if fifo.Verdicts[0] != claim.NotHeld || fifo.Verdicts[1] != claim.Held {
		t.Errorf("fifo < 1500 s: verdicts %v, want not held at base, held at 25 machines", fifo.Verdicts)
	}
	if v := sr.Figures[0].Claims[1].Verdict; v != fifo.Verdicts[0] {
		t.Errorf("main verdict %v, base point's %v", v, fifo.Verdicts[0])
	}
	if got, want := s.Region(fifo), "not held at base; held at workload.machines=25"; got != want {
		t.Errorf("region %q, want %q", got, want)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`### Sensitivity: where each claim holds`, `\| jct: fifo is under 1500 s +\| NOT held +\| held +\| not held at base; held at workload.machines=25 +\|`} {
		if !regexp.MustCompile(want).Match(md) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// claims.json has each point's verdict as report.md does.
	doc := decodeClaims(t, checkClaimsFile(t, dir, rep))
	if sd := doc.Targets[0].Sensitivity; sd == nil || len(sd.Claims) != 2 || sd.Claims[1].Points[0].Verdict != "not held" || sd.Claims[1].Points[1].Verdict != "held" ||
		sd.Claims[1].Region != "not held at base; held at workload.machines=25" || len(sd.Claims[1].Points[1].Groups) != 1 {
		t.Errorf("claims.json sensitivity = %+v", sd)
	}
	// The paper label runs both values: 3 points.
	ps, err := spec.WithLabel("paper")
	if err != nil {
		t.Fatal(err)
	}
	if pts := ps.SensitivityPoints(); len(pts) != 3 {
		t.Errorf("paper points %v", pts)
	}
}

// TestSensitivityParseErrors checks the block's errors name the spec's line.
func TestSensitivityParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"swept twice", "sensitivity:\n  - {key: policy.name, values: [drf]}\n", "swept twice"},
		{"null value", "sensitivity:\n  - {key: workload.machines, values: [null, 5]}\n", "null is the base point"},
		{"unknown key", "sensitivity:\n  - {key: workload.machinez, values: [5]}\n", "did you mean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "axes:\n  - {key: policy.name, values: [fifo, srpt]}\nseeds: [1]\nlabels: {quick: {}, paper: {}}\n" + tc.block
			_, err := experiments.ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(src)}}, "s.yaml", "", "s")
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) || !bytes.Contains([]byte(err.Error()), []byte("s.yaml:")) {
				t.Errorf("got %v, want an error with %q at s.yaml:line", err, tc.want)
			}
		})
	}
}
