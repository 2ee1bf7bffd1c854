package external_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/external"
)

func TestParameters(t *testing.T) {
	cases := []struct {
		name   string
		params map[string]any
		want   string // "" = accepted
	}{
		{"an argv list", map[string]any{"command": []any{"sh", "s.py"}}, ""},
		{"one string of words", map[string]any{"command": "sh s.py fifo"}, ""},
		{"a program that is not there", map[string]any{"command": "pyhton3 s.py"}, `policy.params.command: cannot run "pyhton3": executable file not found in $PATH`},
		{"a socket", map[string]any{"socket": "/tmp/s.sock", "connect_timeout_s": "2.5"}, ""},
		{"neither command nor socket", map[string]any{}, "set policy.params.command"},
		{"both", map[string]any{"command": "sh", "socket": "/tmp/s"}, "are exclusive"},
		{"an empty command", map[string]any{"command": ""}, "policy.params.command: want a non-empty argv list"},
		{"a command of numbers", map[string]any{"command": []any{"sh", 3}}, "policy.params.command: want a list of words"},
		{"a zero timeout", map[string]any{"command": "sh", "timeout_s": 0}, "policy.params.timeout_s: want a number of seconds"},
		{"a textual timeout", map[string]any{"command": "sh", "timeout_s": "soon"}, "policy.params.timeout_s"},
		{"args not a map", map[string]any{"command": "sh", "args": "preempt"}, "policy.params.args: want a map"},
		{"a typo", map[string]any{"comand": "x"}, "unknown parameter policy.params.comand (valid: args, command,"},
		{"a short hash", map[string]any{"command": "sh s.py", "script_sha256": "abc"}, "policy.params.script_sha256: want the 64 hex digits"},
		{"a hash without a script", map[string]any{"command": "sh", "script_sha256": strings.Repeat("a", 64)}, "needs policy.params.command naming a script"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := external.New(policies.Options{Params: tc.params})
			if tc.want == "" {
				if err != nil || p.Name() != external.Name {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestScriptHashPinsTheScript: a run whose script_sha256 differs from the script's content is
// refused before the scheduler starts; the right hash runs.
func TestScriptHashPinsTheScript(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	s := filepath.Join(dir, "null.py")
	code := "import sys\nsys.path.insert(0, " + `"` + script(t, "") + `"` + ")\nfrom schedlab_client import Plan, Scheduler, serve\n" +
		"class Null(Scheduler):\n    def schedule(self, view):\n        return Plan()\nserve(Null())\n"
	if err := os.WriteFile(s, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := external.FileSHA256(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, tiny(), "policy.name=external", "policy.params.command="+py+" "+s, "policy.params.script_sha256="+sum); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s, []byte(code+"# changed\n"), 0o644)
	_, _, err = run(t, tiny(), "policy.name=external", "policy.params.command="+py+" "+s, "policy.params.script_sha256="+sum)
	if err == nil || !strings.Contains(err.Error(), "the script changed: update the pin") {
		t.Fatalf("err = %v", err)
	}
}

// TestDeterministic: the same configuration and a deterministic scheduler give byte-identical
// jobs.parquet and identical metrics; only the call latencies differ.
func TestDeterministic(t *testing.T) {
	py := python(t)
	sets := []string{"policy.name=external", "policy.params.command=" + py + " " + script(t, "baseline.py") + " drf", "engine.horizon_s=1500"}
	var first []byte
	var metrics string
	for i := range 2 {
		got, o, err := run(t, nil, sets...)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		if err := o.WriteOutputs(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, external.CallsTable+".parquet")); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, external.SummaryDoc+".json"))
		if err != nil || !bytes.Contains(b, []byte(`"deterministic": false`)) || !bytes.Contains(b, []byte(`"median_us"`)) {
			t.Fatalf("external.json: %v\n%s", err, b)
		}
		m := strings.TrimSpace(strings.Join(strings.Fields(strings.ReplaceAll(string(mustRead(t, filepath.Join(dir, "summary.json"))), "\n", " ")), " "))
		m = m[:strings.Index(m, `"engine"`)] // engine holds wall-clock figures
		if i == 0 {
			first, metrics = got, m
			continue
		}
		if !bytes.Equal(got, first) {
			t.Fatal("jobs.parquet differs between two identical runs")
		}
		if m != metrics {
			t.Fatal("summary metrics differ between two identical runs")
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
