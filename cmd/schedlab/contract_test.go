package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/testbin"
)

// schedlabLink returns a link named "schedlab" to this test binary, which then runs as the
// command (see TestMain).
func schedlabLink(t *testing.T) string {
	t.Helper()
	if bin, ok := testbin.Prebuilt(); ok {
		return bin
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "schedlab")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// contract is a crafted input under testdata/contract.
func contract(name string) string { return filepath.Join("testdata", "contract", name) }

// badCanonical is a crafted canonical file under traces/canonical/testdata/bad.
func badCanonical(name string) string {
	return crafted("traces", "canonical", "testdata", "bad", name)
}

// crafted is a crafted input under another package's testdata: traces/google2011/testdata/bad,
// traces/alibaba2018/testdata/bad, experiments/testdata/specload.
func crafted(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// TestExitStatusContract runs schedlab as its own process over crafted inputs and checks the exit
// status contract README.md states: 0 ok, 1 for runtime and data errors, 2 for usage and
// configuration errors, each error one line on stderr naming what is wrong, with a "did you mean"
// for unknown commands, flags and keys instead of a list. The process runs with GOMEMLIMIT=4GiB,
// so the limits derived from memory are the same small ones on every machine.
func TestExitStatusContract(t *testing.T) {
	bin := schedlabLink(t)
	short := []string{"-q", "--set", "engine.horizon_s=1"}
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		code int
		want []string // substrings of stderr
		not  string   // must not be in stderr
	}{
		// Usage: commands and flags.
		{"an unknown command", []string{"frobnicate"}, nil, 2, []string{`unknown command "frobnicate" for "schedlab"`}, ""},
		{"a mistyped command is suggested", []string{"rnu"}, nil, 2, []string{`unknown command "rnu"`, "did you mean run?"}, "policies"},
		{"an unknown subcommand of a group", []string{"trace", "imprt"}, nil, 2, []string{`unknown command "imprt" for "schedlab trace"`, "did you mean import?"}, ""},
		{"an unknown subcommand of config", []string{"config", "nosuch"}, nil, 2, []string{`unknown command "nosuch" for "schedlab config"`}, ""},
		{"an unknown help topic", []string{"help", "frobnicate"}, nil, 2, []string{`unknown command "frobnicate" for "schedlab"`}, ""},
		{"a missing argument names the command", []string{"trace", "import"}, nil, 2, []string{"trace import: accepts 1 arg(s), received 0"}, ""},
		{"a mistyped flag is suggested", []string{"run", "--polcy", "drf"}, nil, 2, []string{"unknown flag: --polcy", "did you mean --policy?"}, ""},
		{"a bad flag value names the flag", []string{"run", "--seed", "abc"}, nil, 2, []string{`"--seed"`}, ""},
		{"reproduce --parallel 0", []string{"reproduce", "--parallel", "0", "demo"}, nil, 2, []string{"--parallel 0: want at least 1"}, ""},
		{"reproduce --parallel -1", []string{"reproduce", "--parallel", "-1", "demo"}, nil, 2, []string{"--parallel -1: want at least 1"}, ""},
		{"a negative progress interval", []string{"sweep", "--progress-interval", "-5s", "demo/policies"}, nil, 2, []string{"--progress-interval -5s: want a positive duration"}, ""},
		{"a zero progress interval", []string{"reproduce", "--progress-interval", "0s", "demo"}, nil, 2, []string{"--progress-interval 0s: want a positive duration"}, ""},
		{"a zero run progress interval", []string{"run", "--progress-interval", "0s"}, nil, 2, []string{"--progress-interval 0s: want a positive duration"}, ""},
		{"sweep --parallel 0", []string{"sweep", "--parallel", "0", "demo/policies"}, nil, 2, []string{"--parallel 0: want at least 1"}, ""},
		// Configuration: keys and values.
		{"a mistyped key is suggested, not listed", []string{"run", "--set", "engine.cycel_s=1"}, nil, 2, []string{`unknown config key "engine.cycel_s" in --set, did you mean engine.cycle_s?`}, "workload.name"},
		{"a key far from any gets no list either", []string{"run", "--set", "zzzzzzzz=1"}, nil, 2, []string{`unknown config key "zzzzzzzz"`, "schedlab config keys"}, "workload.name"},
		{"a bad value names the key", []string{"run", "--set", "engine.horizon_s=soon"}, nil, 2, []string{"engine.horizon_s: want a number ≥ 0"}, ""},
		{"workload.sample=0 names the key", []string{"run", "--set", "workload.sample=0"}, nil, 2, []string{"workload.sample: want a fraction in (0, 1]"}, ""},
		{"an empty --set value", []string{"run", "--set", "engine.cycle_s="}, nil, 2, []string{"engine.cycle_s: empty value"}, ""},
		{"an empty environment value", []string{"run"}, []string{"SCHEDLAB_SEED="}, 2, []string{"seed: empty value"}, ""},
		{"a key without a value in --config", []string{"run", "--config", contract("empty-value.yaml")}, nil, 2, []string{"empty-value.yaml:3: engine.cycle_s: empty value"}, ""},
		{"a second YAML document in --config", []string{"run", "--config", contract("two-documents.yaml")}, nil, 2, []string{"two-documents.yaml:4: a second YAML document"}, ""},
		{"an alias bomb in --config", []string{"run", "--config", contract("alias-bomb.yaml")}, nil, 2, []string{"alias-bomb.yaml", "excessive aliasing"}, ""},
		{"a negative limit", []string{"run", "--set", "limits.max_tasks=-1"}, nil, 2, []string{"limits.max_tasks: want an integer ≥ 0"}, ""},
		{"a trillion machines", []string{"run", "--set", "workload.machines=1000000000000"}, nil, 2, []string{"workload.machines: 1000000000000 exceeds the limit of", "limits.max_machines, derived from"}, ""},
		{"machines over an explicit limit", []string{"run", "--set", "workload.machines=100", "--set", "limits.max_machines=50"}, nil, 2, []string{"workload.machines: 100 exceeds the limit of 50 machines (limits.max_machines)"}, ""},
		{"a fractional integer key", []string{"run", "--set", "workload.machines=2.5"}, nil, 2, []string{"workload.machines: want an integer, got 2.5; did you mean 2 or 3?"}, ""},
		{"a fractional integer in --config", []string{"run", "--config", contract("fractional-integer.yaml")}, nil, 2, []string{"config: limits.max_tasks: want an integer, got 2.5; did you mean 2 or 3?"}, ""},
		{"a fractional generator count", []string{"run", "--set", "workload.generator=cora", "--set", "workload.cora.jobs=2.5"}, nil, 2, []string{"workload.cora.jobs: want an integer, got 2.5; did you mean 2 or 3?"}, ""},
		{"a horizon of 1e300 s names the key", []string{"run", "--set", "engine.horizon_s=1e300"}, nil, 2, []string{"engine.horizon_s: want seconds in [0, 1e+09], got 1e300"}, "replay:"},
		{"a cycle of 1e12 s names the key", []string{"run", "--set", "engine.cycle_s=1e12"}, nil, 2, []string{"engine.cycle_s: want seconds in [0, 1e+09], got 1e12"}, ""},
		{"a generator option out of range names the key", []string{"run", "--set", "workload.generator=bpf", "--set", "workload.bpf.lqs=-1"}, nil, 2, []string{"workload.bpf.lqs: want 0..10000, got -1"}, "Options."},
		{"a generator option conflict names the key", []string{"run", "--set", "workload.generator=cora", "--set", "workload.cora.machines=7"}, nil, 2, []string{"workload.cora.machines: 7 does not divide Containers 40"}, "Options."},
		{"a decima option out of range names the key", []string{"run", "--set", "workload.generator=decima", "--set", "workload.decima.job_executors=-2"}, nil, 2, []string{"workload.decima.job_executors: must be 1..1000000, got -2"}, "Options."},
		{"a jvusched window of 65,536 slices", []string{"run", "--policy", "jvusched", "--set", "policy.params.plan_ahead_s=327680"}, nil, 2,
			[]string{"policy.params.plan_ahead_s=327680 with time slices of 5 s", "makes 65536 slices, over the bound of 4096"}, ""},
		{"a millisecond jvusched quantum", []string{"run", "--policy", "jvusched", "--set", "policy.params.quantum_s=0.001", "--set", "policy.params.plan_ahead_s=65"}, nil, 2,
			[]string{"policy.params.plan_ahead_s=65 with time slices of 0.001 s (policy.params.quantum_s) makes 65000 slices, over the bound of 4096"}, ""},
		{"a jvusched window over a millisecond cycle", []string{"run", "--policy", "jvusched", "--set", "engine.cycle_s=0.001"}, nil, 2,
			[]string{"time slices of 0.001 s (engine.cycle_s, as policy.params.quantum_s is unset) makes 60000 slices"}, ""},
		{"a bpf queue start of 1e300 s names the key", []string{"run", "--policy", "bpf", "--set", "policy.params.queues.q.start_s=1e300"}, nil, 2,
			[]string{"policy.params.queues.q.start_s: want a number of seconds in [0, 1e9], got 1e300"}, ""},
		{"an unknown testbed profile is suggested", []string{"run", "--set", "testbed=ccra-hadop27"}, nil, 2, []string{`testbed: unknown profile "ccra-hadop27", did you mean ccra-hadoop27?`}, ""},
		{"a stop rule on no queue", []string{"run", "--set", "engine.stop_after_queue=nosuchqueue"}, nil, 2, []string{`engine.stop_after_queue: workload tpch-fb has no queue "nosuchqueue"`}, "replay:"},
		{"a microsecond usage window", []string{"run", "--set", "metrics.usage_window_s=0.000001", "--set", "engine.horizon_s=100"}, nil, 2, []string{"metrics.usage_window_s: 1e-06 s makes at least 100000000 usage windows"}, ""},
		// Data: limits checked before the replay allocates.
		{"a stage of 2^31-1 tasks", []string{"run", "--workload", contract("stage-2147483647.txt")}, nil, 1, []string{"stage-2147483647.txt", "tasks: 2147483647 exceeds the limit of", "limits.max_tasks, derived from"}, ""},
		{"two stages of 10^9 tasks", []string{"run", "--workload", contract("two-stages-1e9.txt")}, nil, 1, []string{"two-stages-1e9.txt", "tasks: 2000000000 exceeds the limit of"}, ""},
		{"a stage over limits.max_stage_tasks", []string{"run", "--workload", contract("two-stages-1e9.txt"), "--set", "limits.max_stage_tasks=1000000", "--set", "limits.max_tasks=10000000000"}, nil, 1, []string{"job 0 (id 1) stage 0: tasks: 1000000000 exceeds the limit of 1000000 tasks per stage (limits.max_stage_tasks)"}, ""},
		{"a job over limits.max_job_tasks", []string{"run", "--workload", contract("two-stages-1e9.txt"), "--set", "limits.max_job_tasks=1500000000", "--set", "limits.max_tasks=10000000000"}, nil, 1, []string{"job 0 (id 1): tasks: 2000000000 exceeds the limit of 1500000000 tasks per job (limits.max_job_tasks)"}, ""},
		{"scaling task counts past the limit", append([]string{"run", "--set", "workload.scale_tasks=1000", "--set", "limits.max_tasks=1000000"}, short...), nil, 1, []string{"workload.scale_tasks=1000", "exceeds the limit of 1000000 tasks per workload"}, ""},
		{"a generated workload over the limit", append([]string{"run", "--set", "workload.generator=cora", "--set", "limits.max_tasks=10"}, short...), nil, 1, []string{"generated by cora", "limits.max_tasks"}, ""},
		{"a demand out of range is located", []string{"run", "--workload", contract("demand-too-large.txt")}, nil, 1, []string{"demand-too-large.txt:4: r1:"}, ""},
		// Data: crafted canonical files (traces/canonical/testdata/bad) are located errors on
		// every path that reads them, found before the sizes they state are allocated.
		{"trace inspect of a parent out of range", []string{"trace", "inspect", badCanonical("parent-7-of-1.arrow")}, nil, 1, []string{"parent-7-of-1.arrow: row 0: traces: job 0 (id 1) stage 0: parents: parent 7 out of range (job has 1 stages)"}, "panic"},
		{"trace stats of a parent of -1", []string{"trace", "stats", badCanonical("parent-minus-1.arrow")}, nil, 1, []string{"parent-minus-1.arrow: row 0: traces: job 0 (id 1) stage 0: parents: parent -1 out of range"}, "panic"},
		{"slack deadlines of a parent of 2^31-1", []string{"run", "--workload", badCanonical("parent-2147483647.arrow"), "--set", "workload.deadlines=slack", "--set", "workload.slack_percent=50"}, nil, 1, []string{"parent-2147483647.arrow: row 0: traces: job 0 (id 1) stage 0: parents: parent 2147483647 out of range"}, "panic"},
		{"num_stages of 2^31-1 in a 9-KB file", []string{"run", "--workload", badCanonical("num-stages-2147483647.arrow")}, nil, 1, []string{"num-stages-2147483647.arrow: row 1: job id 1 has 1 of 2147483647 stage rows at end of file"}, ""},
		{"trace stats of num_stages 2^31-1", []string{"trace", "stats", badCanonical("num-stages-2147483647.arrow")}, nil, 1, []string{"num-stages-2147483647.arrow: row 1: job id 1 has 1 of 2147483647 stage rows"}, ""},
		{"2^26 machines in the metadata", []string{"trace", "inspect", badCanonical("machines-67108864.arrow")}, nil, 1, []string{"machines-67108864.arrow: bad metadata: schedlab.cluster: traces: workload: cluster.machines: 67108864 exceeds the limit of", "(limits.max_machines, derived from"}, ""},
		{"2^26 machines in a run", []string{"run", "--workload", badCanonical("machines-67108864.arrow")}, nil, 1, []string{"67108864 exceeds the limit of", "(limits.max_machines, derived from"}, ""},
		{"a task no single machine holds", []string{"run", "--workload", badCanonical("demand-fits-no-machine.arrow")}, nil, 1, []string{"demand-fits-no-machine.arrow: traces: job 0 (id 1) stage 0: demand: [2 2] fits on no machine (machine capacities [2 1], [1 2])"}, ""},
		{"a NaN utility priority", []string{"run", "--workload", badCanonical("utility-priority-nan.arrow")}, nil, 1, []string{"utility-priority-nan.arrow: row 0: traces: job 0 (id 1): utility.priority: must be a finite number ≥ 0, got NaN"}, ""},
		{"an unknown utility kind", []string{"trace", "stats", badCanonical("utility-kind-cubic.arrow")}, nil, 1, []string{`utility.kind: unknown kind "cubic"`}, ""},
		{"a submit time beyond the clock", []string{"run", "--workload", badCanonical("submit-beyond-clock.arrow")}, nil, 1, []string{"row 0: traces: job 0 (id 1): submit: 9223372036854775802 µs is beyond the clock's range"}, ""},
		{"a duration beyond the clock", []string{"run", "--workload", badCanonical("duration-beyond-clock.arrow")}, nil, 1, []string{"row 0: traces: job 0 (id 1) stage 0: duration: 9223372036854775807 µs is beyond the clock's range"}, ""},
		// Data: parsers locate what they cannot read, in the trace import as in a run.
		{"an unterminated quote in job_events", []string{"trace", "import", "google2011", "--src", crafted("traces", "google2011", "testdata", "bad", "quote-unterminated", "job_events.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{`quote-unterminated/job_events.csv:2: field "user": unterminated quote`}, ""},
		{"FINISH before SUBMIT", []string{"trace", "import", "google2011", "--src", crafted("traces", "google2011", "testdata", "bad", "finish-before-submit", "job_events.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{`finish-before-submit/job_events.csv:2: field "event type": SUBMIT of job 1 after its FINISH`}, ""},
		{"FINISH of a pending task", []string{"trace", "import", "google2011", "--src", crafted("traces", "google2011", "testdata", "bad", "task-finish-while-pending", "job_events.csv"), "--src", crafted("traces", "google2011", "testdata", "bad", "task-finish-while-pending", "task_events.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{`task_events.csv:2: field "event type": FINISH of task 0 of job 1 while it is pending`}, ""},
		{"a task request of 1e308", []string{"trace", "import", "google2011", "--src", crafted("traces", "google2011", "testdata", "bad", "task-request-1e308", "job_events.csv"), "--src", crafted("traces", "google2011", "testdata", "bad", "task-request-1e308", "task_events.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{`task_events.csv:1: field "CPU request": 1e+308 is outside the fixed-point range`}, "clamped"},
		{"an import that yields no job", []string{"trace", "import", "google2011", "--src", crafted("traces", "google2011", "testdata", "bad", "no-finished-job", "job_events.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{"no-finished-job/job_events.csv: no job to import: none of its 1 jobs finished"}, ""},
		{"an unterminated quote in batch_task", []string{"trace", "import", "alibaba2018", "--src", crafted("traces", "alibaba2018", "testdata", "bad", "unterminated-quote.csv"), "--out", filepath.Join(t.TempDir(), "w.parquet")}, nil, 1,
			[]string{"unterminated-quote.csv:2: end_time: unterminated quote"}, ""},
		// Configuration: experiment specs.
		{"an alias bomb in a spec", []string{"sweep", crafted("experiments", "testdata", "specload", "alias-bomb.yaml"), "--out", t.TempDir()}, nil, 2,
			[]string{"alias-bomb.yaml:9: excessive aliasing"}, ""},
		{"a second YAML document in a spec", []string{"sweep", crafted("experiments", "testdata", "specload", "two-documents.yaml"), "--out", t.TempDir()}, nil, 2,
			[]string{"two-documents.yaml:9: a second YAML document; a spec file holds one"}, ""},
		{"a mistyped spec is suggested, not listed", []string{"reproduce", "bpf-fig55", "--out", t.TempDir()}, nil, 2,
			[]string{`no such spec "bpf-fig55"`, "did you mean bpf-fig5?"}, "bpf/table4"},
		{"a mistyped spec ID in sweep", []string{"sweep", "demo/polices", "--out", t.TempDir()}, nil, 2,
			[]string{`no such spec "demo/polices"`, "did you mean demo/policies?"}, "bpf/table4"},
		// Success, with warnings.
		{"a typo'd variable is warned about", append([]string{"run"}, short...), []string{"SCHEDLAB_POLICY_NAM=srpt"}, 0, []string{"SCHEDLAB_POLICY_NAM ignored", "did you mean SCHEDLAB_POLICY_NAME?"}, ""},
		{"policy.params from the environment is warned about", append([]string{"run"}, short...), []string{"SCHEDLAB_POLICY_PARAMS_PREEMPT=true"}, 0, []string{"SCHEDLAB_POLICY_PARAMS_PREEMPT ignored: policy.params.*"}, ""},
		{"schedlab's own variables are not warned about", append([]string{"run"}, short...), []string{"SCHEDLAB_SHARED_DATA=/nonexistent", "SCHEDLAB_POLICY_NAME=drf"}, 0, nil, "warning"},
		{"a trailing document separator is not a second document", append([]string{"run", "--config", contract("trailing-separator.yaml")}, short...), nil, 0, nil, "schedlab:"},
		{"a big import is warned about, not refused", []string{"trace", "import", "tpcdag", "--src", contract("stage-2147483647.txt"), "--out", filepath.Join(t.TempDir(), "big.parquet")}, nil, 0, []string{"warning: trace import:", "limits.max_tasks"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(cleanEnv(), "GOMEMLIMIT=4GiB")
			cmd.Env = append(cmd.Env, tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			msg := stderr.String()
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr lacks %q:\n%s", w, msg)
				}
			}
			if tc.not != "" && strings.Contains(msg, tc.not) {
				t.Errorf("stderr has %q:\n%s", tc.not, msg)
			}
			if code != 0 {
				lines := strings.Split(strings.TrimSuffix(msg, "\n"), "\n")
				if last := lines[len(lines)-1]; len(lines) != 1 || !strings.HasPrefix(last, "schedlab: ") {
					t.Errorf("want the error as one line starting with \"schedlab: \", got:\n%s", msg)
				}
			}
		})
	}
}

// cleanEnv is the environment without SCHEDLAB_* variables and GOMEMLIMIT.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SCHEDLAB_") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			env = append(env, kv)
		}
	}
	return env
}

// TestSpecNameWinsOverPath: an embedded spec's name or alias resolves to the spec even when the
// working directory holds a directory or file of that name (before, `reproduce cora-solver`
// beside a cora-solver/ directory failed with "no such spec"); ./NAME and NAME.yaml are paths.
func TestSpecNameWinsOverPath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("cora-solver", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("demo-policies", []byte("title: a file named like a spec\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runBuilt(t, "reproduce", "cora-solver", "--label", "quick", "--out", "r", "--parallel", "1")
	if code != 0 {
		t.Fatalf("reproduce cora-solver beside a cora-solver/ directory: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join("r", "cora", "solver", "cells.parquet")); err != nil {
		t.Errorf("reproduce cora-solver wrote no cora/solver sweep: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// The alias wins over the file: the embedded demo/policies is planned (and refused by
		// --max-cells before anything runs), not the file's spec.
		{[]string{"sweep", "demo-policies", "--label", "quick", "--max-cells", "1", "--out", "s"}, "demo/policies"},
		{[]string{"sweep", "./demo-policies", "--out", "s"}, `demo-policies:1: spec: missing "axes"`},
		{[]string{"reproduce", "./cora-solver", "--out", "s"}, `no such spec "./cora-solver": a directory, not an embedded spec or spec file, did you mean cora-solver?`},
		{[]string{"sweep", "cora-solver.yaml", "--out", "s"}, `no such spec "cora-solver.yaml": no such file`},
		{[]string{"sweep", "demo", "--out", "s"}, `no such spec "demo": a paper, not one spec: name one of demo/policies`},
	} {
		_, errOut, code := runBuilt(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}

// TestOversizedYAMLIsRefused: a --config file or spec file over experiments.MaxYAMLBytes is a
// configuration error naming it, refused before it is parsed.
func TestOversizedYAMLIsRefused(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("title: "+strings.Repeat("x", experiments.MaxYAMLBytes)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", "--config", big}, {"sweep", big, "--out", t.TempDir()}} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "big.yaml: larger than 1048576 bytes") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming the file and the limit", args[0], code, errOut)
		}
	}
}

// TestNamedPipesAreRefused: a named pipe (FIFO) given as --config, spec, workload or trace import
// source is refused with one line before it is opened (opening it blocked forever): exit 2 for
// configuration, 1 for data. Each run has 30 s before it counts as blocked.
func TestNamedPipesAreRefused(t *testing.T) {
	bin := schedlabLink(t)
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	conf, spec, wl, src := fifo("config.yaml"), fifo("spec.yaml"), fifo("w.parquet"), fifo("queries.txt")
	include := filepath.Join(dir, "including.yaml")
	if err := os.WriteFile(include, []byte("include: [spec.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const pipe = "a named pipe (FIFO), not a regular file"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--config", conf}, 2, "--config: " + conf + ": " + pipe},
		{[]string{"sweep", spec, "--out", filepath.Join(dir, "o")}, 2, "spec.yaml: " + pipe},
		{[]string{"sweep", include, "--out", filepath.Join(dir, "o")}, 2, "spec.yaml: " + pipe},
		{[]string{"run", "--workload", wl, "--out", filepath.Join(dir, "r")}, 1, "workload.name: " + wl + ": " + pipe},
		{[]string{"run", "--set", "workload.generator=bpf", "--set", "workload.bpf.queries=" + src}, 1, "workload.bpf.queries: " + src + ": " + pipe},
		{[]string{"run", "--set", "predict.name=jvupredict", "--set", "predict.warm=" + src, "--set", "engine.horizon_s=1"}, 1, "predict.warm: " + src + ": " + pipe},
		{[]string{"trace", "import", "tpcdag", "--src", src, "--out", filepath.Join(dir, "x.parquet")}, 1, "--src " + src + ": " + pipe},
		{[]string{"trace", "import", "google2011", "--src", src, "--out", filepath.Join(dir, "x.parquet")}, 1, "--src " + src + ": " + pipe},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin, tc.args...)
		cmd.Env = cleanEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		blocked := ctx.Err() != nil
		cancel()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		msg := stderr.String()
		if blocked || code != tc.code || !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s: blocked %v, exit %d, stderr %q; want exit %d and one line with %q", strings.Join(tc.args, " "), blocked, code, msg, tc.code, tc.want)
		}
	}
}

// TestRunProgressLines: a run prints progress lines on stderr every --progress-interval (none
// with -q), and its outputs are the same bytes as without them.
func TestRunProgressLines(t *testing.T) {
	dir := t.TempDir()
	loud, quiet := filepath.Join(dir, "loud"), filepath.Join(dir, "quiet")
	_, errOut, code := runBuilt(t, "run", "--set", "engine.horizon_s=20000", "--progress-interval", "1ms", "--out", loud)
	if code != 0 || !strings.Contains(errOut, "schedlab: t=") || !strings.Contains(errOut, " s simulated, ") {
		t.Fatalf("exit %d, stderr %q; want progress lines", code, errOut)
	}
	_, errOut, code = runBuilt(t, "run", "-q", "--set", "engine.horizon_s=20000", "--progress-interval", "1ms", "--out", quiet)
	if code != 0 || errOut != "" {
		t.Fatalf("-q: exit %d, stderr %q; want nothing", code, errOut)
	}
	for _, f := range []string{experiments.JobsFile, experiments.ConfigFile} {
		a, errA := os.ReadFile(filepath.Join(loud, f))
		b, errB := os.ReadFile(filepath.Join(quiet, f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs with progress lines (%v, %v)", f, errA, errB)
		}
	}
}
