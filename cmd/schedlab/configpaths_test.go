package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// workloadHash reads the workload hash of a run's summary.json.
func workloadHash(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Provenance struct {
			WorkloadHash string `json:"workload_hash"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Provenance.WorkloadHash == "" {
		t.Fatalf("%s/summary.json: no workload hash: %v", dir, err)
	}
	return doc.Provenance.WorkloadHash
}

// TestConfigPathsFromAnyDirectory: a run's config.yaml records its workload file by absolute path,
// so `run --config` reads the same file from any directory — not a same-named file of the working
// directory; a hand-written --config file's relative paths are relative to the file's directory;
// and a file a --config names that is not there is a configuration error naming the config file,
// its line and the key. (Before, config.yaml recorded the path as given on the command line.)
func TestConfigPathsFromAnyDirectory(t *testing.T) {
	small, err := os.ReadFile(filepath.Join("..", "..", "traces", "tpcdag", "testdata", "queries_tpch_3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join("..", "..", "traces", "tpcdag", "testdata", "queries_bb_query7.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first, elsewhere, conf := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, b := range map[string][]byte{first: small, elsewhere: other, conf: small} {
		if err := os.WriteFile(filepath.Join(dir, "w.txt"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(first)
	if _, errOut, code := runCLI(t, "run", "--workload", "w.txt", "--out", "o", "-q"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	recorded, err := os.ReadFile(filepath.Join("o", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "name: " + filepath.Join(first, "w.txt") + "\n"; !strings.Contains(string(recorded), want) {
		t.Errorf("config.yaml does not record the workload by absolute path %q:\n%s", want, recorded)
	}
	want := workloadHash(t, "o")

	// Rerun from a directory holding another w.txt: the recorded file, not that one.
	t.Chdir(elsewhere)
	if _, errOut, code := runCLI(t, "run", "--config", filepath.Join(first, "o", "config.yaml"), "--out", "again", "-q"); code != 0 {
		t.Fatalf("run --config from elsewhere: exit %d: %s", code, errOut)
	} else if got := workloadHash(t, "again"); got != want {
		t.Errorf("run --config from a directory holding another w.txt read workload %s, want %s (the recorded file)", got, want)
	}

	// A hand-written config file's relative paths are relative to its directory.
	sub := filepath.Join(conf, "sub")
	os.Mkdir(sub, 0o755)
	files := map[string]string{
		"rel.yaml":     "workload:\n  name: ../w.txt\n",
		"missing.yaml": "seed: 2\nworkload:\n  name: gone.txt\n",
		"queries.yaml": "workload:\n  generator: bpf\n  bpf:\n    queries: nope/queries.txt\n",
		"abs.yaml":     "predict:\n  name: jvupredict\n  warm: " + filepath.Join(conf, "no-such-trace") + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := runCLI(t, "run", "--config", filepath.Join(sub, "rel.yaml"), "--out", "rel", "-q"); code != 0 {
		t.Fatalf("run --config with a path relative to the file: exit %d: %s", code, errOut)
	} else if got := workloadHash(t, "rel"); got != want {
		t.Errorf("run --config sub/rel.yaml read workload %s, want %s (../w.txt beside sub/)", got, want)
	}
	for _, tc := range []struct{ file, want string }{
		{"missing.yaml", "missing.yaml:3: workload.name: no such file or directory: gone.txt (relative to the configuration file's directory " + sub + ")"},
		{"queries.yaml", "queries.yaml:4: workload.bpf.queries: no such file or directory: nope/queries.txt"},
		{"abs.yaml", "abs.yaml:3: predict.warm: no such file or directory: " + filepath.Join(conf, "no-such-trace")},
	} {
		_, errOut, code := runCLI(t, "run", "--config", filepath.Join(sub, tc.file), "-q")
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("run --config %s: exit %d, stderr %q; want exit 2 and one line with %q", tc.file, code, errOut, tc.want)
		}
	}
}

// TestRunListsEveryFileWritten: the "wrote" line after `run --out` names every file in the
// directory — usage.parquet and the files a policy adds too — and nothing else. (Before, it
// always said {jobs.parquet,summary.json,config.yaml}.)
func TestRunListsEveryFileWritten(t *testing.T) {
	small, err := os.ReadFile(filepath.Join("..", "..", "traces", "tpcdag", "testdata", "queries_tpch_3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("w.txt", small, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"bpf", []string{"--policy", "bpf"}},
		{"cora", []string{"--policy", "cora"}},
		{"no-usage", []string{"--set", "metrics.usage_window_s=0"}},
	} {
		out, errOut, code := runCLI(t, append([]string{"run", "--workload", "w.txt", "--out", tc.name}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		entries, err := os.ReadDir(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last := lines[len(lines)-1]
		listed, ok := strings.CutPrefix(last, "wrote "+tc.name+"/{")
		listed, ok2 := strings.CutSuffix(listed, "}")
		got := strings.Split(listed, ",")
		slices.Sort(got)
		if !ok || !ok2 || !slices.Equal(got, names) {
			t.Errorf("%s: last line %q; want it to list exactly %v", tc.name, last, names)
		}
	}
}

// TestTraceInspectShowsPortableSources: `trace inspect` shows where a trace came from relative to
// the shared data folder (data:…), not as this machine's absolute paths. (Before, it printed the
// import's resolved paths, /home/…/shared/data/….)
func TestTraceInspectShowsPortableSources(t *testing.T) {
	small, err := os.ReadFile(filepath.Join("..", "..", "traces", "tpcdag", "testdata", "queries_tpch_3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "tpc-dags"), 0o755)
	os.MkdirAll(filepath.Join(data, "google2011", "job_events"), 0o755)
	if err := os.WriteFile(filepath.Join(data, "tpc-dags", "q.txt"), small, 0o644); err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	zw := gzip.NewWriter(&raw)
	zw.Write([]byte("700000000,,1,0,u,1,n,l\n700000001,,1,1,u,1,n,l\n760000000,,1,4,u,1,n,l\n")) // submit, schedule, finish
	zw.Close()
	if err := os.WriteFile(filepath.Join(data, "google2011", "job_events", "part-00000-of-00500.csv.gz"), raw.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SCHEDLAB_SHARED_DATA", data)
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ src, format, want string }{
		{"data:tpc-dags/q.txt", "tpcdag", "source   data:tpc-dags/q.txt\n"},
		{"data:google2011/job_events", "google2011", "job_events: data:google2011/job_events/part-00000-of-00500.csv.gz;"},
	} {
		if _, errOut, code := runCLI(t, "trace", "import", tc.format, "--src", tc.src, "--out", tc.format+".arrow"); code != 0 {
			t.Fatalf("import %s: exit %d: %s", tc.src, code, errOut)
		}
		out, errOut, code := runCLI(t, "trace", "inspect", tc.format+".arrow")
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, data) {
			t.Errorf("inspect %s: exit %d, %s%s; want %q and not %s", tc.src, code, out, errOut, tc.want, data)
		}
	}
}
