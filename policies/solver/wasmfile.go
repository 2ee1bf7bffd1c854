package solver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/policies/solver/internal/highsdist"

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

// modulePath identifies this repository's go.mod.
const modulePath = "github.com/schedlab/schedlab"

// InstallHint tells a user how to obtain highs.wasm; it ends every
// ErrWasmNotFound error.
const InstallHint = "run `go run ./cmd/schedlab solver install` (or `schedlab solver install`, or `make setup`) " +
	"to fetch npm " + highsdist.Spec + " and install build/highs.wasm, or set " + EnvWasm + " to its path"

// SearchPath returns the candidate locations of highs.wasm, in the order
// they are tried:
//
//  1. $SCHEDLAB_HIGHS_WASM (a file path), when set;
//  2. <repo>/third_party/highs/highs.wasm, where <repo> is found by walking
//     up from the working directory to the go.mod of module
//     github.com/schedlab/schedlab;
//  3. os.UserCacheDir()/schedlab/highs/highs.wasm.
func SearchPath() []string {
	var out []string
	if p := os.Getenv(EnvWasm); p != "" {
		out = append(out, p)
	}
	if root, ok := RepoRoot(); ok {
		out = append(out, filepath.Join(RepoInstallDir(root), WasmFileName))
	}
	if d, err := UserInstallDir(); err == nil {
		out = append(out, filepath.Join(d, WasmFileName))
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
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "schedlab", "highs"), nil
}

// DefaultInstallDir is where Install puts highs.wasm when no destination is
// given: the repository's third_party/highs when the working directory is
// inside the schedlab repository, else UserInstallDir.
func DefaultInstallDir() (string, error) {
	if root, ok := RepoRoot(); ok {
		return RepoInstallDir(root), nil
	}
	return UserInstallDir()
}

// RepoRoot walks up from the working directory to the directory whose
// go.mod declares module github.com/schedlab/schedlab.
func RepoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if isRepoGoMod(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isRepoGoMod(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// LocateWasm returns the first existing file on SearchPath. When none
// exists the error wraps ErrWasmNotFound and carries InstallHint. A path
// named by $SCHEDLAB_HIGHS_WASM that does not exist is an error too (it is
// not skipped silently).
func LocateWasm() (string, error) {
	paths := SearchPath()
	for i, p := range paths {
		st, err := os.Stat(p)
		if err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if i == 0 && os.Getenv(EnvWasm) != "" {
			return "", fmt.Errorf("solver: %w: %s=%s: %v; %s", ErrWasmNotFound, EnvWasm, p, errOrNotRegular(err), InstallHint)
		}
	}
	return "", fmt.Errorf("solver: %w (looked in %s); %s", ErrWasmNotFound, strings.Join(paths, ", "), InstallHint)
}

func errOrNotRegular(err error) error {
	if err != nil {
		return err
	}
	return errors.New("not a regular file")
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
