package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/traces/alibaba2018"
	"github.com/schedlab/schedlab/traces/borg2019"
	"github.com/schedlab/schedlab/traces/canonical"
	"github.com/schedlab/schedlab/traces/decima"
	"github.com/schedlab/schedlab/traces/google2011"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// miniTrace is the committed 300-job Google 2011 fixture (job_events/ and task_events/).
var miniTrace = filepath.Join("..", "..", "traces", "google2011", "testdata", "mini")

// runTrace executes `trace ARGS...` on a fresh command and returns stdout, stderr and the error;
// tmp (if not empty) is replaced by $TMP in both outputs.
func runTrace(t *testing.T, tmp string, args ...string) (string, string, error) {
	t.Helper()
	cmd := newTraceCmd()
	var out, errb bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	o, e := out.String(), errb.String()
	if tmp != "" {
		o, e = strings.ReplaceAll(o, tmp, "$TMP"), strings.ReplaceAll(e, tmp, "$TMP")
	}
	// File sizes depend on the Parquet library's encoder; golden files should not.
	o = fileSize.ReplaceAllString(o, "(${1}, SIZE)")
	return o, e, err
}

var fileSize = regexp.MustCompile(`\((parquet|arrow), [0-9.]+ [kMG]?B\)`)

func TestTraceImportGoogle(t *testing.T) {
	tmp := t.TempDir()
	pq := filepath.Join(tmp, "mini.parquet")
	out, _, err := runTrace(t, tmp, "import", "google2011", "--src", miniTrace, "--out", pq, "--name", "mini")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trace_import_google2011.txt", out)
	out, _, err = runTrace(t, tmp, "inspect", pq)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trace_inspect_parquet.txt", out)
	out, _, err = runTrace(t, tmp, "stats", pq)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trace_stats_parquet.txt", out)

	// The Arrow file holds the same workload as the Parquet file and as the reader's.
	arrow := filepath.Join(tmp, "mini.arrow")
	if _, _, err := runTrace(t, tmp, "import", "google2011", "--src", filepath.Join(miniTrace, "job_events"), "--src", filepath.Join(miniTrace, "task_events"), "--out", arrow, "--name", "mini"); err != nil {
		t.Fatal(err)
	}
	a, err := canonical.Read(arrow)
	if err != nil {
		t.Fatal(err)
	}
	p, err := canonical.Read(pq)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := google2011.Discover(miniTrace)
	want, err := google2011.Workload(src, google2011.Options{Name: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != want.Hash() || p.Hash() != want.Hash() {
		t.Errorf("hashes: arrow %s, parquet %s, reader %s", a.Hash(), p.Hash(), want.Hash())
	}
}

func TestTraceGoogleDirectory(t *testing.T) {
	out, errOut, err := runTrace(t, "", "stats", miniTrace)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trace_stats_google2011.txt", out)
	if !strings.Contains(errOut, "scanned in") {
		t.Errorf("stderr %q", errOut)
	}
	out, _, err = runTrace(t, "", "inspect", miniTrace)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trace_inspect_google2011.txt", out)
}

func TestTraceImportOtherFormats(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		format, src string
		read        func(string) (string, error)
	}{
		{"tpcdag", "../../traces/tpcdag/testdata/queries_tpch_3.txt", func(p string) (string, error) {
			w, err := tpcdag.ReadFile(p, tpcdag.Options{})
			if err != nil {
				return "", err
			}
			return w.Hash(), nil
		}},
		{"decima", "../../traces/decima/testdata/tpch_2g_cut.json", func(p string) (string, error) {
			w, err := decima.ReadFile(p, decima.Options{})
			if err != nil {
				return "", err
			}
			return w.Hash(), nil
		}},
		{"alibaba2018", "../../traces/alibaba2018/testdata/alibaba_random_50_dags.csv", func(p string) (string, error) {
			w, err := alibaba2018.ReadFile(p, alibaba2018.Options{})
			if err != nil {
				return "", err
			}
			return w.Hash(), nil
		}},
	} {
		t.Run(c.format, func(t *testing.T) {
			if _, err := os.Stat(c.src); err != nil {
				t.Skip(err)
			}
			out := filepath.Join(tmp, c.format+".arrow")
			stdout, _, err := runTrace(t, tmp, "import", c.format, "--src", c.src, "--out", out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(stdout, "wrote $TMP/"+c.format+".arrow: ") {
				t.Errorf("stdout %q", stdout)
			}
			w, err := canonical.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.read(c.src)
			if err != nil {
				t.Fatal(err)
			}
			if w.Hash() != want {
				t.Error("canonical file differs from the reader's workload")
			}
		})
	}
}

func TestTraceImportErrors(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "job_events")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "part-00000-of-00001.csv"), []byte("700000000,,1,0,u,1,n,l\n700000001,,1,x,u,1,n,l\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	borg := filepath.Join(tmp, "instance_events-000000000000.json")
	if err := os.WriteFile(borg, []byte(`{"time":"0","type":"0","collection_id":"1","instance_index":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "x.parquet")
	for _, c := range []struct {
		name  string
		args  []string
		usage bool
		want  string
	}{
		{"unknown format", []string{"import", "csv", "--src", bad, "--out", out}, true, "unknown format \"csv\" (formats: google2011, tpcdag, decima, alibaba2018)"},
		{"2019 format name", []string{"import", "borg2019", "--src", bad, "--out", out}, true, "does not read the Google 2019"},
		{"no src", []string{"import", "google2011", "--out", out}, true, "--src and --out are required"},
		{"bad extension", []string{"import", "google2011", "--src", bad, "--out", filepath.Join(tmp, "x.csv")}, true, "want .parquet or .arrow"},
		{"2019 input", []string{"import", "google2011", "--src", borg, "--out", out}, false, "borg2019: "},
		{"bad row", []string{"import", "google2011", "--src", bad, "--out", out}, false, `part-00000-of-00001.csv:2: field "event type": not an integer: "x"`},
		{"two sources", []string{"import", "tpcdag", "--src", bad, "--src", bad, "--out", out}, true, "exactly one --src"},
		{"missing source", []string{"import", "google2011", "--src", filepath.Join(tmp, "nope"), "--out", out}, false, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runTrace(t, tmp, c.args...)
			if err == nil {
				t.Fatal("succeeded")
			}
			var ue usageError
			if errors.As(err, &ue) != c.usage || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (usage %v), want %q (usage %v)", err, errors.As(err, &ue), c.want, c.usage)
			}
			if c.name == "2019 input" && !errors.Is(err, borg2019.ErrUnsupported) {
				t.Errorf("error %v does not wrap borg2019.ErrUnsupported", err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("output written despite the error")
			}
		})
	}
	// Through the root command, usage errors exit 2 and others 1.
	if _, _, code := runCLI(t, "trace", "import", "csv", "--src", bad, "--out", out); code != 2 {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
	if _, stderr, code := runCLI(t, "trace", "import", "google2011", "--src", bad, "--out", out); code != 1 || !strings.Contains(stderr, "field \"event type\"") {
		t.Errorf("bad row: exit %d, stderr %q", code, stderr)
	}
}

func TestTraceFetch(t *testing.T) {
	parts := map[string][]byte{}
	for p := range 3 {
		var raw bytes.Buffer
		zw := gzip.NewWriter(&raw)
		fmt.Fprintf(zw, "%d,,%d,0,u,1,n,l\n", 700000000+p, p+1)
		zw.Close()
		parts[fmt.Sprintf("/bucket/job_events/part-%05d-of-00500.csv.gz", p)] = raw.Bytes()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := parts[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	dest := t.TempDir()
	out, errOut, err := runTrace(t, dest, "fetch", "google2011", "--dest", dest, "--parts", "0-2", "--base-url", srv.URL+"/bucket")
	if err != nil {
		t.Fatal(err)
	}
	if out != "fetched 3 files (0.0 MB, 0 resumed), 0 already complete, into $TMP\n" || strings.Count(errOut, "verified") != 3 {
		t.Errorf("stdout %q\nstderr %q", out, errOut)
	}
	for p := range 3 {
		name := fmt.Sprintf("part-%05d-of-00500.csv.gz", p)
		got, err := os.ReadFile(filepath.Join(dest, "job_events", name))
		if err != nil || !bytes.Equal(got, parts["/bucket/job_events/"+name]) {
			t.Errorf("part %d: %v", p, err)
		}
	}
	// The fetched directory is a trace the other subcommands read.
	if out, _, err := runTrace(t, dest, "stats", dest); err != nil || !strings.Contains(out, "jobs             3 (still open 3)") {
		t.Errorf("stats on the fetched trace: %v\n%s", err, out)
	}
	// Offline: nothing listens on port 1.
	out, errOut, err = runTrace(t, dest, "fetch", "google2011", "--dest", t.TempDir(), "--parts", "0", "--retries", "0", "--base-url", "http://127.0.0.1:1/bucket")
	if err == nil || !strings.Contains(err.Error(), "offline?") || out != "" {
		t.Errorf("offline: %v, stdout %q, stderr %q; want only the failure", err, out, errOut)
	}
	// A failure after some files says how far it got, in the one error line.
	out, _, err = runTrace(t, dest, "fetch", "google2011", "--dest", t.TempDir(), "--parts", "0-3", "--retries", "0", "--base-url", srv.URL+"/bucket")
	if err == nil || !strings.Contains(err.Error(), "3 files fetched before the failure; run again to resume") || out != "" {
		t.Errorf("a missing part: %v, stdout %q; want only the failure, saying how far it got", err, out)
	}
	for _, args := range [][]string{
		{"fetch", "google2019", "--dest", dest},
		{"fetch", "google2011"},
		{"fetch", "google2011", "--dest", dest, "--parts", "9-1"},
		{"fetch", "google2011", "--dest", dest, "--tables", "jobs"},
	} {
		var ue usageError
		if _, _, err := runTrace(t, dest, args...); !errors.As(err, &ue) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}

func TestFmtDur(t *testing.T) {
	for in, want := range map[int64]string{0: "0ms", 999: "0ms", 1500000: "1.5s", 192000000: "3m12s", 7500000000: "2h05m", 273600000000: "3d04h", -1500000: "-1.5s"} {
		if got := fmtDur(in); got != want {
			t.Errorf("fmtDur(%d) = %q, want %q", in, got, want)
		}
	}
	if q := quantiles([]int64{5, 1, 4, 2, 3}, 0, 0.5, 0.9, 1); fmt.Sprint(q) != "[1 3 5 5]" {
		t.Errorf("quantiles = %v", q)
	}
}

// TestTraceImportGoogleLevels imports the mini trace at both levels and on a chosen machine mix,
// and replays each: the job-level import of job_events alone says its task counts and demands
// are unknown, and its replay warns (stderr, one line) that no job ever waited; the task-level
// import on a small mix contends and does not warn.
func TestTraceImportGoogleLevels(t *testing.T) {
	tmp := t.TempDir()
	jobsOnly := filepath.Join(tmp, "jobs.arrow")
	out, _, code := runBuilt(t, "trace", "import", "google2011", "--src", filepath.Join(miniTrace, "job_events"), "--out", jobsOnly)
	if code != 0 || !strings.Contains(out, "task counts and per-task demands are unknown") {
		t.Fatalf("job-level import: exit %d:\n%s", code, out)
	}
	_, errOut, code := runBuilt(t, "run", "--workload", jobsOnly, "--policy", "drf", "-q")
	if code != 0 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "schedlab: warning: no job ever waited for resources") {
		t.Errorf("run of a job-level import: exit %d, stderr %q", code, errOut)
	}

	small := filepath.Join(tmp, "small.arrow")
	out, _, code = runBuilt(t, "trace", "import", "google2011", "--src", miniTrace, "--machines", "3", "--out", small)
	if code != 0 || !strings.Contains(out, "cluster: 3 machines, published mix") || !strings.Contains(out, "517 imported") {
		t.Fatalf("task-level import on 3 machines: exit %d:\n%s", code, out)
	}
	out, errOut, code = runBuilt(t, "run", "--workload", small, "--policy", "fifo")
	if code != 0 || errOut != "" || !strings.Contains(out, "queue production") {
		t.Errorf("run of a task-level import: exit %d, stderr %q:\n%s", code, errOut, out)
	}

	level := filepath.Join(tmp, "level.arrow")
	if out, _, code = runBuilt(t, "trace", "import", "google2011", "--src", miniTrace, "--level", "job", "--out", level); code != 0 || !strings.Contains(out, "300 imported, 0 excluded") {
		t.Errorf("--level job: exit %d:\n%s", code, out)
	}
	for _, bad := range [][]string{{"--level", "tasks"}, {"--cluster", "big"}, {"--cluster", "machine_events"}, {"--machines", "-2"}} {
		args := append([]string{"trace", "import", "google2011", "--src", miniTrace, "--out", level}, bad...)
		if _, errOut, code := runBuilt(t, args...); code != 2 || !strings.Contains(errOut, "bad options") {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errOut)
		}
	}
}
