package reproduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/claim"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/internal/testutil"
)

// synthClaimsReport is synthReport with a sensitivity block on its spec: the claims of figure
// bars judged again on each cluster size's cells, as sensitivity points.
func synthClaimsReport(t *testing.T) *Report {
	t.Helper()
	r := synthReport(t)
	d := synthData(t)
	f := &d.spec.Figures[1]
	all := d.t.Rows
	s := &Sensitivity{Points: []string{"base", "workload.machines=10", "workload.machines=20"}}
	for j := range f.Claims {
		c := SensitivityClaim{Figure: f.ID, Text: f.Claims[j].Text}
		for _, m := range []string{"", "10", "20"} {
			d.t.Rows = all
			if m != "" {
				d.t.Rows = d.rowsWhere(all, "workload.machines", m)
			}
			res := d.checkClaim(f, &f.Claims[j])
			c.Verdicts = append(c.Verdicts, res.Verdict)
			c.Results = append(c.Results, res)
		}
		s.Claims = append(s.Claims, c)
	}
	r.Specs()[0].Sensitivity = s
	return r
}

// claimsJSON writes r's claims.json and report.md.
func claimsJSON(t *testing.T, r *Report) (js, md []byte) {
	t.Helper()
	var j, m bytes.Buffer
	if err := r.WriteClaimsJSON(&j); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&m); err != nil {
		t.Fatal(err)
	}
	return j.Bytes(), m.Bytes()
}

// decodeClaims reads claims.json strictly: every field known.
func decodeClaims(t *testing.T, js []byte) *ClaimsDoc {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var doc ClaimsDoc
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("claims.json: %v", err)
	}
	if doc.Format != ClaimsFormat || doc.Version != ClaimsVersion {
		t.Fatalf("claims.json format %q version %d", doc.Format, doc.Version)
	}
	return &doc
}

// claimsAgree returns how claims.json and report.md disagree: the tally line, every claim's
// row of the paper-vs-ours tables (its text, check and verdict) and every sensitivity
// point's verdict must be in report.md as claims.json has them, and the tallies must count
// claims.json's claims.
func claimsAgree(doc *ClaimsDoc, md []byte) []string {
	var bad []string
	text := string(md)
	if !strings.Contains(text, capitalize(doc.Tally.Text)+".") {
		bad = append(bad, fmt.Sprintf("report.md lacks the tally %q", doc.Tally.Text))
	}
	var count TallyDoc
	esc := func(s string) string { return regexp.QuoteMeta(strings.ReplaceAll(s, "|", `\|`)) }
	for _, td := range doc.Targets {
		for _, f := range td.Figures {
			for _, c := range f.Claims {
				switch {
				case !c.Counted:
					count.NotEvaluable++
				case c.Verdict == claim.Held.String():
					count.Held++
				case c.Verdict == claim.NotSignificant.String():
					count.NotSignificant++
				case c.Verdict == claim.NotHeld.String():
					count.NotHeld++
				default:
					count.Errors++
				}
				row := regexp.MustCompile(`(?m)^\| ` + esc(c.Text+" ("+c.Check+")") + ` +\|.*\| ` + esc(c.Verdict) + `(:.*)? +\|$`)
				if !row.MatchString(text) {
					bad = append(bad, fmt.Sprintf("%s %s: report.md has no row for claim %q %s", td.ID, f.ID, c.Text, c.Verdict))
				}
			}
		}
		if s := td.Sensitivity; s != nil {
			for _, c := range s.Claims {
				cells := []string{esc(c.Figure + ": " + c.Text)}
				for _, p := range c.Points {
					v := claim.Error
					for _, x := range []claim.Verdict{claim.Held, claim.NotSignificant, claim.NotHeld, claim.NotEvaluable} {
						if x.String() == p.Verdict {
							v = x
						}
					}
					cells = append(cells, esc(verdictMark(v)))
				}
				cells = append(cells, esc(c.Region))
				if !regexp.MustCompile(`(?m)^\| ` + strings.Join(cells, ` +\| `) + ` +\|$`).MatchString(text) {
					bad = append(bad, fmt.Sprintf("%s: report.md has no sensitivity row for %q as in claims.json", td.ID, c.Text))
				}
			}
		}
		for _, c := range td.Claims {
			switch {
			case !c.Counted:
				count.Informational++
			case c.Verdict == claim.Held.String():
				count.Held++
			case c.Verdict == claim.NotHeld.String():
				count.NotHeld++
			case c.Verdict == claim.NotSignificant.String():
				count.NotSignificant++
			default:
				count.Errors++
			}
			var cells []string
			for _, s := range []string{c.Text, c.Paper, c.Ours, c.Test, c.Verdict + ": " + c.Reason} {
				cells = append(cells, esc(s))
			}
			if !regexp.MustCompile(`(?m)^\| ` + strings.Join(cells, ` +\| `) + ` +\|$`).MatchString(text) {
				bad = append(bad, fmt.Sprintf("%s: report.md has no row for claim %q %s", td.ID, c.Text, c.Verdict))
			}
		}
	}
	count.Counted = count.Held + count.NotSignificant + count.NotHeld + count.Errors
	count.Text = doc.Tally.Text
	if count != doc.Tally {
		bad = append(bad, fmt.Sprintf("claims.json's tally %+v does not count its claims: %+v", doc.Tally, count))
	}
	return bad
}

