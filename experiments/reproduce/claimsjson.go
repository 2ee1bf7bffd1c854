package reproduce

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/claim"
)

// ClaimsFile is the machine-readable claims file written beside report.md: every target's
// claims with their verdicts, numbers and tests, and the tally (format: README.md).
const ClaimsFile = "claims.json"

// ClaimsFormat and ClaimsVersion identify claims.json's format. The version changes when a
// field is removed or changes meaning; fields may be added within a version.
const (
	ClaimsFormat  = "schedlab-claims"
	ClaimsVersion = 1
)

// ClaimsDoc is the content of claims.json.
type ClaimsDoc struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Schedlab is the version of schedlab that wrote the file (experiments.Version).
	Schedlab string      `json:"schedlab"`
	Label    string      `json:"label"`
	Tally    TallyDoc    `json:"tally"`
	Targets  []TargetDoc `json:"targets"`
}

// TallyDoc is the report's Tally; Text is the line schedlab reproduce prints.
type TallyDoc struct {
	Held           int    `json:"held"`
	NotSignificant int    `json:"not_significant"`
	NotHeld        int    `json:"not_held"`
	Errors         int    `json:"errors"`
	NotEvaluable   int    `json:"not_evaluable"`
	Informational  int    `json:"informational"`
	Counted        int    `json:"counted"`
	Text           string `json:"text"`
}

// Target kinds in claims.json.
const (
	KindSpec     = "spec"
	KindJamaisVu = "jamaisvu"
	KindFailed   = "failed"
)

// TargetDoc is one section of the report: a spec (Figures, Sensitivity), a JamaisVu
// reproduction (Claims, Notes) or a failed reproduction (Error).
type TargetDoc struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Error string `json:"error,omitempty"`
	Title string `json:"title,omitempty"`
	// File is the spec's file; Dir its results' directory under the output directory.
	File          string  `json:"file,omitempty"`
	Dir           string  `json:"dir,omitempty"`
	Seeds         []int64 `json:"seeds,omitempty"`
	Cells         int     `json:"cells,omitempty"`
	SeedInvariant bool    `json:"seed_invariant,omitempty"`
	// Paper and Reference name a JamaisVu reproduction's paper and figure; Source is the trace
	// it read (as report.md shows it).
	Paper     string `json:"paper,omitempty"`
	Reference string `json:"reference,omitempty"`
	Source    string `json:"source,omitempty"`
	// Informational says why a JamaisVu reproduction's claims are not counted.
	Informational string          `json:"informational,omitempty"`
	Figures       []FigureDoc     `json:"figures,omitempty"`
	Sensitivity   *SensitivityDoc `json:"sensitivity,omitempty"`
	Claims        []JVuClaimDoc   `json:"claims,omitempty"`
	Notes         []string        `json:"notes,omitempty"`
}

// FigureDoc is a spec's figure or table: its paper reference, reference numbers and claims.
type FigureDoc struct {
	ID        string        `json:"id"`
	Kind      string        `json:"kind"`
	Title     string        `json:"title,omitempty"`
	Reference *ReferenceDoc `json:"reference,omitempty"`
	Numbers   []NumberDoc   `json:"numbers,omitempty"`
	Claims    []ClaimDoc    `json:"claims,omitempty"`
	Notes     []string      `json:"notes,omitempty"`
}

// ReferenceDoc names the paper's figure.
type ReferenceDoc struct {
	Paper   string `json:"paper"`
	Figure  string `json:"figure"`
	Caption string `json:"caption,omitempty"`
}

// NumberDoc is a reference number of the paper beside ours.
type NumberDoc struct {
	Name      string `json:"name"`
	Paper     string `json:"paper"`
	Simulator string `json:"simulator,omitempty"`
	// Expr is the spec's "ours" expression and Ours its estimate over seeds (both absent when
	// the spec gives none); Error says why it could not be evaluated.
	Expr  string       `json:"expr,omitempty"`
	Ours  *EstimateDoc `json:"ours,omitempty"`
	Error string       `json:"error,omitempty"`
}

// ClaimDoc is a spec's claim: the verdict of every for-each group combined (claim.Worst).
type ClaimDoc struct {
	Text    string `json:"text"`
	Check   string `json:"check"`
	Note    string `json:"note,omitempty"`
	Verdict string `json:"verdict"`
	// Counted is false for a claim not evaluable at the label.
	Counted bool `json:"counted"`
	// Paper is the number the claim quotes (absent when it quotes none); Test the tests of its
	// groups as report.md shows them.
	Paper  *Number    `json:"paper,omitempty"`
	Test   string     `json:"test,omitempty"`
	Error  string     `json:"error,omitempty"`
	Groups []GroupDoc `json:"groups,omitempty"`
}

