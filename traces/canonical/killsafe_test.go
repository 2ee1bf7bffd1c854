package canonical

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
)

// The kill test re-executes the test binary as a writer that is killed: with childEnv set to
// "OUT|TEMPDIR", TestMain starts a sorting Writer for OUT (runs in TEMPDIR, "" for beside OUT),
// spills runs, prints "spilled" and waits.
const childEnv = "CANONICAL_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		out, tempDir, _ := strings.Cut(spec, "|")
		w := randomWorkload(rand.New(rand.NewPCG(21, 22)), 600)
		cw, err := NewWriter(out, MetaOf(w), WithSortBySubmit(0, tempDir))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cw.cfg.runBytes = 3 << 10
		for i := range w.Jobs {
			if err := cw.Append(&w.Jobs[i]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		fmt.Printf("spilled %d\n", len(cw.runs))
		select {} // until killed
	}
	os.Exit(m.Run())
}

// listAll lists a directory tree's paths relative to it.
func listAll(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestKilledWriterLeavesNoDebris kills (SIGKILL) a sorting writer that has spilled runs — beside
// its output and in a separate temporary directory — and checks that what it left (the partial
// output and the run files, as a Google import leaves tens of MB of them) is removed by the next
// writer into the same directory, which then finishes with nothing else beside its file.
func TestKilledWriterLeavesNoDebris(t *testing.T) {
	for _, separate := range []bool{false, true} {
		t.Run(fmt.Sprintf("separate-temp-dir=%v", separate), func(t *testing.T) {
			dir, tempDir := t.TempDir(), ""
			if separate {
				tempDir = t.TempDir()
			}
			out := filepath.Join(dir, "month.parquet")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+out+"|"+tempDir)
			cmd.Stderr = os.Stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "spilled") || line == "spilled 0\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %q, %v", line, err)
			}
			cmd.Process.Kill()
			cmd.Wait()
			debris := append(listAll(t, dir), listAll(t, tempDir)...)
			runs := 0
			for _, p := range debris {
				if strings.HasPrefix(filepath.Base(p), "run") {
					runs++
				}
			}
			if runs == 0 {
				t.Fatalf("the killed writer left no run files to clean (%v): the test checks nothing", debris)
			}
			w := randomWorkload(rand.New(rand.NewPCG(1, 2)), 50)
			cw, err := NewWriter(out, MetaOf(w), WithSortBySubmit(0, tempDir))
			if err != nil {
				t.Fatal(err)
			}
			for i := range w.Jobs {
				cw.Append(&w.Jobs[i])
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			if got := listAll(t, dir); len(got) != 1 || got[0] != "month.parquet" {
				t.Errorf("after the next import the directory holds %v (the killed one left %v)", got, debris)
			}
			if separate {
				if got := listAll(t, tempDir); len(got) != 0 {
					t.Errorf("the temporary directory holds %v", got)
				}
			}
		})
	}
}

// TestWriterOnFullDisk writes a workload into tmpfs file systems too small for it, filling up at
// different points — while spilling sort runs, while merging them, while streaming record batches
// to the Arrow and Parquet writers, in their footers: Append or Close fails with an error that
// says the disk is full (never a panic of the Arrow writers), and nothing is left behind, neither
// a partial output nor a work directory.
func TestWriterOnFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts file systems")
	}
	w := randomWorkload(rand.New(rand.NewPCG(5, 6)), 3000)
	for _, ext := range []string{"parquet", "arrow"} {
		for _, tc := range []struct {
			sorted bool
			kib    []int
		}{{true, []int{4, 64, 1024}}, {false, []int{4, 12, 32, 64, 96}}} {
			for _, kib := range tc.kib {
				t.Run(fmt.Sprintf("%s/sorted=%v/%dKiB", ext, tc.sorted, kib), func(t *testing.T) {
					mnt := testutil.MountTmpfs(t, kib<<10)
					path := filepath.Join(mnt, "w."+ext)
					err := func() error {
						var opts []Option
						if tc.sorted {
							opts = append(opts, WithSortBySubmit(0, ""))
						}
						cw, err := NewWriter(path, MetaOf(w), append(opts, WithBatchRows(256))...)
						if err != nil {
							return err
						}
						cw.cfg.runBytes = 8 << 10
						for i := range w.Jobs {
							if err := cw.Append(&w.Jobs[i]); err != nil {
								return err
							}
						}
						return cw.Close()
					}()
					if err == nil {
						t.Fatalf("%d jobs fit in %d KiB", len(w.Jobs), kib)
					}
					if !strings.Contains(err.Error(), "no space left on device") {
						t.Errorf("error does not say the disk is full: %v", err)
					}
					t.Logf("%d KiB: %v", kib, err)
					if got := listAll(t, mnt); len(got) != 0 {
						t.Errorf("left %v", got)
					}
				})
			}
		}
	}
}
