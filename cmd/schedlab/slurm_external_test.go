//go:build linux

package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
)

// TestSlurmArrayRunsExternalCells runs a sweep whose cells include an external scheduler (the
// Python srpt port, named by its repository path) as a Slurm array of two shards: the jobs run
// in the output directory, not the repository, so the scheduler's script must be found from
// there. The gathered cells.parquet must be byte-identical to a local sweep's, and each external
// cell's average JCT equal to the built-in srpt's of the same seed.
func TestSlurmArrayRunsExternalCells(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3: make setup installs it")
	}
	c, bin := slurmForSchedlab(t)
	specPath, _ := filepath.Abs("../../policies/external/testdata/sweep.yaml")
	spec, err := experiments.LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"sweep", specPath, "--label", "quick"}
	out := filepath.Join(c.dir, "results")
	jobLogs := c.sweep(t, bin, spec.ID, args, out, 2)

	c.sameAsLocal(t, args, out, jobLogs)
	tb, err := sweep.ReadTable(filepath.Join(out, sweep.CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	jct := map[string]map[int64]string{}
	for i := range tb.Rows {
		r := &tb.Rows[i]
		name, _ := tb.Value(r, "policy.name")
		v, ok := tb.Value(r, "avg_jct_s")
		if !ok {
			t.Fatal("no avg_jct_s in the gathered cells")
		}
		if jct[name] == nil {
			jct[name] = map[int64]string{}
		}
		jct[name][r.Seed] = v
	}
	if len(jct["external"]) != 2 || len(jct["srpt"]) != 2 {
		t.Fatalf("gathered cells by policy and seed: %v; want 2 seeds each of external and srpt", jct)
	}
	for seed, w := range jct["srpt"] {
		if g := jct["external"][seed]; g != w {
			t.Errorf("seed %d: external avg_jct_s %s, built-in srpt %s", seed, g, w)
		}
	}
}
