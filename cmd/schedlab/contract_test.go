package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// schedlabLink returns a link named "schedlab" to this test binary, which then runs as the
// command (see TestMain).
func schedlabLink(t *testing.T) string {
	t.Helper()
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
		{"a microsecond usage window", []string{"run", "--set", "metrics.usage_window_s=0.000001", "--set", "engine.horizon_s=100"}, nil, 2, []string{"metrics.usage_window_s: 1e-06 s makes at least 100000000 usage windows"}, ""},
		// Data: limits checked before the replay allocates.
		{"a stage of 2^31-1 tasks", []string{"run", "--workload", contract("stage-2147483647.txt")}, nil, 1, []string{"stage-2147483647.txt", "tasks: 2147483647 exceeds the limit of", "limits.max_tasks, derived from"}, ""},
		{"two stages of 10^9 tasks", []string{"run", "--workload", contract("two-stages-1e9.txt")}, nil, 1, []string{"two-stages-1e9.txt", "tasks: 2000000000 exceeds the limit of"}, ""},
		{"a stage over limits.max_stage_tasks", []string{"run", "--workload", contract("two-stages-1e9.txt"), "--set", "limits.max_stage_tasks=1000000", "--set", "limits.max_tasks=10000000000"}, nil, 1, []string{"job 0 (id 1) stage 0: tasks: 1000000000 exceeds the limit of 1000000 tasks per stage (limits.max_stage_tasks)"}, ""},
		{"a job over limits.max_job_tasks", []string{"run", "--workload", contract("two-stages-1e9.txt"), "--set", "limits.max_job_tasks=1500000000", "--set", "limits.max_tasks=10000000000"}, nil, 1, []string{"job 0 (id 1): tasks: 2000000000 exceeds the limit of 1500000000 tasks per job (limits.max_job_tasks)"}, ""},
		{"scaling task counts past the limit", append([]string{"run", "--set", "workload.scale_tasks=1000", "--set", "limits.max_tasks=1000000"}, short...), nil, 1, []string{"workload.scale_tasks=1000", "exceeds the limit of 1000000 tasks per workload"}, ""},
		{"a generated workload over the limit", append([]string{"run", "--set", "workload.generator=cora", "--set", "limits.max_tasks=10"}, short...), nil, 1, []string{"generated by cora", "limits.max_tasks"}, ""},
		{"a demand out of range is located", []string{"run", "--workload", contract("demand-too-large.txt")}, nil, 1, []string{"demand-too-large.txt:4: r1:"}, ""},
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
