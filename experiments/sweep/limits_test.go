package sweep

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
)

// TestPlanRefusesAbsurdSizes plans the crafted specs under testdata/limits: each is refused with
// a configuration error naming the file, the cell count and the limit, quickly and without
// allocating for the cells (they would need terabytes).
func TestPlanRefusesAbsurdSizes(t *testing.T) {
	tests := []struct {
		file, label string
		max         int
		want        string // "" plans
	}{
		{"testdata/limits/seeds-trillion.yaml", "paper", 0, "the sweep has 2,000,000,000,000 cells (policy.name 2 × 1,000,000,000,000 seeds), over the limit of 100,000"},
		{"testdata/limits/axes-10x10.yaml", "paper", 0, "the sweep has 10,000,000,000 cells (engine.cycle_s 10 × engine.preempt_delay_s 10 ×"},
		{"testdata/limits/label-seeds.yaml", "paper", 0, "the sweep has more than 9,223,372,036,854,775,807 cells (policy.name 2 × 4,611,686,018,427,387,904 seeds)"},
		{"testdata/limits/label-seeds.yaml", "quick", 0, ""},
		{tinySpec, "paper", 11, "the sweep has 12 cells (policy.name 3 × workload.machines+engine.cycle_s 2 × 2 seeds), over the limit of 11"},
		{tinySpec, "paper", 12, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.label, func(t *testing.T) {
			spec, err := experiments.LoadSpec(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := NewPlanWith(spec, tt.label, nil, PlanOptions{MaxCells: tt.max})
			runtime.ReadMemStats(&after)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Cells) == 0 {
					t.Error("no cells")
				}
				return
			}
			if err == nil || !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.file) {
				t.Fatalf("error = %v\nwant a config error naming %s and containing %q", err, tt.file, tt.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("refusing the plan allocated %d bytes", grew)
			}
		})
	}
}
