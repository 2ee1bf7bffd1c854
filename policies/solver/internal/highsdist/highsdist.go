// Package highsdist pins the HiGHS WebAssembly build that package solver
// runs and knows how to obtain it from the npm registry: the package
// `highs` (MIT licence), version 1.15.3, whose build/highs.wasm reports
// HiGHS 1.15.1.
//
// It is shared by solver.Install and by the go:generate program that
// derives the export/import name table from the same tarball's highs.js.
package highsdist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	// Package is the npm package name.
	Package = "highs"
	// Version is the pinned npm package version.
	Version = "1.15.3"
	// Spec is the npm package spec, as given to `npm pack`.
	Spec = Package + "@" + Version
	// TarballURL is the registry URL of the pinned tarball, used when npm is
	// not installed or `npm pack` fails.
	TarballURL = "https://registry.npmjs.org/highs/-/highs-1.15.3.tgz"

	// WasmPath is the path of the WebAssembly module inside the tarball.
	WasmPath = "package/build/highs.wasm"
	// WasmSize is the size in bytes of the pinned highs.wasm.
	WasmSize = 3531385
	// WasmSHA256 is the hex sha256 of the pinned highs.wasm.
	WasmSHA256 = "528be4365bea1d4188988646b244263f50320df55782e14d6af5bce7cd45c840"

	// JSPath is the path of the emscripten JS glue inside the tarball; it
	// holds the minified export/import name mapping.
	JSPath = "package/build/highs.js"
	// JSSHA256 is the hex sha256 of the pinned highs.js.
	JSSHA256 = "0bd23843c9795753f2276e9901eb2a1e66288547b6bcba84fa0665dc037b5c7c"

	// LicensePath is the path of the licence text inside the tarball.
	LicensePath = "package/LICENSE"
	// PackageJSONPath is the path of package.json inside the tarball.
	PackageJSONPath = "package/package.json"
	// License is the SPDX licence id declared in the pinned package.json.
	License = "MIT"
)

// maxTarball bounds what Fetch accepts, as a guard against a wrong URL.
const maxTarball = 64 << 20

// SHA256Hex returns the hex sha256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Fetch returns the bytes of the pinned npm tarball. It first runs
// `npm pack highs@1.15.3` in a temporary directory; when npm is missing or
// fails it falls back to an HTTPS GET of TarballURL. Progress goes to logw
// (may be nil).
func Fetch(ctx context.Context, logw io.Writer) ([]byte, error) {
	if logw == nil {
		logw = io.Discard
	}
	b, npmErr := fetchNpm(ctx, logw)
	if npmErr == nil {
		return b, nil
	}
	fmt.Fprintf(logw, "npm pack failed (%v); falling back to HTTPS GET %s\n", npmErr, TarballURL)
	b, httpErr := fetchHTTP(ctx)
	if httpErr != nil {
		return nil, fmt.Errorf("npm pack %s: %v; HTTPS GET %s: %w", Spec, npmErr, TarballURL, httpErr)
	}
	return b, nil
}

func fetchNpm(ctx context.Context, logw io.Writer) ([]byte, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "schedlab-highs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(logw, "running: npm pack %s (in %s)\n", Spec, dir)
	cmd := exec.CommandContext(ctx, npm, "pack", Spec, "--silent")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(matches) != 1 {
		return nil, fmt.Errorf("npm pack left %d tarballs in %s", len(matches), dir)
	}
	return os.ReadFile(matches[0])
}

func fetchHTTP(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, TarballURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxTarball {
		return nil, errors.New("tarball larger than expected")
	}
	return b, nil
}

// Extract returns the contents of the named members of a .tgz.
// Members that are absent are missing from the map.
func Extract(tgz []byte, names ...string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("tarball: %w", err)
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make(map[string][]byte, len(names))
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tarball: %w", err)
		}
		if !want[h.Name] || h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxTarball {
			return nil, fmt.Errorf("tarball: member %s too large", h.Name)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("tarball: %s: %w", h.Name, err)
		}
		out[h.Name] = b
	}
	return out, nil
}

// Dist is the verified content of the pinned tarball.
type Dist struct {
	Wasm        []byte // build/highs.wasm, sha256-verified
	JS          []byte // build/highs.js (may be nil unless requested)
	LicenseText []byte // LICENSE
	License     string // package.json "license" field
}

// Unpack extracts and verifies the members of the pinned tarball. The wasm
// must match WasmSHA256; when withJS is set, highs.js must match JSSHA256.
func Unpack(tgz []byte, withJS bool) (*Dist, error) {
	files, err := Extract(tgz, WasmPath, JSPath, LicensePath, PackageJSONPath)
	if err != nil {
		return nil, err
	}
	d := &Dist{Wasm: files[WasmPath], LicenseText: files[LicensePath]}
	if d.Wasm == nil {
		return nil, fmt.Errorf("tarball has no %s", WasmPath)
	}
	if got := SHA256Hex(d.Wasm); got != WasmSHA256 {
		return nil, fmt.Errorf("%s: sha256 %s, want %s", WasmPath, got, WasmSHA256)
	}
	if withJS {
		d.JS = files[JSPath]
		if d.JS == nil {
			return nil, fmt.Errorf("tarball has no %s", JSPath)
		}
		if got := SHA256Hex(d.JS); got != JSSHA256 {
			return nil, fmt.Errorf("%s: sha256 %s, want %s", JSPath, got, JSSHA256)
		}
	}
	if pj := files[PackageJSONPath]; pj != nil {
		var meta struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			License string `json:"license"`
		}
		if err := json.Unmarshal(pj, &meta); err != nil {
			return nil, fmt.Errorf("%s: %w", PackageJSONPath, err)
		}
		if meta.Name != Package || meta.Version != Version {
			return nil, fmt.Errorf("tarball is %s@%s, want %s", meta.Name, meta.Version, Spec)
		}
		d.License = meta.License
	}
	return d, nil
}
