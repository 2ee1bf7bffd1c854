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
	out, errOut, code := runCLI(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", whole, "--parallel", "2")
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "sweep tiny (label quick, shard all): 8 cells (8 run, 0 cached)") || !strings.Contains(out, "sweep: 8 cells, 0 cached, 8 to run") {
		t.Errorf("output:\n%s", out)
	}
	// Rerun: everything cached.
	out, _, code = runCLI(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", whole)
	if code != 0 || !strings.Contains(out, "8 cells (0 run, 8 cached)") {
		t.Errorf("rerun: exit %d\n%s", code, out)
	}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(dir, "shard-"+s[:1])
		out, errOut, code := runCLI(t, "sweep", tinySpec, "--label", "quick", "--set", tinyWorkload, "--out", d, "--shard", s)
		if code != 0 || !strings.Contains(out, "4 cells (4 run, 0 cached)") {
			t.Fatalf("shard %s: exit %d\n%s%s", s, code, out, errOut)
		}
		shards = append(shards, d)
	}
	g := filepath.Join(dir, "gathered")
	out, errOut, code = runCLI(t, append([]string{"sweep", "--gather", "--out", g}, shards...)...)
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
		out, errOut, code := runCLI(t, "sweep", "demo/policies", "--label", "quick", "--emit", target, "--shards", "3", "--out", dir)
		if code != 0 || !strings.Contains(out, "3 shards of 12 cells") {
			t.Errorf("emit %s: exit %d\n%s%s", target, code, out, errOut)
		}
	}
	for _, f := range []string{"schedlab-demo-policies.slurm", "schedlab-demo-policies-job.yaml"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Contains(b, []byte("demo/policies")) {
			t.Errorf("%s: %v", f, err)
		}
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}
