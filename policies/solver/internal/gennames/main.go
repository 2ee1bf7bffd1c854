// Command gennames generates policies/solver/names_gen.go: the table that
// maps HiGHS C API and emscripten runtime symbols to the minified export and
// import names of the pinned highs.wasm (npm highs@1.15.3).
//
// The mapping exists only in the emscripten JS glue build/highs.js
// (functions assignWasmExports and the wasmImports object), so this program
// reads that file from the same npm tarball, checks the sha256 of both
// highs.js and highs.wasm against the pins in internal/highsdist, parses the
// mapping, cross-checks it against the export and import sections of the
// wasm module itself and writes a gofmt'ed Go file.
//
// Usage (from policies/solver, via go generate):
//
//	go run ./internal/gennames [-tarball highs-1.15.3.tgz] -o names_gen.go
//
// Without -tarball it obtains the tarball like `schedlab solver install`
// (npm pack, else HTTPS GET from the npm registry).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"

	"github.com/schedlab/schedlab/policies/solver/internal/highsdist"
)

func main() {
	tarball := flag.String("tarball", "", "path to highs-"+highsdist.Version+".tgz (default: fetch it)")
	out := flag.String("o", "names_gen.go", "output Go file")
	pkg := flag.String("pkg", "solver", "Go package name of the output")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("gennames: ")

	ctx := context.Background()
	var tgz []byte
	var err error
	if *tarball != "" {
		tgz, err = os.ReadFile(*tarball)
	} else {
		tgz, err = highsdist.Fetch(ctx, os.Stderr)
	}
	if err != nil {
		log.Fatal(err)
	}
	dist, err := highsdist.Unpack(tgz, true)
	if err != nil {
		log.Fatal(err)
	}
	exports, imports, err := parseGlue(string(dist.JS))
	if err != nil {
		log.Fatal(err)
	}
	if err := crossCheck(ctx, dist.Wasm, exports, imports); err != nil {
		log.Fatal(err)
	}
	src, err := render(*pkg, exports, imports)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d exports, %d imports", *out, len(exports), len(imports))
}

var (
	reAssign     = regexp.MustCompile(`function assignWasmExports\(wasmExports\)\{([^}]*)\}`)
	reExportStmt = regexp.MustCompile(`^([A-Za-z_$][\w$]*)=(?:[^;]*=)?wasmExports\["([^"]+)"\]$`)
	reCtors      = regexp.MustCompile(`function initRuntime\(\)\{[^}]*?wasmExports\["([^"]+)"\]\(\)`)
	reImports    = regexp.MustCompile(`var wasmImports=\{([^}]*)\}`)
	reImportItem = regexp.MustCompile(`^([A-Za-z_$][\w$]*):([A-Za-z_$][\w$]*)$`)
)

// cName turns an emscripten JS symbol into the native symbol name: the glue
// prefixes every native symbol with one underscore.
func cName(js string) string { return strings.TrimPrefix(js, "_") }

// parseGlue returns symbol -> minified export name and minified import
// name -> symbol.
func parseGlue(js string) (exports, imports map[string]string, err error) {
	m := reAssign.FindStringSubmatch(js)
	if m == nil {
		return nil, nil, fmt.Errorf("highs.js: assignWasmExports not found")
	}
	exports = map[string]string{}
	for _, stmt := range strings.Split(m[1], ";") {
		if stmt == "" {
			continue
		}
		sm := reExportStmt.FindStringSubmatch(stmt)
		if sm == nil {
			return nil, nil, fmt.Errorf("highs.js: unexpected statement in assignWasmExports: %q", stmt)
		}
		name := cName(sm[1])
		switch {
		case strings.Contains(stmt, "=wasmMemory="):
			name = "memory"
		case strings.Contains(stmt, "=wasmTable="):
			name = "__indirect_function_table"
		}
		if _, dup := exports[name]; dup {
			return nil, nil, fmt.Errorf("highs.js: duplicate export %s", name)
		}
		exports[name] = sm[2]
	}
	c := reCtors.FindStringSubmatch(js)
	if c == nil {
		return nil, nil, fmt.Errorf("highs.js: constructor call in initRuntime not found")
	}
	exports["__wasm_call_ctors"] = c[1]

	im := reImports.FindStringSubmatch(js)
	if im == nil {
		return nil, nil, fmt.Errorf("highs.js: wasmImports not found")
	}
	imports = map[string]string{}
	for _, item := range strings.Split(im[1], ",") {
		sm := reImportItem.FindStringSubmatch(item)
		if sm == nil {
			return nil, nil, fmt.Errorf("highs.js: unexpected wasmImports item %q", item)
		}
		imports[sm[1]] = cName(sm[2])
	}
	return exports, imports, nil
}

// crossCheck verifies that the parsed tables cover exactly the exports and
// imports of the wasm module.
func crossCheck(ctx context.Context, wasm []byte, exports, imports map[string]string) error {
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for name := range cm.ExportedFunctions() {
		have[name] = true
	}
	for name := range cm.ExportedMemories() {
		have[name] = true
	}
	mapped := map[string]bool{}
	for sym, min := range exports {
		if mapped[min] {
			return fmt.Errorf("export %s mapped twice", min)
		}
		mapped[min] = true
		if !have[min] && sym != "__indirect_function_table" {
			return fmt.Errorf("export %s (%s) not in the wasm module", min, sym)
		}
	}
	for name := range have {
		if !mapped[name] {
			return fmt.Errorf("wasm export %s has no name in highs.js", name)
		}
	}
	n := 0
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "a" {
			return fmt.Errorf("import from unexpected module %q", mod)
		}
		if _, ok := imports[name]; !ok {
			return fmt.Errorf("wasm import a.%s has no name in highs.js", name)
		}
		n++
	}
	if n != len(imports) {
		return fmt.Errorf("wasm has %d function imports, highs.js names %d", n, len(imports))
	}
	return nil
}

func render(pkg string, exports, imports map[string]string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./internal/gennames; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	fmt.Fprintf(&b, "// Source: npm %s, %s (sha256 %s)\n", highsdist.Spec, highsdist.JSPath, highsdist.JSSHA256)
	fmt.Fprintf(&b, "// for %s (sha256 %s).\n\n", highsdist.WasmPath, highsdist.WasmSHA256)
	fmt.Fprintf(&b, "// wasmImportModule is the module name of every import of the pinned highs.wasm.\n")
	fmt.Fprintf(&b, "const wasmImportModule = %q\n\n", "a")
	fmt.Fprintf(&b, "// wasmExportNames maps native symbols to the minified export names of the pinned highs.wasm.\n")
	fmt.Fprintf(&b, "var wasmExportNames = map[string]string{\n")
	for _, k := range sortedKeys(exports) {
		fmt.Fprintf(&b, "\t%q: %q,\n", k, exports[k])
	}
	fmt.Fprintf(&b, "}\n\n")
	fmt.Fprintf(&b, "// wasmImportNames maps the minified import names of the pinned highs.wasm (module %q) to native symbols.\n", "a")
	fmt.Fprintf(&b, "var wasmImportNames = map[string]string{\n")
	for _, k := range sortedKeys(imports) {
		fmt.Fprintf(&b, "\t%q: %q,\n", k, imports[k])
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
