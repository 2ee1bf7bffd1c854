package solver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// engine is the process-wide compiled HiGHS module: one wazero runtime, the
// host module "a" and the compiled highs.wasm. Instances are created from it
// cheaply (a few milliseconds each).
type engine struct {
	rt          wazero.Runtime
	compiled    wazero.CompiledModule
	wasmPath    string
	cacheDir    string // "" when the on-disk cache is off or unusable
	compileTime time.Duration
	exports     map[string]string // symbol -> minified export name
}

var (
	engineMu  sync.Mutex
	theEngine *engine
)

// getEngine returns the process-wide engine, compiling highs.wasm on first
// use. A failure is not cached: a later call tries again (for instance
// after `schedlab solver install`).
func getEngine(ctx context.Context) (*engine, error) {
	engineMu.Lock()
	defer engineMu.Unlock()
	if theEngine != nil {
		return theEngine, nil
	}
	e, err := newEngine(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	theEngine = e
	return e, nil
}

// CacheDir returns the directory of wazero's on-disk compilation cache:
// $SCHEDLAB_WAZERO_CACHE, else os.UserCacheDir()/schedlab/wazero. It returns
// "" when the cache is disabled ($SCHEDLAB_WAZERO_CACHE=off) or no cache
// directory can be determined.
func CacheDir() string {
	if d := os.Getenv(EnvCache); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "schedlab", "wazero")
}

func newEngine(ctx context.Context) (*engine, error) {
	path, wasm, err := readWasm()
	if err != nil {
		return nil, err
	}
	return newEngineFrom(ctx, path, wasm, highsSHA256)
}

// newEngineFrom compiles wasm (read from path, with this sha256), through the compilation
// cache, saying on Notices when that compiles from scratch.
func newEngineFrom(ctx context.Context, path string, wasm []byte, sha string) (*engine, error) {
	cacheDir := CacheDir()
	done := compileNotices(cacheDir, sha)
	start := time.Now()
	e, err := compileEngine(ctx, wasm, cacheDir)
	if err != nil && cacheDir != "" {
		// A corrupt cache entry: drop wazero's entries and compile afresh
		// (repopulating the cache); failing that, compile without a cache.
		if dirs, _ := filepath.Glob(filepath.Join(cacheDir, "wazero-*")); len(dirs) > 0 {
			for _, d := range dirs {
				os.RemoveAll(d)
			}
			e, err = compileEngine(ctx, wasm, cacheDir)
		}
		if err != nil {
			cacheDir = ""
			e, err = compileEngine(ctx, wasm, "")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("solver: compile %s: %w", path, err)
	}
	done(e.cacheDir, time.Since(start))
	e.wasmPath = path
	return e, nil
}

// compileEngine creates a runtime with the host module and compiles wasm,
// using wazero's on-disk compilation cache in cacheDir unless it is "".
func compileEngine(ctx context.Context, wasm []byte, cacheDir string) (*engine, error) {
	cfg := wazero.NewRuntimeConfig()
	if cacheDir != "" {
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return nil, err
		}
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			return nil, err
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if err := instantiateHost(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("host module: %w", err)
	}
	start := time.Now()
	cctx := experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
	compiled, err := rt.CompileModule(cctx, wasm)
	if err != nil {
		rt.Close(ctx)
		return nil, err
	}
	return &engine{
		rt:          rt,
		compiled:    compiled,
		cacheDir:    cacheDir,
		compileTime: time.Since(start),
		exports:     wasmExportNames,
	}, nil
}
