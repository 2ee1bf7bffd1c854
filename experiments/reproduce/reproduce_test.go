package reproduce

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/internal/testbin"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite golden files")

const synthSpec = `
title: Synthetic
axes:
  - key: policy.name
    values: [fifo, drf]
  - key: workload.machines
    values: [10, 20]
seeds: [1, 2]
labels: {quick: {}, paper: {}}
figures:
  - {id: line, kind: line, x: machines, y: avg_jct_s, series: policy}
  - id: bars
    kind: bars
    x: policy
    y: avg_jct_s
    series: machines
    reference: {paper: P, figure: Fig. 9, caption: bars,
                numbers: [{name: drf/fifo, paper: "0.5", simulator: "0.45", ours: "policy=drf avg_jct_s / policy=fifo avg_jct_s"},
                          {name: fifo JCT, paper: "90", ours: "policy=fifo avg_jct_s"}]}
    claims:
      - {text: drf is faster, check: "for each machines: policy=drf avg_jct_s < policy=fifo avg_jct_s"}
      - {text: drf is twice as fast, check: "policy=drf avg_jct_s <= 50% * policy=fifo avg_jct_s"}
      - {text: median job, check: "median(policy=drf job.jct_s) < median(policy=fifo job.jct_s)", margin: 10%}
      - {text: bad selector value, check: "policy=srpt avg_jct_s < 1"}
      - {text: drf is 2.5 times as fast, check: "policy=fifo avg_jct_s / policy=drf avg_jct_s = 2.5 ± 4%", note: the paper's cluster is larger}
  - {id: box, kind: box, x: policy, y: job.jct_s}
  - {id: cdf, kind: cdf, y: job.jct_s, series: policy, where: {machines: 10}, log_x: true}
  - {id: ccdf, kind: ccdf, y: avg_jct_s, log_y: true}
  - {id: stacked, kind: stacked, x: machines, y: utilization.cpu, series: policy}
  - {id: scatter, kind: scatter, x: utilization.cpu, y: avg_jct_s, series: policy}
  - {id: table, kind: table, x: policy, series: machines, y: [avg_jct_s, utilization.cpu]}
`

// synthData builds a sweep table and cell cache by hand: avg_jct_s = 100 (fifo) or 40 (drf),
// divided by machines/10, plus the seed; each cell has five jobs.
func synthData(t *testing.T) *data {
	t.Helper()
	spec, err := experiments.ParseSpec(fstest.MapFS{"s.yaml": {Data: []byte(synthSpec)}}, "s.yaml", "", "synth")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	tb := &sweep.Table{Spec: "synth", Axes: []sweep.Column{{Key: "policy.name", Type: sweep.TypeString}, {Key: "workload.machines", Type: sweep.TypeInt64}}}
	i := 0
	for _, p := range []string{"fifo", "drf"} {
		for _, m := range []int64{10, 20} {
			for _, seed := range []int64{1, 2} {
				base := map[string]float64{"fifo": 100, "drf": 40}[p] / float64(m/10)
				key := fmt.Sprintf("%064d", i)
				tb.Rows = append(tb.Rows, sweep.Row{Cell: i, Key: key, Axes: []any{p, m}, Seed: seed,
					Metrics: map[string]float64{"avg_jct_s": base + float64(seed), "utilization.cpu": 0.5 + 0.1*float64(seed) - float64(m)/100}})
				var jobs []replay.JobRecord
				for j := range 5 {
					jobs = append(jobs, replay.JobRecord{Index: int32(j), Completed: true, Submit: 0, FirstStart: 0,
						Finish: traces.FromSeconds(base * float64(j+1) / 3), Tasks: 1, Finished: 1, Utility: math.NaN()})
				}
				dir := sweep.CellDir(cache, key)
				os.MkdirAll(dir, 0o755)
				err := sweep.WriteFileAtomic(filepath.Join(dir, experiments.JobsFile), func(w io.Writer) error { return experiments.WriteJobs(w, jobs) })
				if err != nil {
					t.Fatal(err)
				}
				i++
			}
		}
	}
	tb.Metrics = []string{"avg_jct_s", "utilization.cpu"}
	return &data{spec: spec, t: tb, cache: cache}
}

