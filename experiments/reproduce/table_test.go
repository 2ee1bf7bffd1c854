package reproduce

import (
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/sweep"
	"github.com/schedlab/schedlab/replay"
)

// TestPolicyTableMetric reads table.<name>.<column> from a table a policy wrote into each cell:
// every row of every selected cell, in a figure and in a claim, with a clear error for a cell
// without the table or a table without the column.
func TestPolicyTableMetric(t *testing.T) {
	d := synthData(t)
	// A table "events" in every cell: three rows whose jct_s are 1, 2, 3 (written in the
	// jobs.parquet format, which is as good a Parquet file as any).
	for _, r := range d.t.Rows {
		jobs := []replay.JobRecord{{Completed: true, Finish: 1e6, Tasks: 1}, {Completed: true, Finish: 2e6, Tasks: 1}, {Completed: true, Finish: 3e6, Tasks: 1}}
		path := filepath.Join(sweep.CellDir(d.cache, r.Key), "events.parquet")
		if err := sweep.WriteFileAtomic(path, func(w io.Writer) error { return experiments.WriteJobs(w, jobs) }); err != nil {
			t.Fatal(err)
		}
	}
	fig := &experiments.Figure{ID: "t", Kind: experiments.KindCCDF, Y: []string{"table.events.jct_s"}}
	v, err := d.values(fig, d.t.Rows[:2], "table.events.jct_s")
	if err != nil || !slices.Equal(v, []float64{1, 2, 3, 1, 2, 3}) {
		t.Fatalf("values = %v, %v", v, err)
	}
	if b, err := d.build(fig); err != nil || b.fig == nil {
		t.Fatalf("build: %v", err)
	}
	if got := d.axisLabel("table.events.wall_ms"); got != "wall time [ms]" {
		t.Errorf("label %q, want wall time [ms]", got)
	}
	if _, err := d.values(fig, d.t.Rows[:1], "table.events.nope"); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("missing column: %v", err)
	}
	if _, err := d.values(fig, d.t.Rows[:1], "table.missing.x"); !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), `no policy table "missing"`) {
		t.Errorf("missing table: %v", err)
	}
	if _, err := d.values(fig, d.t.Rows[:1], "table.events"); err == nil || !strings.Contains(err.Error(), "unknown metric") {
		t.Errorf("malformed: %v", err)
	}
}
