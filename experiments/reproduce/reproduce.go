// Package reproduce reproduces papers' figures: for each experiment spec it runs the spec's
// sweep (package sweep), draws its figures and tables with package report, checks the paper's
// claims against the results, and writes DIR/report.md and DIR/index.html — one self-contained
// page with every figure inlined, its paper reference, and a paper-vs-ours table in which each
// claim is marked held or not held with the numbers behind it — and DIR/claims.json, the same
// verdicts, numbers and tests as data (ClaimsDoc).
//
// The JamaisVu predictor reproductions of package jvu (jv-table1, jv-fig12, …) are analyses of
// the Google 2011 trace, not sweeps; they are targets too (see Target, Resolve and JVuSource)
// and get their sections in the same report.
//
// A reproduction that fails (a cell's error) does not discard the others: its section shows the
// error, the report is written for what finished — replacing an earlier report whole, through a
// temporary file and a rename — and Run returns a SectionsError. Claims on cells the label does
// not run (a seed of the paper label at label quick) are shown as not evaluable and not counted.
// Intervals stay in each metric's domain (stats.DomainOf): fractions in [0, 1], times at or
// above 0.
package reproduce

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/report"

	"github.com/schedlab/schedlab/internal/safefs"
)

// Output names inside the reproduce directory.
const (
	ReportFile = "report.md"
	IndexFile  = "index.html"
	FiguresDir = "figures"
)

// Options configure Run.
type Options struct {
	// Out is the output directory; each spec's sweep goes to Out/<spec ID>.
	Out string
	// Label picks the size (quick, paper).
	Label string
	// Sets are --set overrides passed to every sweep.
	Sets []string
	// Parallel is the number of sweep workers (≤ 0: GOMAXPROCS).
	Parallel int
	// Log, when set, receives a line as each figure is drawn and each reproduction fails or is
	// written (the CLI passes stderr): figure rendering takes tens of seconds at the paper
	// label.
	Log io.Writer
	// Progress, Terminal and ProgressEvery are passed to the sweeps.
	Progress      io.Writer
	Terminal      bool
	ProgressEvery time.Duration
	// Formats are the figure file formats written beside the report (default svg, png, pdf).
	Formats []string
	// JVuTrace is the Google 2011 trace the JamaisVu reproductions read (--jv-trace); empty
	// selects the label's default (see JVuSource). Sets do not apply to them.
	JVuTrace string
}

// Figure is a drawn figure or table with its reference and checked claims.
type Figure struct {
	Spec *experiments.Figure
	// Files are the written figure or table files, relative to Out.
	Files []string
	// SVG and PNG hold the figure's encodings (nil for tables).
	SVG, PNG []byte
	// Table is the rendered table (nil for figures).
	Table *report.Table
	// Notes are remarks about the data (pooled axes).
	Notes   []string
	Claims  []ClaimResult
	Numbers []NumberResult
}

// SpecReport is one reproduced spec.
type SpecReport struct {
	Spec    *experiments.Spec
	Label   string
	Dir     string // relative to Out
	Cells   int
	Ran     int
	Cached  int
	Seeds   []int64
	Figures []Figure
	// SeedInvariant is true when every cell metric is identical across seeds within each
	// configuration: nothing in the runs is random, so confidence intervals have zero width.
	SeedInvariant bool
	// Sensitivity is where each claim holds along the spec's sensitivity axes (nil without a
	// sensitivity block); Figures and their claims are then at the base point.
	Sensitivity *Sensitivity
}

// Report is the result of Run.
type Report struct {
	Label string
	// Sections are the reproductions in the order they were given.
	Sections []Section
}

// Section is one reproduction of a report: exactly one of Spec, JVu and Err is set.
type Section struct {
	// ID names the reproduction (Target.ID).
	ID   string
	Spec *SpecReport
	JVu  *JVuReport
	// Err is why the reproduction failed (its section in the report shows it).
	Err error
}

