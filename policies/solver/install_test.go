package solver

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/policies/solver/internal/highsdist"
)

func TestSearchPathOrder(t *testing.T) {
	t.Setenv(EnvWasm, "/nonexistent/custom.wasm")
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-test-cache")
	paths := SearchPath()
	root, ok := datapath.WorkRepo()
	if build, _ := datapath.BuildRepo(); !ok || build != root {
		t.Fatalf("repository from the package directory %q, built from %q: want the same", root, build)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/nonexistent/custom.wasm",
		filepath.Join(root, "third_party", "highs", "highs.wasm"),
		filepath.Join(cache, "schedlab", "highs", "highs.wasm"),
	}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Fatalf("SearchPath() = %q, want %q", paths, want)
	}
}

func TestLocateWasmMissingEnvFile(t *testing.T) {
	t.Setenv(EnvWasm, filepath.Join(t.TempDir(), "missing.wasm"))
	_, err := LocateWasm()
	if !errors.Is(err, ErrWasmNotFound) {
		t.Fatalf("err %v, want ErrWasmNotFound", err)
	}
	for _, want := range []string{"solver: ", "schedlab solver install", "make setup", EnvWasm} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestLocateWasmNowhere: outside the repository with an empty user cache, a highs.wasm that is
// in none of the places fails with the places and the install hint; the default install
// directory is the one found from everywhere (the repository the test was built from).
func TestLocateWasmNowhere(t *testing.T) {
	t.Setenv(EnvWasm, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir()) // outside the repository
	nowhere := Wasm
	nowhere.Repo = "third_party/no-such-dir/highs.wasm" // the repository's copy may be installed
	_, err := locate(nowhere)
	build, ok := datapath.BuildRepo()
	if !ok {
		t.Fatal("no build repository recorded in the test binary")
	}
	if !errors.Is(err, ErrWasmNotFound) || !strings.Contains(err.Error(), "solver install") ||
		!strings.Contains(err.Error(), filepath.Join(build, "third_party", "no-such-dir", "highs.wasm")) {
		t.Fatalf("err %v; want ErrWasmNotFound naming the build repository's place and the fix", err)
	}
	want := filepath.Join(build, "third_party", "highs")
	if d, err := DefaultInstallDir(); err != nil || d != want || !FoundAnywhere(d) {
		t.Errorf("DefaultInstallDir outside the repo = %q, %v; want %s, found from anywhere", d, err, want)
	}
	if FoundAnywhere(t.TempDir()) {
		t.Error("a temporary directory is not where LocateWasm looks")
	}
}

func TestVerifyWasmRejectsOtherBuilds(t *testing.T) {
	if err := verifyWasm([]byte("\x00asm\x01\x00\x00\x00")); !errors.Is(err, ErrWasmMismatch) {
		t.Fatalf("verifyWasm: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "highs.wasm")
	if err := os.WriteFile(bad, []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvWasm, bad)
	if _, _, err := readWasm(); !errors.Is(err, ErrWasmMismatch) || !strings.Contains(err.Error(), "solver install") {
		t.Fatalf("readWasm: %v", err)
	}
}

func tgz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestUnpackVerifiesTarball(t *testing.T) {
	pj := []byte(`{"name":"highs","version":"1.15.3","license":"MIT"}`)
	_, err := highsdist.Unpack(tgz(t, map[string][]byte{highsdist.WasmPath: []byte("x"), highsdist.PackageJSONPath: pj}), false)
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("wrong wasm accepted: %v", err)
	}
	if _, err := highsdist.Unpack(tgz(t, map[string][]byte{highsdist.PackageJSONPath: pj}), false); err == nil {
		t.Fatal("tarball without wasm accepted")
	}
	if _, err := highsdist.Unpack([]byte("not gzip"), false); err == nil {
		t.Fatal("garbage accepted")
	}
	wasmPath, err := LocateWasm()
	if err != nil {
		return // the positive case needs the real wasm
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := highsdist.Unpack(tgz(t, map[string][]byte{highsdist.WasmPath: wasm, highsdist.PackageJSONPath: pj,
		highsdist.LicensePath: []byte("MIT License")}), false)
	if err != nil || d.License != "MIT" || !bytes.Equal(d.Wasm, wasm) {
		t.Fatalf("Unpack: %v %+v", err, d)
	}
	other := []byte(`{"name":"highs","version":"1.0.0","license":"MIT"}`)
	if _, err := highsdist.Unpack(tgz(t, map[string][]byte{highsdist.WasmPath: wasm, highsdist.PackageJSONPath: other}), false); err == nil {
		t.Fatal("wrong package version accepted")
	}
}

func TestInstallIsIdempotent(t *testing.T) {
	needWasm(t)
	src, _ := LocateWasm()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, WasmFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Install(context.Background(), dir, nil)
	if err != nil || !res.AlreadyInstalled || res.Path != filepath.Join(dir, WasmFileName) {
		t.Fatalf("Install: %+v %v", res, err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := writeFileAtomic(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(b) != "two" || len(entries) != 1 {
		t.Fatalf("content %q, %d entries", b, len(entries))
	}
}

func TestNameTableCoversModule(t *testing.T) {
	host := hostFuncs()
	if len(wasmImportNames) != 20 {
		t.Errorf("%d imports, want 20", len(wasmImportNames))
	}
	for min, sym := range wasmImportNames {
		if _, ok := host[sym]; !ok {
			t.Errorf("import a.%s (%s) has no host function", min, sym)
		}
	}
	for _, sym := range []string{"Highs_create", "Highs_passLp", "Highs_passMip", "Highs_run", "Highs_getSolution",
		"Highs_setBasis", "Highs_setSolution", "Highs_writeModel", "malloc", "free", "memory", "__wasm_call_ctors"} {
		if wasmExportNames[sym] == "" {
			t.Errorf("no export name for %s", sym)
		}
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{"": "", "x free": "x_free", "3z": "_3z", "a[1].b": "a[1].b", "é": "__"} {
		if got := sanitizeName(in); got != want {
			t.Errorf("sanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
