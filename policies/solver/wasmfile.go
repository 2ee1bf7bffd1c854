package solver

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/policies/solver/internal/highsdist"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/internal/safefs"
)

// Pinned build of HiGHS that this package runs.
const (
	// NpmPackage is the npm package spec that ships the pinned highs.wasm.
	NpmPackage = highsdist.Spec
	// WasmSHA256 is the hex sha256 of the pinned highs.wasm.
	WasmSHA256 = highsdist.WasmSHA256
	// License is the licence of the npm package (and of HiGHS): MIT.
	License = highsdist.License
)

// Environment variables read by this package.
const (
	// EnvWasm names the highs.wasm file to use, overriding the search path.
	EnvWasm = "SCHEDLAB_HIGHS_WASM"
	// EnvCache names the directory of wazero's on-disk compilation cache
	// (default: os.UserCacheDir()/schedlab/wazero). Set it to "off" to
	// disable the on-disk cache.
	EnvCache = "SCHEDLAB_WAZERO_CACHE"
)

// WasmFileName is the file name of the module in every search directory.
const WasmFileName = "highs.wasm"

// InstallHint tells a user how to obtain highs.wasm; it ends every
// ErrWasmNotFound error.
const InstallHint = "run `go run ./cmd/schedlab solver install` (or `schedlab solver install`, or `make setup`) " +
	"to fetch npm " + highsdist.Spec + " and install build/highs.wasm, or set " + EnvWasm + " to its path"

// Wasm is highs.wasm as the one lookup of files schedlab needs (internal/datapath) finds it:
// $SCHEDLAB_HIGHS_WASM (a file path), else third_party/highs/highs.wasm in the working
// directory's repository, else in the repository this binary was built from, else
// os.UserCacheDir()/schedlab/highs/highs.wasm.
var Wasm = datapath.Need{
	Name:    WasmFileName,
	Env:     EnvWasm,
	Repo:    "third_party/highs/" + WasmFileName,
	Cache:   "highs/" + WasmFileName,
	Missing: ErrWasmNotFound,
}

// SearchPath returns the candidate locations of highs.wasm, in the order LocateWasm tries them
// (Wasm's places).
func SearchPath() []string {
	var out []string
	for _, p := range Wasm.Places() {
		out = append(out, p.Path)
	}
	return out
}

// RepoInstallDir returns <root>/third_party/highs, the in-repository
// install directory (ignored by git).
func RepoInstallDir(root string) string {
	return filepath.Join(root, "third_party", "highs")
}

// UserInstallDir returns os.UserCacheDir()/schedlab/highs.
func UserInstallDir() (string, error) {
	d, err := datapath.UserCache()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "highs"), nil
}

// DefaultInstallDir is where Install puts highs.wasm when no destination is given, a place
// LocateWasm finds from every working directory: third_party/highs in the repository this binary
// was built from, else UserInstallDir.
func DefaultInstallDir() (string, error) {
	p, err := Wasm.InstallPlace()
	if err != nil {
		return "", fmt.Errorf("solver: %w", err)
	}
	return filepath.Dir(p.Path), nil
}

// FoundAnywhere reports whether a highs.wasm installed in dir is found by LocateWasm from every
// working directory.
func FoundAnywhere(dir string) bool {
	return Wasm.FoundAnywhere(filepath.Join(dir, WasmFileName))
}

// LocateWasm returns the first existing file on SearchPath. When none
// exists the error wraps ErrWasmNotFound and carries InstallHint. A path
// named by $SCHEDLAB_HIGHS_WASM that does not exist is an error too (it is
// not skipped silently).
func LocateWasm() (string, error) {
	return locate(Wasm)
}

func locate(n datapath.Need) (string, error) {
	p, err := n.Find()
	if err != nil {
		return "", fmt.Errorf("solver: %w; %s", err, InstallHint)
	}
	return p.Path, nil
}

// readWasm locates, reads and verifies highs.wasm.
func readWasm() (path string, wasm []byte, err error) {
	path, err = LocateWasm()
	if err != nil {
		return "", nil, err
	}
	wasm, err = os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("solver: %w", err)
	}
	if err := verifyWasm(wasm); err != nil {
		return "", nil, fmt.Errorf("solver: %s: %w; %s", path, err, InstallHint)
	}
	return path, wasm, nil
}

func verifyWasm(b []byte) error {
	if len(b) != highsdist.WasmSize {
		return fmt.Errorf("%w: size %d, want %d", ErrWasmMismatch, len(b), highsdist.WasmSize)
	}
	if got := highsdist.SHA256Hex(b); got != highsdist.WasmSHA256 {
		return fmt.Errorf("%w: sha256 %s, want %s", ErrWasmMismatch, got, highsdist.WasmSHA256)
	}
	return nil
}

// InstallResult reports what Install did.
type InstallResult struct {
	Path             string // installed highs.wasm
	AlreadyInstalled bool   // the file was present with the right sha256; nothing was fetched
	License          string // licence declared by the npm package (MIT)
}

// Install obtains the pinned highs.wasm and writes it to dir/highs.wasm
// (dir "" means DefaultInstallDir). It is idempotent: when the file exists
// with the pinned sha256 it does nothing. Otherwise it fetches npm
// highs@1.15.3 with `npm pack` (falling back to an HTTPS GET of the
// registry tarball), verifies the sha256 of build/highs.wasm, and writes it
// atomically (temporary file + rename), together with the package's
// licence text as highs.LICENSE. Progress messages go to logw (may be nil).
func Install(ctx context.Context, dir string, logw io.Writer) (InstallResult, error) {
	if logw == nil {
		logw = io.Discard
	}
	if dir == "" {
		d, err := DefaultInstallDir()
		if err != nil {
			return InstallResult{}, fmt.Errorf("solver: install: %w", err)
		}
		dir = d
	}
	dst := filepath.Join(dir, WasmFileName)
	if b, err := os.ReadFile(dst); err == nil && verifyWasm(b) == nil {
		return InstallResult{Path: dst, AlreadyInstalled: true, License: highsdist.License}, nil
	}
	tgz, err := highsdist.Fetch(ctx, logw)
	if err != nil {
		return InstallResult{}, fmt.Errorf("solver: install: fetch %s: %w", highsdist.Spec, err)
	}
	dist, err := highsdist.Unpack(tgz, false)
	if err != nil {
		return InstallResult{}, fmt.Errorf("solver: install: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return InstallResult{}, fmt.Errorf("solver: install: %w", err)
	}
	if len(dist.LicenseText) > 0 {
		if err := writeFileAtomic(filepath.Join(dir, "highs.LICENSE"), dist.LicenseText, 0o644); err != nil {
			return InstallResult{}, fmt.Errorf("solver: install: %w", err)
		}
	}
	if err := writeFileAtomic(dst, dist.Wasm, 0o644); err != nil {
		return InstallResult{}, fmt.Errorf("solver: install: %w", err)
	}
	return InstallResult{Path: dst, License: dist.License}, nil
}

// writeFileAtomic writes data to path through a temporary file and a rename (safefs.WriteFile),
// then gives it perm.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := safefs.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}
