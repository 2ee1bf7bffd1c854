package jvu

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/google2011"
)

// Labels select the data a reproduction runs on.
const (
	// QuickLabel runs on the committed fixture slice (testdata/google2011): seconds, for CI.
	QuickLabel = "quick"
	// PaperLabel runs on the whole month (all 500 job_events parts).
	PaperLabel = "paper"
)

// PaperName is the paper the reproductions come from.
const PaperName = "JamaisVu"

// PaperPopulation is the number of jobs the paper evaluates (§3.2).
const PaperPopulation = 385582

// PaperSrcEnv names the environment variable that overrides DefaultPaperSrc.
const PaperSrcEnv = "SCHEDLAB_GOOGLE2011"

// DefaultPaperSrc is where the paper label looks for the trace (a directory holding
// job_events/ with all 500 parts, and optionally task_events/) unless PaperSrcEnv is set.
const DefaultPaperSrc = "/work/shared/data/google2011"

// QuickSrc is the committed fixture slice, relative to this package's directory.
const QuickSrc = "testdata/google2011"

// Options configure a reproduction.
type Options struct {
	// Src is the Google 2011 trace: a directory with job_events/ (and optionally
	// task_events/), a job_events directory, or part files (comma separated). Empty selects
	// the label's default.
	Src string
	// Label is QuickLabel or PaperLabel.
	Label string
	// OutDir receives the figures (PNG and SVG) and <id>.md.
	OutDir string
}

