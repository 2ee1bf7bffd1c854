package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/testutil"
)

// googleFixture is the slice of the Google 2011 trace the jv reproductions read at label quick.
const googleFixture = "../../experiments/jvu/testdata/google2011"

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// killTest runs args (which write into dir) as a separate schedlab process n times, killing it
// with SIGKILL at a random moment of its run each time. After each kill, check sees dir as the
// killed process left it; then a run to completion must leave in dir exactly final.
func killTest(t *testing.T, dir string, args []string, n int, check func(t *testing.T, i int), final []string) {
	t.Helper()
	bin := schedlabLink(t)
	begin := time.Now()
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("schedlab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	whole := time.Since(begin)
	rng := rand.New(rand.NewPCG(uint64(len(args)), 7))
	debris := 0
	for i := 0; i < n; i++ {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Float64() * 1.1 * float64(whole)))
		cmd.Process.Kill()
		cmd.Wait()
		if slices.ContainsFunc(entries(t, dir), func(name string) bool { return strings.HasPrefix(name, ".") }) {
			debris++
		}
		check(t, i)
	}
	t.Logf("%d kills within %v runs; %d left work directories behind", n, whole, debris)
	if _, errOut, code := runCLI(t, args...); code != 0 {
		t.Fatalf("the run after the kills: exit %d: %s", code, errOut)
	}
	if got := entries(t, dir); !slices.Equal(got, final) {
		t.Errorf("after the kills and a finished run %s holds %v, want %v", dir, got, final)
	}
}

// smallWorkload cuts the embedded default workload (399 TPC-H jobs) to a seeded tenth (35 jobs,
// about 11 KiB of output): the fault tests replay it dozens of times, which under the race
// detector and the invariant checks took 50-130 s a replay round of the whole workload.
var smallWorkload = []string{"--set", "workload.sample=0.1"}

// TestRunOutSurvivesKill kills `schedlab run --out DIR` at random points: DIR is absent or a
// whole run's output (the same bytes as an undisturbed run) at every moment, and the next run
// removes whatever work directory a killed one left. It kills runs of the small workload, and,
// without the race detector (go test ./...), runs of the whole default workload too.
func TestRunOutSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	for _, tc := range []struct {
		name string
		set  []string
	}{{"small", smallWorkload}, {"full", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set == nil && raceEnabled {
				t.Skip("the whole default workload is killed only without -race (go test ./cmd/schedlab/): it took 435-530 s under -race -tags invariants")
			}
			runOutSurvivesKill(t, tc.set)
		})
	}
}

func runOutSurvivesKill(t *testing.T, set []string) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	ref := filepath.Join(t.TempDir(), "ref")
	if _, errOut, code := runCLI(t, append([]string{"run", "--out", ref, "-q"}, set...)...); code != 0 {
		t.Fatal(errOut)
	}
	want := readFile(t, filepath.Join(ref, experiments.JobsFile))
	files := entries(t, ref)
	killTest(t, parent, append([]string{"run", "--out", out, "-q"}, set...), 16, func(t *testing.T, i int) {
		got := entries(t, out)
		if got == nil {
			return // not published yet
		}
		if !slices.Equal(got, files) {
			t.Fatalf("kill %d: %s holds %v, want all of %v", i, out, got, files)
		}
		if !bytes.Equal(readFile(t, filepath.Join(out, experiments.JobsFile)), want) {
			t.Fatalf("kill %d: jobs.parquet differs from an undisturbed run's", i)
		}
	}, []string{"out"})
}

// TestTraceImportSurvivesKill kills `schedlab trace import google2011` at random points: the
// output is absent or whole, and the next import removes the temporary output and sort runs the
// killed ones left (before, .X.parquet.tmp-* and .X.parquet.runN-* files stayed for good).
func TestTraceImportSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "g.parquet")
	ref := filepath.Join(t.TempDir(), "g.parquet")
	if _, errOut, code := runCLI(t, "trace", "import", "google2011", "--level", "job", "--src", googleFixture, "--out", ref); code != 0 {
		t.Fatal(errOut)
	}
	want := readFile(t, ref)
	killTest(t, dir, []string{"trace", "import", "google2011", "--level", "job", "--src", googleFixture, "--out", out}, 16, func(t *testing.T, i int) {
		if b, err := os.ReadFile(out); err == nil && !bytes.Equal(b, want) {
			t.Fatalf("kill %d: %s is not a whole import", i, out)
		}
	}, []string{"g.parquet"})
}