// GroupDoc is a claim judged in one for-each group (Group absent without for each).
type GroupDoc struct {
	Group   string `json:"group,omitempty"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Identical is set when the compared sides are equal in every cell and seed.
	Identical bool         `json:"identical,omitempty"`
	Effect    EffectDoc    `json:"effect"`
	Test      TestDoc      `json:"test"`
	LHS       Number       `json:"lhs"`
	RHS       Number       `json:"rhs"`
	Operands  []OperandDoc `json:"operands"`
	PerSeed   []SeedDoc    `json:"per_seed,omitempty"`
}

// EffectDoc is the effect a group measures (claim.Outcome) with its estimate.
type EffectDoc struct {
	Kind string `json:"kind"`
	Expr string `json:"expr"`
	EstimateDoc
}

// EstimateDoc is a claim.Estimate: the value and its 95% interval over N replicates (Lo = Hi =
// Value when Exact), and how it was obtained.
type EstimateDoc struct {
	Value  Number `json:"value"`
	Lo     Number `json:"lo"`
	Hi     Number `json:"hi"`
	N      int    `json:"n"`
	Exact  bool   `json:"exact"`
	Method string `json:"method"`
}

// TestDoc is a claim.Test: what the effect must satisfy. Lo and Hi bound the band of an =
// test; Quote is the paper's number and Tolerance the tolerance as written, where the check
// quotes one.
type TestDoc struct {
	Op        string  `json:"op"`
	Threshold Number  `json:"threshold"`
	Bound     Number  `json:"bound"`
	Margin    Number  `json:"margin"`
	Lo        *Number `json:"lo,omitempty"`
	Hi        *Number `json:"hi,omitempty"`
	Quote     *Number `json:"quote,omitempty"`
	Tolerance string  `json:"tolerance,omitempty"`
	Text      string  `json:"text"`
}

// OperandDoc is an operand's value over all of a group's cells.
type OperandDoc struct {
	Operand string `json:"operand"`
	Value   Number `json:"value"`
	N       int    `json:"n"`
}

// SeedDoc is a paired comparison on one seed.
type SeedDoc struct {
	Seed   int64  `json:"seed"`
	LHS    Number `json:"lhs"`
	RHS    Number `json:"rhs"`
	Effect Number `json:"effect"`
}

// SensitivityDoc is every claim judged again at each sensitivity point.
type SensitivityDoc struct {
	Points []string              `json:"points"`
	Claims []SensitivityClaimDoc `json:"claims"`
}

// SensitivityClaimDoc is one claim at every point, and where it holds (report.md's region).
type SensitivityClaimDoc struct {
	Figure string     `json:"figure"`
	Text   string     `json:"text"`
	Region string     `json:"region"`
	Points []PointDoc `json:"points"`
}

// PointDoc is a claim's verdict at one sensitivity point, with its groups.
type PointDoc struct {
	Point   string     `json:"point"`
	Verdict string     `json:"verdict"`
	Error   string     `json:"error,omitempty"`
	Groups  []GroupDoc `json:"groups,omitempty"`
}

// JVuClaimDoc is a JamaisVu reproduction's claim: its values as report.md prints them, the
// verdict, and — for a claim judged on one number — that number and its test.
type JVuClaimDoc struct {
	Text    string `json:"text"`
	Paper   string `json:"paper"`
	Ours    string `json:"ours"`
	Test    string `json:"test"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Counted is false at label quick (the target's Informational says why).
	Counted bool     `json:"counted"`
	Value   *Number  `json:"value,omitempty"`
	Bounds  *TestDoc `json:"bounds,omitempty"`
}

// Number is a float64 in claims.json: the shortest decimal that reads back as the same
// float64, or null when it is not finite (NaN: undefined; the reasons say why).
type Number float64

// MarshalJSON writes the number, or null when it is not finite.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads a number, or null as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Number(f)
	return err
}

func numPtr(f float64) *Number {
	n := Number(f)
	return &n
}

// ClaimsDoc builds the content of claims.json.
func (r *Report) ClaimsDoc() *ClaimsDoc {
	t := r.Tally()
	doc := &ClaimsDoc{Format: ClaimsFormat, Version: ClaimsVersion, Schedlab: experiments.Version, Label: labelName(r.Label),
		Tally: TallyDoc{Held: t.Held, NotSignificant: t.NotSignificant, NotHeld: t.NotHeld, Errors: t.Errors,
			NotEvaluable: t.NotEvaluable, Informational: t.Informational, Counted: t.Total(), Text: t.String()},
		Targets: []TargetDoc{}}
	for _, sec := range r.Sections {
		switch {
		case sec.Err != nil:
			doc.Targets = append(doc.Targets, TargetDoc{ID: sec.ID, Kind: KindFailed, Error: sec.Err.Error()})
		case sec.JVu != nil:
			doc.Targets = append(doc.Targets, sec.JVu.claimsDoc())
		default:
			doc.Targets = append(doc.Targets, sec.Spec.claimsDoc())
		}
	}
	return doc
}