// Failed returns the failed sections, in order.
func (r *Report) Failed() []Section {
	var out []Section
	for _, s := range r.Sections {
		if s.Err != nil {
			out = append(out, s)
		}
	}
	return out
}

// Specs returns the spec sections' reports, in order.
func (r *Report) Specs() []*SpecReport {
	var out []*SpecReport
	for _, s := range r.Sections {
		if s.Spec != nil {
			out = append(out, s.Spec)
		}
	}
	return out
}

// JVu returns the JamaisVu sections' reports, in order.
func (r *Report) JVu() []*JVuReport {
	var out []*JVuReport
	for _, s := range r.Sections {
		if s.JVu != nil {
			out = append(out, s.JVu)
		}
	}
	return out
}

// Tally counts a report's claims by verdict.
type Tally struct {
	Held, NotSignificant, NotHeld, Errors int
	// NotEvaluable counts the claims that refer to cells the label does not run (a seed of
	// the paper label at label quick): shown, and left out of the other counts.
	NotEvaluable int
	// Informational counts the claims shown for information only — the JamaisVu
	// reproductions' at label quick, whose sample is too small for the paper's claims — and
	// left out of the other counts.
	Informational int
}

// Total is the number of claims counted.
func (t Tally) Total() int { return t.Held + t.NotSignificant + t.NotHeld + t.Errors }

// Failed is the number of counted claims not held or not evaluated (what --strict gates on).
func (t Tally) Failed() int { return t.NotHeld + t.Errors }

// String is the tally line: "claims held: 12 of 17 (3 not significant, 2 not held)", with the
// errors and the claims not counted when there are any.
func (t Tally) String() string {
	s := fmt.Sprintf("claims held: %d of %d (%d not significant, %d not held", t.Held, t.Total(), t.NotSignificant, t.NotHeld)
	if t.Errors > 0 {
		s += fmt.Sprintf(", %d could not be evaluated", t.Errors)
	}
	s += ")"
	if t.NotEvaluable > 0 {
		s += fmt.Sprintf("; %d claims not counted: not evaluable at this label (they refer to seeds or settings it does not run)", t.NotEvaluable)
	}
	if t.Informational > 0 {
		s += fmt.Sprintf("; %d JamaisVu claims at label quick not counted: the fixture is too small for the paper's claims", t.Informational)
	}
	return s
}

func (t *Tally) add(v claim.Verdict) {
	switch v {
	case claim.Held:
		t.Held++
	case claim.NotSignificant:
		t.NotSignificant++
	case claim.NotHeld:
		t.NotHeld++
	case claim.NotEvaluable:
		t.NotEvaluable++
	default:
		t.Errors++
	}
}

// Tally counts the claims of specs and JamaisVu reproductions by verdict.
func (r *Report) Tally() Tally {
	var t Tally
	for _, s := range r.Sections {
		if s.Spec != nil {
			for _, f := range s.Spec.Figures {
				for _, c := range f.Claims {
					t.add(c.Verdict)
				}
			}
		}
		if s.JVu != nil {
			for _, c := range s.JVu.Artifact.Claims {
				if s.JVu.Artifact.Informational != "" {
					t.Informational++
				} else {
					t.add(c.Verdict)
				}
			}
		}
	}
	return t
}

// Held counts the claims that held and the claims counted (Tally).
func (r *Report) Held() (held, total int) {
	t := r.Tally()
	return t.Held, t.Total()
}

// Run sweeps each spec, draws its figures and tables, checks its claims, and writes
// Out/report.md, Out/index.html and Out/claims.json.
func Run(ctx context.Context, specs []*experiments.Spec, o Options) (*Report, error) {
	return RunTargets(ctx, SpecTargets(specs), o)
}