// IDs returns the reproduction ids, in paper order.
func IDs() []string {
	ids := make([]string, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	return ids
}

// Info describes a reproduction without running it.
type Info struct {
	// ID is the reproduction's id, e.g. "jv-fig12".
	ID string
	// Title describes the reproduction in one line (Artifact.Title).
	Title string
	// Reference is the paper's figure or table number and its caption (Artifact.Reference).
	Reference string
}

// infos describes every reproduction, in paper order (the order of IDs).
var infos = []Info{
	{ID: "jv-table1", Title: "Per-feature predictability and coverage", Reference: "Table 1: JVuPredict-tracked features for Google cluster trace (% prediction error over 2X; % unique occurrences)"},
	{ID: "jv-fig3", Title: "Relative error of single feature:estimator pairs used alone", Reference: "Figure 3: Distribution of relative estimate error percentages of eight feature:estimator pairs"},
	{ID: "jv-fig11", Title: "Error mass function of JVuPredict vs the \"all\" estimators", Reference: "Figure 11: normalized prediction error mass function of JVuPredict and of its estimators over all previous runtimes"},
	{ID: "jv-fig12", Title: "Predictions outside 2x and 10x: JVuPredict vs the best single pairs", Reference: "Figure 12: percentage of predictions outside a factor of two and of ten of the actual runtime"},
	{ID: "jv-fig13", Title: "How often JVuPredict selects each feature:estimator pair", Reference: "Figure 13: Feature:estimator selections for Google cluster trace"},
	{ID: "jv-refine", Title: "Effect of the median filter and of secondary features", Reference: "§6.2 (last two paragraphs) and §3.4: secondary features (requested cpu, memory, task count) and the median filter"},
}

// Describe returns the title and paper reference of reproduction id; the error wraps
// ErrUnknownID.
func Describe(id string) (Info, error) {
	for _, in := range infos {
		if in.ID == id {
			return in, nil
		}
	}
	return Info{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownID, id, strings.Join(IDs(), ", "))
}

// newArtifact starts the artifact of reproduction id with its title and reference.
func newArtifact(id string) *Artifact {
	in, err := Describe(id)
	if err != nil {
		panic(err) // the builders name only ids of infos
	}
	return &Artifact{Title: in.Title, Reference: in.Reference}
}

// ErrUnknownID is wrapped by the error Reproduce returns for an id it does not know.
var ErrUnknownID = errors.New("jvu: unknown reproduction")

// ErrNoData is wrapped by the error Reproduce returns when the trace is not where the label
// says; tests skip on it.
var ErrNoData = errors.New("jvu: trace data not found")

// SrcFor returns the trace path a label reads when Options.Src is empty: for quick the fixture
// slice (looked up relative to the working directory, from the repository root or this
// package's directory), for paper $SCHEDLAB_GOOGLE2011 or DefaultPaperSrc.
func SrcFor(label string) (string, error) {
	switch label {
	case QuickLabel:
		for _, p := range []string{QuickSrc, filepath.Join("experiments", "jvu", QuickSrc)} {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%w: the quick fixture %s (run from the repository root, or pass Src)", ErrNoData, filepath.Join("experiments", "jvu", QuickSrc))
	case PaperLabel:
		p := DefaultPaperSrc
		if e := os.Getenv(PaperSrcEnv); e != "" {
			p = e
		}
		if _, err := os.Stat(filepath.Join(p, "job_events")); err != nil {
			return "", fmt.Errorf("%w: %s has no job_events/ (set %s)", ErrNoData, p, PaperSrcEnv)
		}
		return p, nil
	}
	return "", fmt.Errorf("jvu: unknown label %q (valid: %s, %s)", label, QuickLabel, PaperLabel)
}

// Reproduce runs reproduction id on the trace o selects, writes its figures and <id>.md into
// o.OutDir, and returns the artifact.
func Reproduce(id string, o Options) (*Artifact, error) {
	as, err := ReproduceAll([]string{id}, o)
	if err != nil {
		return nil, err
	}
	return as[0], nil
}

// ReproduceAll runs several reproductions, reading the trace once.
func ReproduceAll(ids []string, o Options) ([]*Artifact, error) {
	needRequests := false
	for _, id := range ids {
		if _, ok := builders[id]; !ok {
			return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownID, id, strings.Join(IDs(), ", "))
		}
		needRequests = needRequests || id == "jv-refine"
	}
	if o.Label != QuickLabel && o.Label != PaperLabel {
		return nil, fmt.Errorf("jvu: unknown label %q (valid: %s, %s)", o.Label, QuickLabel, PaperLabel)
	}
	if o.OutDir == "" {
		return nil, errors.New("jvu: Options.OutDir is required")
	}
	src := o.Src
	if src == "" {
		var err error
		if src, err = SrcFor(o.Label); err != nil {
			return nil, err
		}
	}
	tables, err := google2011.SourceOf(strings.Split(src, ",")...)
	if err != nil {
		return nil, err
	}
	if !needRequests {
		tables.TaskEvents = nil // only jv-refine uses the requests
	}
	t, err := LoadSource(tables)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("jvu: %w", err)
	}
	var out []*Artifact
	for _, id := range ids {
		a, err := builders[id](t, o.OutDir)
		if err != nil {
			return nil, fmt.Errorf("jvu: %s: %w", id, err)
		}
		a.ID, a.Paper, a.Label = id, PaperName, o.Label
		a.Notes = populationNote(t) + a.Notes
		if o.Label == QuickLabel {
			a.Informational = fmt.Sprintf("at label quick the sample is too small for the paper's claims — %d finished jobs here against the paper's %d, and on the fixture only the trace's first hours, when histories are still cold — so these verdicts are shown for information and not counted; --label paper runs the month.", t.Finished, PaperPopulation)
		}
		md := a.Markdown()
		if err := atomicWrite(filepath.Join(o.OutDir, id+".md"), func(w io.Writer) error {
			_, err := io.WriteString(w, md)
			return err
		}); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

type builder func(t *Trace, outDir string) (*Artifact, error)

var builders = map[string]builder{
	"jv-table1": table1,
	"jv-fig3":   fig3,
	"jv-fig11":  fig11,
	"jv-fig12":  fig12,
	"jv-fig13":  fig13,
	"jv-refine": refine,
}

// populationNote defines the population and runtime and compares the size with the paper's.
func populationNote(t *Trace) string {
	return fmt.Sprintf(`Population: every job of the trace whose final state is FINISH — %d jobs here, %d in the paper (%s). Runtime: from the job's first SCHEDULE to its last FINISH; the %d jobs already running when the trace window opened count from time 0 (google2011.JobRecord.Runtime leaves them out, giving %d). Online evaluation: all %d submitted jobs (killed and unfinished ones too) are predicted at their SUBMIT time from the jobs that completed strictly before it — a completion at the same microsecond is not yet visible — and each FINISH is fed back when it happens. Relative error is (predicted − actual)/actual; "beyond 2x" is under by more than 50%% or over by more than 100%%; "beyond 10x" is predicted < actual/10 or > 10·actual. Each replay is deterministic and reads the whole trace, so the claims are judged on our number alone: a number the paper quotes holds when ours lies within 20%% of it, and at least within half a unit of its last printed digit (the paper's rounding: "1%%" stands for 0.5–1.5%%); a comparison holds when it is beyond a 5%% margin (the ratio below 0.95 or above 1.05).

`, t.Finished, PaperPopulation, populationVerdict(t.Finished), t.StartedBeforeWindow, t.Finished-t.StartedBeforeWindow, len(t.Jobs))
}

func populationVerdict(n int) string {
	if n == PaperPopulation {
		return "the same jobs"
	}
	return fmt.Sprintf("%+d", n-PaperPopulation)
}

func pct(f float64) string { return fmt.Sprintf("%.2f%%", 100*f) }

func pctNum(p float64) string { return fmt.Sprintf("%g%%", p) }

// baseConfig is JVuPredict as evaluated in Figs 11-13: the three primary features, the four
// estimators, no secondary features, no median filter.
func baseConfig() Config { return Config{Name: "JVuPredict", KeepCands: true} }

// ---------------------------------------------------------------- Table 1

var table1Paper = []struct {
	feature, desc  string
	over2x, unique float64 // percent
}{
	{"job", "Job name (user-provided)", 24, 38.25},
	{"ljob", "Logical job name (application)", 12, 8.37},
	{"user", "User ID", 33, 0.04},
}

func table1(t *Trace, outDir string) (*Artifact, error) {
	a := newArtifact("jv-table1")
	tab := Table{Title: "Table 1", Columns: []string{"feature", "paper: error beyond 2x", "ours: error beyond 2x", "paper: unique occurrences", "ours: value unseen before", "ours: no completed history"}}
	var over, unseen []float64
	for _, row := range table1Paper {
		r, err := Run(t, Config{Name: row.feature + " alone", Opts: predict.Options{Features: []string{row.feature}}})
		if err != nil {
			return nil, err
		}
		s := r.Summary()
		u := fraction(r.Unseen[0])
		nh := fraction(r.NoHistory[0])
		over = append(over, 100*s.Outside2x)
		unseen = append(unseen, 100*u)
		tab.Rows = append(tab.Rows, []string{row.desc + " (" + row.feature + ")", pctNum(row.over2x), pct(s.Outside2x), pctNum(row.unique), pct(u), pct(nh)})
		a.Claims = append(a.Claims,
			quoted(row.feature+": predictions beyond 2x", pctNum(row.over2x), 100*s.Outside2x, pct(s.Outside2x)),
			quoted(row.feature+": jobs whose value was not seen earlier in the trace", pctNum(row.unique), 100*u, pct(u)),
		)
	}
	a.Tables = append(a.Tables, tab)
	a.Claims = append([]Claim{
		exact("population size (jobs with a FINISH)", fmt.Sprint(PaperPopulation), fmt.Sprint(t.Finished), "= "+fmt.Sprint(PaperPopulation), t.Finished == PaperPopulation),
	}, a.Claims...)
	a.Claims = append(a.Claims,
		all("ordering of errors beyond 2x: ljob < job < user (each by the margin)", "12% < 24% < 33%",
			fmt.Sprintf("%.1f%% < %.1f%% < %.1f%%", over[1], over[0], over[2]), "each ratio < 1, margin 5% (< 0.95)",
			compare("ljob < job", "", over[1], over[0], "<", ""), compare("job < user", "", over[0], over[2], "<", "")),
		all("coverage: job name most often unseen, then ljob (each by the margin), user almost never (< 0.5%)", "38.25% > 8.37% > 0.04%",
			fmt.Sprintf("%.2f%% > %.2f%% > %.2f%%", unseen[0], unseen[1], unseen[2]), "each ratio > 1, margin 5% (> 1.05); user < 0.5%",
			compare("job > ljob", "", unseen[0], unseen[1], ">", ""), compare("ljob > user", "", unseen[1], unseen[2], ">", ""),
			threshold("user", "", unseen[2], "<", 0.5, "%", "")),
	)
	cats := []string{"job", "ljob", "user"}
	paperOver := []float64{24, 12, 33}
	paperUnique := []float64{38.25, 8.37, 0.04}
	f := report.NewBars("jv-table1", "", "Feature", "Jobs [%]", cats,
		single("paper: error beyond 2x", paperOver), single("ours: error beyond 2x", over),
		single("paper: unique occurrences", paperUnique), single("ours: value unseen before", unseen))
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-table1"); err != nil {
		return nil, err
	}
	a.Notes = `Each row is JVuPredict restricted to one feature (its four estimators, selected by normalized RMSE), falling back to the catch-all group when the job's value has no history. "Value unseen before": no earlier submission (finished or not) had the value; "no completed history": no job with the value had completed before the submission. The paper's unique-occurrence figures for job name and logical job name are about twice ours under either definition (user matches); we found no reading of the trace that gives 38.25% and 8.37% together with 0.04%.
`
	return a, nil
}

// single returns a CategorySeries with one sample per category.
func single(label string, vals []float64) report.CategorySeries {
	s := report.CategorySeries{Label: label, Samples: make([][]float64, len(vals))}
	for i, v := range vals {
		s.Samples[i] = []float64{v}
	}
	return s
}

func fraction(bs []bool) float64 {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return frac(n, len(bs))
}

// save writes f as PNG and SVG into dir and records the paths in a.
func save(a *Artifact, f *report.Figure, dir, base string) error {
	paths, err := f.Save(dir, base, "png", "svg")
	a.Figures = append(a.Figures, paths...)
	return err
}

// ---------------------------------------------------------------- error mass functions

// massBins is the width of the relative-error bins of Figs 3 and 11, in percent.
const massBins = 5

// massFunction returns the error mass function of predictions pred(i) against actual: the
// percentage of predictions per 5% bin of relative error from −100% to +100%, with every error
// of +100% or more lumped into a last bin at +100 (as the paper draws it). x holds the bin
// centres (and 100 for the lumped bin).
func massFunction(actual []traces.Time, pred func(i int) traces.Time) (x, y []float64) {
	nb := 200 / massBins
	counts := make([]float64, nb+1)
	n := 0
	for i, a := range actual {
		e, ok := predict.RelError(pred(i), a)
		if !ok {
			continue
		}
		n++
		e *= 100
		if e >= 100 {
			counts[nb]++
			continue
		}
		b := int(math.Floor((e + 100) / massBins))
		counts[min(max(b, 0), nb-1)]++
	}
	x = make([]float64, nb+1)
	y = make([]float64, nb+1)
	for b := range counts {
		x[b] = -100 + massBins*float64(b) + massBins/2.0
		y[b] = 100 * counts[b] / math.Max(1, float64(n))
	}
	x[nb] = 100
	return x, y
}

func massSeries(label string, x, y []float64) report.Series {
	s := report.Series{Label: label, X: x, Samples: make([][]float64, len(y))}
	for i, v := range y {
		s.Samples[i] = []float64{v}
	}
	return s
}

// interiorPeak returns the largest bin of a mass function other than the −100% and ≥ +100%
// end bins (the "no history" and "far over" spikes).
func interiorPeak(y []float64) float64 { return slices.Max(y[1 : len(y)-1]) }

// ---------------------------------------------------------------- Fig 3

// fig3Pairs are the eight pairs drawn in Fig 3. The paper names only all-rolling and
// all-median; the others are the median and recent estimators of each feature.
var fig3Pairs = []string{"job-median", "job-recent", "ljob-median", "ljob-recent", "user-median", "user-recent", "all-rolling", "all-median"}

func fig3(t *Trace, outDir string) (*Artifact, error) {
	r, err := Run(t, baseConfig())
	if err != nil {
		return nil, err
	}
	a := newArtifact("jv-fig3")
	tab := Table{Title: "Pairs used alone", Columns: []string{"pair", "within 5%", "within 10%", "beyond 2x", "no history (−100%)", "≥ +100%", "peak of the mass function"}}
	var series []report.Series
	within5 := map[string]float64{}
	peaks := map[string]float64{}
	for _, name := range fig3Pairs {
		p := r.PairIndex(name)
		if p < 0 {
			return nil, fmt.Errorf("pair %s missing from %v", name, r.Pairs)
		}
		pred := func(i int) traces.Time { return r.PairPred(p, i) }
		x, y := massFunction(r.Actual, pred)
		s := r.PairSummary(p)
		noHist := 0
		for i := range r.Actual {
			if math.IsNaN(r.Cands[p][i]) {
				noHist++
			}
		}
		within5[name], peaks[name] = s.Within5, interiorPeak(y)
		tab.Rows = append(tab.Rows, []string{name, pct(s.Within5), pct(s.Within10), pct(s.Outside2x), pct(frac(noHist, r.N())), fmt.Sprintf("%.2f%%", y[len(y)-1]), fmt.Sprintf("%.2f%%", peaks[name])})
		series = append(series, massSeries(name, x, y))
	}
	a.Tables = append(a.Tables, tab)
	best := slices.MaxFunc(fig3Pairs, func(x, y string) int { return cmpFloat(within5[x], within5[y]) })
	flat := slices.Clone(fig3Pairs)
	slices.SortStableFunc(flat, func(x, y string) int { return cmpFloat(peaks[x], peaks[y]) })
	a.Claims = []Claim{
		exact("a job-name pair gives the most estimates within 5%", "job name", fmt.Sprintf("%s (%s)", best, pct(within5[best])), "the best pair is job-*", strings.HasPrefix(best, "job-")),
		exact("all-rolling and all-median are the two flattest lines (lowest interior peak)", "all-rolling, all-median", strings.Join(flat[:2], ", "), "the two lowest peaks",
			slices.Contains(flat[:2], "all-rolling") && slices.Contains(flat[:2], "all-median")),
	}
	f := report.NewLines("jv-fig3", "", "Relative error [%]", "Predictions [%]", series...)
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-fig3"); err != nil {
		return nil, err
	}
	a.Notes = `Each pair predicts every job alone: its estimate from the job's group, or 0 (the paper's "near-zero underestimate", error −100%) when the group has no history. Bins are 5% wide; errors of +100% or more are lumped at +100. The paper does not list its eight pairs beyond all-rolling and all-median; we draw the median and recent estimators of each feature.
`
	return a, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ---------------------------------------------------------------- Fig 11

func fig11(t *Trace, outDir string) (*Artifact, error) {
	r, err := Run(t, baseConfig())
	if err != nil {
		return nil, err
	}
	a := newArtifact("jv-fig11")
	x, y := massFunction(r.Actual, func(i int) traces.Time { return r.Pred[i] })
	series := []report.Series{massSeries("JVuPredict", x, y)}
	s := r.Summary()
	tab := Table{Title: "Error profile", Columns: []string{"predictor", "within 2x", "within 10%", "within 5%", "median |error|"}}
	tab.Rows = append(tab.Rows, []string{"JVuPredict", pct(1 - s.Outside2x), pct(s.Within10), pct(s.Within5), pct(s.MedianAbs)})
	allWorse := true
	var worst []string
	for _, e := range predict.EstimatorNames() {
		p := r.PairIndex("all-" + e)
		ax, ay := massFunction(r.Actual, func(i int) traces.Time { return r.PairPred(p, i) })
		series = append(series, massSeries("all-"+e, ax, ay))
		ps := r.PairSummary(p)
		tab.Rows = append(tab.Rows, []string{"all-" + e, pct(1 - ps.Outside2x), pct(ps.Within10), pct(ps.Within5), pct(ps.MedianAbs)})
		allWorse = allWorse && (1-ps.Outside2x) <= (1-s.Outside2x)-0.2
		worst = append(worst, fmt.Sprintf("%s %s", e, pct(1-ps.Outside2x)))
	}
	a.Tables = append(a.Tables, tab)
	mode := slices.Index(y, slices.Max(y))
	// Bad estimates: where they come from.
	bad, badNoHist, badLowScore := 0, 0, 0
	for i := range r.Actual {
		p, act := r.Pred[i], r.Actual[i]
		if act <= 0 || !(2*p < act || p > 2*act) {
			continue
		}
		bad++
		if r.Pair[i] < 0 || r.PairSlot(int(r.Pair[i])) == len(r.Slots)-1 {
			badNoHist++
		}
		if sc := r.Score[i]; !math.IsNaN(sc) && sc < 1 {
			badLowScore++
		}
	}
	a.Claims = []Claim{
		quoted("predictions outside a factor of two (the paper's 90% within 2x)", "10%", 100*s.Outside2x, pct(s.Outside2x)),
		exact("errors are centred close to 0% (the largest 5% bin touches 0)", "centred near 0", fmt.Sprintf("largest bin at %+.1f%%", x[mode]), "|largest bin| ≤ 5%", math.Abs(x[mode]) <= massBins),
		exact("every \"all\" estimator is far worse", "quite bad", "within 2x: "+strings.Join(worst, ", "), "each ≥ 20 pp fewer predictions within 2x", allWorse),
		quoted("bad estimates (beyond 2x) that had no history and fell back to \"all\"", "1%", 100*frac(badNoHist, bad), pct(frac(badNoHist, bad))),
		quoted("bad estimates whose chosen pair had a normalized RMSE below 1", "35%", 100*frac(badLowScore, bad), pct(frac(badLowScore, bad))),
	}
	f := report.NewLines("jv-fig11", "", "Relative error [%]", "Predictions [%]", series...)
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-fig11"); err != nil {
		return nil, err
	}
	a.Notes = `JVuPredict here is the base configuration: features job, ljob, user; estimators average, median, rolling, recent; no secondary features, no median filter (jv-refine adds them). The "all" lines are the four estimators over every previous runtime, each used alone. Bins are 5% wide; errors of +100% or more are lumped at +100. The paper's third statistic (11% of bad estimates are outliers) is not recomputed.
`
	return a, nil
}

