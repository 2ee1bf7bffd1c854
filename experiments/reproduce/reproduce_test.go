package reproduce

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
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
                numbers: [{name: drf/fifo, paper: "0.5", ours: "policy=drf avg_jct_s / policy=fifo avg_jct_s"}]}
    claims:
      - {text: drf is faster, check: "for each machines: policy=drf avg_jct_s < policy=fifo avg_jct_s"}
      - {text: drf is twice as fast, check: "policy=drf avg_jct_s <= 50% * policy=fifo avg_jct_s"}
      - {text: median job, check: "median(policy=drf job.jct_s) < median(policy=fifo job.jct_s)"}
      - {text: bad selector value, check: "policy=srpt avg_jct_s < 1"}
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
	if !got[0].Held || len(got[0].Groups) != 2 || got[0].Groups[0].Group != "workload.machines=10" || got[0].Groups[0].LHS != 41.5 || got[0].Groups[0].RHS != 101.5 {
		t.Errorf("claim 0 = %+v", got[0])
	}
	// drf mean 31.5 vs fifo mean 76.5: 31.5 <= 38.25 holds.
	if !got[1].Held || got[1].Groups[0].LHS != 31.5 || got[1].Groups[0].RHS != 38.25 {
		t.Errorf("claim 1 = %+v", got[1])
	}
	if !got[2].Held || got[2].Groups[0].Operands[0].N != 20 {
		t.Errorf("claim 2 = %+v", got[2])
	}
	if got[3].Held || got[3].Err == nil || !strings.Contains(got[3].Err.Error(), "no cells match policy.name=srpt") || !strings.Contains(got[3].Err.Error(), ":") {
		t.Errorf("claim 3 = %+v", got[3])
	}
	n := d.number(f, &f.Reference.Numbers[0])
	if n.Err != nil || math.Abs(n.Ours-31.5/76.5) > 1e-12 || n.Paper != "0.5" {
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
	return &Report{Label: "quick", Specs: []*SpecReport{sr}}
}

func TestReportGolden(t *testing.T) {
	r := synthReport(t)
	if held, total := r.Held(); held != 3 || total != 4 {
		t.Errorf("held %d of %d, want 3 of 4", held, total)
	}
	for _, g := range []struct {
		name  string
		write func(io.Writer) error
	}{{"report.md", r.WriteMarkdown}, {"index.html", r.WriteHTML}} {
		var b bytes.Buffer
		if err := g.write(&b); err != nil {
			t.Fatal(err)
		}
		// Errors carry the temporary cache path of the synthetic data; none here, but keep the
		// golden files free of machine-specific text.
		got := b.Bytes()
		path := filepath.Join("testdata", g.name+".golden")
		if *update {
			os.MkdirAll("testdata", 0o755)
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update)", err)
		}
		if !bytes.Equal(got, want) {
			os.WriteFile(path+".got", got, 0o644)
			t.Errorf("%s differs from %s (wrote .got; go test -update rewrites)", g.name, path)
		}
	}
}

var (
	demoOnce sync.Once
	demoDir  string
	demoRep  *Report
	demoErr  error
)

// demo reproduces the embedded demo spec at the quick label once per test binary.
func demo(t *testing.T) (string, *Report) {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoErr = os.MkdirTemp("", "schedlab-reproduce-demo-")
		if demoErr != nil {
			return
		}
		var specs []*experiments.Spec
		ids, err := experiments.MatchSpecs("demo")
		if err != nil {
			demoErr = err
			return
		}
		for _, id := range ids {
			s, err := experiments.LoadSpec(id)
			if err != nil {
				demoErr = err
				return
			}
			specs = append(specs, s)
		}
		demoRep, demoErr = Run(context.Background(), specs, Options{Out: demoDir, Label: "quick", Parallel: 2, Formats: []string{"svg", "png"}})
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
	os.Exit(code)
}

func TestReproduceDemo(t *testing.T) {
	dir, rep := demo(t)
	if len(rep.Specs) == 0 || rep.Specs[0].Spec.ID != "demo/policies" {
		t.Fatalf("specs = %+v", rep.Specs)
	}
	sr := rep.Specs[0]
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
			if n.Err != nil || math.IsNaN(n.Ours) {
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
	for _, want := range []string{"## Built-in policies on two cluster sizes", "![avg-jct](demo/policies/figures/avg-jct.png)", "| held", "schedlab demo, Fig. 1"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	imgs := regexp.MustCompile(`<img src="data:image/svg\+xml;base64,`).FindAll(page, -1)
	if len(imgs) != 3 {
		t.Errorf("index.html has %d inline SVG images, want 3", len(imgs))
	}
	if bytes.Contains(page, []byte(`src="http`)) || bytes.Contains(page, []byte(`href="http`)) {
		t.Errorf("index.html is not self-contained")
	}
	// A second reproduce finds every cell cached and writes the same report.
	rep2, err := Run(context.Background(), []*experiments.Spec{sr.Spec}, Options{Out: dir, Label: "quick", Formats: []string{"svg"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Specs[0].Ran != 0 {
		t.Errorf("rerun ran %d cells", rep2.Specs[0].Ran)
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
  document.body.setAttribute("data-tables", String(document.querySelectorAll("table.paper-vs-ours").length) + "/" + String(document.querySelectorAll("table.results").length));
});
</script>
`

// renderInChromium loads page (with checkScript added) in headless Chromium and returns the
// DOM after the load event. Without Chromium it fails under CI=true and skips otherwise.
func renderInChromium(t *testing.T, page []byte) []byte {
	t.Helper()
	bin := chromium()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found; `make setup` installs Debian's chromium, which CI needs for this test")
		}
		t.Skip("chromium not found (make setup installs it); skipping the browser check of index.html")
	}
	checked := bytes.Replace(page, []byte("</body>"), []byte(checkScript+"</body>"), 1)
	tmp := t.TempDir()
	pagePath := filepath.Join(tmp, "check.html")
	if err := os.WriteFile(pagePath, checked, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--user-data-dir="+filepath.Join(tmp, "profile"),
		"--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--disable-quic", "--disable-dev-shm-usage", "--virtual-time-budget=5000",
		"--dump-dom", "file://"+pagePath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	if !bytes.Contains(dom, []byte("data-images=")) {
		t.Fatalf("the check script did not run in Chromium:\n%.2000s", dom)
	}
	return dom
}

// TestIndexHTMLInChromium renders the demo's index.html in headless Chromium and checks that
// every image decodes (complete, naturalWidth > 0) and that the tables are in the DOM.
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
	wantImgs := 0
	for _, s := range rep.Specs {
		for _, f := range s.Figures {
			if f.SVG != nil {
				wantImgs++
			}
		}
	}
	if got := regexp.MustCompile(`data-loaded="yes"`).FindAll(dom, -1); len(got) != wantImgs {
		t.Errorf("%d images loaded in Chromium, want %d (not loaded: %d)", len(got), wantImgs, bytes.Count(dom, []byte(`data-loaded="no"`)))
	}
	if !bytes.Contains(dom, []byte(fmt.Sprintf(`data-images="%d"`, wantImgs))) {
		t.Errorf("the page has other images than the %d figures", wantImgs)
	}
	m := regexp.MustCompile(`data-tables="(\d+)/(\d+)"`).FindSubmatch(dom)
	if m == nil || string(m[1]) != "3" || string(m[2]) != "1" {
		t.Errorf("tables in the DOM (paper-vs-ours/results) = %q, want 3/1", m)
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
