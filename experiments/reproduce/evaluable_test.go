package reproduce

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
)

// labelledSpec runs seeds 1 and 2 and policies fifo and drf at label quick (the cells of
// synthData), seeds 1 to 3 and policy sp as well at label paper.
const labelledSpec = `
title: Labelled
axes:
  - key: policy.name
    values: [fifo, drf, sp]
  - key: workload.machines
    values: [10, 20]
seeds: {base: 1, count: 3}
labels:
  quick: {seeds: {count: 2}, axes: {policy.name: [fifo, drf]}}
  paper: {}
figures:
  - id: bars
    kind: bars
    x: policy
    y: avg_jct_s
    reference: {paper: P, figure: Fig. 1, numbers: [{name: seed 3, paper: "1", ours: "seed=3 policy=drf avg_jct_s"}]}
    claims:
      - {text: seed 1, check: "seed=1 policy=drf avg_jct_s < 100"}
      - {text: seed 3, check: "seed=3 policy=drf avg_jct_s < 100"}
      - {text: sp, check: "policy=sp avg_jct_s < policy=fifo avg_jct_s"}
      - {text: seed 9, check: "seed=9 policy=drf avg_jct_s < 100"}
      - {text: not held, check: "policy=drf avg_jct_s > 1000"}
`

// TestClaimsNotEvaluableAtTheLabel: a claim on a seed or an axis value that only another label
// runs is not evaluable — shown, counted neither as held nor as failed, so --strict passes it —
// while a seed no label runs stays an error.
func TestClaimsNotEvaluableAtTheLabel(t *testing.T) {
	d := synthData(t)
	spec, err := experiments.ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(labelledSpec)}}, "s.yaml", "", "labelled")
	if err != nil {
		t.Fatal(err)
	}
	if d.spec, err = spec.WithLabel("quick"); err != nil {
		t.Fatal(err)
	}
	d.labels = otherLabels(spec, "quick")
	f := &d.spec.Figures[0]
	var got []ClaimResult
	for i := range f.Claims {
		got = append(got, d.checkClaim(f, &f.Claims[i]))
	}
	want := []claim.Verdict{claim.Held, claim.NotEvaluable, claim.NotEvaluable, claim.Error, claim.NotHeld}
	for i, c := range got {
		if c.Verdict != want[i] {
			t.Errorf("claim %q: verdict %v (%v), want %v", c.Text, c.Verdict, c.Err, want[i])
		}
	}
	if e := got[1].Err; e == nil || !strings.Contains(e.Error(), "seed=3 is run at label paper, not at label quick (seeds 1, 2)") {
		t.Errorf("claim seed 3: %v", e)
	}
	n := d.number(f, &f.Reference.Numbers[0])
	if n.Err == nil || !strings.Contains(n.Err.Error(), "not evaluable at this label") {
		t.Errorf("number on seed 3: %+v", n)
	}
	rep := &Report{Label: "quick", Sections: []Section{{ID: "labelled", Spec: &SpecReport{Spec: d.spec, Label: "quick", Figures: []Figure{{Spec: f, Claims: got}}}}}}
	tally := rep.Tally()
	if tally != (Tally{Held: 1, NotHeld: 1, Errors: 1, NotEvaluable: 2}) || tally.Total() != 3 || tally.Failed() != 2 {
		t.Errorf("tally %+v", tally)
	}
	if s := tally.String(); !strings.Contains(s, "claims held: 1 of 3") || !strings.Contains(s, "2 claims not counted: not evaluable at this label") {
		t.Errorf("tally line %q", s)
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| not evaluable at this label") {
		t.Errorf("report.md does not show the verdict:\n%s", md.String())
	}
}
