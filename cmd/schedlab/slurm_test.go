//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments/sweep"
)

// The Slurm test runs a sweep the way a cluster user would: `schedlab sweep --emit slurm`
// writes the array and gather scripts, sbatch submits them (the gather depending on the array)
// to a one-node Slurm started here — munged, slurmctld and slurmd on localhost with a generated
// slurm.conf in a temporary directory — and the gathered cells.parquet must be byte-identical to
// a local sweep's. make setup installs Debian's slurm-wlm and munge; without them the test skips
// (and fails under CI=true, where make setup must have installed them). It skips, printing the
// daemons' logs, where they cannot start.

// slurmBinaries are the programs the test needs.
var slurmBinaries = []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo", "scancel"}

// daemon is a process the test started; its output goes to log.
type daemon struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
}

// slurmCluster is a one-node Slurm cluster in a temporary directory.
type slurmCluster struct {
	dir, conf, host string
	env             []string
	daemons         []*daemon
	stopOnce        sync.Once
	// starts runs daemon starts on one locked OS thread, so that their parent-death signal
	// (sent when the thread that started them exits) fires only when the test process dies.
	starts chan func()
}

func lookSlurm(t *testing.T) map[string]string {
	t.Helper()
	paths := map[string]string{}
	var missing []string
	for _, b := range slurmBinaries {
		p, err := exec.LookPath(b)
		if err != nil {
			for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
				if _, err2 := os.Stat(filepath.Join(dir, b)); err2 == nil {
					p, err = filepath.Join(dir, b), nil
					break
				}
			}
		}
		if err != nil {
			missing = append(missing, b)
			continue
		}
		paths[b] = p
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("Slurm is not installed (no %s): make setup installs Debian's slurm-wlm and munge", strings.Join(missing, ", "))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return paths
}

// slurmDirPrefix names the test's temporary directories.
const slurmDirPrefix = "schedlab-slurm-"

