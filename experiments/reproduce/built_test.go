package reproduce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/internal/testbin"
	"github.com/schedlab/schedlab/report"
)

// reproduceBuilt runs `schedlab reproduce ARGS --label quick --out out --parallel 2` with the
// schedlab binary of internal/testbin ($SCHEDLAB_TEST_BIN under `make test`) in the working
// directory, and fails the test unless it exits 0. The binary is built without the race detector
// and the engine's invariant checks, so the replays — most of a reproduction's time, and tested
// under -race in their own packages — run at full speed. It returns the binary's stdout.
func reproduceBuilt(t *testing.T, out string, args ...string) string {
	t.Helper()
	bin := testbin.Schedlab(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append(append([]string{"reproduce"}, args...), "--label", "quick", "--out", out, "--parallel", "2")...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("schedlab reproduce %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// cliFormats are the figure formats schedlab reproduce writes (Options.Formats' default).
var cliFormats = []string{"svg", "png", "pdf"}

// builtReport reproduces the specs args name with the schedlab binary (reproduceBuilt), then
// evaluates in this process, on the cells the binary computed, what RunTargets reports of each
// spec (builtSpec). The binary's tally line must be the one of the report returned: both
// processes reach the same verdicts.
func builtReport(t *testing.T, out string, args ...string) *Report {
	t.Helper()
	stdout := reproduceBuilt(t, out, args...)
	targets, err := Resolve(args)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Label: "quick"}
	for _, tg := range targets {
		if tg.Spec == nil {
			t.Fatalf("builtReport reproduces specs, not %s", tg.ID())
		}
		rep.Sections = append(rep.Sections, Section{ID: tg.ID(), Spec: builtSpec(t, out, tg.Spec)})
	}
	if want := rep.Tally().String(); !strings.Contains(stdout, want+"\n") {
		t.Errorf("schedlab printed\n%s\nthe report derived from its cells has the tally\n%s", stdout, want)
	}
	// The binary's claims.json is the one of the report derived here, byte for byte: every
	// verdict, number and test.
	var want bytes.Buffer
	if err := rep.WriteClaimsJSON(&want); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(out, ClaimsFile)); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("schedlab's %s differs from the one of the report derived from its cells (%v)", ClaimsFile, err)
	}
	return rep
}

// builtSpec is what reproduceSpec returns for spec at label quick, less the drawing, from the
// cells schedlab computed into out: every claim and reference number evaluated in this process
// (at the base point, and at each sensitivity point), and as each figure's files the ones
// reproduceSpec lists — the binary's, to be checked — with the SVG file's content.
func builtSpec(t *testing.T, out string, spec *experiments.Spec) *SpecReport {
	t.Helper()
	plan, err := sweep.NewPlan(spec, "quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := SpecDir(spec)
	dir := filepath.Join(out, rel)
	res, err := readSweep(context.Background(), plan, sweep.Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	sr := &SpecReport{Spec: plan.Spec, Label: "quick", Dir: filepath.ToSlash(rel), Cells: len(plan.Cells), Ran: res.Ran, Cached: res.Cached, Seeds: plan.Spec.Seeds.Values()}
	d := &data{spec: plan.Spec, t: res.Table, cache: filepath.Join(dir, sweep.CacheDir), labels: otherLabels(spec, "quick")}
	sr.SeedInvariant = seedInvariant(res.Table)
	all := d.atBase()
	for i := range plan.Spec.Figures {
		fs := &plan.Spec.Figures[i]
		f := Figure{Spec: fs}
		formats := cliFormats
		if fs.Kind == experiments.KindTable {
			formats = report.DefaultTableFormats
		}
		for _, ext := range formats {
			f.Files = append(f.Files, path.Join(sr.Dir, FiguresDir, fs.ID+"."+ext))
		}
		if fs.Kind != experiments.KindTable {
			f.SVG, _ = os.ReadFile(filepath.Join(out, filepath.FromSlash(f.Files[0]))) // checkEvaluated reports a missing file
		}
		d.judge(fs, &f)
		sr.Figures = append(sr.Figures, f)
	}
	sr.Sensitivity = d.sensitivity(all)
	return sr
}

// readSweep returns the sweep a schedlab process ran into o.Out as sweep.Run would have: its
// cells.parquet, with the cells it computed and those it found cached as its sweep.json records
// them. It fails unless the table has a row per cell of p, with its axes, seed and configuration
// (the first 40 digits of a cell's key, which do not depend on the build), and the cell's
// directory.
func readSweep(_ context.Context, p *sweep.Plan, o sweep.Options) (*sweep.Result, error) {
	tb, err := sweep.ReadTable(filepath.Join(o.Out, sweep.CellsFile))
	if err != nil {
		return nil, err
	}
	m, err := sweep.ReadManifest(o.Out)
	if err != nil {
		return nil, err
	}
	if len(tb.Rows) != len(p.Cells) || len(m.Cells) != len(p.Cells) {
		return nil, fmt.Errorf("%s: %d rows and %d manifest cells for a plan of %d cells", o.Out, len(tb.Rows), len(m.Cells), len(p.Cells))
	}
	res := &sweep.Result{Plan: p, Table: tb}
	for i, c := range p.Cells {
		r := &tb.Rows[i]
		if r.Seed != c.Seed || fmt.Sprint(r.Axes) != fmt.Sprint(c.Values) || len(r.Key) != len(c.Key) || r.Key[:40] != c.ConfigKey[:40] {
			return nil, fmt.Errorf("%s: row %d is %v seed %d key %s, the plan's cell %v seed %d configuration %s", o.Out, i, r.Axes, r.Seed, r.Key, c.Values, c.Seed, c.ConfigKey)
		}
		if _, err := os.Stat(sweep.CellDir(filepath.Join(o.Out, sweep.CacheDir), r.Key)); err != nil {
			return nil, errors.Join(fmt.Errorf("%s: row %d", o.Out, i), err)
		}
		if m.Cells[i].Reason != "" {
			res.Ran++
		} else {
			res.Cached++
		}
	}
	return res, nil
}
