package milp

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/solver"
)

var (
	dumped = flag.String("milps", "", "BenchmarkDumpedMILPs: directory of *.problem files (jvusched's BenchmarkEXP1 -jvdump)")
	tuning = flag.String("tuning", "", "BenchmarkDumpedMILPs: variants to time against the default, ';'-separated, "+
		"each ','-separated HiGHS name=value (a value with '.' or 'e' is a float, true/false a bool, digits an int)")
)

var highsLog = flag.Bool("highslog", false, "BenchmarkDumpedMILPs: log HiGHS's output of every solve")

// parseTuning reads one -tuning variant: "mip_detect_symmetry=false,mip_heuristic_effort=0.2".
func parseTuning(s string) ([]solver.Setting, error) {
	var out []solver.Setting
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("tuning %q: want name=value", kv)
		}
		var val any = v
		if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
			val = b
		} else if i, err := strconv.Atoi(v); err == nil {
			val = i
		} else if f, err := strconv.ParseFloat(v, 64); err == nil {
			val = f
		}
		out = append(out, solver.Setting{Name: k, Value: val})
	}
	return out, nil
}

// BenchmarkDumpedMILPs solves a directory of dumped jvusched problems as jvusched does (proven
// optimum, MIPGap 1e-9), once with the default options and once per -tuning variant, and reports
// each variant's CPU time (total, p50, max, and total ÷ the default's) and how many optima
// differ from the default's: another objective value or another set of chosen leaves.
//
//	go test -run '^$' -bench BenchmarkDumpedMILPs -benchtime 1x -cpu 1 ./policies/jvusched/milp/ \
//	  -milps /tmp/dump -tuning 'mip_detect_symmetry=false;presolve=off'
func BenchmarkDumpedMILPs(b *testing.B) {
	if *dumped == "" {
		b.Skip("no -milps directory")
	}
	solvertest.Need(b)
	files, err := filepath.Glob(filepath.Join(*dumped, "*.problem"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no problems in %s (%v)", *dumped, err)
	}
	slices.Sort(files)
	progs := make([]*Program, len(files))
	for i, f := range files {
		if progs[i], err = Compile(readProblem(b, f), Options{Name: "dumped"}); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
	}
	s, err := solver.NewSolver(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	variants := [][]solver.Setting{nil}
	if *tuning != "" {
		for _, v := range strings.Split(*tuning, ";") {
			set, err := parseTuning(v)
			if err != nil {
				b.Fatal(err)
			}
			variants = append(variants, set)
		}
	}
	type outcome struct {
		obj    float64
		chosen []int
		cpu    time.Duration
		nodes  int64
		iters  int64
	}
	var base []outcome
	var baseTotal time.Duration
	for _, v := range variants {
		name := "tuning=default"
		if v != nil {
			parts := make([]string, len(v))
			for i, st := range v {
				parts[i] = st.String()
			}
			name = "tuning=" + strings.Join(parts, "+")
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				outs := make([]outcome, len(progs))
				for i, prog := range progs {
					c0 := testutil.CPUTime()
					opts := solver.Options{MIPGap: 1e-9, Tuning: v}
					if *highsLog {
						opts.Log = os.Stderr
					}
					res, err := s.Solve(context.Background(), prog.Model, opts)
					cpu := testutil.CPUTime() - c0
					if err != nil {
						b.Fatalf("%s: %v", files[i], err)
					}
					if res.Status != solver.StatusOptimal {
						b.Fatalf("%s: status %s", files[i], res.Status)
					}
					o := outcome{obj: res.Objective, cpu: cpu, nodes: res.Stats.Nodes, iters: res.Stats.SimplexIterations}
					for li, l := range prog.Leaves {
						if res.Values[l.Ind] > 0.5 {
							o.chosen = append(o.chosen, li)
						}
					}
					outs[i] = o
				}
				var total time.Duration
				var nodes, iters int64
				cpus := make([]float64, len(outs))
				for i, o := range outs {
					total += o.cpu
					nodes += o.nodes
					iters += o.iters
					cpus[i] = float64(o.cpu.Microseconds()) / 1000
				}
				slices.Sort(cpus)
				differ := 0
				if base == nil {
					base, baseTotal = outs, total
				} else {
					for i, o := range outs {
						if math.Abs(o.obj-base[i].obj) > 1e-9*math.Max(1, math.Abs(o.obj)) || !slices.Equal(o.chosen, base[i].chosen) {
							differ++
							b.Logf("%s: objective %v (default %v), chosen %v (default %v)", filepath.Base(files[i]), o.obj, base[i].obj, o.chosen, base[i].chosen)
						}
					}
				}
				b.ReportMetric(float64(total.Microseconds())/1000, "cpu-total-ms")
				b.ReportMetric(cpus[len(cpus)/2], "cpu-p50-ms")
				b.ReportMetric(cpus[len(cpus)-1], "cpu-max-ms")
				b.ReportMetric(total.Seconds()/baseTotal.Seconds(), "cpu-vs-default")
				b.ReportMetric(float64(differ), "optima-differ")
				b.ReportMetric(float64(nodes), "nodes")
				b.ReportMetric(float64(iters), "simplex-iters")
			}
		})
	}
}