// removeStaleSlurmDirs removes the temporary directories of Slurm tests that were killed: those
// whose lock no process holds (a test holds its directory's lock until it ends).
func removeStaleSlurmDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), slurmDirPrefix+"*"))
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, ".lock"))
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(d)
		}
		f.Close()
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no local TCP port for Slurm: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSlurm starts munged, slurmctld and slurmd; it skips the test if they do not come up, and
// stops them (by pid) when the test ends, fails or is interrupted.
func startSlurm(t *testing.T, bin map[string]string) *slurmCluster {
	t.Helper()
	// A short path: munge's socket path must fit a Unix socket address. The directory is locked
	// while the test uses it; directories of killed tests, unlocked, are removed first.
	removeStaleSlurmDirs()
	dir, err := os.MkdirTemp("", slurmDirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.Create(filepath.Join(dir, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name for the Slurm node: %v", err)
	}
	host, _, _ = strings.Cut(host, ".")
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), host: host, starts: make(chan func())}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the test process
		for f := range c.starts {
			f()
		}
	}()
	t.Cleanup(func() {
		c.stop()
		close(c.starts)
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("Slurm files kept in %s (removed by the next run)", dir)
		}
		lock.Close()
	})
	// Interrupted (Ctrl-C, or the test binary's timeout signal): stop the daemons, then exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	stopWatch := make(chan struct{})
	t.Cleanup(func() { signal.Stop(sig); close(stopWatch) })
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(os.Stderr, "%v: stopping the Slurm daemons the test started\n", s)
			c.stop()
			os.RemoveAll(dir)
			os.Exit(1)
		case <-stopWatch:
		}
	}()

	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	if f, err := os.Open("/dev/urandom"); err == nil {
		f.Read(key)
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "munge", "munge.socket")
	conf := fmt.Sprintf(`# One-node Slurm cluster of schedlab's Slurm test (generated).
ClusterName=schedlabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
KillWait=5
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=1 State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), socket, dir, runtime.NumCPU())
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	c.start(t, "munged", bin["munged"], "-F", "--force", "--key-file="+filepath.Join(dir, "munge", "munge.key"), "--socket="+socket,
		"--pid-file="+filepath.Join(dir, "munge", "munged.pid"), "--seed-file="+filepath.Join(dir, "munge", "munged.seed"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"))
	c.waitFor(t, "munged's socket", 10*time.Second, func() bool { _, err := os.Stat(socket); return err == nil })
	c.start(t, "slurmctld", bin["slurmctld"], "-D", "-f", c.conf)
	c.waitFor(t, "slurmctld", 20*time.Second, func() bool {
		out, err := c.command(bin["scontrol"], "ping").CombinedOutput()
		return err == nil && bytes.Contains(out, []byte("UP"))
	})
	c.start(t, "slurmd", bin["slurmd"], "-D", "-f", c.conf, "-N", host)
	c.waitFor(t, "the node to be idle", 30*time.Second, func() bool {
		out, err := c.command(bin["sinfo"], "-h", "-N", "-o", "%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

// command is a Slurm client command of the cluster.
func (c *slurmCluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	return cmd
}

// start starts a daemon in the foreground of its own process group, with SIGTERM as its
// parent-death signal.
func (c *slurmCluster) start(t *testing.T, name, path string, args ...string) {
	t.Helper()
	d := &daemon{name: name, log: filepath.Join(c.dir, "log", name+".out"), done: make(chan struct{})}
	f, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d.cmd = exec.Command(path, args...)
	d.cmd.Env = c.env
	d.cmd.Dir = c.dir
	d.cmd.Stdout, d.cmd.Stderr = f, f
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	errc := make(chan error, 1)
	c.starts <- func() { errc <- d.cmd.Start() }
	if err := <-errc; err != nil {
		t.Skipf("cannot start %s: %v", name, err)
	}
	c.daemons = append(c.daemons, d)
	go func() { d.cmd.Wait(); close(d.done) }()
}

// waitFor polls ready until it holds; if it does not within limit, or a daemon exits meanwhile,
// the test is skipped with the daemons' output.
func (c *slurmCluster) waitFor(t *testing.T, what string, limit time.Duration, ready func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, d := range c.daemons {
			select {
			case <-d.done:
				t.Skipf("the Slurm daemons cannot start here: %s exited (%v) while waiting for %s\n%s", d.name, d.cmd.ProcessState, what, c.logs())
			default:
			}
		}
		if ready() {
			return
		}
	}
	t.Skipf("the Slurm daemons cannot start here: no %s after %s\n%s", what, limit, c.logs())
}

// logs returns the tail of each daemon's output and log file.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	tail := func(name string, s []byte) {
		lines := strings.Split(strings.TrimSpace(string(s)), "\n")
		fmt.Fprintf(&b, "--- %s (last %d lines)\n%s\n", name, min(len(lines), 15), strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	for _, d := range c.daemons {
		if s, err := os.ReadFile(d.log); err == nil {
			tail(d.name+" output", s)
		}
	}
	for _, f := range []string{"slurmctld.log", "slurmd.log"} {
		if s, err := os.ReadFile(filepath.Join(c.dir, "log", f)); err == nil {
			tail(f, s)
		}
	}
	return b.String()
}

// stop cancels every job, then stops the daemons the test started, by pid, in reverse order:
// SIGTERM, then SIGKILL to the process group of any that is still running after 15 s.
func (c *slurmCluster) stop() {
	c.stopOnce.Do(func() {
		if scancel, err := exec.LookPath("scancel"); err == nil && len(c.daemons) >= 2 {
			cmd := c.command(scancel, "--quiet", "--user", fmt.Sprint(os.Getuid()))
			cmd.Run()
		}
		for i := len(c.daemons) - 1; i >= 0; i-- {
			d := c.daemons[i]
			d.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-d.done:
			case <-time.After(15 * time.Second):
				syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
				<-d.done
			}
		}
	})
}

// submit runs sbatch --parsable and returns the job ID.
func (c *slurmCluster) submit(t *testing.T, bin map[string]string, dir string, args ...string) string {
	t.Helper()
	cmd := c.command(bin["sbatch"], append([]string{"--parsable"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch %s: %v\n%s\n%s", strings.Join(args, " "), err, out, c.logs())
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	return id
}

// jobState returns a job's state and reason as scontrol shows them.
func (c *slurmCluster) jobState(bin map[string]string, id string) (state, reason string) {
	out, err := c.command(bin["scontrol"], "show", "job", "-o", id).Output()
	if err != nil {
		return "", err.Error()
	}
	for _, f := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(f, "="); ok {
			switch k {
			case "JobState":
				state = v
			case "Reason":
				reason = v
			}
		}
	}
	return state, reason
}

// slurmForSchedlab starts a one-node Slurm cluster whose jobs find this test binary as
// `schedlab` on their PATH (see TestMain), or skips the test.
func slurmForSchedlab(t *testing.T) (*slurmCluster, map[string]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Slurm cluster")
	}
	bin := lookSlurm(t)
	if os.Geteuid() != 0 {
		t.Skip("the Slurm test needs root: slurmd runs jobs as their submitter and its daemons run as SlurmUser=root here")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := startSlurm(t, bin)
	binDir := filepath.Join(c.dir, "bin")
	os.Mkdir(binDir, 0o755)
	if err := os.Symlink(self, filepath.Join(binDir, "schedlab")); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return c, bin
}

func TestSlurmArrayGathersTheSweep(t *testing.T) {
	c, bin := slurmForSchedlab(t)
	spec, _ := filepath.Abs(tinySpec)
	workload, _ := filepath.Abs("../../experiments/sweep/testdata/tiny-tpch.txt")
	args := []string{"sweep", spec, "--label", "quick", "--set", "workload.name=" + workload}
	out := filepath.Join(c.dir, "results")
	jobLogs := c.sweep(t, bin, "tiny", args, out, 3)

	c.sameAsLocal(t, args, out, jobLogs)
	for i := range 3 {
		m, err := sweep.ReadManifest(filepath.Join(out, fmt.Sprintf("shard-%d", i)))
		if err != nil || m.Shard != fmt.Sprintf("%d/3", i) {
			t.Errorf("shard %d: manifest %v, %v", i, m, err)
		}
	}
}

// sweep emits the sweep of args as a Slurm array of shards jobs and a gather job into out,
// submits both and waits up to 3 minutes for the gather to complete. It returns a function that
// collects the jobs' and daemons' logs.
// sameAsLocal checks that the cells.parquet gathered into out from the Slurm array is the same
// bytes as a local sweep's of args.
func (c *slurmCluster) sameAsLocal(t *testing.T, args []string, out string, jobLogs func() string) {
	t.Helper()
	local := filepath.Join(c.dir, "local")
	if o, e, code := runCLI(t, append(args, "--out", local, "--parallel", "2")...); code != 0 {
		t.Fatalf("local sweep: exit %d\n%s%s", code, o, e)
	}
	want, err := os.ReadFile(filepath.Join(local, sweep.CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, sweep.CellsFile))
	if err != nil {
		t.Fatalf("no gathered cells.parquet: %v\n%s", err, jobLogs())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("cells.parquet gathered from the Slurm array differs from the local sweep's")
	}
}

func (c *slurmCluster) sweep(t *testing.T, bin map[string]string, name string, args []string, out string, shards int) func() string {
	t.Helper()
	if o, e, code := runCLI(t, append(args, "--emit", "slurm", "--shards", fmt.Sprint(shards), "--parallel", "1", "--out", out)...); code != 0 {
		t.Fatalf("emit: exit %d\n%s%s", code, o, e)
	}
	o := sweep.EmitOptions{Name: sweep.JobName(name)}
	array := c.submit(t, bin, out, filepath.Join(out, o.SlurmArrayFile()))
	gather := c.submit(t, bin, out, "--dependency=afterok:"+array, filepath.Join(out, o.SlurmGatherFile()))
	t.Logf("submitted array job %s and gather job %s", array, gather)

	jobLogs := func() string {
		var b strings.Builder
		files, _ := filepath.Glob(filepath.Join(out, "slurm-*.out"))
		for _, f := range files {
			s, _ := os.ReadFile(f)
			fmt.Fprintf(&b, "--- %s\n%s", filepath.Base(f), s)
		}
		return b.String() + c.logs()
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		state, reason := c.jobState(bin, gather)
		if state == "COMPLETED" {
			return jobLogs
		}
		if reason == "DependencyNeverSatisfied" || strings.Contains(state, "FAIL") || state == "CANCELLED" || state == "TIMEOUT" {
			t.Fatalf("gather job %s: %s (%s)\n%s", gather, state, reason, jobLogs())
		}
		if time.Now().After(deadline) {
			t.Fatalf("gather job %s still %s (%s) after 3 minutes\n%s", gather, state, reason, jobLogs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