// ---------------------------------------------------------------- Fig 12

func fig12(t *Trace, outDir string) (*Artifact, error) {
	r, err := Run(t, baseConfig())
	if err != nil {
		return nil, err
	}
	a := newArtifact("jv-fig12")
	type entry struct {
		name string
		s    ErrorSummary
		p    int
	}
	var singles []entry
	for p, name := range r.Pairs {
		singles = append(singles, entry{name, r.PairSummary(p), p})
	}
	slices.SortStableFunc(singles, func(x, y entry) int { return cmpFloat(x.s.Outside2x, y.s.Outside2x) })
	// Show the most reliable pair of each feature, and ljob-recent (the paper's reference).
	var shown []entry
	for _, slot := range r.Slots {
		for _, e := range singles {
			if r.Slots[r.PairSlot(e.p)] == slot {
				shown = append(shown, e)
				break
			}
		}
	}
	if !slices.ContainsFunc(shown, func(e entry) bool { return e.name == "ljob-recent" }) {
		if i := slices.IndexFunc(singles, func(e entry) bool { return e.name == "ljob-recent" }); i >= 0 {
			shown = append(shown, singles[i])
		}
	}
	js := r.Summary()
	cats := []string{"JVuPredict"}
	out2 := []float64{100 * js.Outside2x}
	out10 := []float64{100 * js.Outside10x}
	tab := Table{Title: "Predictions outside 2x and 10x", Columns: []string{"predictor", "paper: outside 2x", "ours: outside 2x", "ours: outside 10x"}}
	tab.Rows = append(tab.Rows, []string{"JVuPredict", "10%", pct(js.Outside2x), pct(js.Outside10x)})
	for _, e := range shown {
		cats = append(cats, e.name)
		out2 = append(out2, 100*e.s.Outside2x)
		out10 = append(out10, 100*e.s.Outside10x)
		paper := ""
		if e.name == "ljob-recent" {
			paper = "12%"
		}
		tab.Rows = append(tab.Rows, []string{e.name, paper, pct(e.s.Outside2x), pct(e.s.Outside10x)})
	}
	a.Tables = append(a.Tables, tab)
	best := singles[0]
	lr := r.PairIndex("ljob-recent")
	lrs := r.PairSummary(lr)
	// Jobs the ljob-recent or job-recent pair misses by more than 10x, and whether
	// JVuPredict also misses them by more than 10x.
	jr := r.PairIndex("job-recent")
	off10 := func(p, a traces.Time) bool { return 10*p < a || p > 10*a }
	missed, stillMissed := 0, 0
	for i, act := range r.Actual {
		if act <= 0 {
			continue
		}
		if off10(r.PairPred(lr, i), act) || off10(r.PairPred(jr, i), act) {
			missed++
			if off10(r.Pred[i], act) {
				stillMissed++
			}
		}
	}
	a.Claims = []Claim{
		quoted("JVuPredict predictions outside 2x", "10%", 100*js.Outside2x, pct(js.Outside2x)),
		quoted("ljob-recent predictions outside 2x", "12%", 100*lrs.Outside2x, pct(lrs.Outside2x)),
		exact("ljob-recent is the best single pair", "ljob-recent", fmt.Sprintf("%s (%s)", best.name, pct(best.s.Outside2x)), "the best pair is ljob-recent", best.name == "ljob-recent"),
		compare("JVuPredict beats the best single pair outside 2x", "10% < 12%", js.Outside2x, best.s.Outside2x, "<", fmt.Sprintf("%s vs %s", pct(js.Outside2x), pct(best.s.Outside2x))),
		quoted("jobs that ljob-recent or job-recent miss by > 10x and JVuPredict misses too (% of all jobs)", "0.16%", 100*frac(stillMissed, r.N()),
			fmt.Sprintf("%s (%d of the %d jobs they miss)", pct(frac(stillMissed, r.N())), stillMissed, missed)),
	}
	f := report.NewBars("jv-fig12", "", "Predictor", "Predictions [%]", cats, single("outside 2x", out2), single("outside 10x", out10))
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-fig12"); err != nil {
		return nil, err
	}
	a.Notes = `JVuPredict is the base configuration (see jv-fig11). The single pairs shown are, for each feature (and the catch-all), the pair with the fewest predictions outside 2x (plus ljob-recent, the paper's reference, if it is not among them), each used alone (near-zero estimate without history). The paper's 0.16% is read as the share of all jobs that the ljob and job pairs miss by more than 10x and JVuPredict does not rescue.
`
	return a, nil
}

