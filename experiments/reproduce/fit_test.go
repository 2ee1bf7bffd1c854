package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fitScript lists, once the page has loaded, every table that runs past its container's content
// box (id or class and by how many pixels) in data-overflow, and the page's scroll width over the
// window's in data-page.
const fitScript = `<script>
window.addEventListener("load", function () {
  var over = [];
  var tables = document.querySelectorAll("table");
  for (var i = 0; i < tables.length; i++) {
    var t = tables[i], p = t.parentElement, cs = getComputedStyle(p);
    var right = p.getBoundingClientRect().right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth);
    var past = t.getBoundingClientRect().right - right;
    if (past > 0.5) {
      over.push((t.id || t.className) + ":" + Math.round(past) + "px");
    }
  }
  document.body.setAttribute("data-overflow", over.join(" "));
  document.body.setAttribute("data-page", document.documentElement.scrollWidth + "/" + window.innerWidth);
  document.body.setAttribute("data-checked", "yes");
});
</script>
`

// fit renders page at 1280 px wide and returns the tables that do not fit and the page's scroll
// and window widths.
func fit(t *testing.T, page []byte) (overflow, widths string) {
	t.Helper()
	dom := renderWithScript(t, page, fitScript, "--window-size=1280,1000", "--hide-scrollbars")
	m := regexp.MustCompile(`data-overflow="([^"]*)"`).FindSubmatch(dom)
	w := regexp.MustCompile(`data-page="([^"]*)"`).FindSubmatch(dom)
	if m == nil || w == nil {
		t.Fatalf("no fit attributes in the DOM")
	}
	return string(m[1]), string(w[1])
}

// TestTablesFitThePage renders the report of bpf-fig9 (four policies by four queues, whose
// tables ran 143 and 271 px past the page with internal keys as headers) and the demo at 1280 px
// in headless Chromium: every table stays inside its figure and the page does not scroll
// sideways. The page is the schedlab binary's (reproduceBuilt); the demo's is also drawn in this
// process (TestReproduceDemo) and bpf-fig9's figure kinds are (TestGanttFigure, TestUsageFigures).
func TestTablesFitThePage(t *testing.T) {
	if chromium() == "" {
		renderInChromium(t, nil) // fails under CI, skips otherwise
	}
	if testing.Short() {
		t.Skip("runs a reproduction")
	}
	out := t.TempDir()
	reproduceBuilt(t, out, "bpf-fig9", "demo")
	page, err := os.ReadFile(filepath.Join(out, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>LQ-0 ", "<th>TQ-0 dominant share</th>", "<td>N-BPF</td>", "<th>avg JCT (s)</th>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	overflow, widths := fit(t, page)
	if overflow != "" {
		t.Errorf("tables wider than their figure at 1280 px: %s", overflow)
	}
	var scroll, window int
	if _, err := fmt.Sscanf(widths, "%d/%d", &scroll, &window); err != nil || window != 1280 || scroll > window {
		t.Errorf("the page scrolls sideways at 1280 px (scroll width/window: %s, %v)", widths, err)
	}
}

// TestFitCheckCatchesWideTables: the check can fail — a table with internal keys as headers
// that cannot wrap (testdata/wide-table.html) is reported.
func TestFitCheckCatchesWideTables(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "wide-table.html"))
	if err != nil {
		t.Fatal(err)
	}
	if overflow, _ := fit(t, page); !strings.HasPrefix(overflow, "table-wide:") {
		t.Errorf("the wide table was not reported: %q", overflow)
	}
}
