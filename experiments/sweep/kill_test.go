package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
)

// The kill/resume test re-executes the test binary as a sweep process: with SCHEDLAB_SWEEP_CHILD
// set, TestMain runs the sweep described by the environment instead of the tests.
const childEnv = "SCHEDLAB_SWEEP_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childSweep())
	}
	os.Exit(m.Run())
}

// childSweep runs the sweep of SWEEP_SPEC at SWEEP_LABEL into SWEEP_OUT on SWEEP_PARALLEL
// workers, with the cache SWEEP_CACHE if set; with SWEEP_START set, it first waits for that file
// to exist, so that several children start together.
func childSweep() int {
	if start := os.Getenv("SWEEP_START"); start != "" {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, err := os.Stat(start); err == nil {
				break
			}
		}
	}
	spec, err := experiments.LoadSpec(os.Getenv("SWEEP_SPEC"))
	if err == nil {
		var p *Plan
		if p, err = NewPlan(spec, os.Getenv("SWEEP_LABEL"), nil); err == nil {
			workers, _ := strconv.Atoi(os.Getenv("SWEEP_PARALLEL"))
			var r *Result
			if r, err = Run(context.Background(), p, Options{Out: os.Getenv("SWEEP_OUT"), Cache: os.Getenv("SWEEP_CACHE"), Parallel: workers}); err == nil {
				fmt.Printf("ran=%d cached=%d\n", r.Ran, r.Cached)
				return 0
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

func childCmd(t *testing.T, out, label string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "SWEEP_SPEC="+tinySpec, "SWEEP_LABEL="+label, "SWEEP_OUT="+out, "SWEEP_PARALLEL=2")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// finishedCells counts the cell directories (not temporaries or lock files, whose names start
// with a dot) in a cache.
func finishedCells(t *testing.T, cache string) int {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		n++
	}
	return n
}

// checkCellsComplete checks that every cell directory in a cache is complete: a killed sweep
// may leave temporaries and lock files but never a partial cell.
func checkCellsComplete(t *testing.T, cache string) {
	t.Helper()
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(cache, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, experiments.SummaryFile))
		var doc experiments.SummaryDoc
		if err != nil || json.Unmarshal(b, &doc) != nil {
			t.Errorf("cell %s is incomplete after a kill: %v", e.Name(), err)
		}
		for _, f := range []string{experiments.JobsFile, experiments.ConfigFile} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("cell %s: %s missing or empty after a kill", e.Name(), f)
			}
		}
	}
}

// TestKilledSweepResumes kills a sweep process with SIGKILL at several points — after a random
// number of cells has finished, and at random instants — resumes it each time, and checks that
// the final cells.parquet is byte-identical to an uninterrupted run's: no cell lost, none
// duplicated, no half-written cell counted.
func TestKilledSweepResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several sweep processes")
	}
	const label = "paper"
	p := plan(t, label)
	n := len(p.Cells)

	clean := t.TempDir()
	begin := time.Now()
	if out, err := childCmd(t, clean, label).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted sweep: %v\n%s", err, out)
	}
	full := time.Since(begin)
	want := readFile(t, filepath.Join(clean, CellsFile))

	dir := t.TempDir()
	cache := filepath.Join(dir, CacheDir)
	rng := rand.New(rand.NewPCG(2026, 11))
	kills := 0
	killAtRandomInstant := func() {
		cmd := childCmd(t, dir, label)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Within the first half of an uninterrupted run's duration, so the kill lands while cells
		// remain even when a warm process runs faster than the reference run (e.g. under -race).
		time.Sleep(time.Duration(rng.Int64N(int64(full)/2 + 1)))
		if cmd.Process.Kill() == nil {
			kills++
		}
		cmd.Wait()
		t.Logf("killed at a random instant: %d/%d finished", finishedCells(t, cache), n)
		checkCellsComplete(t, cache)
	}
	// killAfter kills the sweep as soon as k cells are finished.
	killAfter := func(k int) {
		cmd := childCmd(t, dir, label)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("sweep failed before the kill: %v\n%s", err, stderr.String())
				}
				t.Logf("the sweep finished before %d cells were observed", k)
				return
			default:
			}
			if finishedCells(t, cache) >= k {
				cmd.Process.Kill() // SIGKILL
				<-done
				kills++
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		got := finishedCells(t, cache)
		t.Logf("killed after %d cells: %d/%d finished", k, got, n)
		if got < k {
			t.Errorf("killed at %d cells but only %d remain", k, got)
		}
		checkCellsComplete(t, cache)
	}
	// The first kill is by progress, so it always lands early; the random instants come after.
	killAfter(1 + rng.IntN(max(1, n/4)))
	if finishedCells(t, cache) < n-1 {
		killAtRandomInstant()
	}
	for range 3 {
		if f := finishedCells(t, cache); f < n-1 {
			killAfter(f + 1 + rng.IntN(max(1, (n-f-1)/2)))
		}
	}
	if finishedCells(t, cache) < n-1 {
		killAtRandomInstant()
	}
	if kills < 3 {
		t.Errorf("only %d kills landed; the test did not interrupt the sweep", kills)
	}
	before := finishedCells(t, cache)
	if before == 0 || before > n {
		t.Errorf("%d finished cells after the kills, want 1..%d", before, n)
	}
	out, err := childCmd(t, dir, label).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed sweep: %v\n%s", err, out)
	}
	if wantLine := fmt.Sprintf("ran=%d cached=%d", n-before, before); !strings.Contains(string(out), wantLine) {
		t.Errorf("resumed sweep said %q, want %q (only the missing cells rerun)", strings.TrimSpace(string(out)), wantLine)
	}
	if got := readFile(t, filepath.Join(dir, CellsFile)); !bytes.Equal(got, want) {
		t.Errorf("cells.parquet after kills and resume differs from an uninterrupted run's")
		tb, err := ReadTable(filepath.Join(dir, CellsFile))
		if err == nil {
			t.Logf("resumed table has %d rows, want %d", len(tb.Rows), n)
		}
	}
	if got := finishedCells(t, cache); got != n {
		t.Errorf("%d cells in the cache, want %d", got, n)
	}
	for _, pattern := range []string{filepath.Join(dir, ".*.tmp-*"), filepath.Join(dir, OutLockFile), filepath.Join(cache, ".tmp-*"), filepath.Join(cache, ".lock-*")} {
		if left, _ := filepath.Glob(pattern); len(left) > 0 {
			t.Errorf("temporaries or lock files left after the resumed sweep: %v", left)
		}
	}
}
