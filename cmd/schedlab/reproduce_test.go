package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/jvu"
)

func TestReproduceList(t *testing.T) {
	out, errOut, code := runCLI(t, "reproduce", "--list")
	if code != 0 || !strings.Contains(out, "demo/policies") || !strings.Contains(out, "12 / 36") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// Every JamaisVu reproduction is listed with its title and paper figure, after the specs.
	for _, id := range jvu.IDs() {
		in, err := jvu.Describe(id)
		if err != nil {
			t.Fatal(err)
		}
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + ` +` + regexp.QuoteMeta(in.Title) + ` +JamaisVu \S.* +— \(Google 2011: fixture / month\)$`)
		if !row.MatchString(out) {
			t.Errorf("--list has no row for %s (%q):\n%s", id, in.Title, out)
		}
	}
	if !strings.Contains(out, "JamaisVu Figure 12") || strings.Index(out, "jv-table1") < strings.Index(out, "demo/policies") {
		t.Errorf("--list:\n%s", out)
	}
	// Specs are listed with their alias, which reproduce accepts as an ID.
	if !regexp.MustCompile(`(?m)^bpf/table4 .* 36 / 180 +bpf-table4$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^demo/policies .* demo-policies$`).MatchString(out) {
		t.Errorf("--list has no alias column:\n%s", out)
	}
}

// TestReproduceMixesSpecsAndJVu reproduces a JamaisVu table, the sweep package's test spec and a
// JamaisVu figure in one call at the quick label, and checks the one report covers all three in
// the order given.
func TestReproduceMixesSpecsAndJVu(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runBuilt(t, "reproduce", "jv-table1", tinySpec, "jv-fig12", "--label", "quick", "--set", tinyWorkload, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "reproduce jv-table1, jv-fig12 (label quick): JVuPredict on the Google 2011 trace experiments/jvu/testdata/google2011") ||
		!strings.Contains(out, "reproduce tiny (label quick): 8 cells") || !strings.Contains(out, "JamaisVu claims at label quick not counted: the fixture is too small") {
		t.Errorf("output:\n%s", out)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	i1 := strings.Index(string(md), "(`jv-table1`)")
	i2 := strings.Index(string(md), "(`tiny`)")
	i3 := strings.Index(string(md), "(`jv-fig12`)")
	if i1 < 0 || i2 < i1 || i3 < i2 || !strings.Contains(string(md), "| JVuPredict predictions outside 2x") {
		t.Errorf("report.md sections at %d, %d, %d:\n%s", i1, i2, i3, md)
	}
	for _, f := range []string{"index.html", "tiny/cells.parquet", "jvu/jv-table1.svg", "jvu/jv-fig12.png", "jvu/jv-fig12.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestReproduceJVuTrace checks where the paper label looks for the month: without data the
// error names the place and how to fetch it; --jv-trace points it at a trace.
func TestReproduceJVuTrace(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(jvu.PaperSrcEnv, empty)
	_, errOut, code := runCLI(t, "reproduce", "jv-fig12", "--label", "paper", "--out", t.TempDir())
	for _, want := range []string{filepath.Join(empty, "job_events"), "schedlab trace fetch google2011 --dest DIR --tables job_events", "--jv-trace DIR"} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, want)
		}
	}
	dir := t.TempDir()
	fixture := filepath.Join("..", "..", "experiments", "jvu", "testdata", "google2011")
	out, errOut, code := runCLI(t, "reproduce", "jv-fig12", "--label", "paper", "--jv-trace", fixture, "--out", dir)
	if code != 0 || !strings.Contains(out, "JVuPredict on the Google 2011 trace "+fixture) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "report.md")); err != nil || !strings.Contains(string(md), "label paper. Page: `jvu/jv-fig12.md`") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
}