// TestClaimsJSONGolden writes the hand-made report's claims.json (a spec with every kind of
// claim and a sensitivity block, a JamaisVu section) and compares it with
// testdata/claims.json.golden; -update rewrites it. The same report gives the same bytes, and
// the file agrees with report.md.
func TestClaimsJSONGolden(t *testing.T) {
	r := synthClaimsReport(t)
	js, md := claimsJSON(t, r)
	testutil.Golden(t, filepath.Join("testdata", "claims.json.golden"), js, *update)
	again, _ := claimsJSON(t, synthClaimsReport(t))
	if !bytes.Equal(js, again) {
		t.Error("claims.json differs between two builds of the same report")
	}
	doc := decodeClaims(t, js)
	if want := r.Tally(); doc.Tally.Held != want.Held || doc.Tally.Counted != want.Total() || doc.Tally.Text != want.String() {
		t.Errorf("tally %+v, want %+v", doc.Tally, want)
	}
	for _, why := range claimsAgree(doc, md) {
		t.Error(why)
	}
	// The numbers read back as written: the spec's first claim, group machines=10 (drf 41.5 vs
	// fifo 101.5 over both seeds), and the JamaisVu claim's number and band.
	g := doc.Targets[1].Figures[0].Claims[0].Groups[0]
	if g.Group != "workload.machines=10" || g.LHS != 41.5 || g.RHS != 101.5 || len(g.PerSeed) != 2 || g.Effect.Kind != claim.EffectRatio || g.Test.Op != "<" || g.Test.Bound != 0.95 {
		t.Errorf("first claim's first group = %+v", g)
	}
	if s := doc.Targets[1].Sensitivity; s == nil || len(s.Claims) != 5 || len(s.Claims[0].Points) != 3 || s.Claims[0].Points[1].Point != "workload.machines=10" {
		t.Errorf("sensitivity = %+v", s)
	}
}

// TestClaimsJSONFollowsTheReport plants verdict changes in a report: claims.json must show
// them — the tally and the claim's verdict — and still agree with the report.md written from
// the same report, while the earlier report.md no longer agrees with it.
func TestClaimsJSONFollowsTheReport(t *testing.T) {
	js0, md0 := claimsJSON(t, synthClaimsReport(t))
	doc0 := decodeClaims(t, js0)
	for _, tc := range []struct {
		name  string
		plant func(r *Report)
		check func(d *ClaimsDoc) bool
	}{
		{"a spec claim turns not held", func(r *Report) {
			c := &r.Specs()[0].Figures[0].Claims[1]
			c.Verdict, c.Groups[0].Verdict = claim.NotHeld, claim.NotHeld
		}, func(d *ClaimsDoc) bool {
			return d.Tally.NotHeld == doc0.Tally.NotHeld+1 && d.Tally.Held == doc0.Tally.Held-1 &&
				d.Targets[1].Figures[0].Claims[1].Verdict == "not held" && d.Targets[1].Figures[0].Claims[1].Groups[0].Verdict == "not held"
		}},
		{"a JamaisVu claim turns held", func(r *Report) {
			r.JVu()[0].Artifact.Claims[1].Verdict = claim.Held
		}, func(d *ClaimsDoc) bool {
			return d.Tally.Held == doc0.Tally.Held+1 && d.Tally.NotHeld == doc0.Tally.NotHeld-1 && d.Targets[0].Claims[1].Verdict == "held"
		}},
		{"a sensitivity point turns not significant", func(r *Report) {
			c := &r.Specs()[0].Sensitivity.Claims[0]
			c.Verdicts[2], c.Results[2].Verdict = claim.NotSignificant, claim.NotSignificant
		}, func(d *ClaimsDoc) bool {
			return d.Tally == doc0.Tally && d.Targets[1].Sensitivity.Claims[0].Points[2].Verdict == "not significant"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := synthClaimsReport(t)
			tc.plant(r)
			js, md := claimsJSON(t, r)
			doc := decodeClaims(t, js)
			if !tc.check(doc) {
				t.Errorf("claims.json does not show the planted change: tally %+v (was %+v)", doc.Tally, doc0.Tally)
			}
			if bad := claimsAgree(doc, md); len(bad) > 0 {
				t.Errorf("claims.json and report.md of the same report disagree: %s", strings.Join(bad, "\n"))
			}
			if len(claimsAgree(doc, md0)) == 0 {
				t.Error("claimsAgree accepts the planted claims.json against the report.md written before the change")
			}
		})
	}
}