// RunTargets reproduces each target — a spec as Run does, the JamaisVu reproductions with
// jvu.ReproduceAll (all of them at once, reading the trace once, into Out/jvu) — and writes
// Out/report.md and Out/index.html with one section per target, in the order given, and
// Out/claims.json with one target per section (ClaimsDoc). The JamaisVu trace is located
// (JVuSource) before any sweep runs.
func RunTargets(ctx context.Context, targets []Target, o Options) (*Report, error) {
	if o.Out == "" {
		return nil, fmt.Errorf("%w: reproduce: no output directory", experiments.ErrConfig)
	}
	if len(o.Formats) == 0 {
		o.Formats = []string{"svg", "png", "pdf"}
	}
	var jvIDs []string
	for _, t := range targets {
		if t.JVu != "" {
			if !slices.Contains(jvIDs, t.JVu) {
				jvIDs = append(jvIDs, t.JVu)
			}
		} else if t.Spec == nil {
			return nil, fmt.Errorf("%w: reproduce: empty target", experiments.ErrConfig)
		}
	}
	var jvSrc string
	if len(jvIDs) > 0 {
		for _, id := range jvIDs {
			if _, err := jvu.Describe(id); err != nil {
				return nil, fmt.Errorf("%w: %w", experiments.ErrConfig, err)
			}
		}
		var err error
		if jvSrc, err = JVuSource(o.Label, o.JVuTrace); err != nil {
			return nil, err
		}
	}
	rep := &Report{Label: o.Label}
	var jvReps map[string]*JVuReport
	var jvErr error
	var failed []string
	var first error
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			// Interrupted: the targets not reached get a section saying so, and the report is
			// still written for what finished.
			for _, rest := range targets[i:] {
				rep.Sections = append(rep.Sections, Section{ID: rest.ID(), Err: fmt.Errorf("not run: %w", err)})
				failed = append(failed, rest.ID())
			}
			first = cmp.Or(first, err)
			break
		}
		var sec Section
		if t.JVu == "" {
			sr, err := reproduceSpec(ctx, t.Spec, o)
			sec = Section{ID: t.ID(), Spec: sr, Err: err}
		} else {
			if jvReps == nil && jvErr == nil { // the first JamaisVu target runs them all
				jrs, err := runJVu(jvIDs, jvSrc, o)
				jvErr = err
				jvReps = map[string]*JVuReport{}
				for _, jr := range jrs {
					jvReps[jr.Artifact.ID] = jr
				}
			}
			sec = Section{ID: t.ID(), JVu: jvReps[t.JVu], Err: jvErr}
			if sec.Err == nil && sec.JVu == nil {
				sec.Err = fmt.Errorf("%s: no result", t.JVu)
			}
		}
		if sec.Err != nil {
			sec.Spec, sec.JVu = nil, nil
			failed = append(failed, sec.ID)
			first = cmp.Or(first, sec.Err)
			o.logf("reproduce: %s failed: %v\n", sec.ID, sec.Err)
		}
		rep.Sections = append(rep.Sections, sec)
	}
	o.logf("reproduce: writing %s, %s and %s\n", filepath.Join(o.Out, ReportFile), filepath.Join(o.Out, IndexFile), filepath.Join(o.Out, ClaimsFile))
	if err := atomicWrite(filepath.Join(o.Out, ReportFile), func(w io.Writer) error { return rep.WriteMarkdown(w) }); err != nil {
		return rep, err
	}
	if err := atomicWrite(filepath.Join(o.Out, IndexFile), func(w io.Writer) error { return rep.WriteHTML(w) }); err != nil {
		return rep, err
	}
	if err := atomicWrite(filepath.Join(o.Out, ClaimsFile), func(w io.Writer) error { return rep.WriteClaimsJSON(w) }); err != nil {
		return rep, err
	}
	if len(failed) > 0 {
		return rep, &SectionsError{Failed: failed, Total: len(targets), First: first}
	}
	return rep, nil
}

