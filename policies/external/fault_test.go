//go:build unix

package external_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFaultsEndTheRunWithOneLine starts schedulers that misbehave in every way the protocol
// anticipates and requires one error line naming the fault and quoting the scheduler's last
// stderr line.
func TestFaultsEndTheRunWithOneLine(t *testing.T) {
	cases := []struct {
		mode string
		sets []string
		want []string
	}{
		{"crash", nil, []string{"did not answer call 1", "exited with status 3", `"panic: index out of range [3] with length 3"`}},
		{"hang", []string{"policy.params.timeout_s=0.3"}, []string{"did not answer call 1", "no answer within 300ms (policy.params.timeout_s)", `"hang: thinking very hard"`}},
		{"garbage", nil, []string{"answered call 1 with garbage", `"x = 42"`, `"garbage: printing a debug line to stdout by mistake"`}},
		{"version", nil, []string{"speaks protocol version 2", "this schedlab speaks protocol 1", `"version: I only speak protocol 2"`}},
		{"invalid", nil, []string{`policy "external" at t=`, "start #0 {job 0 stage 0 machine 0 count 1000000}", "only", `its last stderr line: "invalid: starting a million tasks"`}},
		{"early", nil, []string{"the hello", "exited with status 0", `"early: leaving before the hello"`}},
		{"flood", nil, []string{"did not answer call 1", "exited with status 4", `"flood: the last words"`}},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			_, _, err := run(t, tiny(), append([]string{"policy.name=external", "policy.params.command=" + childArgv(tc.mode)}, tc.sets...)...)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans several lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestTheProcessGroupIsKilled leaves a grandchild in the scheduler's process group and hangs:
// after the timeout the whole group must be gone.
func TestTheProcessGroupIsKilled(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("SCHEDLAB_EXT_PIDFILE", pidfile)
	_, _, err := run(t, tiny(), "policy.name=external", "policy.params.command="+childArgv("grandchild"), "policy.params.timeout_s=0.3")
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // not our child: reaped by init
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSocketWaitsForASlowScheduler starts a Python scheduler that listens only after a delay;
// the policy keeps trying within connect_timeout_s. With nothing listening it gives up with a
// clear line.
func TestSocketWaitsForASlowScheduler(t *testing.T) {
	py := python(t)
	sock := filepath.Join(t.TempDir(), "s.sock")
	want, _, err := run(t, tiny(), "policy.name=fifo")
	if err != nil {
		t.Fatal(err)
	}
	code := "import sys,time; sys.path.insert(0, sys.argv[1]); time.sleep(0.4)\n" +
		"from schedlab_client import serve_socket\nfrom schedlab_client.baselines import Greedy\n" +
		"serve_socket(lambda: Greedy('fifo'), sys.argv[2], runs=1)\n"
	cmd := exec.Command(py, "-c", code, script(t, ""), sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	got, _, err := run(t, tiny(), "policy.name=external", "policy.params.socket="+sock, "policy.params.connect_timeout_s=10")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("jobs.parquet differs from the built-in fifo's")
	}
	cmd.Wait()

	_, _, err = run(t, tiny(), "policy.name=external", "policy.params.socket="+sock, "policy.params.connect_timeout_s=0.2")
	if err == nil || !strings.Contains(err.Error(), "nothing accepted a connection within 200ms (policy.params.connect_timeout_s)") {
		t.Fatalf("err = %v", err)
	}
}

// TestSocketSchedulerThatHangs: the per-call timeout holds in socket mode too.
func TestSocketSchedulerThatHangs(t *testing.T) {
	py := python(t)
	sock := filepath.Join(t.TempDir(), "h.sock")
	code := "import sys,time; sys.path.insert(0, sys.argv[1])\n" +
		"from schedlab_client import Scheduler, serve_socket\n" +
		"class Hang(Scheduler):\n    def schedule(self, view):\n        print('hanging', file=sys.stderr); time.sleep(30)\n" +
		"serve_socket(Hang, sys.argv[2], runs=1)\n"
	cmd := exec.Command(py, "-c", code, script(t, ""), sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	_, _, err := run(t, tiny(), "policy.name=external", "policy.params.socket="+sock, "policy.params.timeout_s=0.3", "policy.params.connect_timeout_s=10")
	if err == nil || !strings.Contains(err.Error(), "did not answer call 1: no answer within 300ms (policy.params.timeout_s)") {
		t.Fatalf("err = %v", err)
	}
}
