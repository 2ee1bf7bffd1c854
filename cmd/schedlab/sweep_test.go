package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments/sweep"
)

// The sweep tests run the sweep package's small test spec on its 30-job workload.
const (
	tinySpec     = "../../experiments/sweep/testdata/tiny.yaml"
	tinyWorkload = "workload.name=../../experiments/sweep/testdata/tiny-tpch.txt"
)

func TestSweepCommandShardsAndGathers(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	out, errOut, code := runBuilt(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", whole, "--parallel", "2")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "sweep tiny (label quick, shard all): 8 cells (8 run, 0 cached)") || !strings.Contains(out, "sweep: 8 cells, 0 cached, 8 to run") {
		t.Errorf("output:\n%s", out)
	}
	// Rerun: everything cached.
	out, _, code = runBuilt(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", whole)
	if code != 0 || !strings.Contains(out, "8 cells (0 run, 8 cached)") {
		t.Errorf("rerun: exit %d\n%s", code, out)
	}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(dir, "shard-"+s[:1])
		out, errOut, code := runBuilt(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", d, "--shard", s)
		if code != 0 || !strings.Contains(out, "4 cells (4 run, 0 cached)") {
			t.Fatalf("shard %s: exit %d\n%s%s", s, code, out, errOut)
		}
		shards = append(shards, d)
	}
	g := filepath.Join(dir, "gathered")
	out, errOut, code = runBuilt(t, append([]string{"sweep", "--gather", "--out", g}, shards...)...)
	if code != 0 || !strings.Contains(out, "gathered 2 shards: 8 cells") {
		t.Fatalf("gather: exit %d\n%s%s", code, out, errOut)
	}
	a, _ := os.ReadFile(filepath.Join(whole, sweep.CellsFile))
	b, _ := os.ReadFile(filepath.Join(g, sweep.CellsFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("gathered cells.parquet differs from the unsharded sweep's")
	}
}

func TestSweepEmit(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{"slurm", "k8s"} {
		out, errOut, code := runCLI(t, "sweep", "demo/policies", "--label", "quick", "--emit", target, "--shards", "3", "--out", dir, "--image", "reg.example/schedlab:1", "--claim", "lab-results")
		if code != 0 || !strings.Contains(out, "3 shards of 12 cells; slowest shard / mean 1.00 by cost") {
			t.Errorf("emit %s: exit %d\n%s%s", target, code, out, errOut)
		}
	}
	for _, f := range []string{"schedlab-demo-policies.slurm", "schedlab-demo-policies-gather.slurm", "schedlab-demo-policies-job.yaml", "schedlab-demo-policies-gather-job.yaml"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Contains(b, []byte("demo/policies")) {
			t.Errorf("%s: %v", f, err)
		}
	}
	job, _ := os.ReadFile(filepath.Join(dir, "schedlab-demo-policies-job.yaml"))
	if !bytes.Contains(job, []byte(`image: "reg.example/schedlab:1"`)) || !bytes.Contains(job, []byte(`claimName: "lab-results"`)) {
		t.Errorf("--image or --claim not in the Job:\n%s", job)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("left in the output directory: %v", left)
	}
}

func TestSweepBalance(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runBuilt(t, "sweep", tinySpec, "--set", tinyWorkload, "--out", dir, "--parallel", "2"); code != 0 {
		t.Fatalf("sweep: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := runBuilt(t, "sweep", tinySpec, "--set", tinyWorkload, "--out", dir, "--balance", "--shards", "3")
	if code != 0 {
		t.Fatalf("balance: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"tiny (label paper): 12 cells in 3 shards; costs estimated", "shard  cells  cost share  measured s  measured cells",
		"slowest shard / mean: 1.00 by cost, ", "by measured time (12 of 12 cells measured in "} {
		if !strings.Contains(out, want) {
			t.Errorf("balance output lacks %q:\n%s", want, out)
		}
	}
	// Balancing by the measured costs of that run.
	out, errOut, code = runBuilt(t, "sweep", tinySpec, "--set", tinyWorkload, "--out", dir, "--balance", "--shards", "3", "--costs", dir)
	if code != 0 || !strings.Contains(out, "costs measured in "+dir+" (12 of 12 cells run there") {
		t.Errorf("balance --costs: exit %d\n%s%s", code, out, errOut)
	}
}

func TestSweepUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown spec exits 2", []string{"sweep", "no/such"}, "no such spec"},
		{"a bad shard exits 2", []string{"sweep", "demo/policies", "--shard", "3/3"}, "want i/n"},
		{"an unknown label exits 2", []string{"sweep", "demo/policies", "--label", "huge"}, "no label \"huge\""},
		{"a bad set exits 2", []string{"sweep", "demo/policies", "--set", "policy.name=nosuch"}, "not among its values"},
		{"gather without directories exits 2", []string{"sweep", "--gather", "--out", "x"}, "needs the shard directories"},
		{"gather without out exits 2", []string{"sweep", "--gather", "a"}, "needs --out"},
		{"an unknown emit target exits 2", []string{"sweep", "demo/policies", "--emit", "pbs", "--out", "x"}, "want slurm or k8s"},
		{"no spec exits 2", []string{"sweep"}, "accepts 1 arg"},
		{"--parallel 0 exits 2", []string{"sweep", "demo/policies", "--parallel", "0"}, "--parallel 0: want at least 1"},
		{"--parallel -1 exits 2", []string{"sweep", "demo/policies", "--parallel", "-1"}, "--parallel -1: want at least 1"},
		{"--max-cells 0 exits 2", []string{"sweep", "demo/policies", "--max-cells", "0"}, "--max-cells 0: want at least 1"},
		{"--shards 0 exits 2", []string{"sweep", "demo/policies", "--emit", "slurm", "--shards", "0"}, "--shards 0: want at least 1"},
		{"a billion shards to emit exit 2", []string{"sweep", "demo/policies", "--emit", "slurm", "--shards", "1000000000", "--out", "x"}, "--shards 1000000000: 1000000000 shards for a sweep of 36 cells; want at most one shard per cell (1..36)"},
		{"a billion shards to balance exit 2", []string{"sweep", "demo/policies", "--balance", "--shards", "1000000000"}, "--shards 1000000000: 1000000000 shards for a sweep of 36 cells"},
		{"a shard of a billion exits 2", []string{"sweep", "demo/policies", "--shard", "5/1000000000", "--out", "x"}, "--shard 5/1000000000: 1000000000 shards for a sweep of 36 cells"},
		{"a trillion seeds exit 2", []string{"sweep", "../../experiments/sweep/testdata/limits/seeds-trillion.yaml"}, "the sweep has 2,000,000,000,000 cells"},
		{"ten axes of ten values exit 2", []string{"sweep", "../../experiments/sweep/testdata/limits/axes-10x10.yaml"}, "over the limit of 100,000"},
		{"a sweep over --max-cells exits 2", []string{"sweep", "demo/policies", "--max-cells", "10"}, "over the limit of 10;"},
		{"--costs without a sweep exits 2", []string{"sweep", "demo/policies", "--balance", "--costs", "."}, "--costs: open sweep.json"},
		{"a k8s cache off the volume exits 2", []string{"sweep", "demo/policies", "--emit", "k8s", "--out", "/nonexistent/x", "--cache", "/var/cache"}, "not under --out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runBuilt(t, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// TestSweepOneCellIsSingular: a one-cell sweep and its gather say "1 cell", not "1 cells".
func TestSweepOneCellIsSingular(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	args := []string{"sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--set", "policy.name=fifo", "--set", "workload.machines=3", "--set", "seed=1"}
	out, errOut, code := runCLI(t, append(args, "--out", one)...)
	if code != 0 || !strings.Contains(out, "sweep: 1 cell, 0 cached, 1 to run") || !strings.Contains(out, "sweep: 1/1 cell (0 cached)") ||
		!strings.Contains(out, "1 cell (1 run, 0 cached)") || strings.Contains(out, "1 cells") {
		t.Errorf("one-cell sweep: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "sweep", "--gather", one, "--out", filepath.Join(dir, "gathered"))
	if code != 0 || !strings.Contains(out, "gathered 1 shard: 1 cell →") {
		t.Errorf("gather: exit %d\n%s%s", code, out, errOut)
	}
}