// ---------------------------------------------------------------- Fig 13

func fig13(t *Trace, outDir string) (*Artifact, error) {
	r, err := Run(t, baseConfig())
	if err != nil {
		return nil, err
	}
	a := newArtifact("jv-fig13")
	sel := r.Selections()
	ests := predict.EstimatorNames()
	tab := Table{Title: "Selections", Columns: append([]string{"feature"}, append(slices.Clone(ests), "total")...)}
	var series []report.CategorySeries
	perSlot := make([]int, len(r.Slots))
	for _, est := range ests {
		vals := make([]float64, len(r.Slots))
		for s, slot := range r.Slots {
			p := r.PairIndex(slot + "-" + est)
			vals[s] = 100 * frac(sel[p], r.N())
			perSlot[s] += sel[p]
		}
		series = append(series, single(est, vals))
	}
	diverse := true
	for s, slot := range r.Slots {
		row := []string{slot}
		for _, est := range ests {
			c := sel[r.PairIndex(slot+"-"+est)]
			row = append(row, fmt.Sprintf("%d (%s)", c, pct(frac(c, r.N()))))
			if slot != predict.AllGroup && frac(c, perSlot[s]) < 0.01 {
				diverse = false
			}
		}
		row = append(row, fmt.Sprintf("%d (%s)", perSlot[s], pct(frac(perSlot[s], r.N()))))
		tab.Rows = append(tab.Rows, row)
	}
	none := 0
	for _, p := range r.Pair {
		if p < 0 {
			none++
		}
	}
	tab.Rows = append(tab.Rows, []string{"none (no history at all)", "", "", "", "", fmt.Sprintf("%d (%s)", none, pct(frac(none, r.N())))})
	a.Tables = append(a.Tables, tab)
	top := 0
	for s := range perSlot {
		if perSlot[s] > perSlot[top] {
			top = s
		}
	}
	last := len(r.Slots) - 1
	summary := make([]string, len(r.Slots))
	for s, slot := range r.Slots {
		summary[s] = fmt.Sprintf("%s %s", slot, pct(frac(perSlot[s], r.N())))
	}
	a.Claims = []Claim{
		exact("job name is the feature chosen most", "job", strings.Join(summary, ", "), "job has the largest share", r.Slots[top] == "job"),
		all("ljob and user are also chosen (each for ≥ 1% of jobs), and even all", "yes", strings.Join(summary[1:], ", "), "ljob, user ≥ 1%; all > 0",
			threshold("ljob", "", 100*frac(perSlot[1], r.N()), ">=", 1, "%", ""), threshold("user", "", 100*frac(perSlot[2], r.N()), ">=", 1, "%", ""),
			threshold("all", "", float64(perSlot[last]), ">", 0, " jobs", "")),
		exact("every estimator is selected for every feature", "diverse", map[bool]string{true: "yes", false: "no"}[diverse], "≥ 1% of each feature's selections", diverse),
	}
	f := report.NewBars("jv-fig13", "", "Feature", "Predictions [%]", r.Slots, series...)
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-fig13"); err != nil {
		return nil, err
	}
	a.Notes = `JVuPredict is the base configuration (see jv-fig11). The catch-all "all" group competes only when none of the job's feature values has history. The paper's figure gives no numbers, so the claims are qualitative.
`
	return a, nil
}