// TestOutputsOnFullDisk runs `schedlab run --out` and `schedlab trace import` onto tmpfs file
// systems too small for their outputs: each exits 1 with one line saying the disk is full (before,
// arrow's Parquet writer panicked in some runs and others left jobs/summary/usage without
// config.yaml), leaves no partial output and no work directory — a previous run's output stays as
// it was — and once space is freed the same command writes what an undisturbed one writes.
func TestOutputsOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts file systems")
	}
	runArgs := func(out string, more ...string) []string {
		return append(append([]string{"run", "--out", out, "-q"}, smallWorkload...), more...)
	}
	refRun := filepath.Join(t.TempDir(), "ref")
	if _, errOut, code := runCLI(t, runArgs(refRun)...); code != 0 {
		t.Fatal(errOut)
	}
	refImport := filepath.Join(t.TempDir(), "g.parquet")
	if _, errOut, code := runCLI(t, "trace", "import", "google2011", "--level", "job", "--src", googleFixture, "--out", refImport); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		name     string
		kib      []int
		previous bool // a previous run's output is in place
		args     func(dir string) []string
		out      string
		ref      string
	}{
		// run --out of the small workload writes about 11 KiB (jobs 4.6, summary 3.7, usage 1.7,
		// config 0.9), 20 KiB in tmpfs pages.
		{"run", []int{4, 8, 12, 16}, false, func(d string) []string { return runArgs(filepath.Join(d, "out")) }, "out", refRun},
		{"run-over-previous", []int{24, 28, 32, 36}, true, func(d string) []string { return runArgs(filepath.Join(d, "out")) }, "out", refRun},
		// the import writes about 100 KiB, through sort runs of the same size
		{"trace-import", []int{4, 32, 64, 96}, false, func(d string) []string {
			return []string{"trace", "import", "google2011", "--level", "job", "--src", googleFixture, "--out", filepath.Join(d, "g.parquet")}
		}, "g.parquet", refImport},
	} {
		for _, kib := range tc.kib {
			t.Run(fmt.Sprintf("%s/%dKiB", tc.name, kib), func(t *testing.T) {
				mnt := testutil.MountTmpfs(t, kib<<10)
				var before []string
				if tc.previous {
					if _, errOut, code := runCLI(t, runArgs(filepath.Join(mnt, "out"), "--policy", "drf")...); code != 0 {
						t.Fatalf("the previous run does not fit %d KiB: %s", kib, errOut)
					}
					before = entries(t, filepath.Join(mnt, "out"))
				}
				_, errOut, code := runCLI(t, tc.args(mnt)...)
				if code != 1 || !strings.Contains(errOut, "no space left on device") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
					t.Fatalf("exit %d, stderr %q; want exit 1 and one line saying the disk is full", code, errOut)
				}
				t.Logf("%s", strings.TrimSpace(errOut))
				want := []string(nil)
				if tc.previous {
					want = []string{"out"}
					if got := entries(t, filepath.Join(mnt, "out")); !slices.Equal(got, before) {
						t.Errorf("the previous output now holds %v, was %v", got, before)
					}
				}
				if got := entries(t, mnt); !slices.Equal(got, want) {
					t.Errorf("left %v on the full disk, want %v", got, want)
				}
				testutil.ResizeTmpfs(t, mnt, 4<<20)
				if _, errOut, code := runCLI(t, tc.args(mnt)...); code != 0 {
					t.Fatalf("after freeing space: exit %d: %s", code, errOut)
				}
				got, want2 := filepath.Join(mnt, tc.out), tc.ref
				if tc.out == "out" {
					got, want2 = filepath.Join(got, experiments.JobsFile), filepath.Join(want2, experiments.JobsFile)
				}
				if !bytes.Equal(readFile(t, got), readFile(t, want2)) {
					t.Errorf("after freeing space %s differs from an undisturbed run's", got)
				}
			})
		}
	}
}