func TestEveryFigureKindBuilds(t *testing.T) {
	d := synthData(t)
	for i := range d.spec.Figures {
		f := &d.spec.Figures[i]
		t.Run(f.ID, func(t *testing.T) {
			b, err := d.build(f)
			if err != nil {
				t.Fatal(err)
			}
			if f.Kind == experiments.KindTable {
				if b.table == nil || len(b.table.Rows) != 4 || b.table.Rows[0][2] != "101.5 ± 6.4" {
					t.Errorf("table = %+v", b.table)
				}
				return
			}
			var svg bytes.Buffer
			if err := b.fig.Encode(&svg, "svg"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(svg.Bytes(), []byte("<svg")) {
				t.Errorf("no SVG")
			}
		})
	}
	box, _ := d.build(&d.spec.Figures[2])
	if n := len(box.fig.Groups[0].Samples[0]); n != 20 {
		t.Errorf("box pools %d job values for fifo, want 20 (4 cells × 5 jobs)", n)
	}
	if len(box.notes) != 1 || !strings.Contains(box.notes[0], "workload.machines ∈ {10, 20}") {
		t.Errorf("box notes = %v, want the pooled machines axis", box.notes)
	}
}

func TestClaimsAreChecked(t *testing.T) {
	d := synthData(t)
	f := &d.spec.Figures[1]
	var got []ClaimResult
	for i := range f.Claims {
		got = append(got, d.checkClaim(f, &f.Claims[i]))
	}
	if !got[0].Held() || len(got[0].Groups) != 2 || got[0].Groups[0].Group != "workload.machines=10" || got[0].Groups[0].LHS != 41.5 || got[0].Groups[0].RHS != 101.5 {
		t.Errorf("claim 0 = %+v", got[0])
	}
	// drf mean 31.5 vs fifo mean 76.5: 31.5 <= 38.25 holds.
	if !got[1].Held() || got[1].Groups[0].LHS != 31.5 || got[1].Groups[0].RHS != 38.25 {
		t.Errorf("claim 1 = %+v", got[1])
	}
	// Jobs do not depend on the seed here: no variance, judged by the spec's 10% margin alone.
	if g := got[2].Groups[0]; !got[2].Held() || g.Operands[0].N != 20 || !g.Estimate.Exact || g.Test.Bound != 0.9 {
		t.Errorf("claim 2 = %+v", got[2])
	}
	if got[3].Held() || got[3].Verdict != claim.Error || got[3].Err == nil || !strings.Contains(got[3].Err.Error(), "no cells match policy.name=srpt") || !strings.Contains(got[3].Err.Error(), ":") {
		t.Errorf("claim 3 = %+v", got[3])
	}
	// fifo/drf per seed: 76/31 and 77/32, about 2.43; the interval over two seeds straddles 2.4.
	if g := got[4].Groups[0]; got[4].Verdict != claim.NotSignificant || g.Test.Lo != 2.4 || g.Test.Hi != 2.6 || got[4].Note == "" {
		t.Errorf("claim 4 = %+v, %+v", got[4], g.Outcome)
	}
	n := d.number(f, &f.Reference.Numbers[0])
	if e := n.Ours; n.Err != nil || math.Abs(e.Value-math.Sqrt(31.0/76*32/77)) > 1e-12 || !(e.Lo < e.Value && e.Value < e.Hi) || n.Paper != "0.5" || n.Simulator != "0.45" {
		t.Errorf("number = %+v", n)
	}
	if _, err := d.build(&experiments.Figure{ID: "x", Kind: experiments.KindBars, X: "policy.name", Y: []string{"nope_s"}}); err == nil || !strings.Contains(err.Error(), "unknown metric \"nope_s\"") {
		t.Errorf("unknown metric error = %v", err)
	}
}

// synthReport builds a report by hand (no replays), for golden output independent of the engine.
func synthReport(t *testing.T) *Report {
	d := synthData(t)
	spec := d.spec
	spec.File = "experiments/synth.yaml"
	spec.Description = "A hand-made report."
	sr := &SpecReport{Spec: spec, Label: "quick", Dir: "synth", Cells: 8, Ran: 6, Cached: 2, Seeds: []int64{1, 2}, SeedInvariant: true}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="237.6pt" height="172.8pt"><rect width="10" height="10"/></svg>`)
	for _, i := range []int{1, 7} {
		f := &spec.Figures[i]
		b, err := d.build(f)
		if err != nil {
			t.Fatal(err)
		}
		rf := Figure{Spec: f, Notes: b.notes, Table: b.table, Files: []string{"synth/figures/" + f.ID + ".png"}}
		if b.fig != nil {
			rf.SVG = svg
		}
		for j := range f.Claims {
			rf.Claims = append(rf.Claims, d.checkClaim(f, &f.Claims[j]))
		}
		if f.Reference != nil {
			for j := range f.Reference.Numbers {
				rf.Numbers = append(rf.Numbers, d.number(f, &f.Reference.Numbers[j]))
			}
		}
		sr.Figures = append(sr.Figures, rf)
	}
	jr := &JVuReport{Label: "quick", Src: "experiments/jvu/testdata/google2011", Dir: JVuDir,
		Artifact: &jvu.Artifact{ID: "jv-fig99", Title: "A hand-made <analysis>", Paper: jvu.PaperName, Label: "quick",
			Reference: "Figure 99: errors | of a made-up predictor",
			Tables:    []jvu.Table{{Title: "Errors", Columns: []string{"predictor", "paper", "ours"}, Rows: [][]string{{"p", "10%", "11.00%"}, {"q | r", "—", "5.00%"}}}},
			Claims: []jvu.Claim{
				{Text: "p is within 2x 90% of the time", Paper: "10%", Ours: "11.00%", Test: "10% ± 2 pp (8 to 12)", Verdict: claim.Held, Reason: "11 lies in [8, 12]"},
				{Text: "q beats p", Paper: "q < p", Ours: "5.00% vs 11.00%", Test: "ratio < 1, margin 5% (< 0.95)", Verdict: claim.NotHeld, Reason: "2.2 is not below 0.95"},
			},
			Notes: "Population: 12 jobs here, 385582 in the paper.\n\nA second\nparagraph.\n"},
		Figures: []JVuFigure{{Name: "jv-fig99", Files: []string{"jvu/jv-fig99.png", "jvu/jv-fig99.svg"}, SVG: svg}},
	}
	// The JamaisVu section comes first: sections keep the order they were given in.
	return &Report{Label: "quick", Sections: []Section{{JVu: jr}, {Spec: sr}}}
}

func TestReportGolden(t *testing.T) {
	r := synthReport(t)
	if got, want := r.Tally(), (Tally{Held: 4, NotSignificant: 1, NotHeld: 1, Errors: 1}); got != want {
		t.Errorf("tally %+v, want %+v (3 held, 1 not significant, 1 error for the spec; 1 held, 1 not held for the JamaisVu section)", got, want)
	}
	for _, g := range []struct {
		name  string
		write func(io.Writer) error
	}{{"report.md", r.WriteMarkdown}, {"index.html", r.WriteHTML}} {
		var b bytes.Buffer
		if err := g.write(&b); err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", g.name+".golden"), b.Bytes(), *update)
	}
}

var (
	demoOnce    sync.Once
	demoDir     string
	demoTargets []Target
	demoRep     *Report
	demoErr     error
)

// demoArgs are the reproduce arguments of the shared test run: the embedded demo specs between
// two JamaisVu reproductions, which run on the committed quick fixture in well under a second.
var demoArgs = []string{"jv-table1", "demo", "jv-fig12"}

// demo reproduces demoArgs at the quick label once per test binary.
func demo(t *testing.T) (string, *Report) {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoErr = os.MkdirTemp("", "schedlab-reproduce-demo-")
		if demoErr != nil {
			return
		}
		if demoTargets, demoErr = Resolve(demoArgs); demoErr != nil {
			return
		}
		demoRep, demoErr = RunTargets(context.Background(), demoTargets, Options{Out: demoDir, Label: "quick", Parallel: 2, Formats: []string{"svg", "png"}})
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir, demoRep
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	testbin.Cleanup() // a schedlab binary built for reproduceBuilt
	os.Exit(code)
}

func TestReproduceDemo(t *testing.T) {
	dir, rep := demo(t)
	if len(rep.Specs()) == 0 || rep.Specs()[0].Spec.ID != "demo/policies" {
		t.Fatalf("specs = %+v", rep.Specs())
	}
	sr := rep.Specs()[0]
	if sr.Cells != 12 || sr.Ran+sr.Cached != 12 {
		t.Errorf("cells %d ran %d cached %d", sr.Cells, sr.Ran, sr.Cached)
	}
	for _, f := range sr.Figures {
		for _, c := range f.Claims {
			if c.Err != nil {
				t.Errorf("figure %s: claim %q: %v", f.Spec.ID, c.Text, c.Err)
			}
		}
		for _, n := range f.Numbers {
			if n.Err != nil || math.IsNaN(n.Ours.Value) {
				t.Errorf("figure %s: number %q = %v, %v", f.Spec.ID, n.Name, n.Ours, n.Err)
			}
		}
		for _, p := range f.Files {
			if st, err := os.Stat(filepath.Join(dir, p)); err != nil || st.Size() == 0 {
				t.Errorf("figure file %s: %v", p, err)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Built-in policies on two cluster sizes", "![avg-jct](demo/policies/figures/avg-jct.png)", "| held", "schedlab demo, Fig. 1", "| held: ", "< 1, margin 5% (< 0.95)"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`<img src="data:image/svg\+xml;base64,`).FindAll(page, -1)
	if len(imgs) != 5 {
		t.Errorf("index.html has %d inline SVG images, want 5 (3 of the demo, 1 each of jv-table1 and jv-fig12)", len(imgs))
	}
	if bytes.Contains(page, []byte(`src="http`)) || bytes.Contains(page, []byte(`href="http`)) {
		t.Errorf("index.html is not self-contained")
	}
	claims := checkClaimsFile(t, dir, rep)
	// A second reproduce finds every cell cached and writes the same sections and the same
	// claims.json.
	rep2, err := RunTargets(context.Background(), demoTargets, Options{Out: dir, Label: "quick", Formats: []string{"svg", "png"}})
	if err != nil {
		t.Fatal(err)
	}
	if again := checkClaimsFile(t, dir, rep2); !bytes.Equal(again, claims) {
		t.Errorf("claims.json of the cached rerun differs from the first run's")
	}
	if rep2.Specs()[0].Ran != 0 {
		t.Errorf("rerun ran %d cells", rep2.Specs()[0].Ran)
	}
	if len(rep2.Sections) != len(rep.Sections) || len(rep2.JVu()) != 2 {
		t.Errorf("rerun has %d sections (%d JamaisVu), want %d (2)", len(rep2.Sections), len(rep2.JVu()), len(rep.Sections))
	}
}

// TestReproduceJVuSections checks the JamaisVu reproductions of the shared run: sections in the
// order given between the demo spec's, their claims counted, and in report.md and index.html
// their title, paper reference, figures, tables, paper-vs-ours claims and population notes.
func TestReproduceJVuSections(t *testing.T) {
	dir, rep := demo(t)
	var order []string
	for _, sec := range rep.Sections {
		if sec.JVu != nil {
			order = append(order, sec.JVu.Artifact.ID)
		} else {
			order = append(order, sec.Spec.Spec.ID)
		}
	}
	if got := strings.Join(order, " "); got != "jv-table1 demo/policies jv-fig12" {
		t.Fatalf("sections %q, want jv-table1 demo/policies jv-fig12", got)
	}
	// At label quick the JamaisVu claims are shown but not counted: the tally is the spec's.
	spec := (&Report{Sections: rep.Sections[1:2]}).Tally()
	tally := rep.Tally()
	jvTotal := 0
	for _, jr := range rep.JVu() {
		if len(jr.Artifact.Claims) == 0 || len(jr.Figures) == 0 || len(jr.Artifact.Tables) == 0 {
			t.Errorf("%s: %d claims, %d figures, %d tables", jr.Artifact.ID, len(jr.Artifact.Claims), len(jr.Figures), len(jr.Artifact.Tables))
		}
		jvTotal += len(jr.Artifact.Claims)
		if !strings.Contains(jr.Artifact.Informational, "too small for the paper's claims") {
			t.Errorf("%s: quick-label claims not marked as not counted: %q", jr.Artifact.ID, jr.Artifact.Informational)
		}
		if jr.Src != "experiments/jvu/testdata/google2011" {
			t.Errorf("%s: source shown as %q, want the fixture relative to the repository root", jr.Artifact.ID, jr.Src)
		}
	}
	if tally.Informational != jvTotal || jvTotal == 0 || tally.Total() != spec.Total() || tally.Held != spec.Held || spec.Total() == 0 {
		t.Errorf("Tally() = %+v, want the spec's %+v and %d JamaisVu claims not counted", tally, spec, jvTotal)
	}

	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	pos := func(s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Errorf("report.md lacks %q", s)
		}
		return i
	}
	t1 := pos("## Per-feature predictability and coverage (`jv-table1`)")
	dm := pos("## Built-in policies on two cluster sizes")
	f12 := pos("## Predictions outside 2x and 10x: JVuPredict vs the best single pairs (`jv-fig12`)")
	if !(t1 < dm && dm < f12) {
		t.Errorf("report.md sections out of order: jv-table1 at %d, demo at %d, jv-fig12 at %d", t1, dm, f12)
	}
	pos(fmt.Sprintf("Claims held: %d of %d (", tally.Held, tally.Total()))
	pos(fmt.Sprintf("%d JamaisVu claims at label quick not counted", jvTotal))
	pos("> Not counted: at label quick the sample is too small for the paper's claims")
	pos("**Paper:** JamaisVu, Table 1: JVuPredict-tracked features")
	pos("**Paper:** JamaisVu, Figure 12: percentage of predictions outside a factor of two")
	pos("![jv-fig12](jvu/jv-fig12.png)")
	pos("![jv-table1](jvu/jv-table1.png)")
	pos("### Table: Predictions outside 2x and 10x")
	pos("trace `experiments/jvu/testdata/google2011`, label quick. Page: `jvu/jv-fig12.md`.")
	pos("in the paper (")
	pos("385582 in the paper")
	// Every claim is a row of a paper-vs-ours table with both numbers, the test and the verdict.
	for _, jr := range rep.JVu() {
		for _, c := range jr.Artifact.Claims {
			var cells []string
			for _, s := range []string{c.Text, c.Paper, c.Ours, c.Test, c.Verdict.String() + ": " + c.Reason} {
				cells = append(cells, regexp.QuoteMeta(strings.ReplaceAll(s, "|", `\|`)))
			}
			row := regexp.MustCompile(`(?m)^\| ` + strings.Join(cells, ` +\| `) + ` +\|$`)
			if !row.MatchString(text) {
				t.Errorf("report.md has no claims row for %s %q (paper %s, ours %s)", jr.Artifact.ID, c.Text, c.Paper, c.Ours)
			}
		}
	}
	for _, f := range []string{"jvu/jv-fig12.png", "jvu/jv-fig12.svg", "jvu/jv-fig12.md", "jvu/jv-table1.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	// The section of jv-fig12 inlines the SVG file written beside the report.
	sec := regexp.MustCompile(`(?s)<section class="spec" id="jvu-jv-fig12">.*?</section>`).Find(page)
	if sec == nil {
		t.Fatal("index.html has no jv-fig12 section")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "jvu", "jv-fig12.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sec, []byte(`<img src="`+dataURI("image/svg+xml", svg)+`"`)) {
		t.Errorf("the jv-fig12 section does not inline jvu/jv-fig12.svg")
	}
	for _, want := range []string{"<strong>Paper:</strong> JamaisVu, Figure 12:", `<table class="paper-vs-ours claims">`, `<table class="results"`, `class="held"`, `class="not-held"`, "385582 in the paper", `<p class="note">Not counted: `} {
		if !bytes.Contains(sec, []byte(want)) {
			t.Errorf("the jv-fig12 section lacks %q", want)
		}
	}
	if n := bytes.Count(sec, []byte(`<tr class="claim">`)); n != len(rep.Sections[2].JVu.Artifact.Claims) {
		t.Errorf("the jv-fig12 section has %d claim rows, want %d", n, len(rep.Sections[2].JVu.Artifact.Claims))
	}
}

func TestResolve(t *testing.T) {
	got, err := Resolve([]string{"jv-fig12", "demo", "jv", "demo/policies", "jv-fig12"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tg := range got {
		ids = append(ids, tg.ID())
		if (tg.JVu == "") == (tg.Spec == nil) {
			t.Errorf("target %+v sets not exactly one of Spec and JVu", tg)
		}
	}
	if want := "jv-fig12 demo/policies jv-table1 jv-fig3 jv-fig11 jv-fig13 jv-refine"; strings.Join(ids, " ") != want {
		t.Errorf("Resolve = %v, want %s", ids, want)
	}
	// A target that names nothing gets a "did you mean" among specs and jv reproductions alike,
	// not the list of them all.
	for arg, want := range map[string]string{"jv-tabel1": "did you mean jv-table1?", "bpf-fig55": "did you mean bpf-fig5?", "nosuch": "`schedlab reproduce --list` lists them"} {
		_, err := Resolve([]string{arg})
		if err == nil || !errors.Is(err, experiments.ErrNoSpec) || !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "jv-fig13") {
			t.Errorf("Resolve(%s) error = %v, want ErrNoSpec with %q and no list", arg, err, want)
		}
	}
	if all := AllIDs(); all[len(all)-1] != "jv-refine" || !slices.Contains(all, "demo/policies") {
		t.Errorf("AllIDs() = %v", all)
	}
}

func TestJVuSource(t *testing.T) {
	t.Setenv(jvu.PaperSrcEnv, "")
	t.Setenv(SharedDataEnv, "")
	src, err := JVuSource("quick", "")
	if err != nil || !strings.HasSuffix(filepath.ToSlash(src), "experiments/jvu/testdata/google2011") {
		t.Errorf("quick source = %q, %v", src, err)
	}
	if _, err := JVuSource("huge", ""); !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), "quick or paper") {
		t.Errorf("label huge: error %v", err)
	}
	if _, err := JVuSource("quick", filepath.Join(t.TempDir(), "nosuch")); !errors.Is(err, jvu.ErrNoData) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("missing --jv-trace: error %v", err)
	}
	if src, err := JVuSource("paper", "some,where"); err == nil {
		t.Errorf("missing part files: source %q", src)
	}

	// The month: $SCHEDLAB_SHARED_DATA/google2011 when it has job_events/.
	shared := t.TempDir()
	t.Setenv(SharedDataEnv, shared)
	_, err = JVuSource("paper", "")
	for _, want := range []string{filepath.Join(shared, "google2011", "job_events"), "schedlab trace fetch google2011 --dest DIR --tables job_events", "--jv-trace DIR", SharedDataEnv} {
		if !errors.Is(err, jvu.ErrNoData) || !strings.Contains(err.Error(), want) {
			t.Errorf("paper without data: error %v, want it to mention %q", err, want)
		}
	}
	if err := os.MkdirAll(filepath.Join(shared, "google2011", "job_events"), 0o755); err != nil {
		t.Fatal(err)
	}
	if src, err := JVuSource("paper", ""); err != nil || src != filepath.Join(shared, "google2011") {
		t.Errorf("paper source = %q, %v; want %s", src, err, filepath.Join(shared, "google2011"))
	}
	// --jv-trace wins over the environment.
	fixture := filepath.Join("..", "jvu", jvu.QuickSrc)
	if src, err := JVuSource("paper", fixture); err != nil || src != fixture {
		t.Errorf("paper with --jv-trace = %q, %v", src, err)
	}
}