// ---------------------------------------------------------------- secondary features and median filter

func refine(t *Trace, outDir string) (*Artifact, error) {
	a := newArtifact("jv-refine")
	base, err := Run(t, Config{Name: "JVuPredict"})
	if err != nil {
		return nil, err
	}
	filt, err := Run(t, Config{Name: "JVuPredict + median filter", Opts: predict.Options{MedianFilter: true}})
	if err != nil {
		return nil, err
	}
	bs, fs := base.Summary(), filt.Summary()
	tab := Table{Title: "Median filter (whole input)", Columns: []string{"configuration", "within 10%", "within 2x", "under 2x", "over 2x", "filtered pairs chosen"}}
	mfChosen := 0
	for p, c := range filt.Selections() {
		if strings.HasSuffix(filt.Pairs[p], predict.FilterSuffix) {
			mfChosen += c
		}
	}
	tab.Rows = append(tab.Rows,
		[]string{"JVuPredict", pct(bs.Within10), pct(1 - bs.Outside2x), pct(bs.Under2x), pct(bs.Over2x), ""},
		[]string{"+ median filter", pct(fs.Within10), pct(1 - fs.Outside2x), pct(fs.Under2x), pct(fs.Over2x), pct(frac(mfChosen, filt.N()))})
	a.Tables = append(a.Tables, tab)
	dW10, dOver := 100*(fs.Within10-bs.Within10), 100*(fs.Over2x-bs.Over2x)
	a.Claims = append(a.Claims,
		quoted("median filter: change in estimates within 10% (pp)", "+2%", dW10, fmt.Sprintf("%+.2f pp", dW10)),
		quoted("median filter: change in over-estimates beyond 2x (pp)", "−2%", dOver, fmt.Sprintf("%+.2f pp", dOver)),
	)
	// §3.4 outlier statistics over the primary features' histories.
	var obs, outl int64
	var groups, withOutl int
	for _, s := range filt.Stats.Slots[:len(filt.Stats.Slots)-1] {
		obs += s.Observations
		outl += s.Outliers
		groups += s.Testable
		withOutl += s.GroupsWithOutliers
	}
	a.Claims = append(a.Claims,
		quoted("runtimes that are outliers of their feature history (> 3σ from its mean)", "1%", 100*frac(int(outl), int(obs)), pct(frac(int(outl), int(obs)))),
		threshold("feature histories with at least one outlier (of those long enough to test)", "over 57%", 100*frac(withOutl, groups), ">", 57, "%", pct(frac(withOutl, groups))),
	)
	f := report.NewBars("jv-refine-filter", "", "Metric", "Predictions [%]", []string{"within 10%", "under 2x", "over 2x"},
		single("JVuPredict", []float64{100 * bs.Within10, 100 * bs.Under2x, 100 * bs.Over2x}),
		single("+ median filter", []float64{100 * fs.Within10, 100 * fs.Under2x, 100 * fs.Over2x}))
	f.Legend = report.LegendAbove
	if err := save(a, f, outDir, "jv-refine-filter"); err != nil {
		return nil, err
	}

	// Secondary features need task_events; evaluate on the part of the trace they cover.
	if t.TaskWindowEnd < 0 {
		a.Notes = "No task_events in the input: the secondary-feature comparison is skipped.\n"
		return a, nil
	}
	w := t.Window(t.TaskWindowEnd)
	wb, err := Run(w, Config{Name: "JVuPredict", KeepCands: true, Opts: predict.Options{Secondary: true}})
	if err != nil {
		return nil, err
	}
	wbase, err := Run(w, Config{Name: "JVuPredict"})
	if err != nil {
		return nil, err
	}
	wbs, wss := wbase.Summary(), wb.Summary()
	userShare := func(r *Result) float64 {
		n := 0
		for _, p := range r.Pair {
			if p >= 0 && strings.HasPrefix(r.Pairs[p], "user") {
				n++
			}
		}
		return frac(n, r.N())
	}
	ub, us := userShare(wbase), userShare(wb)
	tab2 := Table{Title: fmt.Sprintf("Secondary features (jobs submitted while task_events cover the trace: %d finished jobs, %d with known requests)", w.Finished, w.WithRequests),
		Columns: []string{"configuration", "within 10%", "within 2x", "under 2x", "over 2x", "user-based selections"}}
	tab2.Rows = append(tab2.Rows,
		[]string{"JVuPredict", pct(wbs.Within10), pct(1 - wbs.Outside2x), pct(wbs.Under2x), pct(wbs.Over2x), pct(ub)},
		[]string{"+ secondary features", pct(wss.Within10), pct(1 - wss.Outside2x), pct(wss.Under2x), pct(wss.Over2x), pct(us)})
	a.Tables = append(a.Tables, tab2)
	// Users' groups alone, with and without refinement.
	tab3 := Table{Title: "User groups used alone, plain and refined by a secondary feature (beyond 2x)", Columns: []string{"estimator", "user", "user+cpu", "user+mem", "user+tasks"}}
	bestPlain, bestRefined := math.Inf(1), math.Inf(1)
	for _, e := range predict.EstimatorNames() {
		row := []string{e}
		for _, slot := range []string{"user", "user+cpu", "user+mem", "user+tasks"} {
			s := wb.PairSummary(wb.PairIndex(slot + "-" + e))
			row = append(row, pct(s.Outside2x))
			if slot == "user" {
				bestPlain = math.Min(bestPlain, s.Outside2x)
			} else {
				bestRefined = math.Min(bestRefined, s.Outside2x)
			}
		}
		tab3.Rows = append(tab3.Rows, row)
	}
	a.Tables = append(a.Tables, tab3)
	dOut := 100 * (wss.Outside2x - wbs.Outside2x)
	marginal := claim.Test{Op: "=", Lo: -1, Hi: 1, Quote: math.NaN()}
	a.Claims = append(a.Claims,
		compare("user groups refined by requested resources predict better than plain user groups (best pair beyond 2x)", "significant decrease",
			bestRefined, bestPlain, "<", fmt.Sprintf("%s → %s", pct(bestPlain), pct(bestRefined))),
		quoted("secondary features: change in user-based estimates chosen (pp)", "+3%", 100*(us-ub), fmt.Sprintf("%+.2f pp", 100*(us-ub))),
		judged("secondary features change overall accuracy only marginally (change beyond 2x, pp)", "marginal improvement", fmt.Sprintf("%+.2f pp", dOut), "within ±1 pp", marginal, dOut),
	)
	f2 := report.NewBars("jv-refine-secondary", "", "Metric", "Predictions [%]", []string{"within 10%", "under 2x", "over 2x", "user-based"},
		single("JVuPredict", []float64{100 * wbs.Within10, 100 * wbs.Under2x, 100 * wbs.Over2x, 100 * ub}),
		single("+ secondary features", []float64{100 * wss.Within10, 100 * wss.Under2x, 100 * wss.Over2x, 100 * us}))
	f2.Legend = report.LegendAbove
	if err := save(a, f2, outDir, "jv-refine-secondary"); err != nil {
		return nil, err
	}
	a.Notes = fmt.Sprintf(`Median filter: every group keeps a second history in which a runtime more than 3 standard deviations from the group's mean (tested once the group has %d runtimes) is replaced by the group's median; its four estimators are extra candidates ("-mf" pairs). Secondary features: each primary feature's groups are refined by total requested cpu, total requested memory and task count, discretized as §3.2 says, as extra candidates. They come from task_events, which the shared data holds only for the first parts of the month (task_events cover submissions up to %.0f s), so the secondary comparison runs on the jobs submitted in that window, where %d of %d finished jobs have known requests; the median-filter comparison runs on the whole input.
`, predict.MinOutlierHistory, traces.Seconds(t.TaskWindowEnd), w.WithRequests, w.Finished)
	return a, nil
}