// WriteClaimsJSON writes claims.json: ClaimsDoc indented by two spaces, keys in a fixed order,
// so that the same report gives the same bytes.
func (r *Report) WriteClaimsJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.ClaimsDoc()); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func (s *SpecReport) claimsDoc() TargetDoc {
	td := TargetDoc{ID: s.Spec.ID, Kind: KindSpec, Title: s.Spec.Title, File: s.Spec.File, Dir: s.Dir,
		Seeds: s.Seeds, Cells: s.Cells, SeedInvariant: s.SeedInvariant}
	for i := range s.Figures {
		f := &s.Figures[i]
		fd := FigureDoc{ID: f.Spec.ID, Kind: f.Spec.Kind, Title: f.Spec.Title}
		if r := f.Spec.Reference; r != nil {
			fd.Reference = &ReferenceDoc{Paper: r.Paper, Figure: r.Figure, Caption: r.Caption}
		}
		for _, n := range f.Numbers {
			nd := NumberDoc{Name: n.Name, Paper: n.Paper, Simulator: n.Simulator, Expr: n.Expr}
			switch {
			case n.Err != nil:
				nd.Error = n.Err.Error()
			case n.Expr != "":
				e := estimateDoc(n.Ours)
				nd.Ours = &e
			}
			fd.Numbers = append(fd.Numbers, nd)
		}
		for _, c := range f.Claims {
			fd.Claims = append(fd.Claims, claimDoc(c))
		}
		td.Figures = append(td.Figures, fd)
	}
	if sens := s.Sensitivity; sens != nil {
		sd := &SensitivityDoc{Points: sens.Points, Claims: []SensitivityClaimDoc{}}
		for _, c := range sens.Claims {
			cd := SensitivityClaimDoc{Figure: c.Figure, Text: c.Text, Region: sens.Region(c), Points: []PointDoc{}}
			for i, r := range c.Results {
				pd := PointDoc{Point: sens.Points[i], Verdict: r.Verdict.String(), Groups: groupDocs(r)}
				if r.Err != nil {
					pd.Error = r.Err.Error()
				}
				cd.Points = append(cd.Points, pd)
			}
			sd.Claims = append(sd.Claims, cd)
		}
		td.Sensitivity = sd
	}
	return td
}

// claimDoc converts a spec's judged claim.
func claimDoc(c ClaimResult) ClaimDoc {
	cd := ClaimDoc{Text: c.Text, Check: c.Check, Note: c.Note, Verdict: c.Verdict.String(), Counted: c.Verdict != claim.NotEvaluable,
		Test: claimTest(c), Groups: groupDocs(c)}
	if c.Err != nil {
		cd.Error = c.Err.Error()
	}
	for _, g := range c.Groups {
		if !math.IsNaN(g.Test.Quote) && g.Outcome.Effect == claim.EffectValue {
			cd.Paper = numPtr(g.Test.Quote)
			break
		}
	}
	return cd
}

func groupDocs(c ClaimResult) []GroupDoc {
	var out []GroupDoc
	for _, g := range c.Groups {
		gd := GroupDoc{Group: g.Group, Verdict: g.Verdict.String(), Reason: g.Reason, Identical: g.Identical,
			Effect: EffectDoc{Kind: g.Outcome.Effect, Expr: g.EffectExpr, EstimateDoc: estimateDoc(g.Estimate)},
			Test:   testDoc(g.Test), LHS: Number(g.LHS), RHS: Number(g.RHS), Operands: []OperandDoc{}}
		for _, o := range g.Operands {
			gd.Operands = append(gd.Operands, OperandDoc{Operand: o.Operand, Value: Number(o.Value), N: o.N})
		}
		for _, s := range g.PerSeed {
			gd.PerSeed = append(gd.PerSeed, SeedDoc{Seed: s.Seed, LHS: Number(s.LHS), RHS: Number(s.RHS), Effect: Number(s.Effect)})
		}
		out = append(out, gd)
	}
	return out
}

func estimateDoc(e claim.Estimate) EstimateDoc {
	return EstimateDoc{Value: Number(e.Value), Lo: Number(e.Lo), Hi: Number(e.Hi), N: e.N, Exact: e.Exact, Method: e.Method}
}

func testDoc(t claim.Test) TestDoc {
	td := TestDoc{Op: t.Op, Threshold: Number(t.Threshold), Bound: Number(t.Bound), Margin: Number(t.Margin), Tolerance: t.Tol, Text: t.String()}
	if t.Op == "=" {
		td.Lo, td.Hi = numPtr(t.Lo), numPtr(t.Hi)
	}
	if !math.IsNaN(t.Quote) {
		td.Quote = numPtr(t.Quote)
	}
	return td
}

func (j *JVuReport) claimsDoc() TargetDoc {
	a := j.Artifact
	td := TargetDoc{ID: a.ID, Kind: KindJamaisVu, Title: a.Title, Dir: j.Dir, Paper: a.Paper, Reference: a.Reference, Source: j.Src,
		Informational: a.Informational, Notes: notesParagraphs(a.Notes), Claims: []JVuClaimDoc{}}
	for _, c := range a.Claims {
		cd := JVuClaimDoc{Text: c.Text, Paper: c.Paper, Ours: c.Ours, Test: c.Test, Verdict: c.Verdict.String(), Reason: c.Reason,
			Counted: a.Informational == ""}
		if c.Bounds != nil {
			cd.Value = numPtr(c.Value)
			b := testDoc(*c.Bounds)
			cd.Bounds = &b
		}
		td.Claims = append(td.Claims, cd)
	}
	return td
}