// TestReproduceSpecFile reproduces a spec given as a path on disk (the sweep package's test
// spec, on its small workload) and checks the report files.
func TestReproduceSpecFile(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runBuilt(t, "reproduce", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "reproduce tiny (label quick): 8 cells") || !strings.Contains(out, "claims held: 0 of 0 (0 not significant, 0 not held)") {
		t.Errorf("output:\n%s", out)
	}
	for _, f := range []string{"report.md", "index.html", "tiny/cells.parquet", "tiny/figures/jct.svg", "tiny/figures/jct.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestReproduceUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name specs or jv reproductions to reproduce"},
		{[]string{"reproduce", "jv-fig12", "--label", "huge", "--out", t.TempDir()}, "quick or paper"},
		{[]string{"reproduce", "--all", "demo"}, "--all takes no IDs"},
		{[]string{"reproduce", "nosuch"}, "no such spec"},
	} {
		_, errOut, code := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestReproduceBPFByAlias reproduces BPF's Figs. 1 and 9 at the quick label by their aliases
// from the repository root (the specs' scenario files are relative to it): every claim is
// judged (whatever its verdict: the claims are checked, not required to hold), and the BPF
// cells carry admissions.json with the admission counts in their metrics.
func TestReproduceBPFByAlias(t *testing.T) {
	out := t.TempDir()
	t.Chdir(filepath.Join("..", ".."))
	stdout, errOut, code := runBuilt(t, "reproduce", "bpf-fig1", "bpf-fig9", "--label", "quick", "--out", out, "--parallel", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	m := regexp.MustCompile(`claims held: \d+ of (\d+) \(\d+ not significant, \d+ not held\)\n`).FindStringSubmatch(stdout)
	if m == nil || m[1] == "0" {
		t.Fatalf("no tally of judged claims (or a claim could not be evaluated):\n%s", stdout)
	}
	if !strings.Contains(stdout, "reproduce bpf/fig1 ") || !strings.Contains(stdout, "reproduce bpf/fig9 ") {
		t.Errorf("aliases not resolved to bpf/fig1 and bpf/fig9:\n%s", stdout)
	}
	// fig1 has one BPF cell, fig9 a BPF and an N-BPF cell.
	var adm []string
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "admissions.json" {
			adm = append(adm, path)
		}
		return nil
	})
	if len(adm) != 3 {
		t.Errorf("admissions.json in %d cells, want 3: %v", len(adm), adm)
	}
	cells, err := os.ReadFile(filepath.Join(out, "bpf", "fig9", "cells.parquet"))
	if err != nil || !strings.Contains(string(cells), "admissions.S") {
		t.Errorf("bpf/fig9 cells.parquet has no admissions.S column (%v)", err)
	}
}

// TestReproduceStrictGatesOnClaims checks the exit status: 0 whatever the verdicts by default,
// 1 with --strict when a claim is not held.
func TestReproduceStrictGatesOnClaims(t *testing.T) {
	tpch, err := filepath.Abs(filepath.Join("..", "..", "experiments", "sweep", "testdata", "tiny-tpch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	spec := func(claims string) string {
		p := filepath.Join(t.TempDir(), "strict.yaml")
		body := fmt.Sprintf(`title: Strict gate
base: {workload: {name: %q}}
axes:
  - {key: workload.machines, values: [3, 6]}
seeds: {count: 1}
labels: {quick: {}, paper: {}}
figures:
  - id: jct
    kind: bars
    x: machines
    y: avg_jct_s
    claims:
      - {text: more machines finish sooner, check: "machines=6 avg_jct_s < machines=3 avg_jct_s"}
%s`, tpch, claims)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	held := spec("")
	reversed := spec(`      - {text: fewer machines finish sooner, check: "machines=3 avg_jct_s < machines=6 avg_jct_s"}` + "\n")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"a held claim passes --strict", []string{held, "--strict"}, 0, "claims held: 1 of 1 (0 not significant, 0 not held)", ""},
		{"a claim not held exits 0 by default", []string{reversed}, 0, "claims held: 1 of 2 (0 not significant, 1 not held)", ""},
		{"a claim not held fails --strict", []string{reversed, "--strict"}, 1, "claims held: 1 of 2 (0 not significant, 1 not held)", "reproduce --strict: 1 of 2 claims not held or not evaluated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"reproduce", "--label", "quick", "--out", t.TempDir()}, tt.args...)
			stdout, stderr, code := runBuilt(t, args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestReproduceFailedSpecKeepsTheReport: a spec whose cell fails (its workload exceeds the
// spec's limits.max_tasks) does not discard the others: the report is written with the good spec's section and
// the failed one's error, the tally is printed, progress goes to stderr, and the exit status is
// 1 after it all.
func TestReproduceFailedSpecKeepsTheReport(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	spec := "title: Bad\nbase: {limits.max_tasks: 1}\naxes: [{key: policy.name, values: [fifo]}]\nseeds: [1]\n" +
		"labels: {quick: {}, paper: {}}\nfigures: [{id: f, kind: bars, x: policy, y: avg_jct_s}]\n"
	if err := os.WriteFile(bad, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, errOut, code := runBuilt(t, "reproduce", bad, tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, errOut)
	}
	if !strings.Contains(stdout, "claims held: ") || !strings.Contains(stdout, "wrote "+filepath.Join(out, "report.md")) {
		t.Errorf("stdout lacks the tally and the files written:\n%s", stdout)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "schedlab: reproduce: 1 of 2 reproductions failed (") || !strings.Contains(last, "limits.max_tasks") {
		t.Errorf("last stderr line %q", last)
	}
	if !strings.Contains(errOut, "reproduce tiny: drawing jct (1 of ") {
		t.Errorf("no progress line per figure on stderr:\n%s", errOut)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "(`tiny`)") || !strings.Contains(string(md), "`: failed") || !strings.Contains(string(md), "exceeds the limit of 1 tasks") {
		t.Errorf("report.md lacks the good section or the failed one:\n%s", md)
	}
}