// SectionsError is Run's error when some reproductions failed: the report was written for the
// others, with a section saying what went wrong in each failed one. It unwraps to the first
// failure's error (a configuration error keeps its exit status).
type SectionsError struct {
	// Failed are the IDs of the failed reproductions, in order.
	Failed []string
	// Total is the number of reproductions asked for.
	Total int
	First error
}

func (e *SectionsError) Error() string {
	return fmt.Sprintf("reproduce: %d of %d reproductions failed (%s; their sections in the report say why): %v",
		len(e.Failed), e.Total, strings.Join(e.Failed, ", "), e.First)
}

func (e *SectionsError) Unwrap() error { return e.First }

// logf writes a progress line to o.Log, if set.
func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// runSweep runs a spec's sweep (a variable so that tests can make one fail).
var runSweep = sweep.Run

// SpecDir is where a spec's sweep and figures go under Out.
func SpecDir(spec *experiments.Spec) string { return filepath.FromSlash(spec.ID) }

func reproduceSpec(ctx context.Context, spec *experiments.Spec, o Options) (*SpecReport, error) {
	plan, err := sweep.NewPlan(spec, o.Label, o.Sets)
	if err != nil {
		return nil, err
	}
	rel := SpecDir(spec)
	dir := filepath.Join(o.Out, rel)
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "reproduce %s (label %s): %d cells\n", spec.ID, labelName(o.Label), len(plan.Cells))
	}
	res, err := runSweep(ctx, plan, sweep.Options{Out: dir, Parallel: o.Parallel, Progress: o.Progress, Terminal: o.Terminal, ProgressEvery: o.ProgressEvery})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.ID, err)
	}
	sr := &SpecReport{Spec: plan.Spec, Label: o.Label, Dir: filepath.ToSlash(rel), Cells: len(plan.Cells), Ran: res.Ran, Cached: res.Cached, Seeds: plan.Spec.Seeds.Values()}
	d := &data{spec: plan.Spec, t: res.Table, cache: filepath.Join(dir, sweep.CacheDir), uncached: filepath.Join(dir, sweep.UncachedDir), labels: otherLabels(spec, o.Label)}
	sr.SeedInvariant = seedInvariant(res.Table)
	all := d.atBase() // with a sensitivity block: figures and main verdicts at the base point
	figDir := filepath.Join(dir, FiguresDir)
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, err
	}
	for i := range plan.Spec.Figures {
		fs := &plan.Spec.Figures[i]
		o.logf("reproduce %s: drawing %s (%d of %d)\n", spec.ID, fs.ID, i+1, len(plan.Spec.Figures))
		b, err := d.build(fs)
		if err != nil {
			return nil, err
		}
		f := Figure{Spec: fs, Notes: b.notes, Table: b.table}
		if b.fig != nil {
			var svg, png bytes.Buffer
			if err := b.fig.Encode(&svg, "svg"); err != nil {
				return nil, fmt.Errorf("%s: %w", fs.Pos, err)
			}
			if err := b.fig.Encode(&png, "png"); err != nil {
				return nil, fmt.Errorf("%s: %w", fs.Pos, err)
			}
			f.SVG, f.PNG = svg.Bytes(), png.Bytes()
			paths, err := b.fig.Save(figDir, fs.ID, o.Formats...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fs.Pos, err)
			}
			f.Files = relAll(o.Out, paths)
		} else {
			paths, err := b.table.Save(figDir, fs.ID)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fs.Pos, err)
			}
			f.Files = relAll(o.Out, paths)
		}
		d.judge(fs, &f)
		sr.Figures = append(sr.Figures, f)
	}
	sr.Sensitivity = d.sensitivity(all)
	if err := sr.Sensitivity.drawRegions(figDir, o.Out, o.Formats); err != nil {
		return nil, fmt.Errorf("%s: sensitivity regions: %w", spec.ID, err)
	}
	return sr, nil
}

func labelName(l string) string {
	if l == "" {
		return "none"
	}
	return l
}

