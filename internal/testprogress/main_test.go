package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress feeds a crafted event stream (two packages, one failing, finishing out of order,
// and a build failure) and checks the lines, the failing package's output and the status.
func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     int
		want     []string
	}{
		{"packages print as they finish; a failure shows its output", `{"Action":"start","Package":"m/slow"}
{"Action":"start","Package":"m/fast"}
{"Action":"output","Package":"m/fast","Test":"TestX","Output":"    x_test.go:9: boom\n"}
{"Action":"fail","Package":"m/fast","Test":"TestX","Elapsed":0.1}
{"Action":"fail","Package":"m/fast","Elapsed":0.2}
{"Action":"output","Package":"m/slow","Output":"ok\n"}
{"Action":"pass","Package":"m/slow","Elapsed":90.5}
{"Action":"skip","Package":"m/none"}
`, 1, []string{"x_test.go:9: boom\nFAIL m/fast 0.2s\nok   m/slow 90.5s\n?    m/none [no test files]\n", "FAIL: 3 packages", "failed: m/fast"}},
		{"all passing", `{"Action":"start","Package":"m/a"}
{"Action":"pass","Package":"m/a","Elapsed":1}
`, 0, []string{"ok   m/a 1.0s\n", "PASS: 1 packages"}},
		{"a build failure fails", `{"ImportPath":"m/b","Action":"build-output","Output":"b.go:1: syntax error\n"}
{"ImportPath":"m/b","Action":"build-fail"}
go: some message
`, 1, []string{"b.go:1: syntax error\n", "go: some message\n", "failed: m/b (build)"}},
		{"a package cut short fails", `{"Action":"start","Package":"m/a"}
{"Action":"output","Package":"m/a","Output":"panic: test timed out\n"}
`, 1, []string{"panic: test timed out", "m/a (did not finish)"}},
		{"no events fail", "", 1, []string{"no test events"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &progress{w: &out, begin: time.Now(), running: map[string]time.Time{}, output: map[string][]string{}}
			code := p.finish(p.read(strings.NewReader(tc.in)))
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	var out bytes.Buffer
	p := &progress{w: &out, begin: time.Now().Add(-2 * time.Minute), running: map[string]time.Time{"github.com/schedlab/schedlab/cmd/schedlab": time.Now().Add(-90 * time.Second)}, output: map[string][]string{}}
	p.status(time.Now())
	if !strings.Contains(out.String(), "0 packages done, running cmd/schedlab (1m30s)") {
		t.Errorf("status line %q", out.String())
	}
	// Before any test binary starts (go test compiles them first: minutes under -race), the
	// status line says so instead of naming no package.
	out.Reset()
	p = &progress{w: &out, begin: time.Now().Add(-time.Minute), running: map[string]time.Time{}, output: map[string][]string{}}
	p.status(time.Now())
	if got := out.String(); !strings.Contains(got, "1m0s: compiling the test binaries; no package has started yet") {
		t.Errorf("status line before any package started %q", got)
	}
	out.Reset()
	p.started()
	if got := out.String(); !strings.Contains(got, "a status line every minute") {
		t.Errorf("first line %q", got)
	}
}
