package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/datapath"
)

// TestRecordedPath: config.yaml records a path so that it names the same input from any
// directory.
func TestRecordedPath(t *testing.T) {
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "tpc-dags"), 0o755)
	os.WriteFile(filepath.Join(data, "tpc-dags", "q.txt"), []byte("q"), 0o644)
	t.Setenv(datapath.Env, data)
	wd := t.TempDir()
	os.WriteFile(filepath.Join(wd, "w.txt"), []byte("w"), 0o644)
	t.Chdir(wd)
	build, ok := datapath.BuildRepo()
	if !ok {
		t.Fatal("no build repository")
	}
	for _, tc := range []struct{ key, in, want string }{
		{"workload.name", "w.txt", filepath.Join(wd, "w.txt")},
		{"workload.name", "./w.txt", filepath.Join(wd, "w.txt")},
		{"workload.name", "tpch-fb", "tpch-fb"},
		{"workload.bpf.queries", "../shared/data/tpc-dags/q.txt", "data:tpc-dags/q.txt"},
		{"workload.bpf.queries", "data:tpc-dags/q.txt", "data:tpc-dags/q.txt"},
		{"workload.bpf.queries", filepath.Join(data, "tpc-dags", "q.txt"), "data:tpc-dags/q.txt"},
		{"predict.warm", "", ""},
		{"predict.warm", "experiments/jvu/testdata/google2011", "experiments/jvu/testdata/google2011"},                                             // a repository fixture
		{"workload.name", "traces/tpcdag/testdata/queries_tpch_3.txt", filepath.Join(build, "traces", "tpcdag", "testdata", "queries_tpch_3.txt")}, // a repository file, not embedded
		{"workload.decima.dir", "/no/such/dir", "/no/such/dir"},
		{"workload.name", "nosuch.parquet", "nosuch.parquet"}, // left for the reader to report
	} {
		if got := RecordedPath(tc.key, tc.in); got != tc.want {
			t.Errorf("RecordedPath(%s, %q) = %q, want %q", tc.key, tc.in, got, tc.want)
		}
	}
}

// TestConfigFilePath: a path in a --config file is relative to the file's directory, else a
// repository path; anything else missing is an error saying where it looked.
func TestConfigFilePath(t *testing.T) {
	conf := t.TempDir()
	os.MkdirAll(filepath.Join(conf, "sub"), 0o755)
	os.WriteFile(filepath.Join(conf, "w.txt"), []byte("w"), 0o644)
	file := filepath.Join(conf, "sub", "config.yaml")
	wd := t.TempDir()
	os.WriteFile(filepath.Join(wd, "here.txt"), []byte("h"), 0o644)
	t.Chdir(wd)
	t.Setenv(datapath.Env, t.TempDir())
	for _, tc := range []struct{ key, in, want string }{
		{"workload.name", "../w.txt", filepath.Join(conf, "w.txt")},
		{"workload.name", filepath.Join(conf, "w.txt"), filepath.Join(conf, "w.txt")},
		{"workload.name", "tpch-fb", "tpch-fb"},
		{"predict.warm", "", ""},
		{"predict.warm", "experiments/jvu/testdata/google2011", "experiments/jvu/testdata/google2011"},
		{"workload.name", "here.txt", "error: no such file or directory: here.txt (relative to the configuration file's directory " + filepath.Join(conf, "sub") + ")"},
		{"workload.name", "/no/such.txt", "error: no such file or directory: /no/such.txt"},
		{"workload.name", "go.mod", "error: no such file or directory: go.mod (relative"}, // not the repository's
		{"workload.bpf.queries", "data:tpc-dags/none.txt", "error: no tpc-dags/none.txt in the shared data folder"},
	} {
		got, err := ConfigFilePath(file, tc.key, tc.in)
		if msg, ok := strings.CutPrefix(tc.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), msg) || !(errors.Is(err, ErrNoSuchInput) || errors.Is(err, datapath.ErrNotFound)) {
				t.Errorf("ConfigFilePath(%s, %q) = %q, %v; want an error with %q", tc.key, tc.in, got, err, msg)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ConfigFilePath(%s, %q) = %q, %v; want %q", tc.key, tc.in, got, err, tc.want)
		}
	}
}
