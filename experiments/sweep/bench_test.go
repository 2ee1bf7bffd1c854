package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
