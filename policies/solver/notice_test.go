package solver

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// emptyWasm is the smallest valid WebAssembly module: it compiles in microseconds, so the
// notices of a first compilation can be tested without compiling HiGHS (seconds).
var emptyWasm = []byte("\x00asm\x01\x00\x00\x00")

func TestCompileNotices(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	var buf bytes.Buffer
	orig, origDelay := Notices, noticeDelay
	Notices, noticeDelay = &buf, 0 // say it at once: the empty module compiles in microseconds
	t.Cleanup(func() { Notices, noticeDelay = orig, origDelay })
	compile := func() string {
		t.Helper()
		buf.Reset()
		e, err := newEngineFrom(context.Background(), "empty.wasm", emptyWasm, sha)
		if err != nil {
			t.Fatal(err)
		}
		e.rt.Close(context.Background())
		return buf.String()
	}
	cache := t.TempDir()
	t.Setenv(EnvCache, cache)
	tests := []struct {
		name, cache string
		want        []string // lines' beginnings, in order; none for a silent load
	}{
		{"fresh machine", cache, []string{
			"schedlab: compiling the HiGHS solver once for this machine (up to a minute)…",
			"schedlab: HiGHS compiled in ",
		}},
		{"cache holds it", cache, nil},
		{"cache off", "off", []string{
			"schedlab: compiling the HiGHS solver (up to a minute; the compilation cache is off, SCHEDLAB_WAZERO_CACHE=off)…",
			"schedlab: HiGHS compiled in ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvCache, tt.cache)
			got := compile()
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(tt.want) == 0 {
				if got != "" {
					t.Fatalf("notices %q, want none", got)
				}
				return
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("notices %q, want %d lines", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("line %d = %q, want it to start %q", i+1, lines[i], w)
				}
			}
		})
	}
	if _, err := os.Stat(compiledMarker(cache, sha)); err != nil {
		t.Errorf("no marker after the first compilation: %v", err)
	}
	// Another wasm (a new HiGHS) is compiled afresh, and said so.
	buf.Reset()
	e, err := newEngineFrom(context.Background(), "other.wasm", emptyWasm, strings.Repeat("f", 64))
	if err != nil {
		t.Fatal(err)
	}
	e.rt.Close(context.Background())
	if !strings.Contains(buf.String(), "once for this machine") {
		t.Errorf("another wasm: notices %q, want the compiling notice", buf.String())
	}
	// A compilation that ends before noticeDelay (a cache written before the markers) is silent.
	noticeDelay = time.Minute
	buf.Reset()
	e, err = newEngineFrom(context.Background(), "third.wasm", emptyWasm, strings.Repeat("e", 64))
	if err != nil {
		t.Fatal(err)
	}
	e.rt.Close(context.Background())
	if buf.Len() != 0 {
		t.Errorf("a quick compilation: notices %q, want none", buf.String())
	}
	if _, err := os.Stat(compiledMarker(cache, strings.Repeat("e", 64))); err != nil {
		t.Errorf("no marker after a quick compilation: %v", err)
	}
}