// TestRunTargetsFindsTheTraceFirst checks a missing month fails the run before any sweep.
func TestRunTargetsFindsTheTraceFirst(t *testing.T) {
	t.Setenv(jvu.PaperSrcEnv, t.TempDir())
	targets, err := Resolve([]string{"demo/policies", "jv-fig12"})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = RunTargets(context.Background(), targets, Options{Out: out, Label: "paper"})
	if !errors.Is(err, jvu.ErrNoData) {
		t.Fatalf("error %v, want jvu.ErrNoData", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("the run wrote %d entries before failing", len(ents))
	}
}

// chromium finds Debian's Chromium (installed by `make setup`).
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// checkScript marks every image's load state and counts the tables once the page has loaded.
const checkScript = `<script>
window.addEventListener("load", function () {
  var imgs = document.images;
  for (var i = 0; i < imgs.length; i++) {
    var ok = imgs[i].complete && imgs[i].naturalWidth > 0;
    imgs[i].setAttribute("data-loaded", ok ? "yes" : "no");
    imgs[i].removeAttribute("src");
  }
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-checked", "yes");
  document.body.setAttribute("data-tables", String(document.querySelectorAll("table.paper-vs-ours").length) + "/" + String(document.querySelectorAll("table.results").length));
});
</script>
`

// renderInChromium loads page (with checkScript added) in headless Chromium and returns the
// DOM after the load event. Without Chromium it fails under CI=true and skips otherwise.
func renderInChromium(t *testing.T, page []byte) []byte {
	t.Helper()
	return renderWithScript(t, page, checkScript, "--window-size=1280,1000")
}

// renderWithScript is renderInChromium with another script and more Chromium flags.
func renderWithScript(t *testing.T, page []byte, script string, flags ...string) []byte {
	t.Helper()
	bin := chromium()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found; `make setup` installs Debian's chromium, which CI needs for this test")
		}
		t.Skip("chromium not found (make setup installs it); skipping the browser check of index.html")
	}
	checked := bytes.Replace(page, []byte("</body>"), []byte(script+"</body>"), 1)
	tmp := t.TempDir()
	pagePath := filepath.Join(tmp, "check.html")
	if err := os.WriteFile(pagePath, checked, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--user-data-dir=" + filepath.Join(tmp, "profile"),
		"--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--disable-quic", "--disable-dev-shm-usage", "--virtual-time-budget=5000"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+pagePath)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	if !bytes.Contains(dom, []byte("data-checked=")) {
		t.Fatalf("the check script did not run in Chromium:\n%.2000s", dom)
	}
	return dom
}

