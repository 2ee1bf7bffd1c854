package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceCORA reproduces every CORA spec at the quick label, as CI does: every claim and
// every reference number is evaluated (held or not — a quick run has one or two seeds, and
// several of the paper's claims do not hold in ours, see experiments/cora/README.md), every
// figure and table is drawn — Fig. 3 as one CCDF with a curve per scheduler — and the cells
// carry the policy's per-event and shadow tables. The cells are computed by the schedlab binary
// (builtReport); the report is derived from them in this process as well.
func TestReproduceCORA(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CORA reproductions")
	}
	dir := t.TempDir()
	rep := builtReport(t, dir, "cora")
	specs, claims := checkEvaluated(t, rep, dir)
	fig3 := false
	for _, sr := range rep.Specs() {
		for _, f := range sr.Figures {
			if sr.Spec.ID == "cora/fig3" && f.Spec.ID == "fig3" {
				fig3 = true
				for _, l := range []string{"CORA − FIFO", "CORA − Fair", "CORA − EDF", "CORA − RRH"} {
					if !strings.Contains(string(f.SVG), l) {
						t.Errorf("fig3's SVG has no curve %q", l)
					}
				}
			}
		}
	}
	for _, id := range []string{"cora/table1", "cora/fig3", "cora/table2", "cora/table3", "cora/solver"} {
		if !specs[id] {
			t.Errorf("%s not reproduced (got %v)", id, specs)
		}
	}
	if !fig3 {
		t.Error("no figure fig3 in cora/fig3")
	}
	if claims < 70 {
		t.Errorf("%d claims evaluated, want the 74 of the CORA specs", claims)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CORA, Table I", "CORA, Fig. 3", "CORA, Fig. 4", "CORA, Table II", "CORA, Fig. 5", "CORA, Table III", "CORA, Fig. 6", "0.008367", "347.47"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	n := countFiles(dir, "cora_shadow.parquet", "cora_events.parquet")
	shadow, events := n["cora_shadow.parquet"], n["cora_events.parquet"]
	if shadow == 0 || events == 0 {
		t.Errorf("%d shadow tables, %d event tables", shadow, events)
	}
}
