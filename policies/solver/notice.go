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
// on a machine whose compilation cache does not hold it yet (about 40 s) — so that a first run
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

// compileNotices says on Notices that a compilation from scratch starts (when cacheDir does not
// hold this wasm's compiled code, or the cache is off) and returns the function to call when it
// succeeded, with the cache directory it used in the end, which says how long it took and
// marks the compiled code as cached.
func compileNotices(cacheDir, wasmSHA256 string) (done func(usedCache string, took time.Duration)) {
	var marker string
	if cacheDir == "" {
		notice("schedlab: compiling the HiGHS solver (~40 s; the compilation cache is off, %s=off)…", EnvCache)
	} else {
		marker = compiledMarker(cacheDir, wasmSHA256)
		if _, err := os.Stat(marker); err == nil {
			return func(string, time.Duration) {}
		}
		notice("schedlab: compiling the HiGHS solver once for this machine (~40 s)…")
	}
	return func(usedCache string, took time.Duration) {
		if marker == "" || usedCache == "" {
			notice("schedlab: HiGHS compiled in %.1f s", took.Seconds())
			return
		}
		notice("schedlab: HiGHS compiled in %.1f s; later runs load it from %s", took.Seconds(), cacheDir)
		// An empty file: a kill leaves it absent or whole.
		if f, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
}

// highsSHA256 is the sha256 of the highs.wasm this build accepts (verifyWasm checks it).
var highsSHA256 = highsdist.WasmSHA256
