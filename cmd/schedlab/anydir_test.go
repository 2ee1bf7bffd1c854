package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/internal/testutil"
)

// dataLink makes a shared data folder that holds the real one's tpc-dags and decima-tpch
// (symbolic links), at a place nothing but $SCHEDLAB_SHARED_DATA points to; it skips without the
// shared data.
func dataLink(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, set := range []string{"tpc-dags", "decima-tpch"} {
		abs, err := filepath.Abs(testutil.SharedData(t, set))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, set)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReproduceFromAnyDirectory runs one reproduction of each paper that reads data from a
// directory outside the repository: bpf-fig5 reads BigBench queries from the shared data folder
// given by $SCHEDLAB_SHARED_DATA, bpf-fig9 a scenario file, jv-fig12 a slice of the Google trace
// compiled into schedlab and jv-fig16 that slice to generate jobs and to warm JVuPredict
// (predict.warm: every JamaisVu scheduler spec takes both paths from _jv.yaml's quick label, so
// the cheapest of them, jv-fig16's 4 cells at 2 CPU-s, checks what jv-fig9's 6 EXP1 cells at
// 20 CPU-s did; experiments/reproduce's TestReproduceJVSched runs all five); decima-fair's workload (Decima's TPC-H profiles, ../shared/data/decima-tpch
// as its spec names them) is checked by a five-job run through the same workload loader, since
// the reproduction itself takes over five minutes under the race detector. (Before, each failed
// with "open ../shared/data/…" or "open policies/bpf/testdata/…" outside the repository root.)
func TestReproduceFromAnyDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four reproductions")
	}
	t.Setenv(datapath.Env, dataLink(t))
	t.Chdir(t.TempDir())
	_, errOut, code := runBuilt(t, "reproduce", "bpf-fig5", "bpf-fig9", "jv-fig12", "jv-fig16", "--label", "quick", "--out", "r", "--parallel", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, errOut, code = runBuilt(t, "run", "--policy", "fair", "--set", "workload.generator=decima",
		"--set", "workload.decima.dir=../shared/data/decima-tpch", "--set", "workload.decima.init_jobs=1",
		"--set", "workload.decima.stream_jobs=4", "--out", "decima")
	if code != 0 {
		t.Fatalf("decima run: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join("decima", "summary.json")); err != nil {
		t.Errorf("decima run: %v", err)
	}
	report, err := os.ReadFile(filepath.Join("r", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bpf/fig5", "bpf/fig9", "jv-fig12", "jv/fig16", "experiments/jvu/testdata/google2011"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// The reports name the fixture by its repository path, not by where this machine cached it.
	if cache := datapath.CacheDir(); strings.Contains(string(report), cache) {
		t.Errorf("report.md names the fixture cache %s", cache)
	}
}

// TestMissingDataSetIsOneLine: a spec whose data set is not in the shared data folder fails with
// exit 1 and one line naming the data set, where schedlab looked and the fix.
func TestMissingDataSetIsOneLine(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(datapath.Env, empty)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"reproduce", "bpf-fig5", "--label", "quick", "--out", "r"},
		{"trace", "import", "tpcdag", "--src", "data:tpc-dags/workload/queries_bb.txt", "--out", "bb.arrow"},
		{"run", "--set", "workload.generator=bpf", "--set", "workload.bpf.queries=data:tpc-dags/workload/queries_bb.txt"},
		{"predict", "--trace", "data:tpc-dags/workload/queries_bb.txt"},
		{"reproduce", "jv-fig12", "--jv-trace", "data:tpc-dags/workload/queries_bb.txt", "--out", "r"},
		{"trace", "stats", "data:tpc-dags/workload/queries_bb.txt"},
		{"trace", "inspect", "../shared/data/tpc-dags/workload/queries_bb.txt"},
	} {
		_, errOut, code := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if code != 1 || !strings.Contains(last, "tpc-dags/workload/queries_bb") || !strings.Contains(last, empty) ||
			!strings.Contains(last, "set SCHEDLAB_SHARED_DATA=DIR or pass --data DIR, where DIR holds tpc-dags/") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line naming the data set, %s and the fix", strings.Join(args, " "), code, errOut, empty)
		}
	}
	// --data names the folder; a folder that is not there is a usage error.
	if _, errOut, code := runCLI(t, "run", "--data", filepath.Join(empty, "nosuch")); code != 2 || !strings.Contains(errOut, "--data") {
		t.Errorf("--data nosuch: exit %d, %q", code, errOut)
	}
}

// TestREADMETraceImportsRunAsWritten runs README.md's `schedlab trace import tpcdag` examples,
// word for word, from a directory outside the repository.
func TestREADMETraceImportsRunAsWritten(t *testing.T) {
	readme, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer readme.Close()
	var cmds [][]string
	sc := bufio.NewScanner(readme)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.HasPrefix(line, "schedlab trace import tpcdag ") {
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	if len(cmds) == 0 {
		t.Fatal("README.md has no `schedlab trace import tpcdag` example")
	}
	t.Setenv(datapath.Env, dataLink(t))
	t.Chdir(t.TempDir())
	for _, args := range cmds {
		if out, errOut, code := runCLI(t, args...); code != 0 || !strings.HasPrefix(out, "wrote ") {
			t.Errorf("schedlab %s: exit %d, %s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestSolverFoundFromAnyDirectory: with the solver installed where `make setup` puts it (the
// repository's third_party/highs), `solver check` and `solver install` find it from a working
// directory outside the repository with an empty HOME and user cache — schedlab falls back to
// the repository it was built from. (Before, the solver looked only up from the working
// directory and then in the empty user cache: "highs.wasm not found".)
func TestSolverFoundFromAnyDirectory(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(root, "third_party", "highs", "highs.wasm")
	if _, err := os.Stat(installed); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("no installed solver (run make setup): %v", err)
	}
	// The compilation cache stays where it was (compiling highs.wasm afresh takes seconds).
	if os.Getenv("SCHEDLAB_WAZERO_CACHE") == "" {
		if d, err := os.UserCacheDir(); err == nil {
			t.Setenv("SCHEDLAB_WAZERO_CACHE", filepath.Join(d, "schedlab", "wazero"))
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("SCHEDLAB_HIGHS_WASM", "")
	t.Chdir(t.TempDir())
	out, errOut, code := runCLI(t, "solver", "check")
	if code != 0 || !strings.Contains(out, installed) || !strings.Contains(out, "status=optimal objective=36") {
		t.Fatalf("solver check outside the repository: exit %d, stdout %q, stderr %q; want it to use %s", code, out, errOut, installed)
	}
	// install, from here, says the file is already where every schedlab run of this build looks.
	out, errOut, code = runCLI(t, "solver", "install")
	if code != 0 || !strings.Contains(out, "already installed at "+installed) {
		t.Fatalf("solver install outside the repository: exit %d, stdout %q, stderr %q; want it to name %s", code, out, errOut, installed)
	}
	// A --dest elsewhere is not looked in: install says so, with the variable to set.
	b, err := os.ReadFile(installed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("mine", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("mine", "highs.wasm"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	out, errOut, code = runCLI(t, "solver", "install", "--dest", "mine")
	if want := "set SCHEDLAB_HIGHS_WASM=" + filepath.Join(wd, "mine", "highs.wasm"); code != 0 || !strings.Contains(out, want) {
		t.Errorf("solver install --dest mine: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("solver check/install wrote into the empty HOME: %v", entries)
	}
}