// checkClaimsFile checks dir/claims.json against rep and dir/report.md: the file decodes, has
// rep's tally and a target per section, and agrees with report.md. It returns the file.
func checkClaimsFile(t *testing.T, dir string, rep *Report) []byte {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dir, ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeClaims(t, js)
	if want := rep.Tally(); doc.Tally.Text != want.String() || doc.Tally.Counted != want.Total() {
		t.Errorf("claims.json tally %+v, want %+v", doc.Tally, want)
	}
	if len(doc.Targets) != len(rep.Sections) {
		t.Errorf("claims.json has %d targets, the report %d sections", len(doc.Targets), len(rep.Sections))
	}
	for i, td := range doc.Targets {
		if i < len(rep.Sections) && td.ID != rep.Sections[i].ID {
			t.Errorf("target %d is %s, section %s", i, td.ID, rep.Sections[i].ID)
		}
	}
	for _, why := range claimsAgree(doc, md) {
		t.Error(why)
	}
	return js
}

// The JamaisVu claims judged on one number carry it and its band into claims.json.
func TestClaimsJSONJVuNumbers(t *testing.T) {
	a, err := jvu.Reproduce("jv-fig12", jvu.Options{Label: jvu.QuickLabel, Src: filepath.Join("..", "jvu", jvu.QuickSrc), OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Label: "quick", Sections: []Section{{ID: a.ID, JVu: &JVuReport{Artifact: a, Label: "quick", Dir: JVuDir}}}}
	js, _ := claimsJSON(t, r)
	doc := decodeClaims(t, js)
	numbers := 0
	for i, c := range doc.Targets[0].Claims {
		ac := a.Claims[i]
		if (c.Bounds != nil) != (ac.Bounds != nil) || c.Counted || doc.Targets[0].Informational == "" {
			t.Errorf("claim %q: bounds %v, counted %v", c.Text, c.Bounds, c.Counted)
		}
		if c.Bounds == nil {
			continue
		}
		numbers++
		if float64(*c.Value) != ac.Value || c.Bounds.Op != ac.Bounds.Op || (ac.Bounds.Op == "=" && (c.Bounds.Lo == nil || float64(*c.Bounds.Lo) != ac.Bounds.Lo)) {
			t.Errorf("claim %q: value %v bounds %+v, want %v %+v", c.Text, *c.Value, *c.Bounds, ac.Value, *ac.Bounds)
		}
		if v, _ := claim.Judge(*ac.Bounds, claim.ExactEstimate(ac.Value, "")); v.String() != c.Verdict {
			t.Errorf("claim %q: verdict %s, its number and bounds give %s", c.Text, c.Verdict, v)
		}
	}
	if numbers == 0 {
		t.Error("no JamaisVu claim of jv-fig12 carries its number")
	}
}

// TestClaimsJSONDocumented checks that README.md names every key of claims.json.
func TestClaimsJSONDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if !bytes.Contains(readme, []byte("`"+name+"`")) {
				t.Errorf("README.md does not document claims.json's key %q (%s.%s)", name, ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(ClaimsDoc{}))
	if len(seen) < 10 {
		t.Errorf("walked %d types of claims.json", len(seen))
	}
	for _, v := range []string{KindSpec, KindJamaisVu, KindFailed, ClaimsFormat} {
		if !bytes.Contains(readme, []byte(v)) {
			t.Errorf("README.md does not name %q", v)
		}
	}
}

// TestNumberRoundTrip: a claims.json number reads back as the same float64, in the shortest
// form; a number that is not finite is null and reads back as NaN.
func TestNumberRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.95, "0.95"}, {41.5, "41.5"}, {1e-7, "1e-7"}, {1e21, "1e+21"}, {-2.5e-3, "-0.0025"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {math.SmallestNonzeroFloat64, "5e-324"},
		{1.0 / 3, "0.3333333333333333"}, {math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	} {
		b, err := json.Marshal(Number(tc.in))
		if err != nil || string(b) != tc.want {
			t.Errorf("Number(%v) = %s, %v; want %s", tc.in, b, err, tc.want)
			continue
		}
		var back Number
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if f := float64(back); f != tc.in && !(math.IsNaN(f) && (math.IsNaN(tc.in) || math.IsInf(tc.in, 0))) {
			t.Errorf("%s reads back as %v, want %v", b, f, tc.in)
		}
	}
	var n Number
	if err := json.Unmarshal([]byte(`"0.5"`), &n); err == nil {
		t.Error("a string reads as a number")
	}
}
