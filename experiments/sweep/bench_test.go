package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/schedlab/schedlab/experiments"
)

// BenchmarkCellOverhead measures what the sweep adds to each cell besides the replay itself:
//
//	stage=plan    resolve the cell's configuration through viper and hash its cache key
//	stage=check   the cache lookup of a cell
//	stage=store   lock the cell, write its outputs (jobs.parquet, summary.json, config.yaml), rename
//	stage=gather  read the cell's summary back and add its row to cells.parquet
//	stage=total   a whole sweep whose cells are all cached (plan + check + gather + write)
//
// Each reports ms/cell; the budget is 5 ms per cell in total.
func BenchmarkCellOverhead(b *testing.B) {
	spec := loadTiny(b)
	b.Run("stage=plan", func(b *testing.B) {
		var cells int
		for b.Loop() {
			p, err := NewPlan(spec, "paper", nil)
			if err != nil {
				b.Fatal(err)
			}
			cells += len(p.Cells)
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(cells), "ms/cell")
	})
	p, err := NewPlan(spec, "paper", nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := Run(context.Background(), p, Options{Out: dir, Parallel: 2}); err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(dir, CacheDir)
	b.Run("stage=check", func(b *testing.B) {
		var cells int
		for b.Loop() {
			for i := range p.Cells {
				if !cached(cache, p.Cells[i].Key) {
					b.Fatal("not cached")
				}
				cells++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(cells), "ms/cell")
	})
	b.Run("stage=store", func(b *testing.B) {
		c := &p.Cells[0]
		w, hash, err := p.acquire(c.Config.Workload)
		if err != nil {
			b.Fatal(err)
		}
		o, err := experiments.RunHashed(c.Config, w, hash)
		if err != nil {
			b.Fatal(err)
		}
		store := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			key := fmt.Sprintf("%064x", i)
			l, ok, err := tryLock(cellLockPath(store, key))
			if err != nil || !ok {
				b.Fatal(err, ok)
			}
			err = publishCell(store, key, o.WriteOutputs)
			l.Unlock()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(i), "ms/cell")
	})
	b.Run("stage=gather", func(b *testing.B) {
		cells := shardRows(p, Shard{})
		n := 0
		for b.Loop() {
			if _, err := buildTable(p.Spec.ID, p.Label, p.Columns, cells, []string{cache}); err != nil {
				b.Fatal(err)
			}
			n += len(cells)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(n), "ms/cell")
	})
	b.Run("stage=total", func(b *testing.B) {
		n := 0
		for b.Loop() {
			q, err := NewPlan(spec, "paper", nil)
			if err != nil {
				b.Fatal(err)
			}
			r, err := Run(context.Background(), q, Options{Out: dir, Parallel: 1})
			if err != nil || r.Ran != 0 {
				b.Fatal(err, r.Ran)
			}
			n += len(q.Cells)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(n), "ms/cell")
	})
}

// BenchmarkSweep runs the demo spec's paper sweep (36 replays of the embedded 399-job TPC-H
// workload, CPU-bound) from an empty cache with 1 and 2 workers; compare the ns/op (or
// cells/s) of workers=1 and workers=2 for the parallel speedup.
func BenchmarkSweep(b *testing.B) {
	spec, err := experiments.LoadSpec("demo/policies")
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPlan(spec, "paper", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("spec=demo/workers=%d", workers), func(b *testing.B) {
			var cells int
			var busy time.Duration
			for b.Loop() {
				dir, err := os.MkdirTemp(b.TempDir(), "sweep")
				if err != nil {
					b.Fatal(err)
				}
				r, err := Run(context.Background(), p, Options{Out: dir, Parallel: workers})
				if err != nil {
					b.Fatal(err)
				}
				cells += r.Ran
				busy += r.Elapsed
			}
			b.ReportMetric(float64(cells)/busy.Seconds(), "cells/s")
		})
	}
}

// BenchmarkQuickSweep runs a 1,000-cell quick sweep of cheap cells (testdata/thousand.yaml: 12
// TPC-H DAGs per cell) from an empty cache with 1 and 2 workers, planning included, as
// `schedlab sweep` does after start-up (GOGC 400 unless GOGC is set). It reports cells/s and
// wall ms per cell; the replay's own CPU ms per cell (the cells' cost.json); the process's CPU
// (user, and system for the file operations) per cell; and the overhead per cell, CPU minus
// replay, which other load on the machine hardly changes. workers=2 also reports its speedup
// over workers=1 in the same run (x-vs-1-worker), which needs a quiet machine to mean anything.
func BenchmarkQuickSweep(b *testing.B) {
	spec, err := experiments.LoadSpec("testdata/thousand.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("GOGC") == "" { // as `schedlab sweep` does (cmd/schedlab: tuneGC)
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	// The sweeps' directories are removed when the whole benchmark ends, not between its sweeps:
	// on ext4 without a journal, inodes deleted in the last minute slow every file creation in
	// their block group (see doCell), so deleting one sweep's 8,000 files would bill the next
	// sweep (workers=2 after workers=1) for them.
	parent := b.TempDir()
	var rate1 float64
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("cells=1000/workers=%d", workers), func(b *testing.B) {
			var cells int
			var wall, user, sys time.Duration
			var replayCPU float64
			for b.Loop() {
				dir, err := os.MkdirTemp(parent, "sweep")
				if err != nil {
					b.Fatal(err)
				}
				u0, s0 := processCPU(b)
				begin := time.Now()
				p, err := NewPlan(spec, "quick", nil)
				if err != nil {
					b.Fatal(err)
				}
				r, err := Run(context.Background(), p, Options{Out: dir, Parallel: workers})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(begin)
				u1, s1 := processCPU(b)
				user, sys = user+u1-u0, sys+s1-s0
				cells += r.Ran
				b.StopTimer()
				replayCPU += replaySeconds(b, filepath.Join(dir, CacheDir), p)
				b.StartTimer()
			}
			if cells == 0 {
				b.Fatal("no cells ran")
			}
			per := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(cells) }
			rate := float64(cells) / wall.Seconds()
			replay := replayCPU * 1000 / float64(cells)
			b.ReportMetric(rate, "cells/s")
			b.ReportMetric(per(wall), "wall-ms/cell")
			b.ReportMetric(replay, "replay-ms/cell")
			b.ReportMetric(per(user), "user-ms/cell")
			b.ReportMetric(per(sys), "sys-ms/cell")
			b.ReportMetric(per(user+sys)-replay, "overhead-ms/cell")
			if workers == 1 {
				rate1 = rate
			} else if rate1 > 0 {
				b.ReportMetric(rate/rate1, "x-vs-1-worker")
			}
		})
	}
}

// replaySeconds sums the replay CPU seconds the plan's cells recorded in their cost.json.
func replaySeconds(b *testing.B, cache string, p *Plan) float64 {
	var sum float64
	for _, c := range p.Cells {
		data, err := os.ReadFile(filepath.Join(CellDir(cache, c.Key), CostFile))
		if err != nil {
			b.Fatal(err)
		}
		var cc cellCost
		if err := json.Unmarshal(data, &cc); err != nil {
			b.Fatal(err)
		}
		sum += cc.CPUSeconds
	}
	return sum
}
