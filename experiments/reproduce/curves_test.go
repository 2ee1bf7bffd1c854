package reproduce

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/report"
)

// TestDistributionCurves draws a ccdf figure with several metrics on y: one curve per metric
// and series value, named by the legend (or the metric) and the series, each with the values of
// its own metric, and the SVG shows every curve's name in its legend.
func TestDistributionCurves(t *testing.T) {
	d := synthData(t)
	fig := &experiments.Figure{ID: "curves", Kind: experiments.KindCCDF, Y: []string{"job.jct_s", "avg_jct_s"},
		Legend: []string{"per job", "per cell"}, Series: "policy.name"}
	b, err := d.build(fig)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	counts := map[string]int{}
	for _, ds := range b.fig.Dists {
		labels = append(labels, ds.Label)
		counts[ds.Label] = len(ds.Values)
	}
	want := []string{"per job, fifo", "per job, drf", "per cell, fifo", "per cell, drf"}
	if !slices.Equal(labels, want) {
		t.Fatalf("curves %q, want %q", labels, want)
	}
	// 4 cells per policy, 5 jobs each.
	if counts["per job, fifo"] != 20 || counts["per cell, drf"] != 4 {
		t.Errorf("values per curve = %v, want 20 jobs and 4 cells", counts)
	}
	if b.fig.Kind != report.KindCCDF || b.fig.XLabel != "value [s]" {
		t.Errorf("kind %v, x label %q; want a ccdf of value [s]", b.fig.Kind, b.fig.XLabel)
	}
	var svg bytes.Buffer
	if err := b.fig.Encode(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, l := range want {
		if !strings.Contains(svg.String(), l) {
			t.Errorf("the SVG does not name the curve %q", l)
		}
	}

	// Without a legend, several metrics are named by their metrics' human names; one metric by
	// the series.
	fig = &experiments.Figure{ID: "plain", Kind: experiments.KindCDF, Y: []string{"job.jct_s", "avg_jct_s"}, Where: map[string][]string{"policy.name": {"drf"}}}
	if b, err = d.build(fig); err != nil {
		t.Fatal(err)
	}
	if got := []string{b.fig.Dists[0].Label, b.fig.Dists[1].Label}; !slices.Equal(got, []string{"JCT (s)", "avg JCT (s)"}) {
		t.Errorf("curves without a legend: %q", got)
	}
	fig = &experiments.Figure{ID: "one", Kind: experiments.KindCDF, Y: []string{"avg_jct_s"}, Series: "policy.name"}
	if b, err = d.build(fig); err != nil {
		t.Fatal(err)
	}
	if got := []string{b.fig.Dists[0].Label, b.fig.Dists[1].Label}; !slices.Equal(got, []string{"fifo", "drf"}) || b.fig.XLabel != "avg JCT [s]" {
		t.Errorf("one metric: curves %q, x label %q", got, b.fig.XLabel)
	}
}
