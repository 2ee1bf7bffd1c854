package main

import (
	"regexp"
	"strings"
	"testing"
)

const glue = `var x=1;function initRuntime(){runtimeInitialized=true;TTY.init();wasmExports["v"]();FS.ignorePermissions=false}` +
	`var wasmImports={a:___cxa_throw,k:__abort_js,q:_emscripten_resize_heap};` +
	`function assignWasmExports(wasmExports){_Highs_create=Module["_Highs_create"]=wasmExports["F"];` +
	`__emscripten_stack_restore=wasmExports["wc"];memory=wasmMemory=wasmExports["u"];` +
	`__indirect_function_table=wasmTable=wasmExports["sc"]}`

func TestParseGlue(t *testing.T) {
	exports, imports, err := parseGlue(glue)
	if err != nil {
		t.Fatal(err)
	}
	wantExports := map[string]string{"Highs_create": "F", "_emscripten_stack_restore": "wc", "memory": "u",
		"__indirect_function_table": "sc", "__wasm_call_ctors": "v"}
	wantImports := map[string]string{"a": "__cxa_throw", "k": "_abort_js", "q": "emscripten_resize_heap"}
	for k, v := range wantExports {
		if exports[k] != v {
			t.Errorf("export %s = %q, want %q", k, exports[k], v)
		}
	}
	for k, v := range wantImports {
		if imports[k] != v {
			t.Errorf("import %s = %q, want %q", k, imports[k], v)
		}
	}
	if len(exports) != len(wantExports) || len(imports) != len(wantImports) {
		t.Errorf("got %v %v", exports, imports)
	}
	src, err := render("solver", exports, imports)
	if err != nil || !regexp.MustCompile(`"Highs_create":\s+"F",`).Match(src) || !strings.Contains(string(src), "DO NOT EDIT") {
		t.Fatalf("render: %v\n%s", err, src)
	}
}

func TestParseGlueRejectsUnknownShape(t *testing.T) {
	if _, _, err := parseGlue("nothing here"); err == nil {
		t.Fatal("accepted text without assignWasmExports")
	}
	bad := strings.Replace(glue, `_Highs_create=Module["_Highs_create"]=wasmExports["F"]`, `_Highs_create=somethingElse()`, 1)
	if _, _, err := parseGlue(bad); err == nil {
		t.Fatal("accepted an unexpected statement")
	}
}
