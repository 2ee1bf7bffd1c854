package external_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/policies/external"
)

// TestSweepRunsExternalCells runs a spec whose cells include the Python srpt port: each
// external cell's metrics equal the built-in srpt's for the same seed, and a second run finds
// every cell in the cache.
func TestSweepRunsExternalCells(t *testing.T) {
	python(t)
	spec, err := experiments.LoadSpec(filepath.Join("testdata", "sweep.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..") // the spec names the script relative to the repository root
	plan, err := sweep.NewPlan(spec, "quick", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := sweep.Run(context.Background(), plan, sweep.Options{Out: out, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Table.Rows) != 4 || res.Ran != 4 {
		t.Fatalf("%d rows, %d ran; want 4", len(res.Table.Rows), res.Ran)
	}
	jct := map[string]map[int64]string{}
	for i := range res.Table.Rows {
		r := &res.Table.Rows[i]
		name, _ := res.Table.Value(r, "policy.name")
		v, ok := res.Table.Value(r, "avg_jct_s")
		if !ok {
			t.Fatal("no avg_jct_s")
		}
		if jct[name] == nil {
			jct[name] = map[int64]string{}
		}
		jct[name][r.Seed] = v
	}
	for seed, want := range jct["srpt"] {
		if got := jct["external"][seed]; got != want {
			t.Errorf("seed %d: external avg_jct_s %s, built-in srpt %s", seed, got, want)
		}
	}
	again, err := sweep.Run(context.Background(), plan, sweep.Options{Out: out, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if again.Cached != 4 || again.Ran != 0 {
		t.Fatalf("second run: %d cached, %d ran", again.Cached, again.Ran)
	}
}

// TestCacheKeyFollowsTheScriptPin: two configurations that differ only in
// policy.params.script_sha256 are different cells.
func TestCacheKeyFollowsTheScriptPin(t *testing.T) {
	a := resolve(t, "policy.name=external", "policy.params.command=sh s.py", "policy.params.script_sha256="+sha('a'))
	b := resolve(t, "policy.name=external", "policy.params.command=sh s.py", "policy.params.script_sha256="+sha('b'))
	if sweep.CellKey(a, "w") == sweep.CellKey(b, "w") {
		t.Fatal("the cache key ignores the script pin")
	}
}

func sha(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// TestCacheKeyFollowsTheScriptContent: without a pin, a cell's key still changes when the
// script its command names changes (the script is not part of schedlab's build).
func TestCacheKeyFollowsTheScriptContent(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	write := func(body string) {
		if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("print('a')\n")
	c := resolve(t, "policy.name=external", "policy.params.command=sh "+script)
	before := sweep.CellKey(c, "w")
	if sweep.CellKey(c, "w") != before {
		t.Fatal("the key is not stable for an unchanged script")
	}
	write("print('b')\n")
	if sweep.CellKey(c, "w") == before {
		t.Fatal("the cache key ignores a change of the script's content")
	}
}

// TestCommandFoundFromAnyDirectory: a command word naming a repository file relative to the
// repository root runs from another working directory (README's examples do this).
func TestCommandFoundFromAnyDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	got := external.InputDigests(map[string]any{"command": "sh policies/external/python/examples/smallest_first.py"})
	if _, ok := got["policies/external/python/examples/smallest_first.py"]; !ok {
		t.Fatalf("the repository script was not found from another directory: %v", got)
	}
}
