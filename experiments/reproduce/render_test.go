package reproduce

import (
	"bytes"
	"regexp"
	"testing"
)

// TestResultsHeadersDoNotWrap: a results table's column names ("policy") stay on one line —
// no rule lets them break inside a word (the page showed "polic / y") — and a table too wide
// for the page scrolls instead.
func TestResultsHeadersDoNotWrap(t *testing.T) {
	var b bytes.Buffer
	if err := synthReport(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	css := b.Bytes()[:bytes.Index(b.Bytes(), []byte("</style>"))]
	if !regexp.MustCompile(`table\.results th \{[^}]*white-space: nowrap`).Match(css) {
		t.Errorf("results headers may wrap: no white-space: nowrap on table.results th")
	}
	if regexp.MustCompile(`(?m)^[^{]*table\.results th[^{]*\{[^}]*overflow-wrap: anywhere`).Match(css) {
		t.Errorf("results headers may break inside a word (overflow-wrap: anywhere)")
	}
	if !regexp.MustCompile(`table\.results \{[^}]*overflow-x: auto`).Match(css) {
		t.Errorf("a wide results table does not scroll")
	}
}