func relAll(base string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if r, err := filepath.Rel(base, p); err == nil {
			out = append(out, filepath.ToSlash(r))
		}
	}
	return out
}

// seedInvariant reports whether all metrics are equal across seeds within each configuration.
func seedInvariant(t *sweep.Table) bool {
	bySig := map[string]map[string]float64{}
	seeds := map[string]int{}
	for i := range t.Rows {
		r := &t.Rows[i]
		sig := fmt.Sprint(r.Axes...)
		seeds[sig]++
		first, ok := bySig[sig]
		if !ok {
			bySig[sig] = r.Metrics
			continue
		}
		for k, v := range r.Metrics {
			if fv, ok := first[k]; !ok || fv != v {
				return false
			}
		}
	}
	for _, n := range seeds {
		if n > 1 {
			return true
		}
	}
	return false
}

// atomicWrite writes path through a temporary file and a rename (safefs.WriteFile), creating its
// directory.
func atomicWrite(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefs.WriteFile(path, write)
}

// dataURI returns a base64 data URI.
func dataURI(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// referenceLine renders "Paper, Figure: caption".
func referenceLine(r *experiments.Reference) string {
	if r == nil {
		return ""
	}
	s := r.Paper + ", " + r.Figure
	if r.Caption != "" {
		s += ": " + r.Caption
	}
	return s
}

// marks are the per-group marks of a claim's verdicts.
var marks = map[claim.Verdict]string{claim.Held: "✓", claim.NotSignificant: "~", claim.NotHeld: "✗", claim.Error: "!"}

// claimLines renders what we measured for a claim, one group per line: the effect with its
// interval and how it was obtained, then the sides over every cell.
func claimLines(c ClaimResult) []string {
	if c.Err != nil {
		return []string{c.Err.Error()}
	}
	var out []string
	for i := range c.Groups {
		g := &c.Groups[i]
		s := g.Effect() + "; " + g.Numbers(c.Op)
		if g.Group != "" {
			s = marks[g.Verdict] + " " + g.Group + ": " + s
		}
		out = append(out, s)
	}
	return out
}

// claimTest renders a claim's test (its groups' tests, once each).
func claimTest(c ClaimResult) string {
	var tests []string
	for _, g := range c.Groups {
		if t := g.Test.String(); !slices.Contains(tests, t) {
			tests = append(tests, t)
		}
	}
	return strings.Join(tests, "; ")
}

// claimPaper renders the paper's number a claim quotes, "—" when it quotes none.
func claimPaper(c ClaimResult) string {
	for _, g := range c.Groups {
		if !math.IsNaN(g.Test.Quote) && g.Outcome.Effect == claim.EffectValue {
			return claim.Num(g.Test.Quote)
		}
	}
	return "—"
}

// claimReasons explains a claim's verdict: the reason of its only group, or of each group that
// did not hold; then the spec's note.
func claimReasons(c ClaimResult) []string {
	if c.Err != nil {
		return nil
	}
	var out, same []string
	for _, g := range c.Groups {
		switch {
		case len(c.Groups) == 1:
			out = append(out, g.Reason)
		case g.Verdict != claim.Held:
			out = append(out, g.Group+": "+g.Reason)
		case g.Identical:
			same = append(same, g.Group)
		}
	}
	if len(same) > 0 {
		out = append(out, strings.Join(same, ", ")+": "+claim.IdenticalNote)
	}
	if c.Note != "" {
		out = append(out, "Note: "+c.Note)
	}
	return out
}

// judge evaluates figure fs's reference numbers and claims into f.
func (d *data) judge(fs *experiments.Figure, f *Figure) {
	if fs.Reference != nil {
		for j := range fs.Reference.Numbers {
			f.Numbers = append(f.Numbers, d.number(fs, &fs.Reference.Numbers[j]))
		}
	}
	for j := range fs.Claims {
		f.Claims = append(f.Claims, d.checkClaim(fs, &fs.Claims[j]))
	}
}
