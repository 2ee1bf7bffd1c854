package solver

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Benchmark models (all built deterministically in code, see models_test.go):
//
//	lp4000x2070   transportLP(1, 70, 2000, 2): sparse transportation LP, 70 sources,
//	              2,000 sinks, 2 arcs per sink: 4,000 columns × 2,070 rows, 8,000 nonzeros.
//	lp1000x525    transportLP(11, 25, 500, 2): 1,000 columns × 525 rows.
//	milp1860x790  tetriMIP(1, 310, 6, 40, 12): TetriSched-shaped placement MILP,
//	              1,860 binaries × 790 rows, solved to HiGHS's default 1e-4 gap.
var benchModels = []struct {
	name string
	mk   func() *Model
}{
	{"lp4000x2070", func() *Model { return transportLP(1, 70, 2000, 2) }},
	{"lp1000x525", func() *Model { return transportLP(11, 25, 500, 2) }},
	{"milp1860x790", func() *Model { return tetriMIP(1, 310, 6, 40, 12) }},
}

func reportStats(b *testing.B, stats []Stats) {
	var highs, over time.Duration
	var iters, nodes int64
	minHighs := time.Duration(1<<63 - 1)
	for _, s := range stats {
		minHighs = min(minHighs, s.SolverTime)
		highs += s.SolverTime
		over += s.Overhead()
		iters += s.SimplexIterations
		nodes += s.Nodes
	}
	n := float64(len(stats))
	b.ReportMetric(float64(highs.Microseconds())/1e3/n, "highs-ms/op")
	// The fastest solve is the figure least disturbed by other load on a
	// shared machine.
	b.ReportMetric(float64(minHighs.Microseconds())/1e3, "highs-min-ms")
	b.ReportMetric(float64(over.Nanoseconds())/1e3/n, "overhead-us/op")
	b.ReportMetric(float64(iters)/n, "iters/op")
	if nodes > 0 {
		b.ReportMetric(float64(nodes)/n, "nodes/op")
	}
}

// BenchmarkSolve solves each benchmark model repeatedly on one reused
// Solver (one wasm instance).
func BenchmarkSolve(b *testing.B) {
	needWasm(b)
	ctx := context.Background()
	for _, bm := range benchModels {
		b.Run("model="+bm.name, func(b *testing.B) {
			m := bm.mk()
			s, err := NewSolver(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Solve(ctx, m, Options{}); err != nil { // warm the instance's heap
				b.Fatal(err)
			}
			stats := make([]Stats, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := s.Solve(ctx, m, Options{})
				if err != nil || res.Status != StatusOptimal {
					b.Fatalf("%v %v", res, err)
				}
				stats = append(stats, res.Stats)
			}
			b.StopTimer()
			reportStats(b, stats)
		})
	}
}

// BenchmarkOverhead measures what this layer adds to HiGHS's own run time
// (Stats.Overhead: option setting, copying the model into wasm memory,
// Highs_passLp, reading back solution, duals and basis) for transportation
// LPs of the given size, on a reused instance.
func BenchmarkOverhead(b *testing.B) {
	needWasm(b)
	ctx := context.Background()
	for _, size := range []struct{ vars, sources int }{{100, 5}, {1000, 25}, {10000, 250}} {
		b.Run(fmt.Sprintf("vars=%d", size.vars), func(b *testing.B) {
			m := transportLP(11, size.sources, size.vars/2, 2)
			s, err := NewSolver(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Solve(ctx, m, Options{}); err != nil {
				b.Fatal(err)
			}
			var over time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := s.Solve(ctx, m, Options{})
				if err != nil {
					b.Fatal(err)
				}
				over += res.Stats.Overhead()
			}
			b.StopTimer()
			b.ReportMetric(float64(over.Nanoseconds())/1e3/float64(b.N), "overhead-us/op")
		})
	}
}

// BenchmarkFirstSolve measures what the first solve of a process costs:
// loading the compiled module (from wazero's on-disk cache when
// cache=warm, compiling from scratch when cache=off), creating an instance
// and solving the small check LP.
func BenchmarkFirstSolve(b *testing.B) {
	needWasm(b)
	ctx := context.Background()
	for _, cache := range []string{"warm", "off"} {
		b.Run("cache="+cache, func(b *testing.B) {
			if cache == "off" {
				b.Setenv(EnvCache, "off")
			} else if _, err := Load(ctx); err != nil { // make sure the cache is populated
				b.Fatal(err)
			}
			engineMu.Lock()
			orig := theEngine
			engineMu.Unlock()
			defer func() {
				engineMu.Lock()
				theEngine = orig
				engineMu.Unlock()
			}()
			m, _ := CheckLP()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				engineMu.Lock()
				theEngine = nil
				engineMu.Unlock()
				s, err := NewSolver(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Solve(ctx, m, Options{}); err != nil {
					b.Fatal(err)
				}
				s.Close()
				b.StopTimer()
				engineMu.Lock()
				theEngine.rt.Close(ctx)
				engineMu.Unlock()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkNewInstance measures instantiating highs.wasm and creating a
// Highs object (what a Pool pays per instance, once).
func BenchmarkNewInstance(b *testing.B) {
	needWasm(b)
	ctx := context.Background()
	e, err := getEngine(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		in, err := e.newInstance(ctx)
		if err != nil {
			b.Fatal(err)
		}
		in.close(ctx)
	}
}

// BenchmarkPool solves the 1,000-variable LP from parallel goroutines
// through a Pool of the given size.
func BenchmarkPool(b *testing.B) {
	needWasm(b)
	ctx := context.Background()
	m := transportLP(11, 25, 500, 2)
	for _, size := range []int{1, 2} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			p := NewPool(size)
			defer p.Close()
			b.SetParallelism(1)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := p.Solve(ctx, m, Options{}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// TestExportBenchmarkModels writes the benchmark models as MPS files to
// $SCHEDLAB_EXPORT_BENCH_MODELS (when set), for timing other solvers on
// exactly the same models.
func TestExportBenchmarkModels(t *testing.T) {
	dir := os.Getenv("SCHEDLAB_EXPORT_BENCH_MODELS")
	if dir == "" {
		t.Skip("set SCHEDLAB_EXPORT_BENCH_MODELS=DIR to export the benchmark models")
	}
	needWasm(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bm := range benchModels {
		f, err := os.Create(dir + "/" + bm.name + ".mps")
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteModel(context.Background(), f, bm.mk(), FormatMPS); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}