// TestIndexHTMLInChromium renders the shared run's index.html (the demo specs and two JamaisVu
// reproductions) in headless Chromium and checks that every image — the specs' figures and the
// JamaisVu figures — decodes (complete, naturalWidth > 0) and that the tables are in the DOM.
func TestIndexHTMLInChromium(t *testing.T) {
	if chromium() == "" {
		renderInChromium(t, nil) // fails under CI, skips otherwise
	}
	dir, rep := demo(t)
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	dom := renderInChromium(t, page)
	wantImgs, jvImgs := 0, 0
	vsTables, resultTables := 0, 0
	for _, s := range rep.Specs() {
		for _, f := range s.Figures {
			if f.SVG != nil {
				wantImgs++
			}
			if len(f.Numbers) > 0 {
				vsTables++
			}
			if len(f.Claims) > 0 {
				vsTables++
			}
			if f.Table != nil {
				resultTables++
			}
		}
	}
	for _, j := range rep.JVu() {
		for _, f := range j.Figures {
			if f.SVG != nil {
				jvImgs++
			}
		}
		if len(j.Artifact.Claims) > 0 {
			vsTables++
		}
		resultTables += len(j.Artifact.Tables)
	}
	if jvImgs < 2 {
		t.Fatalf("the JamaisVu reproductions have %d figures, want at least 2", jvImgs)
	}
	wantImgs += jvImgs
	if got := regexp.MustCompile(`data-loaded="yes"`).FindAll(dom, -1); len(got) != wantImgs {
		t.Errorf("%d images loaded in Chromium, want %d (not loaded: %d)", len(got), wantImgs, bytes.Count(dom, []byte(`data-loaded="no"`)))
	}
	if !bytes.Contains(dom, []byte(fmt.Sprintf(`data-images="%d"`, wantImgs))) {
		t.Errorf("the page has other images than the %d figures", wantImgs)
	}
	m := regexp.MustCompile(`data-tables="(\d+)/(\d+)"`).FindSubmatch(dom)
	if want := fmt.Sprintf("%d/%d", vsTables, resultTables); m == nil || string(m[1])+"/"+string(m[2]) != want || vsTables != 6 {
		t.Errorf("tables in the DOM (paper-vs-ours/results) = %q, want %s (1 numbers and 3 claims tables of the demo, 2 of the JamaisVu reproductions)", m, want)
	}
	// The JamaisVu figures are among the loaded images.
	for _, id := range []string{"jv-table1", "jv-fig12"} {
		if !regexp.MustCompile(`<img[^>]*alt="` + id + `[":][^>]*data-loaded="yes"|<img[^>]*data-loaded="yes"[^>]*alt="` + id + `[":]`).Match(dom) {
			t.Errorf("the %s figure did not load in Chromium", id)
		}
	}
	if !bytes.Contains(dom, []byte(`class="held"`)) {
		t.Errorf("no claim marked held in the rendered page")
	}
}

