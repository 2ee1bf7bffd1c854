package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jvSchedFigures are the JamaisVu scheduler reproductions (experiments/jv).
var jvSchedFigures = []string{"jv-fig9", "jv-fig10", "jv-fig14", "jv-fig15", "jv-fig16"}

// TestReproduceJVSched reproduces JamaisVu's Figs. 9, 10, 14, 15 and 16 at the quick label, as
// CI does, from the repository root (the specs' trace paths are relative to it): fixed-horizon
// workloads (H of 75 s to 7.5 min) fitted to the committed Google slice, JVuPredict warmed on it. Every claim and
// reference number must be evaluated (held or not: two seeds of 100 jobs decide little), every
// figure drawn, and the per-MILP and per-prediction records present. The schedlab binary runs
// the reproductions (builtReport): their time is HiGHS's, and the policy's code is tested under
// -race in policies/jvusched and experiments; claims and numbers are evaluated here too.
func TestReproduceJVSched(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the JamaisVu scheduler reproductions")
	}
	out := t.TempDir()
	t.Chdir(filepath.Join("..", ".."))
	rep := builtReport(t, out, jvSchedFigures...)
	specs, claims := checkEvaluated(t, rep, out)
	for _, sr := range rep.Specs() {
		if len(sr.Seeds) < 2 {
			t.Errorf("%s: seeds %v", sr.Spec.ID, sr.Seeds)
		}
	}
	for _, id := range []string{"jv/fig9", "jv/fig10", "jv/fig14", "jv/fig15", "jv/fig16"} {
		if !specs[id] {
			t.Errorf("%s not reproduced (got %v)", id, specs)
		}
	}
	if claims < 30 {
		t.Errorf("%d claims evaluated, want the specs' 33", claims)
	}
	md, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"JamaisVu, Fig. 9", "JamaisVu, Fig. 10", "JamaisVu, Fig. 11", "JamaisVu, Fig. 14", "JamaisVu, Fig. 15", "JamaisVu, Fig. 16", "MILP wall time, p99"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	n := countFiles(out, "cycles.parquet", "predictions.parquet")
	cycles, predictions := n["cycles.parquet"], n["predictions.parquet"]
	if cycles == 0 || predictions == 0 {
		t.Errorf("%d cycle tables, %d prediction tables", cycles, predictions)
	}
}

// countFiles counts the files under root with each of the given names.
func countFiles(root string, names ...string) map[string]int {
	n := map[string]int{}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && slices.Contains(names, d.Name()) {
			n[d.Name()]++
		}
		return nil
	})
	return n
}

// checkEvaluated requires every claim and reference number of rep's specs to have been
// evaluated and every figure to have written non-empty files under out; it returns the specs
// reproduced and the number of claims.
func checkEvaluated(t *testing.T, rep *Report, out string) (map[string]bool, int) {
	t.Helper()
	specs := map[string]bool{}
	claims := 0
	for _, sr := range rep.Specs() {
		specs[sr.Spec.ID] = true
		for _, f := range sr.Figures {
			for _, c := range f.Claims {
				claims++
				if c.Err != nil {
					t.Errorf("%s %s: claim %q: %v", sr.Spec.ID, f.Spec.ID, c.Text, c.Err)
				}
			}
			for _, n := range f.Numbers {
				if n.Err != nil || math.IsNaN(n.Ours.Value) {
					t.Errorf("%s %s: number %q = %v, %v", sr.Spec.ID, f.Spec.ID, n.Name, n.Ours, n.Err)
				}
			}
			if len(f.Files) == 0 {
				t.Errorf("%s %s: no files", sr.Spec.ID, f.Spec.ID)
			}
			for _, p := range f.Files {
				if st, err := os.Stat(filepath.Join(out, p)); err != nil || st.Size() == 0 {
					t.Errorf("figure file %s: %v", p, err)
				}
			}
		}
	}
	return specs, claims
}
