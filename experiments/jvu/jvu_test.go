package jvu

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func loadQuick(t *testing.T) *Trace {
	t.Helper()
	tr, err := Load(QuickSrc)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestLoadQuickFixture(t *testing.T) {
	tr := loadQuick(t)
	// SOURCE.md: 2,161 jobs are submitted and 1,405 finish; task_events cover the jobs submitted
	// before 7,500 s, as the month's cover only its first parts.
	if len(tr.Jobs) != 2161 || tr.Finished != 1405 || tr.StartedBeforeWindow != 0 {
		t.Fatalf("%d jobs, finished %d (started before the window %d), want 2161, 1405 (0)", len(tr.Jobs), tr.Finished, tr.StartedBeforeWindow)
	}
	last := tr.Jobs[len(tr.Jobs)-1].Submit
	if tr.WithRequests == 0 || tr.WithRequests >= tr.Finished || tr.TaskWindowEnd <= tr.Jobs[0].Submit ||
		tr.TaskWindowEnd >= 7_500_000_000 || tr.TaskWindowEnd >= last {
		t.Fatalf("%d of %d finished jobs with requests, task window end %d (submissions %d..%d)", tr.WithRequests, tr.Finished, tr.TaskWindowEnd, tr.Jobs[0].Submit, last)
	}
	// Every job submitted while the task_events cover the slice has its requests; none after.
	tw := tr.Window(tr.TaskWindowEnd)
	if tw.WithRequests != tw.Finished || tw.WithRequests != tr.WithRequests {
		t.Fatalf("task window: %d of %d finished jobs with requests; whole slice %d", tw.WithRequests, tw.Finished, tr.WithRequests)
	}
	for _, j := range tr.Jobs {
		if (j.Submit <= tr.TaskWindowEnd) != (j.Tasks > 0) {
			t.Fatalf("job %d submitted at %d has %d tasks (task window end %d)", j.ID, j.Submit, j.Tasks, tr.TaskWindowEnd)
		}
	}
	if !slices.IsSortedFunc(tr.Jobs, func(a, b predict.Job) int {
		if a.Submit != b.Submit {
			return int(a.Submit - b.Submit)
		}
		return int(a.ID - b.ID)
	}) {
		t.Fatal("jobs are not in (submit, id) order")
	}
	finished := 0
	for _, j := range tr.Jobs {
		if j.Runtime < 0 {
			if j.End != -1 {
				t.Fatalf("job %d has no runtime but ends at %d", j.ID, j.End)
			}
			continue
		}
		finished++
		if j.End < j.Submit || j.Runtime > j.End-j.Submit {
			t.Fatalf("job %d: submit %d, end %d, runtime %d are inconsistent", j.ID, j.Submit, j.End, j.Runtime)
		}
		if j.Features.User == "" || j.Features.JobName == "" || j.Features.LogicalJobName == "" {
			t.Fatalf("job %d lacks features: %+v", j.ID, j.Features)
		}
		if (j.Tasks > 0) == math.IsNaN(j.CPU) {
			t.Fatalf("job %d: %d tasks but cpu %v", j.ID, j.Tasks, j.CPU)
		}
	}
	if finished != tr.Finished {
		t.Fatalf("%d jobs with a runtime, Finished says %d", finished, tr.Finished)
	}
	w := tr.Window(tr.Jobs[len(tr.Jobs)/2].Submit)
	if len(w.Jobs) < len(tr.Jobs)/2 || len(w.Jobs) == len(tr.Jobs) || w.Finished > tr.Finished {
		t.Fatalf("window of %d jobs (%d finished) from %d", len(w.Jobs), w.Finished, len(tr.Jobs))
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nosuch")); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("error %v, want one naming the missing path", err)
	}
}

func TestSummarize(t *testing.T) {
	actual := []traces.Time{100, 100, 100, 100, 100, 100, 100, 100, 0, 100}
	pred := []traces.Time{100, 104, 92, 49, 201, 200, 5, 1001, 7, 50}
	s := Summarize(actual, func(i int) traces.Time { return pred[i] })
	// Errors: 0, +4%, −8%, −51%, +101%, +100%, −95%, +901%, (zero runtime left out), −50%.
	want := ErrorSummary{
		N:          9,
		Within5:    2.0 / 9, // 0, +4%
		Within10:   3.0 / 9, // and −8%
		Under2x:    2.0 / 9, // 49 and 5 (50 is exactly half: not beyond 2x)
		Over2x:     2.0 / 9, // 201 and 1001 (200 is exactly twice)
		Outside2x:  4.0 / 9,
		Outside10x: 2.0 / 9, // 1001 and 5 (20x under)
		MedianAbs:  0.51,    // sorted |errors|: 0 .04 .08 .5 .51 .95 1 1.01 9.01
	}
	if s.N != want.N || !close9(s.Within5, want.Within5) || !close9(s.Within10, want.Within10) || !close9(s.Under2x, want.Under2x) ||
		!close9(s.Over2x, want.Over2x) || !close9(s.Outside2x, want.Outside2x) || !close9(s.Outside10x, want.Outside10x) || !close9(s.MedianAbs, want.MedianAbs) {
		t.Fatalf("summary\n got %+v\nwant %+v", s, want)
	}
}

func close9(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 4, 2, 3}, 3},
		{[]float64{5, 1, 4, 2, 3, 9}, 3.5},
		{[]float64{2, 2, 2, 1, 2}, 2},
	} {
		if got := median(slices.Clone(tc.in)); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

func TestMassFunction(t *testing.T) {
	actual := []traces.Time{100, 100, 100, 100, 100}
	pred := []traces.Time{0, 102, 97, 200, 5000} // −100%, +2%, −3%, +100%, +4900%
	x, y := massFunction(actual, func(i int) traces.Time { return pred[i] })
	if len(x) != 41 || x[0] != -97.5 || x[40] != 100 || x[20] != 2.5 {
		t.Fatalf("bins %v", x)
	}
	want := make([]float64, 41)
	want[0] = 20  // −100%
	want[19] = 20 // −3% in [−5, 0)
	want[20] = 20 // +2% in [0, 5)
	want[40] = 40 // ≥ +100%
	if !slices.Equal(y, want) {
		t.Fatalf("mass %v, want %v", y, want)
	}
}

func TestRunKeepsCandidatesAndUnseenValues(t *testing.T) {
	tr := loadQuick(t)
	r, err := Run(tr, Config{Name: "base", KeepCands: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.N() != tr.Finished || r.Submitted != len(tr.Jobs) {
		t.Fatalf("population %d of %d predictions; want %d of %d", r.N(), r.Submitted, tr.Finished, len(tr.Jobs))
	}
	if len(r.Cands) != len(r.Pairs) || len(r.Unseen) != 3 || len(r.NoHistory) != len(r.Slots) {
		t.Fatalf("shapes: %d cands for %d pairs, %d unseen, %d no-history for %d slots", len(r.Cands), len(r.Pairs), len(r.Unseen), len(r.NoHistory), len(r.Slots))
	}
	for i := range r.Actual {
		// The chosen pair's candidate is the prediction.
		if p := r.Pair[i]; p >= 0 && r.PairPred(int(p), i) != r.Pred[i] {
			t.Fatalf("job %d: chosen pair %s predicts %d, the prediction is %d", r.ID[i], r.PairName(int(p)), r.PairPred(int(p), i), r.Pred[i])
		}
		// A value never submitted before has no history.
		for f := range r.Unseen {
			if r.Unseen[f][i] && !r.NoHistory[f][i] {
				t.Fatalf("job %d: feature %d unseen but with history", r.ID[i], f)
			}
		}
	}
	// The first job ever has nothing to go on.
	if r.Pred[0] != 0 && tr.Jobs[0].Runtime >= 0 {
		t.Errorf("first prediction %d, want 0", r.Pred[0])
	}
}

func TestWritePredictionsRoundTrip(t *testing.T) {
	tr := loadQuick(t)
	r, err := Run(tr, Config{Name: "base"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteOutputs(dir, tr, r); err != nil {
		t.Fatal(err)
	}
	tbl, _ := testutil.ReadParquet(t, filepath.Join(dir, PredictionsFile))
	defer tbl.Release()
	sameFields := slices.EqualFunc(tbl.Schema().Fields(), PredictionsSchema.Fields(), func(a, b arrow.Field) bool {
		return a.Name == b.Name && arrow.TypeEqual(a.Type, b.Type) && a.Nullable == b.Nullable
	})
	if int(tbl.NumRows()) != r.N() || !sameFields {
		t.Fatalf("%d rows with schema %v; want %d rows of %v", tbl.NumRows(), tbl.Schema(), r.N(), PredictionsSchema)
	}
	ids := tbl.Column(0).Data().Chunk(0).(*array.Int64)
	pairs := tbl.Column(4).Data().Chunk(0).(*array.String)
	pred := tbl.Column(3).Data().Chunk(0).(*array.Float64)
	for i := 0; i < ids.Len(); i++ {
		if ids.Value(i) != r.ID[i] || pairs.Value(i) != r.PairName(int(r.Pair[i])) || pred.Value(i) != traces.Seconds(r.Pred[i]) {
			t.Fatalf("row %d: %d %s %v; want %d %s %v", i, ids.Value(i), pairs.Value(i), pred.Value(i), r.ID[i], r.PairName(int(r.Pair[i])), traces.Seconds(r.Pred[i]))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Fatal(err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}
}

func TestReproduceRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, id string
		o        Options
		want     string
	}{
		{"an unknown id lists the valid ones", "jv-fig99", Options{Label: QuickLabel, OutDir: dir}, "jv-table1, jv-fig3"},
		{"an unknown label lists the valid ones", "jv-fig3", Options{Label: "huge", OutDir: dir}, "quick, paper"},
		{"the output directory is required", "jv-fig3", Options{Label: QuickLabel}, "OutDir"},
		{"a missing trace is named", "jv-fig3", Options{Label: QuickLabel, OutDir: dir, Src: filepath.Join(dir, "nosuch")}, "nosuch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Reproduce(tc.id, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := Reproduce("jv-fig99", Options{Label: QuickLabel, OutDir: dir}); !errors.Is(err, ErrUnknownID) {
		t.Fatalf("error %v does not wrap ErrUnknownID", err)
	}
}

// TestDescribe checks every id is described (title and a reference naming the paper's figure,
// table or section) without running it, in the order of IDs, and unknown ids are refused.
func TestDescribe(t *testing.T) {
	if got := IDs(); len(got) != 6 || got[0] != "jv-table1" || got[5] != "jv-refine" {
		t.Errorf("IDs() = %v", got)
	}
	for _, id := range IDs() {
		in, err := Describe(id)
		if err != nil || in.ID != id || in.Title == "" || !strings.Contains(in.Reference, ": ") {
			t.Errorf("Describe(%q) = %+v, %v", id, in, err)
		}
	}
	if in, _ := Describe("jv-fig12"); !strings.HasPrefix(in.Reference, "Figure 12: ") {
		t.Errorf("jv-fig12 reference = %q", in.Reference)
	}
	if _, err := Describe("jv-fig99"); !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "jv-table1, jv-fig3") {
		t.Errorf("Describe(jv-fig99) error = %v", err)
	}
}

// TestReproduceQuick runs every reproduction on the committed fixture slice and compares the
// rendered Markdown (tables, claims, notes) with golden files; -update rewrites them.
func TestReproduceQuick(t *testing.T) {
	for _, id := range IDs() {
		t.Run(id, func(t *testing.T) {
			dir := t.TempDir()
			a, err := Reproduce(id, Options{Label: QuickLabel, OutDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if a.ID != id || a.Paper != PaperName || a.Reference == "" || len(a.Tables) == 0 || len(a.Claims) == 0 || !strings.Contains(a.Notes, "Population:") {
				t.Fatalf("incomplete artifact: %+v", a)
			}
			if len(a.Figures) == 0 {
				t.Fatal("no figures")
			}
			for _, f := range a.Figures {
				st, err := os.Stat(f)
				if err != nil || st.Size() == 0 || filepath.Dir(f) != dir {
					t.Fatalf("figure %s: %v", f, err)
				}
			}
			md, err := os.ReadFile(filepath.Join(dir, id+".md"))
			if err != nil {
				t.Fatal(err)
			}
			if string(md) != a.Markdown() {
				t.Fatal("the written Markdown differs from Artifact.Markdown")
			}
			golden(t, id+".md", string(md))
		})
	}
}

// golden compares got with testdata/golden/name (see testutil.Golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), []byte(got), *update)
}

// TestReproducePaperFig12 runs the headline reproduction on the whole month when the data is
// there — `schedlab reproduce jv-fig12 --label paper` with the prebuilt binary (reproduceBuilt)
// — and reads its claims.json: the paper's population, and every claim judged against its
// stated tolerance or margin (whatever the verdict: the reproduction must not be tuned to the
// claims) and counted.
func TestReproducePaperFig12(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole month takes seconds to minutes (-short)")
	}
	src := paperSrc(t)
	doc := reproduceBuilt(t, "jv-fig12", PaperLabel, src)
	if len(doc.Targets) != 1 || doc.Targets[0].ID != "jv-fig12" || doc.Targets[0].Kind != "jamaisvu" {
		t.Fatalf("claims.json targets = %+v, want jv-fig12 alone", doc.Targets)
	}
	a := doc.Targets[0]
	if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "385582 jobs here, 385582 in the paper") }) {
		t.Errorf("population differs from the paper's: %s", strings.Join(a.Notes, "\n"))
	}
	if a.Informational != "" || doc.Tally.Informational != 0 {
		t.Errorf("paper-label claims marked as not counted: %s", a.Informational)
	}
	if len(a.Claims) == 0 || doc.Tally.Counted != len(a.Claims) {
		t.Errorf("%d claims, %d counted", len(a.Claims), doc.Tally.Counted)
	}
	for _, c := range a.Claims {
		if c.Verdict != claim.Held.String() && c.Verdict != claim.NotHeld.String() || !c.Counted || c.Test == "" || c.Reason == "" || c.Ours == "" {
			t.Errorf("claim %q not judged: verdict %q, counted %v, test %q, reason %q, ours %q", c.Text, c.Verdict, c.Counted, c.Test, c.Reason, c.Ours)
		}
	}
}

// TestQuotedClaimsUseThePapersRounding checks the tolerance of a quoted number: 20% of it, at
// least half a unit of its last printed digit — so that 0 never matches a small percentage —
// and the verdicts of the claim helpers on numbers on both sides of their bounds.
func TestQuotedClaimsUseThePapersRounding(t *testing.T) {
	for _, tc := range []struct {
		paper    string
		val, tol float64
	}{
		{"1%", 1, 0.5}, {"10%", 10, 2}, {"0.16%", 0.16, 0.032}, {"0.04%", 0.04, 0.008}, {"38.25%", 38.25, 7.65}, {"+2%", 2, 0.5}, {"−2%", -2, 0.5}, {"35%", 35, 7},
	} {
		v, tol, err := quoteTolerance(tc.paper)
		if err != nil || v != tc.val || math.Abs(tol-tc.tol) > 1e-12 {
			t.Errorf("quoteTolerance(%q) = %v ± %v, %v; want %v ± %v", tc.paper, v, tol, err, tc.val, tc.tol)
		}
	}
	for _, tc := range []struct {
		name string
		c    Claim
		want claim.Verdict
	}{
		{"ours at the paper's value holds", quoted("x", "1%", 1, "1%"), claim.Held},
		{"0 does not match a small percentage", quoted("x", "1%", 0, "0%"), claim.NotHeld},
		{"a delta a third of the paper's does not hold", quoted("x", "+2%", 0.83, "+0.83 pp"), claim.NotHeld},
		{"the wrong sign does not hold", quoted("x", "−2%", 0.5, "+0.5 pp"), claim.NotHeld},
		{"a comparison beyond the margin holds", compare("x", "", 10.99, 12.15, "<", ""), claim.Held},
		{"a comparison inside the margin does not hold", compare("x", "", 11.8, 12.15, "<", ""), claim.NotHeld},
		{"a comparison with a zero baseline is a difference", compare("x", "", 3, 0, ">", ""), claim.Held},
		{"a stated threshold has no margin", threshold("x", "", 57.5, ">", 57, "%", ""), claim.Held},
		{"every part must hold", all("x", "", "", "", compare("a", "", 1, 2, "<", ""), compare("b", "", 2, 2, "<", "")), claim.NotHeld},
	} {
		if tc.c.Verdict != tc.want || tc.c.Reason == "" || tc.c.Test == "" && tc.c.Text != "x" {
			t.Errorf("%s: %v (%s), want %v", tc.name, tc.c.Verdict, tc.c.Reason, tc.want)
		}
	}
}