// TestChromiumCheckCatchesBrokenImages shows the browser check can fail: a page whose image
// does not decode is reported as not loaded.
func TestChromiumCheckCatchesBrokenImages(t *testing.T) {
	page := []byte(`<!DOCTYPE html><html><body><img src="data:image/svg+xml;base64,bm90IHN2Zw==" alt="broken"></body></html>`)
	dom := renderInChromium(t, page)
	if !bytes.Contains(dom, []byte(`data-loaded="no"`)) || bytes.Contains(dom, []byte(`data-loaded="yes"`)) {
		t.Errorf("a broken image was not caught:\n%s", dom)
	}
}

// TestClaimReasons checks what explains a claim of several groups: the reasons of the groups
// that did not hold, the groups whose compared sides are identical, then the spec's note.
func TestClaimReasons(t *testing.T) {
	c := ClaimResult{Verdict: claim.NotHeld, Note: "a modelling difference", Groups: []GroupResult{
		{Group: "tqs=1", Outcome: &claim.Outcome{Verdict: claim.Held, Identical: true, Reason: "1 is below 1.01; " + claim.IdenticalNote}},
		{Group: "tqs=2", Outcome: &claim.Outcome{Verdict: claim.Held, Reason: "0.5 is below 1.01"}},
		{Group: "tqs=4", Outcome: &claim.Outcome{Verdict: claim.NotHeld, Reason: "1.2 is not below 1.01"}},
	}}
	want := []string{"tqs=4: 1.2 is not below 1.01", "tqs=1: " + claim.IdenticalNote, "Note: a modelling difference"}
	if got := claimReasons(c); !slices.Equal(got, want) {
		t.Errorf("claimReasons = %q, want %q", got, want)
	}
}
