package solver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/schedlab/schedlab/policies/solver/internal/highsdist"
)

// Notices receives the solver's one-line notices of slow one-off work — compiling highs.wasm
// on a machine whose compilation cache does not hold it yet (3–4 CPU-s; tens of seconds under -race or load) — so that a first run
// does not look hung. It is os.Stderr; set it to io.Discard to silence them.
var Notices io.Writer = os.Stderr

var noticesMu sync.Mutex

func notice(format string, args ...any) {
	noticesMu.Lock()
	defer noticesMu.Unlock()
	fmt.Fprintf(Notices, format+"\n", args...)
}

// compiledMarker is the file that records, in a compilation cache directory, that this
// highs.wasm has been compiled into it by this wazero version (wazero keeps its entries in a
// directory per version, so a new version compiles afresh).
func compiledMarker(cacheDir, wasmSHA256 string) string {
	return filepath.Join(cacheDir, fmt.Sprintf("highs-%.16s-%s.compiled", wasmSHA256, wazeroVersion()))
}

// wazeroVersion is the wazero module's version from the build information ("dev" without it).
func wazeroVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				if d.Replace != nil {
					d = d.Replace
				}
				if d.Version != "" {
					return d.Version
				}
			}
		}
	}
	return "dev"
}

// noticeDelay is how long a compilation runs before compileNotices says it is compiling from
// scratch: loading the compiled code from the cache takes a fraction of a second, compiling
// anew tens of seconds, so a cache written before the markers existed stays silent.
var noticeDelay = time.Second

// compileNotices says on Notices that a compilation from scratch is under way, unless cacheDir
// is marked as holding this wasm's compiled code, once it has run noticeDelay; it returns the
// function to call when the compilation succeeded, with the cache directory used in the end,
// which says how long it took (when the first notice was given) and marks the cache.
func compileNotices(cacheDir, wasmSHA256 string) (done func(usedCache string, took time.Duration)) {
	var marker string
	msg := fmt.Sprintf("schedlab: compiling the HiGHS solver (up to a minute; the compilation cache is off, %s=off)…", EnvCache)
	if cacheDir != "" {
		marker = compiledMarker(cacheDir, wasmSHA256)
		if _, err := os.Stat(marker); err == nil {
			return func(string, time.Duration) {}
		}
		msg = "schedlab: compiling the HiGHS solver once for this machine (up to a minute)…"
	}
	var (
		mu   sync.Mutex
		said bool
	)
	say := func() {
		mu.Lock()
		defer mu.Unlock()
		if !said {
			said = true
			notice("%s", msg)
		}
	}
	var timer *time.Timer
	if noticeDelay <= 0 {
		say()
	} else {
		timer = time.AfterFunc(noticeDelay, say)
	}
	return func(usedCache string, took time.Duration) {
		if timer != nil {
			timer.Stop()
		}
		mu.Lock()
		wasSaid := said
		said = true // a timer that fires now says nothing
		mu.Unlock()
		if wasSaid {
			if marker == "" || usedCache == "" {
				notice("schedlab: HiGHS compiled in %.1f s", took.Seconds())
			} else {
				notice("schedlab: HiGHS compiled in %.1f s; later runs load it from %s", took.Seconds(), cacheDir)
			}
		}
		if marker != "" && usedCache != "" {
			// An empty file: a kill leaves it absent or whole.
			if f, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
	}
}

// highsSHA256 is the sha256 of the highs.wasm this build accepts (verifyWasm checks it).
var highsSHA256 = highsdist.WasmSHA256
